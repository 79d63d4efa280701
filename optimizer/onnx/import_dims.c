/* optimizer/onnx/import_dims.c: symbolic dimensions (import.h): --dim as a command line gives
 * them, the values a model's symbolic input dimensions are imported at, the shape plumbing kept
 * as read in such a model, and which reshapes and slices become IR there (import_internal.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

rg_status rg_import_dims_add(rg_import_dims *d, const char *arg, rg_err *err) {
  const char *eq = strchr(arg, '=');
  char *end = NULL;
  errno = 0;
  long long v = eq && eq[1] ? strtoll(eq + 1, &end, 10) : 0;
  if (!eq || eq == arg || d->n == RG_IMPORT_MAX_DIMS || !end || errno || *end || v < 1 || v > RG_MAX_DIM)
    return rg_err_set(err, RG_ERR_ARG, "--dim wants NAME=N (N from 1 to %d), not '%s'%s", RG_MAX_DIM, arg,
                      strchr(arg, ',') ? ": one dimension per --dim (--dim N=1 --dim S=128)" : "");
  int len = (int)(eq - arg);
  for (int k = 0; k < d->n; k++)
    if ((int)strlen(d->name[k]) == len && !strncmp(d->name[k], arg, (size_t)len))
      return rg_err_set(err, RG_ERR_ARG, "--dim %.*s is given twice (%s=%lld, then %s): give each dimension once", len,
                        arg, d->name[k], (long long)d->value[k], arg);
  snprintf(d->name[d->n], sizeof d->name[d->n], "%.*s", len, arg);
  d->ptr[d->n] = d->name[d->n], d->value[d->n] = v;
  d->n++;
  return RG_OK;
}

rg_import_opts rg_import_dims_opts(const rg_import_dims *d) {
  return (rg_import_opts){d ? d->n : 0, d ? d->ptr : NULL, d ? d->value : NULL, 0, 0, NULL};
}

/* ---- the values imported at ---- */

rg_status rg_import_dim_value(rg_importer *im, const rg_import_opts *opts, const char *input, size_t axis,
                              const char *param, int64_t *value, rg_err *err) {
  rg_model *m = im->m;
  bool given = false;
  *value = opts && opts->fallback > 0 ? opts->fallback : RG_IMPORT_DIM_DEFAULT;
  if (param && !param[0]) param = NULL; /* an empty dim_param names nothing */
  for (int k = 0; param && opts && k < opts->n_dims; k++)
    if (!strcmp(opts->dim_name[k], param)) *value = opts->dim_value[k], given = true;
  int unnamed = 0; /* this one's place among those without a name */
  for (int32_t d = 0; !param && d < m->n_dims; d++) unnamed += !m->dims[d].name[0];
  if (!param && opts && unnamed < opts->n_unnamed) *value = opts->unnamed[unnamed], given = true;
  rg_model_dim *nd = realloc(m->dims, sizeof *nd * ((size_t)m->n_dims + 1));
  if (!nd) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  m->dims = nd;
  rg_model_dim *d = &m->dims[m->n_dims];
  *d = (rg_model_dim){strdup(param ? param : ""), strdup(input), (int)axis, *value, given};
  if (!d->name || !d->input) return free(d->name), free(d->input), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  m->n_dims++;
  return RG_OK;
}

rg_status rg_import_dims_check(rg_importer *im, const rg_import_opts *opts, rg_err *err) {
  const rg_model *m = im->m;
  for (int k = 0; opts && k < opts->n_dims; k++) {
    bool found = false;
    for (int32_t d = 0; !found && d < m->n_dims; d++) found = !strcmp(m->dims[d].name, opts->dim_name[k]);
    if (found) continue;
    char names[400] = "";
    size_t len = 0;
    for (int32_t d = 0; d < m->n_dims && len < sizeof names - 80; d++) {
      bool dup = !m->dims[d].name[0];
      for (int32_t e = 0; !dup && e < d; e++) dup = !strcmp(m->dims[e].name, m->dims[d].name);
      if (!dup) len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", len ? ", " : "", m->dims[d].name);
    }
    return rg_err_set(err, RG_ERR_ARG, "%s: --dim %s: no graph input has a dimension called '%s' (%s%s)", im->path,
                      opts->dim_name[k], opts->dim_name[k], len ? "the model's named dimensions: " : "",
                      len ? names : "the model's inputs have no named dimensions");
  }
  return RG_OK;
}

bool rg_import_dynamic(const rg_importer *im) { return im->m->n_dims > 0; }

/* ---- shape plumbing kept as read ---- */

const double *rg_import_known(const rg_importer *im, const char *name) {
  const int64_t *i = im->n_known ? rg_names_find(&im->known, name) : NULL;
  return i ? im->kval[*i] : NULL;
}

rg_status rg_import_know(rg_importer *im, const char *name, double *values, rg_err *err) {
  int added;
  if (im->n_known == im->cap_known) {
    size_t cap = im->cap_known ? 2 * im->cap_known : 16;
    double **nk = realloc(im->kval, sizeof *nk * cap);
    if (!nk) return free(values), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    im->kval = nk, im->cap_known = cap;
  }
  int64_t *i = rg_names_add(&im->known, name, &added);
  if (!i) return free(values), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!added) return free(values), RG_OK; /* named once: import_node refuses a second producer */
  *i = (int64_t)im->n_known;
  im->kval[im->n_known++] = values;
  return RG_OK;
}

void rg_import_known_free(rg_importer *im) {
  for (size_t i = 0; i < im->n_known; i++) free(im->kval[i]);
  free(im->kval);
  rg_names_free(&im->known);
}

/* ---- reshapes and slices ---- */

bool rg_import_one_node(const rg_importer *im, rg_ref r, rg_ref x) {
  if (!rg_import_dynamic(im)) return true;
  const rg_node *nd = rg_graph_node(im->m->g, r.node);
  return (nd->op == RG_OP_RESHAPE || nd->op == RG_OP_SLICE) && nd->n_in == 1 && nd->in[0].node == x.node &&
         nd->in[0].out == x.out;
}
