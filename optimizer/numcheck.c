/* optimizer/numcheck.c: rewritten models against the original (numcheck.h). */
#include "numcheck.h"

#include <stdlib.h>

#include "eval.h"
#include "tensor_io.h"

rg_status rg_numcheck(const rg_model *m, const rg_ref *roots, uint32_t seed, double *worst, rg_err *err) {
  rg_model *v = rg_model_view(m, roots);
  double **in = rg_model_random_inputs(m, seed, 100);
  double **a = calloc((size_t)m->n_out + 1, sizeof *a), **b = calloc((size_t)m->n_out + 1, sizeof *b);
  rg_status st = v && in && a && b ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = rg_model_eval(m, (const double *const *)in, a, err);
  if (!st) st = rg_model_eval(v, (const double *const *)in, b, err);
  *worst = 0;
  for (int32_t o = 0; !st && o < m->n_out; o++) {
    double d = rg_values_rel_diff(b[o], a[o], rg_shape_numel(rg_model_shape(m, m->out[o])));
    if (!(d <= *worst)) *worst = d; /* NaN counts as the worst */
  }
  for (int32_t o = 0; o < m->n_out; o++) free(a ? a[o] : NULL), free(b ? b[o] : NULL);
  free(a), free(b);
  rg_model_inputs_free(m, in);
  rg_model_view_free(v);
  return st;
}

rg_status rg_numcheck_steps(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                            int *step, double *worst, rg_err *err) {
  *step = -1, *worst = 0;
  for (int k = 0; k < r->n_steps; k++) {
    rg_status st = rg_numcheck(m, r->steps[k].roots, seed, worst, err);
    if (st) return st;
    if (!(*worst <= tolerance)) {
      *step = k;
      return RG_OK;
    }
  }
  return RG_OK;
}
