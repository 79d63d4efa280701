/* prune/rewrite.c: positions, replacement, import and the oriented rewrite-rule index. */
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

#include "match/match.h"

int rg_term_size(const rg_graph *g, rg_ref r, int cap) {
  const rg_node *nd = rg_graph_node(g, r.node);
  if (nd->op == RG_OP_INPUT) return 0;
  int n = 1;
  for (int k = 0; k < nd->n_in && n < cap; k++)
    n += rg_term_size(g, nd->in[k], cap - n);
  return n < cap ? n : cap;
}

rg_status rg_term_sizes_update(rg_term_sizes *ts, const rg_graph *g, rg_err *err) {
  for (int32_t id = ts->n, end = rg_graph_size(g); id < end; id++) {
    if (!rg_grow(&ts->size, &ts->cap, id, sizeof *ts->size, 256)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    const rg_node *nd = rg_graph_node(g, id);
    int32_t n = nd->op != RG_OP_INPUT;
    for (int k = 0; n && k < nd->n_in; k++)
      n += ts->size[nd->in[k].node];
    ts->size[id] = n < RG_TERM_SIZES_CAP ? n : RG_TERM_SIZES_CAP;
    ts->n = id + 1;
  }
  return RG_OK;
}

void rg_term_sizes_free(rg_term_sizes *ts) {
  free(ts->size);
  *ts = (rg_term_sizes){0};
}

int rg_instance_size(const rg_graph *pg, rg_ref pr, const rg_match_env *e, const rg_graph *tg,
                     const rg_term_sizes *known, int cap) {
  const rg_node *pn = rg_graph_node(pg, pr.node);
  if (pn->op == RG_OP_INPUT) {
    int32_t v = pn->params[0];
    if (!e->t_bound[v]) return 0;
    if (!known) return rg_term_size(tg, e->t[v], cap);
    int32_t n = known->size[e->t[v].node];
    return n < cap ? n : cap;
  }
  int n = 1;
  for (int k = 0; k < pn->n_in && n < cap; k++)
    n += rg_instance_size(pg, pn->in[k], e, tg, known, cap - n);
  return n < cap ? n : cap;
}

typedef struct {
  rg_position *items;
  int n, cap;
} pos_list;

static rg_status collect(const rg_graph *g, rg_ref r, rg_position *at, pos_list *l, rg_err *err) {
  const rg_node *nd = rg_graph_node(g, r.node);
  if (nd->op == RG_OP_INPUT) return RG_OK;
  if (!rg_grow(&l->items, &l->cap, l->n, sizeof *l->items, 16)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  at->sub = r;
  l->items[l->n++] = *at;
  if (nd->n_in && at->depth == RG_TERM_MAX_DEPTH)
    return rg_err_set(err, RG_ERR_LIMIT, "term deeper than %d operators", RG_TERM_MAX_DEPTH);
  for (int k = 0; k < nd->n_in; k++) {
    at->path[at->depth++] = (uint8_t)k;
    rg_status st = collect(g, nd->in[k], at, l, err);
    at->depth--;
    if (st) return st;
  }
  return RG_OK;
}

rg_status rg_term_positions(const rg_graph *g, rg_ref r, rg_position **out, int *n, rg_err *err) {
  pos_list l = {0};
  rg_position at;
  memset(&at, 0, sizeof at);
  rg_status st = collect(g, r, &at, &l, err);
  if (st) {
    free(l.items);
    l.items = NULL;
    l.n = 0;
  }
  *out = l.items;
  *n = l.n;
  return st;
}

rg_status rg_term_replace(rg_graph *g, rg_ref root, const uint8_t *path, int depth, rg_ref repl,
                          rg_ref *out, rg_err *err) {
  if (depth == 0) {
    *out = repl;
    return RG_OK;
  }
  rg_node n = *rg_graph_node(g, root.node);
  rg_ref child;
  rg_status st = rg_term_replace(g, n.in[path[0]], path + 1, depth - 1, repl, &child, err);
  if (st) return st;
  n.in[path[0]] = child;
  int32_t id = rg_graph_add(g, &n);
  if (id < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *out = (rg_ref){id, root.out};
  return RG_OK;
}

rg_status rg_term_import(const rg_graph *from, rg_ref r, rg_graph *to, rg_ref *out, rg_err *err) {
  const rg_node *nd = rg_graph_node(from, r.node);
  rg_node n = *nd;
  if (nd->op == RG_OP_INPUT) {
    const char *name = rg_graph_tvar_name(from, nd->params[0]);
    n.params[0] = rg_graph_tvar(to, name, (int)strlen(name));
    if (n.params[0] < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < RG_MAX_PARAMS; k++) {
    if (!(nd->var_mask >> k & 1)) continue;
    const char *name = rg_graph_pvar_name(from, nd->params[k]);
    n.params[k] = rg_graph_pvar(to, name, (int)strlen(name));
    if (n.params[k] < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int k = 0; k < nd->n_in; k++) {
    rg_status st = rg_term_import(from, nd->in[k], to, &n.in[k], err);
    if (st) return st;
  }
  int32_t id = rg_graph_add(to, &n);
  if (id < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *out = (rg_ref){id, r.out};
  return RG_OK;
}

rg_status rg_graph_clone(const rg_graph *g, rg_graph **out, rg_err *err) {
  rg_graph *h = rg_graph_new();
  bool ok = h != NULL;
  for (int32_t i = 0; ok && i < rg_graph_n_tvars(g); i++) {
    const char *s = rg_graph_tvar_name(g, i);
    ok = rg_graph_tvar(h, s, (int)strlen(s)) == i;
  }
  for (int32_t i = 0; ok && i < rg_graph_n_pvars(g); i++) {
    const char *s = rg_graph_pvar_name(g, i);
    ok = rg_graph_pvar(h, s, (int)strlen(s)) == i;
  }
  /* Nodes of g are pairwise different and in topological order, so adding them in id order
   * gives every node the same id. */
  for (int32_t id = 0; ok && id < rg_graph_size(g); id++)
    ok = rg_graph_add(h, rg_graph_node(g, id)) == id;
  if (!ok) {
    rg_graph_free(h);
    *out = NULL;
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory copying a graph");
  }
  *out = h;
  return RG_OK;
}

struct rg_rewrite_set {
  rg_rewriter *w; /* in order of addition: w[k] is rewriter number k */
  int n, cap;
  rg_pattern_index *index; /* left sides, by rewriter number */
  int32_t max_tvars, max_pvars;
  uint8_t *off; /* tag -> 1 when switched off */
  int off_cap;
};

rg_rewrite_set *rg_rewrite_set_new(void) {
  rg_rewrite_set *s = calloc(1, sizeof(rg_rewrite_set));
  if (s) s->index = rg_pattern_index_new();
  if (s && !s->index) free(s), s = NULL;
  return s;
}

void rg_rewrite_set_free(rg_rewrite_set *s) {
  if (!s) return;
  free(s->w);
  rg_pattern_index_free(s->index);
  free(s->off);
  free(s);
}

static rg_status push(rg_rewrite_set *s, const rg_rewriter *w, rg_err *err) {
  if (!rg_grow(&s->w, &s->cap, s->n, sizeof *s->w, 64)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = rg_pattern_index_add(s->index, w->g, w->lhs, s->n, err);
  if (st) return st;
  s->w[s->n++] = *w;
  return RG_OK;
}

/* Adds to uses[v] the occurrences of each tensor variable v in r's tree form; false when the
 * walk passes budget nodes (a tree of shared sub-terms can be exponentially large). */
static bool count_var_uses(const rg_graph *g, rg_ref r, int32_t *uses, int *budget) {
  if (--*budget < 0) return false;
  const rg_node *nd = rg_graph_node(g, r.node);
  if (nd->op == RG_OP_INPUT) uses[nd->params[0]]++;
  for (int k = 0; k < nd->n_in; k++)
    if (!count_var_uses(g, nd->in[k], uses, budget)) return false;
  return true;
}

/* Whether every tensor variable occurs in rhs's tree at least as often as in lhs's. */
static rg_status keeps_vars(const rg_graph *g, rg_ref lhs, rg_ref rhs, bool *yes, rg_err *err) {
  int32_t n = rg_graph_n_tvars(g);
  int32_t *uses = calloc(2 * ((size_t)n + 1), sizeof *uses);
  if (!uses) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int budget = 4 * RG_REWRITE_MAX_LHS;
  *yes = count_var_uses(g, lhs, uses, &budget) && count_var_uses(g, rhs, uses + n + 1, &budget);
  for (int32_t v = 0; *yes && v < n; v++)
    *yes = uses[n + 1 + v] >= uses[v];
  free(uses);
  return RG_OK;
}

int rg_rewriter_least_size(const rg_rewriter *w, int sub_size) {
  int least = w->keeps_vars ? sub_size - w->lhs_ops + w->rhs_ops : 0;
  return least > w->rhs_ops ? least : w->rhs_ops;
}

/* Whether every variable of `b` occurs in `a`. */
rg_status rg_side_covers(const rg_graph *g, const rg_ref *a, int na, const rg_ref *b, int nb, bool *yes,
                         rg_err *err) {
  size_t nt = (size_t)rg_graph_n_tvars(g) + 1, np = (size_t)rg_graph_n_pvars(g) + 1;
  uint8_t *buf = calloc(2 * (nt + np), 1);
  if (!buf) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  uint8_t *at = buf, *ap = buf + nt, *bt = ap + np, *bp = bt + nt;
  rg_status st = rg_side_vars(g, a, na, at, ap, err);
  if (!st) st = rg_side_vars(g, b, nb, bt, bp, err);
  *yes = true;
  for (size_t i = 0; i < nt; i++)
    *yes = *yes && (!bt[i] || at[i]);
  for (size_t i = 0; i < np; i++)
    *yes = *yes && (!bp[i] || ap[i]);
  free(buf);
  return st;
}

rg_status rg_rewrite_set_add(rg_rewrite_set *s, const rg_rule *r, int tag, int *added,
                             rg_err *err) {
  int count = 0;
  if (tag < 0) return rg_err_set(err, RG_ERR_ARG, "rewrite tags must not be negative");
  if (tag >= s->off_cap) {
    int cap = s->off_cap ? s->off_cap : 64;
    while (cap <= tag)
      cap *= 2;
    uint8_t *off = realloc(s->off, (size_t)cap);
    if (!off) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    memset(off + s->off_cap, 0, (size_t)(cap - s->off_cap));
    s->off = off;
    s->off_cap = cap;
  }
  if (rg_graph_n_tvars(r->g) > s->max_tvars) s->max_tvars = rg_graph_n_tvars(r->g);
  if (rg_graph_n_pvars(r->g) > s->max_pvars) s->max_pvars = rg_graph_n_pvars(r->g);
  /* graphopt applies a rule of several outputs only whole, where every source output matches:
   * one output pair alone is not a step its searches take */
  if (r->n_tgt == 1 && !(r->src[0].node == r->tgt[0].node && r->src[0].out == r->tgt[0].out)) {
    rg_ref a = r->src[0], b = r->tgt[0];
    bool ok[2] = {false, false}; /* a to b, b to a: the left side an operator that binds the right's variables */
    for (int d = 0; d < 2; d++) {
      rg_ref l = d ? b : a, rr = d ? a : b;
      rg_status st = rg_graph_node(r->g, l.node)->op == RG_OP_INPUT ? RG_OK : rg_side_covers(r->g, &l, 1, &rr, 1, &ok[d], err);
      if (st) return st;
    }
    for (int d = 0; d < 2; d++) {
      rg_ref l = d ? b : a, rr = d ? a : b;
      if (!ok[d]) continue;
      /* a pattern's path in the index is as long as its tree, and a lookup recurses along it */
      int lhs_ops = rg_term_size(r->g, l, RG_REWRITE_MAX_LHS + 1);
      if (lhs_ops > RG_REWRITE_MAX_LHS) continue;
      rg_rewriter w = {.g = r->g,
                       .lhs = l,
                       .rhs = rr,
                       .tag = tag,
                       .output = 0,
                       .reverse = d == 1,
                       .reversible = ok[1 - d],
                       .lhs_ops = lhs_ops,
                       .rhs_ops = rg_term_size(r->g, rr, RG_TERM_SIZES_CAP)};
      rg_status st = keeps_vars(r->g, l, rr, &w.keeps_vars, err);
      if (!st) st = push(s, &w, err);
      if (st) return st;
      count++;
    }
  }
  if (added) *added = count;
  return RG_OK;
}

rg_status rg_rewrite_set_candidates(const rg_rewrite_set *s, const rg_graph *g, rg_ref t,
                                    rg_id_list *out, rg_err *err) {
  return rg_pattern_index_lookup(s->index, g, t, out, err);
}

const rg_rewriter *rg_rewrite_set_at(const rg_rewrite_set *s, int32_t k) { return &s->w[k]; }

int rg_rewrite_set_size(const rg_rewrite_set *s) { return s->n; }

void rg_rewrite_set_enable(rg_rewrite_set *s, int tag, bool on) {
  if (tag >= 0 && tag < s->off_cap) s->off[tag] = !on;
}

bool rg_rewrite_set_enabled(const rg_rewrite_set *s, int tag) {
  return tag < 0 || tag >= s->off_cap || !s->off[tag];
}

void rg_rewrite_set_max_vars(const rg_rewrite_set *s, int32_t *n_tvars, int32_t *n_pvars) {
  *n_tvars = s->max_tvars;
  *n_pvars = s->max_pvars;
}
