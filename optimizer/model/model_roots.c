/* optimizer/model/model_roots.c: a model seen from other roots (model.h): what a rewrite changes is
 * only which values the outputs and the opaque nodes read, since the graph is hash-consed and
 * only grows. */
#include <stdlib.h>
#include <string.h>

#include "model.h"

int32_t rg_model_n_roots(const rg_model *m) {
  int32_t n = m->n_out;
  for (int32_t k = 0; k < m->n_op; k++) n += m->op[k].n_in;
  return n;
}

void rg_model_roots(const rg_model *m, rg_ref *roots) {
  memcpy(roots, m->out, sizeof *roots * (size_t)m->n_out);
  rg_ref *r = roots + m->n_out;
  for (int32_t k = 0; k < m->n_op; k++) {
    memcpy(r, m->op[k].in, sizeof *r * (size_t)m->op[k].n_in);
    r += m->op[k].n_in;
  }
}

rg_model *rg_model_view(const rg_model *m, const rg_ref *roots) {
  rg_model *v = malloc(sizeof *v);
  rg_ref *r = malloc(sizeof *r * (size_t)(rg_model_n_roots(m) + 1));
  rg_opaque *op = malloc(sizeof *op * (size_t)(m->n_op + 1));
  if (!v || !r || !op) {
    free(v), free(r), free(op);
    return NULL;
  }
  *v = *m;
  memcpy(r, roots, sizeof *r * (size_t)rg_model_n_roots(m));
  v->out = r;
  v->op = op, v->cap_op = m->n_op;
  rg_ref *in = r + m->n_out;
  for (int32_t k = 0; k < m->n_op; k++) {
    op[k] = m->op[k];
    op[k].in = in;
    in += m->op[k].n_in;
  }
  return v;
}

void rg_model_view_free(rg_model *view) {
  if (!view) return;
  free(view->out); /* the roots, opaque operands included */
  free(view->op);
  free(view);
}
