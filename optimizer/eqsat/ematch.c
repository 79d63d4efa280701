/* optimizer/eqsat/ematch.c: e-matching (eqsat_internal.h): a rule side matched against e-classes. A
 * pattern operator tries each member node of the class with that operator (and output index),
 * its parameters through match/'s rg_match_params, its operands as classes; a pattern variable
 * binds a class, consistently. Pending (pattern, class) pairs sit on a stack, so every
 * combination of member choices is enumerated by plain backtracking. */
#include <stdlib.h>
#include <string.h>

#include "eqsat_internal.h"
#include "match/match.h"

#define MAX_PENDING 64 /* operands waiting to be matched: far more than a rule side has */

typedef struct {
  rg_ref pr;   /* pattern value (in the rule's graph) */
  int32_t cls; /* e-class it must match */
} pending;

typedef struct {
  rg_egraph *eg;
  const rg_graph *g; /* the model's */
  const rg_apply_dir *d;
  int32_t di;
  const rg_ops_index *ix;
  const uint8_t *near; /* semi-naive: roots c tried only where near[c] <= depth (NULL: all) */
  int depth;           /* the pattern's operator levels */
  rg_match_env env;
  pending todo[MAX_PENDING];
  int n_todo;
  int k;                           /* the output being matched */
  int32_t at[RG_RULE_MAX_OUTPUTS]; /* the classes outputs 0..k matched */
  const uint8_t *shared; /* [tensor variable]: read by two outputs or more (multi-output: rg_outputs_sharing) */
  int32_t *roots[RG_RULE_MAX_OUTPUTS]; /* [k]: output k's candidate roots (roots_by_users) */
  int32_t *level[2];                   /* scratch: the classes one pattern level up */
  int32_t cap_roots[RG_RULE_MAX_OUTPUTS], cap_level[2];
  rg_matches *out;
  int64_t limit;
  bool full;
  rg_status failed;
  rg_err *err;
} ematcher;

/* Whether some output of node id lies in a live class. */
static bool node_live(rg_egraph *eg, const rg_graph *g, const uint8_t *live, int32_t id) {
  const rg_node *nd = rg_graph_node(g, id);
  int outs = rg_op_get((rg_op)nd->op)->n_outputs;
  for (int o = 0; o < outs; o++)
    if (live[rg_egraph_find(eg, id * RG_MAX_OUTPUTS + o)]) return true;
  return false;
}

/* Whether operand k of nd is the first of its operands in its class (a node is a user of a
 * class once). */
static bool first_in_class(rg_egraph *eg, const rg_node *nd, int k) {
  int32_t c = rg_egraph_class(eg, nd->in[k]);
  for (int j = 0; j < k; j++)
    if (rg_egraph_class(eg, nd->in[j]) == c) return false;
  return true;
}

/* users and user_at: each live node (alive[id]) under the classes of its operands. */
static rg_status build_users(rg_egraph *eg, const rg_graph *g, const uint8_t *alive, rg_ops_index *ix, rg_err *err) {
  int32_t n = rg_egraph_n_nodes(eg), nv = n * RG_MAX_OUTPUTS;
  ix->user_at = calloc((size_t)nv + 2, sizeof *ix->user_at);
  ix->stamp = calloc((size_t)nv + 1, sizeof *ix->stamp), ix->n_values = nv;
  if (!ix->user_at || !ix->stamp) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t id = 0; id < n; id++) {
      const rg_node *nd = rg_graph_node(g, id);
      for (int k = 0; alive[id] && k < nd->n_in; k++) {
        if (!first_in_class(eg, nd, k)) continue;
        int32_t c = rg_egraph_class(eg, nd->in[k]);
        if (pass == 0) ix->user_at[c + 2]++;
        else ix->users[ix->user_at[c + 1]++] = id;
      }
    }
    if (pass == 1) break;
    for (int32_t c = 0; c < nv; c++) ix->user_at[c + 2] += ix->user_at[c + 1];
    if (!(ix->users = malloc(sizeof *ix->users * ((size_t)ix->user_at[nv + 1] + 1))))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

