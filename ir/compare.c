/* ir/compare.c */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rg_status rg_rule_plan_side(const rg_rule *r, const rg_binding *b, bool target, rg_plan **out,
                            rg_err *err) {
  rg_status st = rg_plan_new(r->g, target ? r->tgt : r->src, target ? r->n_tgt : r->n_src,
                             b->tvar_shapes, b->pvar_values, b->pvar_bound, out, err);
  if (st && err) {
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    rg_err_set(err, st, "%s: %s", target ? "target" : "source", msg);
  }
  return st;
}

static rg_status fill_inputs(const rg_plan *plan, rg_domain dom, uint64_t seed, rg_value **in,
                             rg_err *err) {
  int32_t nt = rg_graph_n_tvars(plan->g);
  for (int32_t id = 0; id < plan->n; id++) {
    const rg_node *nd = rg_graph_node(plan->g, id);
    if (nd->op != RG_OP_INPUT || !plan->typed[id]) continue;
    int32_t tv = nd->params[0];
    if (tv >= nt || in[tv]) continue;
    int64_t cnt = rg_shape_numel(&plan->shape[id][0]);
    in[tv] = malloc(sizeof(rg_value) * (size_t)(cnt ? cnt : 1));
    if (!in[tv]) return rg_err_set(err, RG_ERR_NOMEM, "out of memory for inputs");
    for (int64_t i = 0; i < cnt; i++) in[tv][i] = rg_random_value(dom, seed, tv, i);
  }
  return RG_OK;
}

static bool compare_outputs(const rg_plan *plan, const rg_rule *r, rg_domain dom, rg_value **sv,
                            rg_value **tv, int trial, rg_cmp_result *res) {
  for (int o = 0; o < r->n_src; o++) {
    const rg_shape *s = rg_plan_shape(plan, r->src[o]);
    int64_t cnt = rg_shape_numel(s);
    for (int64_t i = 0; i < cnt; i++) {
      if (rg_value_eq(dom, sv[o][i], tv[o][i])) continue;
      res->verdict = RG_CMP_VALUE;
      res->output = o;
      res->trial = trial;
      rg_shape_unflat(s, i, res->pos);
      res->src_val = sv[o][i];
      res->tgt_val = tv[o][i];
      res->src_shape = *s;
      res->tgt_shape = *s;
      return false;
    }
  }
  return true;
}

rg_status rg_rule_compare(const rg_rule *r, const rg_binding *b, rg_domain dom,
                          const rg_eval_ctx *ctx, uint64_t seed, int trials, rg_cmp_result *res,
                          rg_err *err) {
  memset(res, 0, sizeof *res);
  if (r->n_tgt != r->n_src || r->n_src == 0)
    return rg_err_set(err, RG_ERR_ARG, "not a rule: it has no target side");
  rg_plan *plan = NULL;
  rg_ref all[2 * RG_RULE_MAX_OUTPUTS];
  memcpy(all, r->src, sizeof(rg_ref) * (size_t)r->n_src);
  memcpy(all + r->n_src, r->tgt, sizeof(rg_ref) * (size_t)r->n_tgt);
  rg_status st = rg_plan_new(r->g, all, r->n_src + r->n_tgt, b->tvar_shapes, b->pvar_values,
                             b->pvar_bound, &plan, NULL);
  if (st) {
    /* Only on failure: plan each side alone, so the message says which side is ill-typed. */
    rg_plan *side = NULL;
    st = rg_rule_plan_side(r, b, false, &side, err);
    if (st == RG_OK) {
      rg_plan_free(side);
      st = rg_rule_plan_side(r, b, true, &side, err);
    }
    if (st == RG_OK) rg_plan_free(side); /* unreachable in practice: the union failed */
    return st ? st : rg_err_set(err, RG_ERR_SHAPE, "the two sides cannot be typed together");
  }
  for (int o = 0; o < r->n_src; o++) {
    const rg_shape *s = rg_plan_shape(plan, r->src[o]), *t = rg_plan_shape(plan, r->tgt[o]);
    if (!rg_shape_type_eq(s, t)) {
      res->verdict = RG_CMP_TYPE;
      res->output = o;
      res->src_shape = *s;
      res->tgt_shape = *t;
      rg_plan_free(plan);
      return RG_OK;
    }
  }
  int32_t nt = rg_graph_n_tvars(r->g);
  rg_value **in = calloc((size_t)nt + 1, sizeof *in);
  /* both sides in one evaluation: a subterm they share is computed once (about a fifth of the
   * convolutions of the depth-4 candidates) */
  rg_value *v[2 * RG_RULE_MAX_OUTPUTS] = {0};
  int nv = r->n_src + r->n_tgt;
  if (!in) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int t = 0; st == RG_OK && t < trials; t++) {
    for (int32_t i = 0; i < nt; i++) free(in[i]), in[i] = NULL;
    st = fill_inputs(plan, dom, seed + (uint64_t)t, in, err);
    if (!st) st = rg_eval_full(plan, dom, ctx, (const rg_value *const *)in, all, nv, v, err);
    bool same = st == RG_OK && compare_outputs(plan, r, dom, v, v + r->n_src, t, res);
    for (int o = 0; o < nv; o++)
      free(v[o]), v[o] = NULL;
    if (!same) break;
  }
  if (in)
    for (int32_t i = 0; i < nt; i++) free(in[i]);
  free(in);
  rg_plan_free(plan);
  return st;
}

