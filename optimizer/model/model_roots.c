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

void rg_model_opaque_firsts(const rg_model *m, int32_t *first) {
  for (int32_t k = 0, at = m->n_out; k < m->n_op; at += m->op[k++].n_in) first[k] = at;
}

/* The values node id reads in the model seen from roots (first[k]: where opaque node k's operands
 * start among them); their count. */
static int deps_from(const rg_model *m, const rg_ref *roots, const int32_t *first, int32_t id, rg_ref *out) {
  const rg_node *nd = rg_graph_node(m->g, id);
  if (nd->op != RG_OP_INPUT) return rg_model_deps(m, id, out);
  const rg_mvar *v = &m->var[nd->params[0]];
  if (v->kind != RG_MVAR_OPAQUE) return 0;
  int n = 0;
  for (int k = 0; k < m->op[v->opaque].n_in; k++)
    if (roots[first[v->opaque] + k].node >= 0) out[n++] = roots[first[v->opaque] + k];
  return n;
}

bool rg_model_acyclic(const rg_model *m, const rg_ref *roots) {
  int32_t n_nodes = rg_graph_size(m->g), n_roots = rg_model_n_roots(m);
  size_t edges = (size_t)n_roots; /* a node is pushed once per reader that opens before it is done */
  uint8_t *state = calloc((size_t)n_nodes + 1, 1); /* 0 new, 1 open (on the path), 2 done */
  int32_t *first = malloc(sizeof *first * ((size_t)m->n_op + 1)), *stack = NULL;
  rg_ref *d = malloc(sizeof *d * (size_t)rg_model_max_deps(m));
  if (first) rg_model_opaque_firsts(m, first);
  for (int32_t id = 0; first && d && id < n_nodes; id++) edges += (size_t)deps_from(m, roots, first, id, d);
  bool ok = state && first && d && (stack = malloc(sizeof *stack * (edges + 1)));
  for (int32_t i = 0, top = 0; ok && i < n_roots; i++) {
    if (roots[i].node < 0 || state[roots[i].node]) continue;
    stack[top++] = roots[i].node;
    while (ok && top) {
      int32_t id = stack[top - 1];
      if (state[id] == 0) {
        state[id] = 1;
        for (int k = 0, nd = deps_from(m, roots, first, id, d); k < nd; k++)
          if (state[d[k].node] == 0) stack[top++] = d[k].node;
          else if (state[d[k].node] == 1) ok = false; /* id needs a value on its own path */
        continue;
      }
      top--, state[id] = 2;
    }
  }
  free(state), free(first), free(stack), free(d);
  return ok;
}
