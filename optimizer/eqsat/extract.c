/* optimizer/eqsat/extract.c: greedy extraction, the cost of an extraction, and the model it builds
 * (eqsat_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eqsat_internal.h"

/* One pass: every value's tree cost from its operand classes' best; true when a class's best
 * went down. */
static bool greedy_pass(rg_egraph *eg, const rg_graph *g, const double *node_cost, double *best, int32_t *choice) {
  bool changed = false;
  for (int32_t id = 0; id < rg_egraph_n_nodes(eg); id++) {
    const rg_node *nd = rg_graph_node(g, id);
    double c = nd->op == RG_OP_INPUT ? 0 : node_cost[id];
    for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) c += best[rg_egraph_class(eg, nd->in[k])];
    if (!(c < INFINITY)) continue;
    for (int o = 0; o < rg_op_get((rg_op)nd->op)->n_outputs; o++) {
      int32_t v = id * RG_MAX_OUTPUTS + o, cls = rg_egraph_find(eg, v);
      /* strictly cheaper only: with costs >= 0, a choice never comes to depend on itself */
      if (c < best[cls]) best[cls] = c, choice[cls] = v, changed = true;
    }
  }
  return changed;
}

rg_status rg_extract_greedy(rg_egraph *eg, const double *node_cost, int32_t *choice, rg_err *err) {
  size_t nv = (size_t)rg_egraph_n_nodes(eg) * RG_MAX_OUTPUTS;
  double *best = malloc(sizeof *best * (nv + 1));
  if (!best) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t v = 0; v < nv; v++) best[v] = INFINITY, choice[v] = -1;
  const rg_graph *g = rg_egraph_model(eg)->g;
  while (greedy_pass(eg, g, node_cost, best, choice)) {
  }
  free(best);
  return RG_OK;
}

/* Marks in used[] (by class) every class computing cls through choice needs. */
static void mark_used(rg_egraph *eg, const rg_graph *g, const int32_t *choice, int32_t cls, uint8_t *used,
                      int32_t *stack) {
  int32_t n = 0;
  if (used[cls]) return;
  used[cls] = 1, stack[n++] = cls;
  while (n > 0) {
    int32_t c = stack[--n], v = choice[c];
    if (v < 0) continue;
    const rg_node *nd = rg_graph_node(g, v / RG_MAX_OUTPUTS);
    for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) {
      int32_t d = rg_egraph_class(eg, nd->in[k]);
      if (!used[d]) used[d] = 1, stack[n++] = d;
    }
  }
}

int32_t rg_extract_used(rg_egraph *eg, const int32_t *choice, const int32_t *roots, int n_roots, int32_t *nodes) {
  size_t nv = (size_t)rg_egraph_n_nodes(eg) * RG_MAX_OUTPUTS;
  uint8_t *used = calloc(nv + 1, 1), *listed = calloc((size_t)rg_egraph_n_nodes(eg) + 1, 1);
  int32_t *stack = malloc(sizeof *stack * (nv + 1)), n = 0;
  const rg_graph *g = rg_egraph_model(eg)->g;
  if (!used || !listed || !stack) n = -1;
  for (int i = 0; n >= 0 && i < n_roots; i++)
    if (roots[i] >= 0) mark_used(eg, g, choice, roots[i], used, stack);
  for (size_t c = 0; n >= 0 && c < nv; c++) {
    if (!used[c] || choice[c] < 0) continue;
    int32_t id = choice[c] / RG_MAX_OUTPUTS;
    if (!listed[id]) listed[id] = 1, nodes[n++] = id; /* both outputs of a split: one node */
  }
  free(used), free(listed), free(stack);
  return n;
}

double rg_extract_dag_cost(rg_egraph *eg, const double *node_cost, const int32_t *choice, const int32_t *roots,
                           int n_roots) {
  int32_t *nodes = malloc(sizeof *nodes * ((size_t)rg_egraph_n_nodes(eg) + 1));
  int32_t n = nodes ? rg_extract_used(eg, choice, roots, n_roots, nodes) : -1;
  double total = n < 0 ? NAN : 0;
  for (int32_t i = 0; i < n; i++)
    if (rg_graph_node(rg_egraph_model(eg)->g, nodes[i])->op != RG_OP_INPUT) total += node_cost[nodes[i]];
  free(nodes);
  return total;
}

typedef struct {
  rg_egraph *eg;
  rg_model *m;
  const int32_t *choice;
  rg_ref *built; /* [class]: its value in the extracted model, node -2 while being built */
  rg_err *err;
} builder;

#define UNBUILT (-1)
#define BUILDING (-2)

static rg_status build(builder *b, int32_t cls, rg_ref *out) {
  if (b->built[cls].node >= 0) return *out = b->built[cls], RG_OK;
  if (b->built[cls].node == BUILDING) return rg_err_set(b->err, RG_ERR_ARG, "extraction: e-class %d reaches itself", cls);
  int32_t v = b->choice[cls];
  if (v < 0) return rg_err_set(b->err, RG_ERR_ARG, "extraction: e-class %d has no node chosen", cls);
  rg_node nd = *rg_graph_node(b->m->g, v / RG_MAX_OUTPUTS);
  rg_ref r = rg_egraph_ref(v);
  if (nd.op != RG_OP_INPUT) {
    b->built[cls].node = BUILDING;
    for (int k = 0; k < nd.n_in; k++) {
      rg_status st = build(b, rg_egraph_class(b->eg, nd.in[k]), &nd.in[k]);
      if (st) return st;
    }
    rg_status st = rg_model_add_node(b->m, &nd, r.out, &r, b->err); /* operands of the same types */
    if (st) return st;
  }
  b->built[cls] = r;
  return *out = r, RG_OK;
}

rg_status rg_extract_build(rg_egraph *eg, rg_model *m, const int32_t *choice, const rg_ref *roots, int n, rg_ref *out,
                           rg_err *err) {
  size_t nv = (size_t)rg_egraph_n_nodes(eg) * RG_MAX_OUTPUTS;
  builder b = {eg, m, choice, malloc(sizeof *b.built * (nv + 1)), err};
  if (!b.built) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t v = 0; v < nv; v++) b.built[v] = (rg_ref){UNBUILT, 0};
  rg_status st = RG_OK;
  for (int i = 0; !st && i < n; i++) {
    out[i] = roots[i];
    if (roots[i].node >= 0) st = build(&b, rg_egraph_class(eg, roots[i]), &out[i]);
  }
  free(b.built);
  return st;
}
