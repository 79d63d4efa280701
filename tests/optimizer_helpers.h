/* tests/optimizer_helpers.h: what optimizer/'s tests share: rule text made into an apply set. */
#ifndef RG_TESTS_OPTIMIZER_HELPERS_H
#define RG_TESTS_OPTIMIZER_HELPERS_H

#include <string.h>

#include "check.h"
#include "optimizer/search/search.h"

/* The rules of text parsed into rules (initialized here; the caller frees it) and made into
 * an apply set (NULL, with a failed check, when either step fails). */
static inline rg_apply_set *apply_set_of(const char *text, rg_ruleset *rules) {
  rg_ruleset_init(rules);
  rg_err err;
  rg_apply_set *set = NULL;
  CHECK(rg_text_parse(text, strlen(text), rules, &err) == RG_OK);
  CHECK(rg_apply_set_new(rules, &set, &err) == RG_OK);
  return set;
}

/* A node's cost (rg_cost_iface's shape), and a whole model's from it: the sum over the nodes its
 * roots reach, weight-only ones and inputs free (what the extraction's objective counts); *ops
 * the nodes counted. */
typedef rg_status (*t_node_cost_fn)(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err);
static inline rg_status t_model_cost(t_node_cost_fn node_cost, void *ctx, const rg_model *m, const rg_ref *roots,
                                     double *cost, int64_t *ops, rg_err *err) {
  int32_t size = rg_graph_size(m->g);
  uint32_t *seen = (uint32_t *)calloc((size_t)size, sizeof *seen);
  int32_t *stack = (int32_t *)calloc((size_t)size, sizeof *stack), *order = (int32_t *)calloc((size_t)size, sizeof *order);
  uint8_t *w = (uint8_t *)calloc((size_t)size, 1);
  int32_t n = rg_graph_reach(m->g, roots, rg_model_n_roots(m), seen, 1, stack, order);
  rg_model_weight_only(m, order, n, w);
  *cost = 0, *ops = 0;
  for (int32_t i = 0; i < n; i++) {
    if (w[order[i]] || rg_graph_node(m->g, order[i])->op == RG_OP_INPUT) continue;
    double c;
    CHECK(node_cost(ctx, m, order[i], &c, err) == RG_OK);
    *cost += c, (*ops)++;
  }
  free(seen), free(stack), free(order), free(w);
  return RG_OK;
}

#endif
