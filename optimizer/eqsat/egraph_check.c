/* optimizer/eqsat/egraph_check.c: the e-graph's invariants (rg_egraph_check), checked by the tests and
 * after every iteration of the debug build's equality saturation. Uses only egraph.h. */
#include <stdlib.h>

#include "egraph.h"

/* Every value in the list of its class, each class's list exactly its values. */
static rg_status check_classes(rg_egraph *eg, int32_t n_values, const uint8_t *exists, rg_err *err) {
  int32_t listed = 0, classes = 0;
  for (int32_t v = 0; v < n_values; v++) {
    if (!exists[v] || rg_egraph_find(eg, v) != v) continue;
    classes++;
    int32_t u = v;
    do {
      if (!exists[u] || rg_egraph_find(eg, u) != v)
        return rg_err_set(err, RG_ERR_ARG, "e-graph: value %d is listed in class %d but is not in it", u, v);
      listed++;
      u = rg_egraph_next(eg, u);
    } while (u != v);
  }
  int32_t n_exist = 0;
  for (int32_t v = 0; v < n_values; v++) n_exist += exists[v];
  if (listed != n_exist) return rg_err_set(err, RG_ERR_ARG, "e-graph: %d values, %d in class lists", n_exist, listed);
  if (classes != rg_egraph_n_classes(eg))
    return rg_err_set(err, RG_ERR_ARG, "e-graph: %d classes counted, %d recorded", classes, rg_egraph_n_classes(eg));
  return RG_OK;
}

/* No class reaches itself through operands: a depth-first walk over classes, colouring them
 * (1 on the walk's path, 2 done); a class met again while on the path closes a cycle. A class
 * is coloured 1 only when the walk enters it, one operand at a time: two operands in one class,
 * or one reached from its sibling, are no cycle. And each class's level is above those of the
 * classes it reads. */
static rg_status check_acyclic(rg_egraph *eg, const rg_graph *g, int32_t n_values, const uint8_t *exists, rg_err *err) {
  uint8_t *colour = calloc((size_t)n_values + 1, 1);
  int32_t *stack = malloc(sizeof *stack * 3 * ((size_t)n_values + 1)); /* (class, member, operand) */
  if (!colour || !stack) {
    free(colour), free(stack);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rg_status st = RG_OK;
  for (int32_t s = 0; !st && s < n_values; s++) {
    if (!exists[s] || rg_egraph_find(eg, s) != s || colour[s]) continue;
    int32_t n = 0;
    stack[n++] = s, stack[n++] = s, stack[n++] = 0, colour[s] = 1;
    while (!st && n > 0) {
      int32_t c = stack[n - 3], v = stack[n - 2], k = stack[n - 1];
      if (v < 0) { /* every member walked */
        colour[c] = 2, n -= 3;
        continue;
      }
      const rg_node *nd = rg_graph_node(g, v / RG_MAX_OUTPUTS);
      if (nd->op == RG_OP_INPUT || k >= nd->n_in) { /* the next member */
        int32_t after = rg_egraph_next(eg, v);
        stack[n - 2] = after == c ? -1 : after, stack[n - 1] = 0;
        continue;
      }
      stack[n - 1] = k + 1;
      int32_t d = rg_egraph_class(eg, nd->in[k]);
      if (rg_egraph_level(eg, d) >= rg_egraph_level(eg, c))
        st = rg_err_set(err, RG_ERR_ARG, "e-graph: class %d (level %d) reads class %d (level %d)", c,
                        rg_egraph_level(eg, c), d, rg_egraph_level(eg, d));
      else if (colour[d] == 1) st = rg_err_set(err, RG_ERR_ARG, "e-graph: class %d reaches itself", d);
      else if (!colour[d]) colour[d] = 1, stack[n++] = d, stack[n++] = d, stack[n++] = 0;
    }
  }
  free(colour), free(stack);
  return st;
}

rg_status rg_egraph_check(rg_egraph *eg, rg_err *err) {
  int32_t n_values = rg_egraph_n_nodes(eg) * RG_MAX_OUTPUTS;
  const rg_graph *g = rg_egraph_model(eg)->g;
  uint8_t *exists = calloc((size_t)n_values + 1, 1);
  if (!exists) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t id = 0; id < rg_egraph_n_nodes(eg); id++) {
    const rg_node *nd = rg_graph_node(g, id);
    int outs = rg_op_get((rg_op)nd->op)->n_outputs;
    for (int o = 0; o < outs; o++) exists[id * RG_MAX_OUTPUTS + o] = 1;
  }
  rg_status st = check_classes(eg, n_values, exists, err);
  int64_t merged = 0;
  if (!st) st = rg_egraph_rebuild(eg, &merged, err);
  if (!st && merged) st = rg_err_set(err, RG_ERR_ARG, "e-graph: %lld congruent nodes were not merged", (long long)merged);
  if (!st) st = check_acyclic(eg, g, n_values, exists, err);
  free(exists);
  return st;
}