void rg_ops_index_free(rg_ops_index *ix) {
  free(ix->ids), free(ix->class_ops), free(ix->user_at), free(ix->users), free(ix->stamp);
  ix->ids = ix->users = ix->user_at = ix->stamp = NULL, ix->class_ops = NULL;
}

rg_status rg_ops_index_build(rg_egraph *eg, const rg_graph *g, const uint8_t *live, rg_ops_index *ix,
                             rg_err *err) {
  int32_t n = rg_egraph_n_nodes(eg);
  memset(ix->at, 0, sizeof ix->at);
  rg_ops_index_free(ix);
  ix->ids = malloc(sizeof *ix->ids * ((size_t)n + 1));
  ix->class_ops = calloc((size_t)n * RG_MAX_OUTPUTS + 1, sizeof *ix->class_ops);
  uint8_t *alive = malloc((size_t)n + 1); /* [node]: some output in a live class */
  if (!ix->ids || !ix->class_ops || !alive) return free(alive), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t id = 0; id < n; id++) alive[id] = node_live(eg, g, live, id);
  for (int32_t id = 0; id < n; id++) {
    if (!alive[id]) continue;
    int op = rg_graph_node(g, id)->op;
    ix->at[op + 1]++;
    for (int o = 0; o < rg_op_get((rg_op)op)->n_outputs; o++)
      ix->class_ops[rg_egraph_find(eg, id * RG_MAX_OUTPUTS + o)] |= 1u << op;
  }
  for (int op = 0; op < RG_OP_COUNT; op++) ix->at[op + 1] += ix->at[op];
  int32_t fill[RG_OP_COUNT];
  memcpy(fill, ix->at, sizeof fill);
  for (int32_t id = 0; id < n; id++)
    if (alive[id]) ix->ids[fill[rg_graph_node(g, id)->op]++] = id;
  rg_status st = build_users(eg, g, alive, ix, err);
  free(alive);
  return st;
}