rg_status rg_plan_eval_random(const rg_plan *plan, const rg_ref *outs, int n, rg_domain dom,
                              const rg_eval_ctx *ctx, uint64_t seed, rg_value **results, rg_err *err) {
  int32_t nt = rg_graph_n_tvars(plan->g);
  rg_value **in = calloc((size_t)nt + 1, sizeof *in);
  rg_status st = in ? fill_inputs(plan, dom, seed, in, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (st == RG_OK) st = rg_eval_full(plan, dom, ctx, (const rg_value *const *)in, outs, n, results, err);
  for (int32_t i = 0; in && i < nt; i++) free(in[i]);
  free(in);
  return st;
}

void rg_binding_put(rg_strbuf *sb, const rg_graph *g, const rg_binding *b) {
  for (int32_t i = 0; i < rg_graph_n_tvars(g); i++) {
    char buf[96];
    rg_sb_printf(sb, "%s%s=%s", i ? " " : "", rg_graph_tvar_name(g, i),
                 b->tvar_shapes[i] ? rg_shape_format_seams(b->tvar_shapes[i], buf, sizeof buf) : "?");
  }
  for (int32_t i = 0; i < rg_graph_n_pvars(g); i++)
    if (b->pvar_bound[i]) rg_sb_printf(sb, " ?%s=%d", rg_graph_pvar_name(g, i), b->pvar_values[i]);
}

void rg_cmp_put_counterexample(rg_strbuf *sb, const rg_rule *r, const rg_binding *b, rg_domain dom,
                               const rg_cmp_result *c) {
  char s1[128], s2[128];
  rg_sb_printf(sb, "%s, output %d: ", rg_domain_name(dom), c->output + 1);
  if (c->verdict == RG_CMP_TYPE) {
    rg_sb_printf(sb, "types differ: source %s, target %s",
                 rg_shape_format_seams(&c->src_shape, s1, sizeof s1),
                 rg_shape_format_seams(&c->tgt_shape, s2, sizeof s2));
  } else {
    rg_sb_puts(sb, "at [");
    for (int d = 0; d < c->src_shape.rank; d++)
      rg_sb_printf(sb, "%s%d", d ? "," : "", c->pos[d]);
    rg_value_format(dom, c->src_val, s1, sizeof s1);
    rg_value_format(dom, c->tgt_val, s2, sizeof s2);
    rg_sb_printf(sb, "] source %s, target %s (trial %d)", s1, s2, c->trial);
  }
  rg_sb_puts(sb, "; at ");
  rg_binding_put(sb, r->g, b);
}

/* Both sides never type-check together: find shapes for the source alone and report how the
 * target then fails (a shape error, or output types that differ, as for concat associativity). */
