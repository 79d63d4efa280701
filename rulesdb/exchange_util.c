/* rulesdb/exchange_util.c: variable numbering and typing shared by the converters. */
#include "exchange_util.h"

#include <stdlib.h>
#include <string.h>

#include "exchange.h"

int32_t rg_xchg_var_numbers(const rg_graph *g, int *num) {
  int32_t nt = rg_graph_n_tvars(g), first_free = -1;
  for (int32_t v = 0; v < nt; v++) {
    num[v] = rg_taso_input_number(rg_graph_tvar_name(g, v));
    for (int32_t u = 0; u < v && num[v]; u++)
      if (num[u] == num[v]) num[v] = 0; /* ?x1 and ?input_1 in one rule: the second is numbered */
  }
  for (int32_t v = 0; v < nt; v++) {
    if (num[v]) continue;
    if (first_free < 0) first_free = v;
    for (int cand = RG_TASO_INPUTS + 1;; cand++) { /* never one of TASO's inputs: those have shapes */
      int used = 0;
      for (int32_t u = 0; u < nt && !used; u++)
        used = num[u] == cand;
      if (!used) {
        num[v] = cand;
        break;
      }
    }
  }
  return first_free;
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
  /* TASO's verifier is untyped, and a few of its rules use the matrices w1-w3 (inputs 4-6) as
   * 4-D tensors: 4x4x3x3 is the only shape that types those rules. */
  int32_t conv_dims[4] = {4, 4, 3, 3};
  for (int32_t v = 0; v < nt && all_taso; v++)
    if (num[v] >= 4 && num[v] <= 6) taso[v] = rg_shape_make(4, conv_dims);
  rg_err e3;
  if (all_taso && plan_at(r, ptr, plan, &e3) == RG_OK &&
      rg_rule_well_typed(r, &(rg_binding){ptr, NULL, NULL}))
    return RG_OK;
  if (*plan) rg_plan_free(*plan), *plan = NULL;
  if (taso_only) {
    if (!all_taso)
      return rg_err_set(err, RG_ERR_SHAPE, "variables must be TASO's %d inputs (x1-x3, w1-w13, i1-i3, s0)",
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

bool rg_xchg_conv_expressible(const rg_node *nd) {
  return rg_xchg_param(nd, 4) == 1 && rg_xchg_param(nd, 5) == 1;
}

rg_status rg_xchg_infer_groups(rg_rule *r, rg_err *err) {
  const rg_graph *g = r->g;
  int32_t n = rg_graph_size(g), nt = rg_graph_n_tvars(g);
  rg_graph *ng = rg_graph_new();
  int32_t *map = calloc((size_t)n + 1, sizeof *map);
  rg_shape (*shape)[RG_MAX_OUTPUTS] = calloc((size_t)n + 1, sizeof *shape);
  uint8_t *known = calloc((size_t)n + 1, 1);
  rg_status st = ng && map && shape && known ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* Same variables in the same order, so indices and names carry over. */
  for (int32_t v = 0; st == RG_OK && v < nt; v++) {
    const char *name = rg_graph_tvar_name(g, v);
    if (rg_graph_tvar(ng, name, (int)strlen(name)) < 0) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int32_t v = 0; st == RG_OK && v < rg_graph_n_pvars(g); v++) {
    const char *name = rg_graph_pvar_name(g, v);
    if (rg_graph_pvar(ng, name, (int)strlen(name)) < 0) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  int num[RG_TASO_INPUTS + 64];
  if (st == RG_OK && nt > (int32_t)(sizeof num / sizeof *num))
    st = rg_err_set(err, RG_ERR_LIMIT, "too many variables");
  if (st == RG_OK) rg_xchg_var_numbers(g, num);
  for (int32_t id = 0; st == RG_OK && id < n; id++) {
    rg_node nd = *rg_graph_node(g, id);
    bool inputs_known = nd.var_mask == 0;
    const rg_shape *in[RG_MAX_INPUTS];
    for (int k = 0; k < nd.n_in; k++) {
      int32_t child = nd.in[k].node;
      inputs_known = inputs_known && known[child];
      in[k] = &shape[child][nd.in[k].out];
      nd.in[k].node = map[child];
    }
    if (nd.op == RG_OP_INPUT) {
      known[id] = (uint8_t)rg_taso_input_shape(num[nd.params[0]], &shape[id][0]);
    } else {
      if (nd.op == RG_OP_CONV2D && inputs_known && in[0]->rank == 4 && in[1]->rank == 4 &&
          in[1]->dim[1] > 0 && in[0]->dim[1] % in[1]->dim[1] == 0)
        nd.params[rg_op_param_slot(RG_OP_CONV2D, 6)] = in[0]->dim[1] / in[1]->dim[1];
      known[id] = inputs_known &&
                  rg_shape_infer((rg_op)nd.op, nd.params, nd.n_in, in, shape[id], NULL) == RG_OK;
    }
    map[id] = rg_graph_add(ng, &nd);
    if (map[id] < 0) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  if (st == RG_OK) {
    for (int o = 0; o < r->n_src; o++) r->src[o].node = map[r->src[o].node];
    for (int o = 0; o < r->n_tgt; o++) r->tgt[o].node = map[r->tgt[o].node];
    rg_graph_free(r->g);
    r->g = ng;
    ng = NULL;
  }
  rg_graph_free(ng);
  free(map);
  free(shape);
  free(known);
  return st;
}

rg_status rg_xchg_add_imported(const char *text, const char *label, int line, rg_ruleset *out, rg_strbuf *skipped,
                               rg_err *err) {
  rg_rule *rule;
  rg_err e;
  if (rg_text_parse_rule(text, &rule, &e)) {
    rg_sb_printf(skipped, "%s: %s (as %s)\n", label, e.msg, text);
    return RG_OK;
  }
  rule->line = line;
  rg_status st = rg_xchg_infer_groups(rule, err);
  if (st) return rg_rule_free(rule), st;
  st = rg_ruleset_add(out, rule);
  if (st) rg_err_set(err, st, "out of memory");
  return st;
}
