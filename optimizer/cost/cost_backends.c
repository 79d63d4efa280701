/* optimizer/cost/cost_backends.c: the table of built-in cost models. Adding one is a new file with
 * its open function (declared in cost_internal.h) and a row here; rg_cost_model_open and
 * graphopt's --cost choices and help read this table. */
#include "cost_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const rg_cost_backend backends[] = {
    {"roofline", "analytic: max(FLOPs / peak, bytes / bandwidth) + overhead (the default)",
     false, rg_cost_roofline_open},
    {"dnnl", "oneDNN's CPU primitives, each configuration timed once (cached)", true,
     rg_cost_dnnl_open},
    {"cuda", "cuDNN, cuBLAS and our kernels on the GPU, each configuration timed once (cached)", true,
     rg_cost_cuda_open},
    {"ort", "onnxruntime on the CPU, each configuration timed once as the model written runs it (cached)", true,
     rg_cost_ort_open},
};

int rg_cost_backend_count(void) { return (int)(sizeof backends / sizeof *backends); }

const rg_cost_backend *rg_cost_backend_get(int i) {
  return i >= 0 && i < rg_cost_backend_count() ? &backends[i] : NULL;
}

const rg_cost_backend *rg_cost_backend_find(const char *name) {
  for (int i = 0; name && i < rg_cost_backend_count(); i++)
    if (!strcmp(name, backends[i].name)) return &backends[i];
  return NULL;
}

void rg_cost_backend_names(rg_strbuf *sb) {
  for (int i = 0; i < rg_cost_backend_count(); i++)
    rg_sb_printf(sb, "%s%s", i ? ", " : "", backends[i].name);
}

rg_status rg_cost_cache_choose(const char *name, const char *given, bool no_cache, char *buf, size_t n,
                               rg_err *err) {
  const rg_cost_backend *b = rg_cost_backend_find(name);
  buf[0] = 0;
  if (no_cache) return RG_OK;
  if (given) return snprintf(buf, n, "%s", given), RG_OK;
  return b && b->cached ? rg_cost_cache_default_path(buf, n, err) : RG_OK;
}

rg_status rg_cost_sum_model(rg_cost_model *cm, const rg_model *m, rg_cost_sum *s, rg_err *err) {
  int32_t n_roots = rg_model_n_roots(m);
  rg_ref *roots = malloc(sizeof *roots * (size_t)(n_roots + 1));
  if (!roots) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_model_roots(m, roots);
  rg_status st = rg_cost_sum_values(cm, m, roots, n_roots, s, err);
  free(roots);
  return st;
}
