/* prune/redundancy.c: common subgraph and supergraph (see redundancy.h). */
#include "redundancy.h"

#include <stdlib.h>
#include <string.h>

#include "match/match.h"

/* Looks up the canonical rule built from the given pieces. */
static rg_status lookup(const rg_graph *g, const rg_ref *src, int ns, const rg_ref *tgt, int nt,
                        const rg_ref *abs, int na, rg_kept_lookup kept, void *ctx, int *by,
                        rg_err *err) {
  rg_content_id id;
  rg_status st = rg_canon_build_id(g, src, ns, tgt, nt, abs, na, &id, err);
  if (!st) *by = kept(&id, ctx);
  return st;
}

rg_status rg_redundant_subgraph(const rg_rule *r, rg_kept_lookup kept, void *ctx, int *by,
                                rg_err *err) {
  *by = -1;
  if (r->n_tgt == 0) return RG_OK;
  int32_t n = rg_graph_size(r->g);
  uint8_t *ms = calloc((size_t)n + 1, 1), *mt = calloc((size_t)n + 1, 1);
  /* used[id] bit o: output o of node id is read by some node or output of the rule */
  uint8_t *used = calloc((size_t)n + 1, 1), *inner = calloc((size_t)n + 1, 1);
  rg_ref *cands = malloc(sizeof *cands * ((size_t)n * RG_MAX_OUTPUTS + 1));
  rg_ref *maximal = malloc(sizeof *maximal * ((size_t)n * RG_MAX_OUTPUTS + 1));
  rg_status st = RG_OK;
  if (!ms || !mt || !used || !inner || !cands || !maximal)
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int nc = 0, nm = 0;
  if (!st) {
    rg_graph_mark_reachable(r->g, r->src, r->n_src, ms);
    rg_graph_mark_reachable(r->g, r->tgt, r->n_tgt, mt);
    for (int i = 0; i < r->n_src; i++)
      used[r->src[i].node] |= (uint8_t)(1u << r->src[i].out);
    for (int i = 0; i < r->n_tgt; i++)
      used[r->tgt[i].node] |= (uint8_t)(1u << r->tgt[i].out);
    for (int32_t id = 0; id < n; id++) {
      const rg_node *nd = rg_graph_node(r->g, id);
      if (!ms[id] && !mt[id]) continue;
      for (int k = 0; k < nd->n_in; k++) {
        used[nd->in[k].node] |= (uint8_t)(1u << nd->in[k].out);
        /* a shared node read by a shared node is not maximal */
        if (ms[id] && mt[id]) inner[nd->in[k].node] = 1;
      }
    }
    for (int32_t id = 0; id < n; id++) {
      if (!ms[id] || !mt[id] || rg_graph_node(r->g, id)->op == RG_OP_INPUT) continue;
      for (int o = 0; o < RG_MAX_OUTPUTS; o++) {
        if (!(used[id] >> o & 1)) continue;
        cands[nc++] = (rg_ref){id, o};
        if (!inner[id]) maximal[nm++] = (rg_ref){id, o};
      }
    }
  }
  /* Outer shared terms (later ids) first: abstracting them leaves the smallest rule. */
  for (int i = nc - 1; !st && *by < 0 && i >= 0; i--)
    st = lookup(r->g, r->src, r->n_src, r->tgt, r->n_tgt, &cands[i], 1, kept, ctx, by, err);
  if (!st && *by < 0 && nm > 1)
    st = lookup(r->g, r->src, r->n_src, r->tgt, r->n_tgt, maximal, nm, kept, ctx, by, err);
  free(ms);
  free(mt);
  free(used);
  free(inner);
  free(cands);
  free(maximal);
  return st;
}

/* The operand index where a and b (same head) differ, or -1 if not exactly one. */
static int one_operand(const rg_graph *g, rg_ref a, rg_ref b) {
  const rg_node *na = rg_graph_node(g, a.node), *nb = rg_graph_node(g, b.node);
  if (na->op == RG_OP_INPUT || na->op != nb->op || na->n_in != nb->n_in || a.out != b.out ||
      na->var_mask != nb->var_mask || memcmp(na->params, nb->params, sizeof na->params) != 0)
    return -1;
  int k = -1, nd = 0;
  for (int i = 0; i < na->n_in; i++)
    if (na->in[i].node != nb->in[i].node || na->in[i].out != nb->in[i].out) nd++, k = i;
  return nd == 1 ? k : -1;
}

rg_status rg_redundant_supergraph(const rg_rule *r, rg_kept_lookup kept, void *ctx, int *by,
                                  rg_err *err) {
  *by = -1;
  if (r->n_tgt != 1) return RG_OK;
  int k = one_operand(r->g, r->src[0], r->tgt[0]);
  if (k < 0) return RG_OK;
  rg_ref a = rg_graph_node(r->g, r->src[0].node)->in[k];
  rg_ref b = rg_graph_node(r->g, r->tgt[0].node)->in[k];
  rg_status st = lookup(r->g, &a, 1, &b, 1, NULL, 0, kept, ctx, by, err);
  if (!st && *by < 0) st = lookup(r->g, &b, 1, &a, 1, NULL, 0, kept, ctx, by, err);
  return st;
}

/* Whether general's sides (l, r in that order) match a's and b's, under one binding. */
static rg_status matches(const rg_graph *gg, const rg_ref *gl, const rg_ref *gr, int n,
                         const rg_graph *g, const rg_ref *a, const rg_ref *b, bool *yes,
                         rg_err *err) {
  rg_match_env env;
  rg_status st = rg_match_env_init(&env, rg_graph_n_tvars(gg), rg_graph_n_pvars(gg), err);
  if (st) return st;
  *yes = true;
  for (int i = 0; *yes && i < n; i++)
    *yes = rg_match(gg, gl[i], g, a[i], &env) && rg_match(gg, gr[i], g, b[i], &env);
  rg_match_env_free(&env);
  return RG_OK;
}

rg_status rg_rule_is_instance(const rg_rule *general, const rg_rule *r, bool *yes, rg_err *err) {
  *yes = false;
  if (general->n_src != r->n_src || general->n_tgt != r->n_tgt || r->n_tgt == 0) return RG_OK;
  return matches(general->g, general->src, general->tgt, r->n_src, r->g, r->src, r->tgt, yes, err);
}

rg_status rg_supergraph_implied(const rg_rule *r, const rg_rule *by, bool *yes, rg_err *err) {
  *yes = false;
  if (r->n_tgt != 1 || by->n_tgt != 1) return RG_OK;
  int k = one_operand(r->g, r->src[0], r->tgt[0]);
  if (k < 0) return RG_OK;
  rg_ref a = rg_graph_node(r->g, r->src[0].node)->in[k];
  rg_ref b = rg_graph_node(r->g, r->tgt[0].node)->in[k];
  rg_status st = matches(by->g, by->src, by->tgt, 1, r->g, &a, &b, yes, err);
  if (!st && !*yes) st = matches(by->g, by->tgt, by->src, 1, r->g, &a, &b, yes, err);
  return st;
}
