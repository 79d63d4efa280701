/* optimizer/search/apply.c: rule application on model graphs (apply.h). A lookup in the pattern index
 * (match/) finds the sides whose operator skeleton a value has; the matcher binds them; the
 * target is instantiated through rg_model_add_node, so a target that does not type at the
 * model's shapes fails there and is not applied. */
#include "apply.h"

#include <stdlib.h>
#include <string.h>

#include "match/match.h"

typedef rg_apply_dir direction;

struct rg_apply_set {
  direction *dir;
  int n_dir;
  rg_pattern_index *index; /* pattern id = dir * RG_RULE_MAX_OUTPUTS + output */
  int32_t max_tvars, max_pvars;
};

void rg_apply_set_free(rg_apply_set *s) {
  if (!s) return;
  free(s->dir);
  rg_pattern_index_free(s->index);
  free(s);
}

int rg_apply_set_size(const rg_apply_set *s) { return s->n_dir; }
const rg_apply_dir *rg_apply_set_dir(const rg_apply_set *s, int i) { return &s->dir[i]; }

/* Whether side `to` uses only variables side `from` binds, and no side is a bare variable. */
static rg_status usable(const rg_rule *r, const rg_ref *from, const rg_ref *to, bool *ok, rg_err *err) {
  *ok = false;
  for (int k = 0; k < r->n_src; k++)
    if (rg_graph_node(r->g, from[k].node)->op == RG_OP_INPUT) return RG_OK;
  size_t nt = (size_t)rg_graph_n_tvars(r->g) + 1, np = (size_t)rg_graph_n_pvars(r->g) + 1;
  uint8_t *t = calloc(2 * nt + 2 * np, 1);
  if (!t) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  uint8_t *ft = t, *tt = t + nt, *fp = t + 2 * nt, *tp = t + 2 * nt + np;
  rg_status st = rg_side_vars(r->g, from, r->n_src, ft, fp, err);
  if (!st) st = rg_side_vars(r->g, to, r->n_src, tt, tp, err);
  bool covered = true;
  for (size_t v = 0; !st && v < nt; v++) covered = covered && (!tt[v] || ft[v]);
  for (size_t v = 0; !st && v < np; v++) covered = covered && (!tp[v] || fp[v]);
  free(t);
  *ok = covered;
  return st;
}

static rg_status add_direction(rg_apply_set *s, const rg_rule *r, int32_t rule, bool reversed, rg_err *err) {
  const rg_ref *from = reversed ? r->tgt : r->src, *to = reversed ? r->src : r->tgt;
  bool ok;
  rg_status st = usable(r, from, to, &ok, err);
  if (st || !ok) return st;
  direction *d = &s->dir[s->n_dir];
  *d = (direction){r->g, rule, reversed, r->n_src, {{0}}, {{0}}, r->at};
  memcpy(d->from, from, sizeof *from * (size_t)r->n_src);
  memcpy(d->to, to, sizeof *to * (size_t)r->n_src);
  /* pattern ids must be consecutive: every slot gets one, unused outputs a copy of output 0 */
  for (int k = 0; !st && k < RG_RULE_MAX_OUTPUTS; k++)
    st = rg_pattern_index_add(s->index, r->g, from[k < r->n_src ? k : 0], s->n_dir * RG_RULE_MAX_OUTPUTS + k, err);
  if (st) return st;
  s->n_dir++;
  if (rg_graph_n_tvars(r->g) > s->max_tvars) s->max_tvars = rg_graph_n_tvars(r->g);
  if (rg_graph_n_pvars(r->g) > s->max_pvars) s->max_pvars = rg_graph_n_pvars(r->g);
  return RG_OK;
}