rg_status rg_ops_index_near(const rg_ops_index *all, rg_egraph *eg, const rg_graph *g, const uint8_t *near, int h,
                            rg_ops_index *ix, rg_err *err) {
  int32_t n = all->at[RG_OP_COUNT];
  free(ix->ids);
  ix->class_ops = all->class_ops, ix->user_at = all->user_at; /* shared: the full index owns them */
  ix->users = all->users, ix->stamp = all->stamp, ix->n_values = all->n_values;
  if (!(ix->ids = malloc(sizeof *ix->ids * ((size_t)n + 1)))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int32_t kept = 0;
  for (int op = 0; op < RG_OP_COUNT; op++) {
    ix->at[op] = kept;
    for (int32_t i = all->at[op]; i < all->at[op + 1]; i++) {
      int32_t id = all->ids[i], outs = rg_op_get((rg_op)rg_graph_node(g, id)->op)->n_outputs;
      bool close = false;
      for (int o = 0; o < outs && !close; o++) close = near[rg_egraph_find(eg, id * RG_MAX_OUTPUTS + o)] <= h;
      if (close) ix->ids[kept++] = id;
    }
  }
  ix->at[RG_OP_COUNT] = kept;
  return RG_OK;
}

uint32_t rg_ops_index_present(const rg_ops_index *ix) {
  uint32_t ops = 0;
  for (int op = 0; op < RG_OP_COUNT; op++)
    if (ix->at[op + 1] > ix->at[op]) ops |= 1u << op;
  return ops;
}

static bool push(rg_matches *ms, int32_t x) {
  if (ms->n == ms->cap) {
    int64_t cap = ms->cap ? 2 * ms->cap : 4096;
    int32_t *nv = realloc(ms->v, sizeof *nv * (size_t)cap);
    if (!nv) return false;
    ms->v = nv, ms->cap = cap;
  }
  ms->v[ms->n++] = x;
  return true;
}

/* Whether class c holds one number computed from weights alone (a scalar constant). */
static bool class_constant_scalar(const ematcher *x, int32_t c) {
  if (rg_shape_numel(rg_model_shape(rg_egraph_model(x->eg), rg_egraph_ref(c))) > 1) return false;
  int32_t u = c;
  do {
    if (rg_egraph_weight_only(x->eg, u / RG_MAX_OUTPUTS)) return true;
    u = rg_egraph_next(x->eg, u);
  } while (u != c);
  return false;
}

/* Whether the outputs matched share more than constant scalars (a variable two outputs read,
 * bound to a class that is not one number made of weights). Outputs that share only such a
 * number (two products by one scalar) are unrelated places: merged, they pair every such node
 * with every other, and the merges with each other, filling the e-graph with copies no cost
 * favours. A shared weight tensor is a merge (inputs batched through one weight). */
static bool share_data(const ematcher *x) {
  for (int32_t v = 0; v < rg_graph_n_tvars(x->d->g); v++)
    if (x->shared[v] && x->env.t_bound[v] && !class_constant_scalar(x, rg_egraph_class(x->eg, x->env.t[v])))
      return true;
  return false;
}

static void record(ematcher *x) {
  rg_matches *ms = x->out;
  if (x->shared && !share_data(x)) return;
  int64_t start = ms->n;
  bool ok = push(ms, x->di);
  for (int k = 0; ok && k < x->d->n; k++) ok = push(ms, x->at[k]);
  for (int32_t v = 0; ok && v < rg_graph_n_tvars(x->d->g); v++)
    ok = push(ms, x->env.t_bound[v] ? rg_egraph_value(x->env.t[v]) : -1);
  for (int32_t v = 0; ok && v < rg_graph_n_pvars(x->d->g); v++)
    ok = push(ms, x->env.p_bound[v]) && push(ms, x->env.p_var[v]) && push(ms, x->env.p[v]);
  if (!ok) {
    ms->n = start;
    x->failed = rg_err_set(x->err, RG_ERR_NOMEM, "out of memory");
    return;
  }
  if (++ms->count >= x->limit) x->full = true;
}

static void solve(ematcher *x);

/* Pattern operator pn (value pr) against member value u of a class: its operands pushed as
 * pending pairs, the rest solved, everything undone after. */
static void try_member(ematcher *x, const rg_node *pn, rg_ref pr, int32_t u) {
  const rg_node *tn = rg_graph_node(x->g, u / RG_MAX_OUTPUTS);
  if (tn->op != pn->op || tn->n_in != pn->n_in || u % RG_MAX_OUTPUTS != pr.out) return;
  if (x->n_todo + pn->n_in > MAX_PENDING) return; /* never with real rules */
  int32_t trail[RG_MAX_PARAMS];
  int n_trail = 0;
  if (rg_match_params(pn, tn, &x->env, trail, &n_trail)) {
    for (int k = pn->n_in - 1; k >= 0; k--)
      x->todo[x->n_todo++] = (pending){pn->in[k], rg_egraph_class(x->eg, tn->in[k])};
    solve(x);
    x->n_todo -= pn->n_in;
  }
  for (int i = 0; i < n_trail; i++) x->env.p_bound[trail[i]] = 0;
}

#define MAX_CLIMB 8 /* pattern levels climbed from a bound variable: more than a rule side has */

/* A path in pattern pr from its root down to a variable an earlier output bound: the pattern
 * nodes pn[0..] (pn[0] pr's) and the operand pk[i] taken at each; its length, or 0. */
static int bound_path(const ematcher *x, rg_ref pr, int32_t *pn, int *pk, int depth) {
  const rg_node *nd = rg_graph_node(x->d->g, pr.node);
  for (int k = 0; k < nd->n_in && depth < MAX_CLIMB; k++) {
    const rg_node *c = rg_graph_node(x->d->g, nd->in[k].node);
    int len = c->op != RG_OP_INPUT ? bound_path(x, nd->in[k], pn, pk, depth + 1)
                                   : x->env.t_bound[c->params[0]] ? depth + 1 : 0;
    if (len) return pn[depth] = pr.node, pk[depth] = k, len;
  }
  return 0;
}

static bool grow(int32_t **v, int32_t *cap, int32_t n) {
  if (n < *cap) return true;
  int32_t c = *cap ? 2 * *cap : 1024, *nv = realloc(*v, sizeof *nv * (size_t)c);
  if (nv) *v = nv, *cap = c;
  return nv != NULL;
}

/* Output k's candidate roots (into x->roots[k]): the nodes that reach, along a path of pattern
 * pr, the class a variable bound by an earlier output holds, climbing users from it; their
 * count, or -1 when pr has no such path (every node with its operator is a candidate). */
static int32_t roots_by_users(ematcher *x, rg_ref pr) {
  int32_t pn[MAX_CLIMB], n_cur = 1, n_next = 0, n_roots = 0, *stamp = x->ix->stamp, *tick = &stamp[x->ix->n_values];
  int pk[MAX_CLIMB], len = bound_path(x, pr, pn, pk, 0);
  if (!len || !grow(&x->level[0], &x->cap_level[0], 1)) return -1;
  const rg_node *bottom = rg_graph_node(x->d->g, rg_graph_node(x->d->g, pn[len - 1])->in[pk[len - 1]].node);
  x->level[0][0] = rg_egraph_class(x->eg, x->env.t[bottom->params[0]]);
  for (int i = len - 1, cur = 0; i >= 0; i--, cur ^= 1, n_cur = n_next, n_next = 0) {
    const rg_node *p = rg_graph_node(x->d->g, pn[i]);
    int up = i ? rg_graph_node(x->d->g, pn[i - 1])->in[pk[i - 1]].out : 0;
    ++*tick;
    for (int32_t a = 0; a < n_cur; a++) {
      int32_t c = x->level[cur][a];
      for (int32_t e = x->ix->user_at[c]; e < x->ix->user_at[c + 1]; e++) {
        int32_t u = x->ix->users[e];
        const rg_node *tn = rg_graph_node(x->g, u);
        if (tn->op != p->op || tn->n_in != p->n_in || rg_egraph_class(x->eg, tn->in[pk[i]]) != c) continue;
        int32_t v = i ? rg_egraph_find(x->eg, u * RG_MAX_OUTPUTS + up) : u;
        if (i && (up >= rg_op_get((rg_op)tn->op)->n_outputs || stamp[v] == *tick)) continue;
        if (i) stamp[v] = *tick;
        int32_t **to = i ? &x->level[cur ^ 1] : &x->roots[x->k];
        int32_t *n_to = i ? &n_next : &n_roots, *cap = i ? &x->cap_level[cur ^ 1] : &x->cap_roots[x->k];
        if (!grow(to, cap, *n_to + 1)) return -1;
        (*to)[(*n_to)++] = v;
      }
    }
  }
  return n_roots;
}

/* The next output's root, at every node with its operator (a class distinct from the outputs
 * matched; when a variable it shares with them is bound, only the nodes above that variable's
 * class), or, when every output has matched, the record. */
static void next_output(ematcher *x) {
  if (x->k + 1 == x->d->n) {
    record(x);
    return;
  }
  x->k++;
  rg_ref pr = x->d->from[x->k];
  const rg_node *pn = rg_graph_node(x->d->g, pr.node);
  int32_t n_roots = x->k ? roots_by_users(x, pr) : -1;
  int32_t lo = n_roots < 0 ? x->ix->at[pn->op] : 0, hi = n_roots < 0 ? x->ix->at[pn->op + 1] : n_roots;
  for (int32_t i = lo; !x->full && !x->failed && i < hi; i++) {
    int32_t id = n_roots < 0 ? x->ix->ids[i] : x->roots[x->k][i], u = id * RG_MAX_OUTPUTS + pr.out;
    if (rg_egraph_weight_only(x->eg, id) || pr.out >= rg_op_get((rg_op)pn->op)->n_outputs) continue;
    int32_t c = rg_egraph_find(x->eg, u);
    if (x->near && x->near[c] > x->depth) continue; /* any match here was there at the last matching */
    bool distinct = true;
    for (int j = 0; j < x->k; j++) distinct = distinct && x->at[j] != c;
    if (!distinct) continue;
    x->at[x->k] = c;
    try_member(x, pn, pr, u);
  }
  x->k--;
}

static void solve(ematcher *x) {
  if (x->full || x->failed) return;
  if (x->n_todo == 0) {
    next_output(x);
    return;
  }
  pending p = x->todo[--x->n_todo];
  const rg_node *pn = rg_graph_node(x->d->g, p.pr.node);
  if (pn->op == RG_OP_INPUT) {
    int32_t v = pn->params[0];
    if (x->env.t_bound[v]) {
      if (rg_egraph_class(x->eg, x->env.t[v]) == p.cls) solve(x);
    } else {
      x->env.t_bound[v] = 1, x->env.t[v] = rg_egraph_ref(p.cls);
      solve(x);
      x->env.t_bound[v] = 0;
    }
  } else if (x->ix->class_ops[p.cls] & (1u << pn->op)) { /* else no member can match */
    int32_t u = p.cls;
    do {
      try_member(x, pn, p.pr, u);
      u = rg_egraph_next(x->eg, u);
    } while (u != p.cls && !x->full && !x->failed);
  }
  x->todo[x->n_todo++] = p;
}

rg_status rg_outputs_sharing(const rg_apply_dir *d, uint8_t **shared, bool *apart, rg_err *err) {
  size_t nt = (size_t)rg_graph_n_tvars(d->g) + 1, np = (size_t)rg_graph_n_pvars(d->g) + 1;
  uint8_t *seen = calloc(2 * nt + np, 1), *vars = seen + nt, *pvars = vars + nt;
  *shared = calloc(nt, 1), *apart = false;
  rg_status st = seen && *shared ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int k = 0; !st && k < d->n; k++) {
    memset(vars, 0, nt), memset(pvars, 0, np);
    st = rg_side_vars(d->g, &d->from[k], 1, vars, pvars, err);
    bool with_before = false;
    for (size_t v = 0; v + 1 < nt; v++)
      with_before |= seen[v] && vars[v], (*shared)[v] |= seen[v] && vars[v], seen[v] |= vars[v];
    *apart |= k > 0 && !with_before;
  }
  free(seen);
  if (st) free(*shared), *shared = NULL;
  return st;
}

