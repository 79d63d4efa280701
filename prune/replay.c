/* prune/replay.c: the derivation checker (see replay.h). */
#include "replay.h"

#include <string.h>

#include "match/match.h"

static bool same(rg_ref a, rg_ref b) { return a.node == b.node && a.out == b.out; }

/* The path from the root to the deepest position above every difference of a and b. */
static int divergence(const rg_graph *g, rg_ref a, rg_ref b, uint8_t *path) {
  int depth = 0;
  while (!same(a, b) && depth < RG_TERM_MAX_DEPTH) {
    const rg_node *na = rg_graph_node(g, a.node), *nb = rg_graph_node(g, b.node);
    if (na->op != nb->op || na->n_in != nb->n_in || a.out != b.out ||
        na->var_mask != nb->var_mask || memcmp(na->params, nb->params, sizeof na->params) != 0)
      break;
    int k = -1, ndiff = 0;
    for (int i = 0; i < na->n_in; i++)
      if (!same(na->in[i], nb->in[i])) ndiff++, k = i;
    if (ndiff != 1) break;
    path[depth++] = (uint8_t)k;
    a = na->in[k];
    b = nb->in[k];
  }
  return depth;
}

static rg_ref at(const rg_graph *g, rg_ref r, const uint8_t *path, int depth) {
  for (int i = 0; i < depth; i++)
    r = rg_graph_node(g, r.node)->in[path[i]];
  return r;
}

/* Whether cur -> next is one rewrite by rule `by` in the given direction. */
static bool one_step(const rg_graph *g, rg_ref cur, rg_ref next, const rg_rule *by, bool reverse,
                     rg_match_env *env) {
  uint8_t path[RG_TERM_MAX_DEPTH];
  int depth = divergence(g, cur, next, path);
  for (int len = depth; len >= 0; len--) {
    rg_ref a = at(g, cur, path, len), b = at(g, next, path, len);
    for (int j = 0; j < by->n_tgt; j++) {
      rg_ref l = reverse ? by->tgt[j] : by->src[j], r = reverse ? by->src[j] : by->tgt[j];
      rg_match_env_reset(env);
      if (rg_match(by->g, l, g, a, env) && rg_match(by->g, r, g, b, env)) return true;
    }
  }
  return false;
}

static rg_status check(const rg_rule *r, const rg_derivation *d, const rg_rule *const *rules,
                       int n_rules, rg_graph *g, rg_err *err) {
  int s = 0;
  for (int i = 0; i < r->n_src; i++) {
    rg_ref cur = r->src[i];
    for (; s < d->n && d->steps[s].output == i; s++) {
      const rg_derive_step *sp = &d->steps[s];
      if (sp->tag < 0 || sp->tag >= n_rules || !rules[sp->tag])
        return rg_err_set(err, RG_ERR_ARG, "step %d names rule %d, which is not given", s + 1,
                          sp->tag);
      const rg_rule *by = rules[sp->tag];
      rg_rule *t = NULL;
      rg_err perr;
      if (!sp->state || rg_text_parse_rule(sp->state, &t, &perr) != RG_OK)
        return rg_err_set(err, RG_ERR_ARG, "step %d: its term does not parse: %s", s + 1,
                          sp->state ? perr.msg : "missing");
      rg_status st = RG_OK;
      rg_ref next = {0, 0};
      if (t->n_tgt != 0 || t->n_src != 1)
        st = rg_err_set(err, RG_ERR_ARG, "step %d: expected one term, not a rule", s + 1);
      if (!st) st = rg_term_import(t->g, t->src[0], g, &next, err);
      rg_rule_free(t);
      if (st) return st;
      if (same(cur, next)) return rg_err_set(err, RG_ERR_ARG, "step %d changes nothing", s + 1);
      rg_match_env env;
      if ((st = rg_match_env_init(&env, rg_graph_n_tvars(by->g), rg_graph_n_pvars(by->g), err)))
        return st;
      bool ok = one_step(g, cur, next, by, sp->reverse, &env);
      rg_match_env_free(&env);
      if (!ok)
        return rg_err_set(err, RG_ERR_ARG,
                          "step %d (output %d): '%s' is not one rewrite of the previous term by "
                          "rule %d used %s",
                          s + 1, i + 1, sp->state, sp->tag,
                          sp->reverse ? "right to left" : "left to right");
      cur = next;
    }
    if (!same(cur, r->tgt[i]))
      return rg_err_set(err, RG_ERR_ARG,
                        "the derivation of output %d does not end at the rule's target", i + 1);
  }
  if (s < d->n)
    return rg_err_set(err, RG_ERR_ARG,
                      "step %d is out of order or names output %d of a %d-output rule", s + 1,
                      d->steps[s].output + 1, r->n_src);
  return RG_OK;
}

rg_status rg_derivation_check(const rg_rule *r, const rg_derivation *d, const rg_rule *const *rules,
                              int n_rules, rg_err *err) {
  if (r->n_tgt == 0) return rg_err_set(err, RG_ERR_ARG, "a bare graph is not a rule");
  rg_graph *g;
  rg_status st = rg_graph_clone(r->g, &g, err);
  if (st) return st;
  st = check(r, d, rules, n_rules, g, err);
  rg_graph_free(g);
  return st;
}