rg_status rg_apply_set_new(const rg_ruleset *rules, rg_apply_set **out, rg_err *err) {
  rg_apply_set *s = calloc(1, sizeof *s);
  if (s) s->dir = malloc(sizeof *s->dir * (size_t)(2 * rules->n + 1));
  if (s) s->index = rg_pattern_index_new();
  if (!s || !s->dir || !s->index) {
    rg_apply_set_free(s);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rg_status st = RG_OK;
  for (int32_t i = 0; !st && i < rules->n; i++) {
    const rg_rule *r = rules->rules[i];
    if (r->n_tgt == 0) continue;
    st = add_direction(s, r, i, false, err);
    if (!st && !r->at) st = add_direction(s, r, i, true, err); /* held at given shapes: forward only */
  }
  if (st) {
    rg_apply_set_free(s);
    return st;
  }
  *out = s;
  return RG_OK;
}

bool rg_apply_dir_admits(const rg_apply_dir *d, const rg_model *m, const rg_match_env *env) {
  for (int32_t v = 0; d->at && v < env->n_tvars && v < rg_graph_n_tvars(d->g); v++)
    if (env->t_bound[v] && !rg_shape_dims_eq(&d->at[v], rg_model_shape(m, env->t[v]))) return false;
  return true;
}

/* ---- one model graph, seen from its roots ---- */

typedef struct {
  const rg_apply_set *s;
  rg_model *m;
  const rg_ref *roots;
  int32_t n_roots, size; /* graph size when the walk began: every reachable node is below it */
  int32_t *live;         /* reachable operator nodes, in node (topological) order */
  int32_t n_live;
  uint8_t *used;         /* [node]: bit k when output k is read (by a reachable node or a root) */
  uint8_t *wonly;        /* [node]: weight-only (folded by export: rewriting it changes nothing) */
  rg_ref **hits;         /* [pattern id]: values with the pattern's skeleton */
  int *n_hits, *cap_hits;
  int32_t *memo;         /* [node]: the node rebuilt over the replacements, -1 not yet */
  rg_ref *new_roots;
  rg_match_env env;
  rg_match_env keep[RG_RULE_MAX_OUTPUTS]; /* [k]: the bindings before output k was matched */
  rg_apply_visit visit;
  void *ctx;
  bool stop;
} walk;

/* The reachable operator nodes (live), who reads what (used), memo cleared for every reachable
 * node: work in the model's size, not the graph's (which holds every model explored). */
static rg_status collect(walk *w, rg_err *err) {
  uint32_t *seen = calloc((size_t)w->size + 1, sizeof *seen);
  int32_t *stack = malloc(sizeof *stack * ((size_t)w->size + 1)), *order = malloc(sizeof *order * ((size_t)w->size + 1));
  if (!seen || !stack || !order) {
    free(seen), free(stack), free(order);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  int32_t n = rg_graph_reach(w->m->g, w->roots, w->n_roots, seen, 1, stack, order);
  rg_ids_sort(order, n, stack); /* live in id order: rebuild starts after the first replaced node */
  rg_model_weight_only(w->m, order, n, w->wonly);
  for (int32_t i = 0; i < n; i++) w->used[order[i]] = 0, w->memo[order[i]] = -1;
  for (int32_t i = 0; i < w->n_roots; i++)
    if (w->roots[i].node >= 0) w->used[w->roots[i].node] |= (uint8_t)(1u << w->roots[i].out);
  for (int32_t i = 0; i < n; i++) {
    const rg_node *nd = rg_graph_node(w->m->g, order[i]);
    for (int k = 0; k < nd->n_in; k++) w->used[nd->in[k].node] |= (uint8_t)(1u << nd->in[k].out);
    if (nd->op != RG_OP_INPUT) w->live[w->n_live++] = order[i];
  }
  free(seen), free(stack), free(order);
  return RG_OK;
}

static bool push_hit(walk *w, int32_t pat, rg_ref t) {
  if (w->n_hits[pat] == w->cap_hits[pat]) {
    int cap = w->cap_hits[pat] ? 2 * w->cap_hits[pat] : 4;
    rg_ref *nh = realloc(w->hits[pat], sizeof *nh * (size_t)cap);
    if (!nh) return false;
    w->hits[pat] = nh, w->cap_hits[pat] = cap;
  }
  w->hits[pat][w->n_hits[pat]++] = t;
  return true;
}

/* Every used value against the index: hits[pattern] lists the values each side may match.
 * Weight-only values are left out: export folds them into one initializer whatever their
 * form, so their rewrites are models of the same cost that would crowd the search's queue. */
static rg_status lookup_all(walk *w, rg_err *err) {
  rg_id_list ids = {0};
  rg_status st = RG_OK;
  for (int32_t i = 0; !st && i < w->n_live; i++) {
    int32_t id = w->live[i];
    for (int o = 0; !st && !w->wonly[id] && o < RG_MAX_OUTPUTS; o++) {
      if (!(w->used[id] >> o & 1)) continue;
      st = rg_pattern_index_lookup(w->s->index, w->m->g, (rg_ref){id, o}, &ids, err);
      for (int k = 0; !st && k < ids.n; k++) {
        int32_t pat = ids.id[k];
        if (pat % RG_RULE_MAX_OUTPUTS < w->s->dir[pat / RG_RULE_MAX_OUTPUTS].n && !push_hit(w, pat, (rg_ref){id, o}))
          st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      }
    }
  }
  rg_id_list_free(&ids);
  return st;
}

static rg_status model_add(void *m, const rg_node *n, int32_t *id, rg_err *err) {
  rg_ref r;
  rg_status st = rg_model_add_node(m, n, 0, &r, err);
  *id = r.node;
  return st;
}

static rg_ref substitute(const walk *w, const rg_application *a, rg_ref r) {
  for (int k = 0; k < a->n; k++)
    if (a->at[k].node == r.node && a->at[k].out == r.out) return a->by[k];
  if (r.node < 0 || r.node >= w->size || w->memo[r.node] < 0) return r;
  return (rg_ref){w->memo[r.node], r.out};
}

/* The first index of live whose node comes after node id (live is in ascending id order). */
static int32_t live_after(const walk *w, int32_t id) {
  int32_t lo = 0, hi = w->n_live;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (w->live[mid] <= id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The roots with a's replacements made: every live node over a replaced value built anew.
 * Ids are topological, so nodes up to the first replaced one read nothing replaced. memo is
 * -1 for every reachable node between calls (collect sets it, each call restores it). */
static rg_status rebuild(walk *w, const rg_application *a, rg_err *err) {
  int32_t first = a->at[0].node;
  for (int k = 1; k < a->n; k++)
    if (a->at[k].node < first) first = a->at[k].node;
  int32_t start = live_after(w, first);
  rg_status st = RG_OK;
  for (int32_t i = start; !st && i < w->n_live; i++) {
    int32_t id = w->live[i];
    rg_node nd = *rg_graph_node(w->m->g, id);
    bool changed = false;
    for (int k = 0; k < nd.n_in; k++) {
      rg_ref to = substitute(w, a, nd.in[k]);
      changed = changed || to.node != nd.in[k].node || to.out != nd.in[k].out;
      nd.in[k] = to;
    }
    if (!changed) continue;
    rg_ref r;
    st = rg_model_add_node(w->m, &nd, 0, &r, err); /* operands of the same types: only out of memory */
    if (!st) w->memo[id] = r.node;
  }
  for (int32_t i = 0; !st && i < w->n_roots; i++) w->new_roots[i] = substitute(w, a, w->roots[i]);
  for (int32_t i = start; i < w->n_live; i++) w->memo[w->live[i]] = -1;
  return st;
}

/* Builds the target of a match and, where it types as the source did, rewrites and visits. */
static rg_status try_apply(walk *w, const direction *d, const rg_ref *at, rg_err *err) {
  rg_application a = {d->rule, d->reversed, d->n, {{0}}, {{0}}};
  memcpy(a.at, at, sizeof *at * (size_t)d->n);
  if (!rg_apply_dir_admits(d, w->m, &w->env)) return RG_OK; /* not at the shapes it holds at */
  bool same = true;
  for (int k = 0; k < d->n; k++) {
    rg_err e;
    rg_status st = rg_match_instantiate_with(d->g, d->to[k], &w->env, model_add, w->m, &a.by[k], &e);
    if (st == RG_ERR_SHAPE || st == RG_ERR_LIMIT) return RG_OK; /* the target does not type here */
    if (st) {
      *err = e;
      return st;
    }
    if (!rg_shape_type_eq(rg_model_shape(w->m, a.by[k]), rg_model_shape(w->m, at[k]))) return RG_OK;
    same = same && a.by[k].node == at[k].node && a.by[k].out == at[k].out;
  }
  if (same) return RG_OK;
  rg_status st = rebuild(w, &a, err);
  if (!st) w->stop = w->visit(w->ctx, &a, w->new_roots);
  return st;
}

static void env_copy(rg_match_env *to, const rg_match_env *from) {
  memcpy(to->t, from->t, sizeof *to->t * (size_t)from->n_tvars);
  memcpy(to->t_bound, from->t_bound, (size_t)from->n_tvars);
  memcpy(to->p, from->p, sizeof *to->p * (size_t)from->n_pvars);
  memcpy(to->p_bound, from->p_bound, (size_t)from->n_pvars);
  memcpy(to->p_var, from->p_var, (size_t)from->n_pvars);
}

/* Output k on of direction d, the outputs before it matched at at[0..k). */
static rg_status match_from(walk *w, int32_t di, int k, rg_ref *at, rg_err *err) {
  const direction *d = &w->s->dir[di];
  if (k == d->n) return try_apply(w, d, at, err);
  if (k >= RG_RULE_MAX_OUTPUTS) return RG_OK; /* never: d->n is at most that (tells the compiler) */
  int32_t pat = di * RG_RULE_MAX_OUTPUTS + k;
  rg_status st = RG_OK;
  if (k > 0) env_copy(&w->keep[k], &w->env);
  for (int i = 0; !st && !w->stop && i < w->n_hits[pat]; i++) {
    rg_ref t = w->hits[pat][i];
    bool distinct = true;
    for (int j = 0; j < k; j++) distinct = distinct && (at[j].node != t.node || at[j].out != t.out);
    if (!distinct) continue;
    if (k == 0) rg_match_env_reset(&w->env);
    else env_copy(&w->env, &w->keep[k]);
    if (!rg_match(d->g, d->from[k], w->m->g, t, &w->env)) continue;
    at[k] = t;
    st = match_from(w, di, k + 1, at, err);
  }
  return st;
}

static void walk_free(walk *w, int n_pat) {
  free(w->live), free(w->used), free(w->wonly), free(w->memo), free(w->new_roots);
  for (int p = 0; w->hits && p < n_pat; p++) free(w->hits[p]);
  free(w->hits), free(w->n_hits), free(w->cap_hits);
  rg_match_env_free(&w->env);
  for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++) rg_match_env_free(&w->keep[k]);
}

rg_status rg_apply_all(const rg_apply_set *s, rg_model *m, const rg_ref *roots, rg_apply_visit visit, void *ctx,
                       rg_err *err) {
  walk w = {.s = s, .m = m, .roots = roots, .n_roots = rg_model_n_roots(m), .size = rg_graph_size(m->g),
            .visit = visit, .ctx = ctx};
  int n_pat = s->n_dir * RG_RULE_MAX_OUTPUTS;
  size_t nodes = (size_t)w.size + 1;
  w.live = malloc(sizeof *w.live * nodes), w.used = malloc(nodes), w.memo = malloc(sizeof *w.memo * nodes);
  w.wonly = malloc(nodes);
  w.new_roots = malloc(sizeof *w.new_roots * (size_t)(w.n_roots + 1));
  w.hits = calloc((size_t)n_pat + 1, sizeof *w.hits);
  w.n_hits = calloc((size_t)n_pat + 1, sizeof *w.n_hits), w.cap_hits = calloc((size_t)n_pat + 1, sizeof *w.cap_hits);
  rg_status st = w.live && w.used && w.wonly && w.memo && w.new_roots && w.hits && w.n_hits && w.cap_hits
                     ? rg_match_env_init(&w.env, s->max_tvars, s->max_pvars, err)
                     : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int k = 1; !st && k < RG_RULE_MAX_OUTPUTS; k++) st = rg_match_env_init(&w.keep[k], s->max_tvars, s->max_pvars, err);
  if (!st) st = collect(&w, err);
  if (!st) st = lookup_all(&w, err);
  rg_ref at[RG_RULE_MAX_OUTPUTS];
  for (int32_t di = 0; !st && !w.stop && di < s->n_dir; di++) st = match_from(&w, di, 0, at, err);
  walk_free(&w, n_pat);
  return st;
}
