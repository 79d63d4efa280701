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

rg_status rg_ops_index_build(rg_egraph *eg, const rg_graph *g, const uint8_t *live, rg_ops_index *ix,
                             rg_err *err) {
  int32_t n = rg_egraph_n_nodes(eg);
  memset(ix->at, 0, sizeof ix->at);
  free(ix->ids), free(ix->class_ops);
  ix->ids = malloc(sizeof *ix->ids * ((size_t)n + 1));
  ix->class_ops = calloc((size_t)n * RG_MAX_OUTPUTS + 1, sizeof *ix->class_ops);
  if (!ix->ids || !ix->class_ops) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t id = 0; id < n; id++) {
    if (!node_live(eg, g, live, id)) continue;
    int op = rg_graph_node(g, id)->op;
    ix->at[op + 1]++;
    for (int o = 0; o < rg_op_get((rg_op)op)->n_outputs; o++)
      ix->class_ops[rg_egraph_find(eg, id * RG_MAX_OUTPUTS + o)] |= 1u << op;
  }
  for (int op = 0; op < RG_OP_COUNT; op++) ix->at[op + 1] += ix->at[op];
  int32_t fill[RG_OP_COUNT];
  memcpy(fill, ix->at, sizeof fill);
  for (int32_t id = 0; id < n; id++)
    if (node_live(eg, g, live, id)) ix->ids[fill[rg_graph_node(g, id)->op]++] = id;
  return RG_OK;
}

rg_status rg_ops_index_near(const rg_ops_index *all, rg_egraph *eg, const rg_graph *g, const uint8_t *near, int h,
                            rg_ops_index *ix, rg_err *err) {
  int32_t n = all->at[RG_OP_COUNT];
  free(ix->ids);
  ix->class_ops = all->class_ops; /* shared: the full index owns it */
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

static void record(ematcher *x) {
  rg_matches *ms = x->out;
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

/* The next output's root, at every node with its operator (a class distinct from the outputs
 * matched), or, when every output has matched, the record. */
static void next_output(ematcher *x) {
  if (x->k + 1 == x->d->n) {
    record(x);
    return;
  }
  x->k++;
  rg_ref pr = x->d->from[x->k];
  const rg_node *pn = rg_graph_node(x->d->g, pr.node);
  for (int32_t i = x->ix->at[pn->op]; !x->full && !x->failed && i < x->ix->at[pn->op + 1]; i++) {
    int32_t id = x->ix->ids[i], u = id * RG_MAX_OUTPUTS + pr.out;
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

rg_status rg_ematch(rg_egraph *eg, const rg_graph *g, const rg_apply_dir *d, int32_t di, const rg_ops_index *ix,
                    const uint8_t *near, int depth, rg_matches *out, int64_t limit, bool *full, rg_err *err) {
  ematcher x = {.eg = eg, .g = g, .d = d, .di = di, .ix = ix, .near = d->n == 1 ? near : NULL, .depth = depth,
                .k = -1, .out = out, .limit = limit, .err = err};
  rg_status st = rg_match_env_init(&x.env, rg_graph_n_tvars(d->g), rg_graph_n_pvars(d->g), err);
  if (st) return st;
  next_output(&x);
  rg_match_env_free(&x.env);
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
