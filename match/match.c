/* match/match.c: first-order matching of hash-consed terms, and instantiation. */
#include "match.h"

#include <stdlib.h>
#include <string.h>

rg_status rg_match_env_init(rg_match_env *e, int32_t n_tvars, int32_t n_pvars, rg_err *err) {
  memset(e, 0, sizeof *e);
  e->n_tvars = n_tvars;
  e->n_pvars = n_pvars;
  size_t nt = (size_t)e->n_tvars + 1, np = (size_t)e->n_pvars + 1;
  e->t = malloc(sizeof *e->t * nt);
  e->t_bound = calloc(nt, 1);
  e->p = malloc(sizeof *e->p * np);
  e->p_bound = calloc(np, 1);
  e->p_var = calloc(np, 1);
  if (!e->t || !e->t_bound || !e->p || !e->p_bound || !e->p_var) {
    rg_match_env_free(e);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

void rg_match_env_reset(rg_match_env *e) {
  memset(e->t_bound, 0, (size_t)e->n_tvars);
  memset(e->p_bound, 0, (size_t)e->n_pvars);
}

void rg_match_env_free(rg_match_env *e) {
  free(e->t);
  free(e->t_bound);
  free(e->p);
  free(e->p_bound);
  free(e->p_var);
  memset(e, 0, sizeof *e);
}

static bool match_param(const rg_node *pn, const rg_node *tn, int k, rg_match_env *e, int32_t *trail, int *n_trail) {
  bool tvar = tn->var_mask >> k & 1;
  if (!(pn->var_mask >> k & 1)) return !tvar && pn->params[k] == tn->params[k];
  int32_t v = pn->params[k];
  if (e->p_bound[v]) return e->p_var[v] == tvar && e->p[v] == tn->params[k];
  e->p_bound[v] = 1;
  e->p_var[v] = tvar;
  e->p[v] = tn->params[k];
  if (trail) trail[(*n_trail)++] = v;
  return true;
}

bool rg_match_params(const rg_node *pn, const rg_node *tn, rg_match_env *e, int32_t *trail, int *n_trail) {
  if (n_trail) *n_trail = 0;
  /* No variable on either side (most nodes): every slot's value alike, all compared at once. */
  if (!(pn->var_mask | tn->var_mask)) return !memcmp(pn->params, tn->params, sizeof pn->params);
  for (int k = 0; k < RG_MAX_PARAMS; k++)
    if (!match_param(pn, tn, k, e, trail, n_trail)) return false;
  return true;
}

bool rg_match(const rg_graph *pg, rg_ref pr, const rg_graph *tg, rg_ref tr, rg_match_env *e) {
  const rg_node *pn = rg_graph_node(pg, pr.node);
  if (pn->op == RG_OP_INPUT) {
    int32_t v = pn->params[0];
    if (e->t_bound[v]) return e->t[v].node == tr.node && e->t[v].out == tr.out;
    e->t_bound[v] = 1;
    e->t[v] = tr;
    return true;
  }
  const rg_node *tn = rg_graph_node(tg, tr.node);
  if (pn->op != tn->op || pn->n_in != tn->n_in || pr.out != tr.out) return false;
  if (!rg_match_params(pn, tn, e, NULL, NULL)) return false;
  for (int k = 0; k < pn->n_in; k++)
    if (!rg_match(pg, pn->in[k], tg, tn->in[k], e)) return false;
  return true;
}

static rg_status inst(const rg_graph *pg, rg_ref pr, const rg_match_env *e, rg_match_add_fn add, void *ctx,
                      rg_ref *out, rg_err *err) {
  const rg_node *pn = rg_graph_node(pg, pr.node);
  if (pn->op == RG_OP_INPUT) {
    int32_t v = pn->params[0];
    if (!e->t_bound[v])
      return rg_err_set(err, RG_ERR_UNBOUND, "pattern variable ?%s is not bound",
                        rg_graph_tvar_name(pg, v));
    *out = e->t[v];
    return RG_OK;
  }
  rg_node n = *pn;
  n.var_mask = 0;
  for (int k = 0; k < RG_MAX_PARAMS; k++) {
    if (!(pn->var_mask >> k & 1)) continue;
    int32_t v = pn->params[k];
    if (!e->p_bound[v])
      return rg_err_set(err, RG_ERR_UNBOUND, "pattern parameter ?%s is not bound",
                        rg_graph_pvar_name(pg, v));
    n.params[k] = e->p[v];
    if (e->p_var[v]) n.var_mask |= (uint8_t)(1u << k);
  }
  for (int k = 0; k < pn->n_in; k++) {
    rg_status st = inst(pg, pn->in[k], e, add, ctx, &n.in[k], err);
    if (st) return st;
  }
  int32_t id;
  rg_status st = add(ctx, &n, &id, err);
  if (st) return st;
  *out = (rg_ref){id, pr.out};
  return RG_OK;
}

static rg_status graph_add(void *g, const rg_node *n, int32_t *id, rg_err *err) {
  *id = rg_graph_add(g, n);
  return *id < 0 ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

rg_status rg_match_instantiate(const rg_graph *pg, rg_ref pr, const rg_match_env *e, rg_graph *tg,
                               rg_ref *out, rg_err *err) {
  return inst(pg, pr, e, graph_add, tg, out, err);
}

rg_status rg_match_instantiate_with(const rg_graph *pg, rg_ref pr, const rg_match_env *e, rg_match_add_fn add,
                                    void *ctx, rg_ref *out, rg_err *err) {
  return inst(pg, pr, e, add, ctx, out, err);
}

rg_status rg_side_vars(const rg_graph *g, const rg_ref *refs, int n, uint8_t *tvars, uint8_t *pvars,
                       rg_err *err) {
  int32_t size = rg_graph_size(g);
  uint8_t *mark = calloc((size_t)size + 1, 1);
  if (!mark) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_graph_mark_reachable(g, refs, n, mark);
  for (int32_t id = 0; id < size; id++) {
    if (!mark[id]) continue;
    const rg_node *nd = rg_graph_node(g, id);
    if (nd->op == RG_OP_INPUT) tvars[nd->params[0]] = 1;
    for (int k = 0; k < RG_MAX_PARAMS; k++)
      if (nd->var_mask >> k & 1) pvars[nd->params[k]] = 1;
  }
  free(mark);
  return RG_OK;
}
