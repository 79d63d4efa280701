/* optimizer/onnx/import_dims.c: named input dimensions as a command line gives them (import.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"

rg_status rg_import_dims_add(rg_import_dims *d, const char *arg, rg_err *err) {
  const char *eq = strchr(arg, '=');
  char *end = NULL;
  errno = 0;
  long long v = eq && eq[1] ? strtoll(eq + 1, &end, 10) : 0;
  if (!eq || eq == arg || d->n == RG_IMPORT_MAX_DIMS || !end || errno || *end || v < 1 || v > RG_MAX_DIM)
    return rg_err_set(err, RG_ERR_ARG, "--dim wants NAME=N (N from 1 to %d), not '%s'%s", RG_MAX_DIM, arg,
                      strchr(arg, ',') ? ": one dimension per --dim (--dim N=1 --dim S=128)" : "");
  snprintf(d->name[d->n], sizeof d->name[d->n], "%.*s", (int)(eq - arg), arg);
  d->ptr[d->n] = d->name[d->n], d->value[d->n] = v;
  d->n++;
  return RG_OK;
}

rg_import_opts rg_import_dims_opts(const rg_import_dims *d) {
  return (rg_import_opts){d ? d->n : 0, d ? d->ptr : NULL, d ? d->value : NULL};
}