rg_status rg_ematch(rg_egraph *eg, const rg_graph *g, const rg_apply_dir *d, int32_t di, const uint8_t *shared,
                    const rg_ops_index *ix, const uint8_t *near, int depth, rg_matches *out, int64_t limit, bool *full,
                    rg_err *err) {
  ematcher x = {.eg = eg, .g = g, .d = d, .di = di, .shared = shared, .ix = ix, .near = d->n == 1 ? near : NULL,
                .depth = depth, .k = -1, .out = out, .limit = limit, .err = err};
  rg_status st = rg_match_env_init(&x.env, rg_graph_n_tvars(d->g), rg_graph_n_pvars(d->g), err);
  if (st) return st;
  next_output(&x);
  rg_match_env_free(&x.env);
  for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++) free(x.roots[k]);
  free(x.level[0]), free(x.level[1]);
  *full = x.full;
  return x.failed;
}

int32_t rg_matches_read(const rg_matches *ms, int64_t *pos, const rg_apply_set *s, int32_t *at, rg_match_env *env) {
  const int32_t *r = ms->v + *pos;
  int32_t di = *r++;
  const rg_apply_dir *d = rg_apply_set_dir(s, di);
  for (int k = 0; k < d->n; k++) at[k] = *r++;
  for (int32_t v = 0; v < rg_graph_n_tvars(d->g); v++, r++) {
    env->t_bound[v] = *r >= 0;
    if (*r >= 0) env->t[v] = rg_egraph_ref(*r);
  }
  for (int32_t v = 0; v < rg_graph_n_pvars(d->g); v++, r += 3)
    env->p_bound[v] = (uint8_t)r[0], env->p_var[v] = (uint8_t)r[1], env->p[v] = r[2];
  *pos = r - ms->v;
  return di;
}
