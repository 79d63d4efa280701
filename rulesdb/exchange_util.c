/* rulesdb/exchange_util.c: variable numbering and typing shared by the converters, and TASO's
 * fixed input shapes. */
#include "exchange_util.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"

int rg_taso_input_shape(int n, rg_shape *out) {
  /* TASO generator's inputs: x1-x3 2x4, w1-w3 4x4, i1-i3 2x4x5x5, w4-w6 4x4x3x3,
   * w7-w9 4x4x1x3, w10-w12 4x4x3x1, w13 4x1x3x3, s0 scalar (anchors/taso-rules-133.txt). */
  static const int32_t dims[RG_TASO_INPUTS][5] = {
      {2, 2, 4},       {2, 2, 4},       {2, 2, 4},       {2, 4, 4},       {2, 4, 4},
      {2, 4, 4},       {4, 2, 4, 5, 5}, {4, 2, 4, 5, 5}, {4, 2, 4, 5, 5}, {4, 4, 4, 3, 3},
      {4, 4, 4, 3, 3}, {4, 4, 4, 3, 3}, {4, 4, 4, 1, 3}, {4, 4, 4, 1, 3}, {4, 4, 4, 1, 3},
      {4, 4, 4, 3, 1}, {4, 4, 4, 3, 1}, {4, 4, 4, 3, 1}, {4, 4, 1, 3, 3}, {0}};
  if (n < 1 || n > RG_TASO_INPUTS) return 0;
  *out = rg_shape_make(dims[n - 1][0], dims[n - 1] + 1);
  return 1;
}

/* N when name is "input_N" with N in 1 .. 9999, else 0. */
static int input_number(const char *name) {
  if (strncmp(name, "input_", 6) || !name[6] || name[6] == '0') return 0;
  int n = 0;
  for (const char *p = name + 6; *p; p++) {
    if (*p < '0' || *p > '9' || n > 999) return 0;
    n = n * 10 + (*p - '0');
  }
  return n;
}

void rg_xchg_var_numbers(const rg_graph *g, int *num) {
  int32_t nt = rg_graph_n_tvars(g);
  for (int32_t v = 0; v < nt; v++)
    num[v] = input_number(rg_graph_tvar_name(g, v));
  for (int32_t v = 0; v < nt; v++) {
    if (num[v]) continue;
    for (int cand = 1;; cand++) {
      int used = 0;
      for (int32_t u = 0; u < nt && !used; u++)
        used = num[u] == cand;
      if (!used) {
        num[v] = cand;
        break;
      }
    }
  }
}

static int plan_at(const rg_rule *r, const rg_shape *const *shapes, rg_plan **plan, rg_err *err) {
  rg_ref all[2 * RG_RULE_MAX_OUTPUTS];
  memcpy(all, r->src, sizeof(rg_ref) * (size_t)r->n_src);
  memcpy(all + r->n_src, r->tgt, sizeof(rg_ref) * (size_t)r->n_tgt);
  return rg_plan_new(r->g, all, r->n_src + r->n_tgt, shapes, NULL, NULL, plan, err);
}

rg_status rg_xchg_plan(const rg_rule *r, const int *num, int taso_only, rg_plan **plan,
                       rg_assignment_list *keep, rg_err *err) {
  *plan = NULL;
  memset(keep, 0, sizeof *keep);
  int32_t nt = rg_graph_n_tvars(r->g);
  rg_shape taso[RG_TASO_INPUTS + 1];
  const rg_shape *ptr[RG_TASO_INPUTS + 1];
  int all_taso = nt <= RG_TASO_INPUTS;
  for (int32_t v = 0; v < nt && all_taso; v++)
    all_taso = rg_taso_input_shape(num[v], &taso[v]), ptr[v] = &taso[v];
  rg_err e2;
  if (all_taso && plan_at(r, ptr, plan, &e2) == RG_OK &&
      rg_rule_well_typed(r, &(rg_binding){ptr, NULL, NULL}))
    return RG_OK;
  if (*plan) rg_plan_free(*plan), *plan = NULL;
  if (taso_only) {
    if (!all_taso)
      return rg_err_set(err, RG_ERR_SHAPE, "variables must be TASO's inputs ?input_1 .. ?input_%d",
                        RG_TASO_INPUTS);
    return rg_err_set(err, RG_ERR_SHAPE, "does not type-check at TASO's input shapes: %s", e2.msg);
  }
  rg_status st = rg_shapes_solve(r, NULL, 1, 1, keep, err);
  if (st) return st;
  return plan_at(r, keep->items[0].binding.tvar_shapes, plan, err);
}

int32_t rg_xchg_param(const rg_node *nd, int k) {
  return nd->params[rg_op_param_slot((rg_op)nd->op, k)];
}
