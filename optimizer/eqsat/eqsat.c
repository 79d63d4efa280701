/* optimizer/eqsat/eqsat.c: equality saturation's exploration (eqsat.h): match everything, apply
 * everything, rebuild, until saturated or a limit. Extraction: eqsat_extract.c.
 *
 * Matching is semi-naive: a match found and applied in an earlier iteration finds its target
 * merged already when applied again (one rejected for a cycle or for not typing stays rejected:
 * reachability only grows, types are fixed), so after the first iteration a single-output
 * direction is matched only at roots near a class changed since the last matching
 * (eqsat_dirty.c). A direction is matched at every class again after an iteration that did not
 * match it, or dropped its matches (a ban), or did not apply them all. Where the backoff bans
 * alike, the e-classes come out as with matching everywhere (full_rematch), the e-nodes may be
 * fewer: a match applied again can build a node congruent to one there (the congruence table
 * is stale between rebuilds), which the rebuild merges but which stays an e-node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eqsat_internal.h"
#include "ir/grow.h"
#include "match/match.h"

/* Matches kept per iteration at most: beyond it the iteration applies what it has (egg's
 * match limit, so that one explosive rule cannot exhaust memory). */
#define MATCH_LIMIT 2000000

/* egg's backoff scheduler: a single-output rule direction matching more than BACKOFF_MATCHES << b
 * times in an iteration (b: its bans so far) has those matches dropped and sits out BACKOFF_ITERATIONS << b
 * iterations, so that associativity and its kind do not fill the e-node budget with variants
 * while the other rules wait. Exploration is saturated only when nothing is banned. The matches
 * counted are those found near changes (semi-naive), mostly new ones: a better measure of a
 * rule's explosion than egg's count, which includes the matches already applied. */
#define BACKOFF_MATCHES 1000
#define BACKOFF_ITERATIONS 5
#define BACKOFF_MAX_BANS 16

/* The debug build checks the e-graph's invariants after every iteration, whatever asked. */
#ifdef NDEBUG
#define CHECK_ALWAYS 0
#else
#define CHECK_ALWAYS 1
#endif

typedef struct {
  rg_model *m;
  rg_egraph *eg;
  const rg_apply_set *s;
  const rg_eqsat_opts *o;
  rg_eqsat_stats *stats;
  double t0; /* when exploration began */
  rg_ops_index ix;
  rg_matches ms;
  rg_match_env env;
  rg_ref *roots;      /* the model's (rg_model_roots) */
  int32_t *root_cls;
  uint8_t *live; /* [class]: reached from the roots (rg_egraph_reach) */
  int32_t *origin; /* [node]: the application whose target it is, -1 none, -2 the original's */
  int32_t n_origin, cap_origin;
  rg_application *apps; /* the applications made, in order */
  int32_t n_apps, cap_apps;
  int32_t *bans, *banned_until; /* [direction]: bans so far; the iteration its ban ends */
  rg_dirty dirty;               /* how near each class is to a change (semi-naive matching) */
  int *depth, max_depth;        /* [direction]: its pattern's operator levels; the most */
  uint32_t *ops;                /* [direction]: the operators its patterns use */
  rg_ops_index *near_ix;        /* [h]: ix's nodes near a change, for patterns of depth h */
  uint8_t *near_built;          /* [h]: near_ix[h] built for this iteration (on first use) */
  uint8_t *rematch;             /* [direction]: to be matched at every class next time */
  uint8_t *apart;               /* [direction]: multi-output, an output sharing no variable with
                                 * those before it (rg_outputs_sharing) */
  uint8_t **shared;             /* [direction]: multi-output, the variables outputs share, or NULL */
  bool rematch_all;             /* every direction so (the first iteration; one cut short) */
  int it;                       /* the iteration under way (0 the first) */
  rg_search_watch watch;        /* Ctrl-C, the memory limit (search.h) */
  rg_err *err;
} explorer;

static rg_status eg_add(void *ctx, const rg_node *n, int32_t *id, rg_err *err) {
  rg_ref r;
  rg_status st = rg_egraph_add(ctx, n, 0, &r, err);
  *id = r.node;
  return st;
}

/* Notes that the nodes added since the last note were built by application a (-1: by a match
 * that was not applied). */
static rg_status note_origin(explorer *x, int32_t a) {
  int32_t to = rg_egraph_n_nodes(x->eg);
  while (x->cap_origin < to)
    if (!rg_grow_to(&x->origin, &x->cap_origin, sizeof *x->origin, 1024))
      return rg_err_set(x->err, RG_ERR_NOMEM, "out of memory");
  for (int32_t id = x->n_origin; id < to; id++) x->origin[id] = a;
  x->n_origin = to;
  return RG_OK;
}

/* The targets of one match built into a->by; false when one does not type as the class it
 * replaces. */
static rg_status build_targets(explorer *x, const rg_apply_dir *d, const int32_t *at, rg_application *a, bool *typed) {
  *typed = false;
  if (!rg_apply_dir_admits(d, x->m, &x->env)) return RG_OK; /* not at the shapes it holds at */
  for (int k = 0; k < d->n; k++) {
    /* no message: not typing is expected, and formatting one for each was a tenth of the time */
    rg_status st = rg_match_instantiate_with(d->g, d->to[k], &x->env, eg_add, x->eg, &a->by[k], NULL);
    if (st == RG_ERR_SHAPE || st == RG_ERR_LIMIT) return RG_OK;
    if (st)
      return rg_err_set(x->err, st, "eqsat: building the target of rule %d (%s): %s", (int)d->rule,
                        d->reversed ? "reversed" : "forward", rg_status_name(st));
    a->at[k] = rg_egraph_ref(rg_egraph_find(x->eg, at[k]));
    if (!rg_shape_type_eq(rg_model_shape(x->m, a->by[k]), rg_model_shape(x->m, a->at[k]))) return RG_OK;
  }
  *typed = true;
  return RG_OK;
}

/* Builds the targets of one match and merges each with the class it matched, unless the merge
 * would make a cycle (each output's equation holds on its own: a partial merge is sound). The
 * application is recorded (for --explain) when its targets typed. */
static rg_status apply_one(explorer *x, const rg_apply_dir *d, const int32_t *at) {
  rg_application a = {d->rule, d->reversed, d->n, {{0}}, {{0}}};
  bool typed, merged = false;
  rg_status st = build_targets(x, d, at, &a, &typed);
  if (st || !typed) {
    x->stats->untyped += !st;
    return st ? st : note_origin(x, -1);
  }
  for (int k = 0; k < d->n; k++) {
    int32_t u = rg_egraph_value(a.at[k]), v = rg_egraph_value(a.by[k]);
    if (rg_egraph_would_cycle(x->eg, u, v)) x->stats->cycles_filtered++;
    else merged = rg_egraph_union(x->eg, u, v) || merged;
  }
  x->stats->applied += merged; /* one that merged nothing may still have built nodes: kept too */
  if (!rg_grow(&x->apps, &x->cap_apps, x->n_apps, sizeof *x->apps, 256)) return rg_err_set(x->err, RG_ERR_NOMEM, "out of memory");
  x->apps[x->n_apps] = a;
  st = note_origin(x, x->n_apps);
  for (int k = 0; !st && k < d->n; k++) /* a target found built (by an earlier run) is this one's too */
    if (x->origin[a.by[k].node] == -1) x->origin[a.by[k].node] = x->n_apps;
  x->n_apps++;
  return st;
}

/* The clock the time limit is read on (a test's, else the process's). */
static double limit_clock(const explorer *x) {
  return x->o->clock ? x->o->clock() : rg_clock_seconds();
}

static bool past_time_limit(explorer *x) {
  return x->o->time_limit > 0 && limit_clock(x) - x->t0 > x->o->time_limit;
}

/* Whether the time limit has passed, a stop was asked for or the memory limit is reached
 * (checked within an iteration too: one iteration of a large e-graph can take long). */
static bool out_of_time(explorer *x) {
  return past_time_limit(x) || rg_search_watch_check(&x->watch);
}

/* Direction di's matches appended to x->ms (near changes only, unless it is to be matched at
 * every class), unless there are more than its backoff allows: then none, and it is banned. */
static rg_status match_or_ban(explorer *x, const rg_apply_dir *d, int di, bool *full) {
  int64_t n0 = x->ms.n, count0 = x->ms.count, allowed = (int64_t)BACKOFF_MATCHES << x->bans[di];
  int64_t limit = count0 + allowed + 1 < MATCH_LIMIT ? count0 + allowed + 1 : MATCH_LIMIT;
  const uint8_t *near = x->o->full_rematch || x->rematch_all || x->rematch[di] ? NULL : x->dirty.near;
  int h = x->depth[di];
  rg_status st = RG_OK;
  if (near && !x->near_built[h]) /* only the depths some direction matches at */
    st = rg_ops_index_near(&x->ix, x->eg, x->m->g, near, h, &x->near_ix[h], x->err), x->near_built[h] = 1;
  if (!st) st = rg_ematch(x->eg, x->m->g, d, di, NULL, near ? &x->near_ix[h] : &x->ix, near, h, &x->ms, limit, full, x->err);
  x->rematch[di] = 0;
  if (st || x->ms.count - count0 <= allowed) return st;
  x->ms.n = n0, x->ms.count = count0, *full = false, x->rematch[di] = 1;
  x->banned_until[di] = x->it + (BACKOFF_ITERATIONS << x->bans[di]);
  if (x->bans[di] < BACKOFF_MAX_BANS) x->bans[di]++;
  x->stats->bans++;
  return RG_OK;
}

/* Whether a direction sits out iteration it; with lift, every ban ends before it. */
static bool any_banned(explorer *x, int it, bool lift) {
  bool any = false;
  for (int di = 0; di < rg_apply_set_size(x->s); di++)
    if (x->banned_until[di] > it) any = true, x->banned_until[di] = lift ? 0 : x->banned_until[di];
  return any;
}

/* Every match found, in the order found. */
static rg_status apply_matches(explorer *x) {
  int32_t at[RG_RULE_MAX_OUTPUTS];
  rg_status st = RG_OK;
  for (int64_t pos = 0, k = 0; !st && pos < x->ms.n; k++) {
    if (rg_egraph_n_nodes(x->eg) > x->o->max_enodes || (k % 256 == 0 && out_of_time(x))) {
      x->rematch_all = true; /* the matches left are not found again near changes */
      break;
    }
    rg_match_env_reset(&x->env);
    int32_t di = rg_matches_read(&x->ms, &pos, x->s, at, &x->env);
    st = apply_one(x, rg_apply_set_dir(x->s, di), at);
  }
  return st;
}

/* Every match of every direction (multi-output ones while multi), then each applied. */
static rg_status iterate(explorer *x, bool multi, bool *changed) {
  int32_t nodes0 = rg_egraph_n_nodes(x->eg);
  int64_t applied0 = x->stats->applied;
  x->ms.n = x->ms.count = 0;
  bool full = false;
  size_t nv = (size_t)rg_egraph_n_nodes(x->eg) * RG_MAX_OUTPUTS;
  free(x->live);
  rg_status st = (x->live = calloc(nv + 1, 1)) ? RG_OK : rg_err_set(x->err, RG_ERR_NOMEM, "out of memory");
  for (int32_t i = 0; !st && i < rg_model_n_roots(x->m); i++)
    x->root_cls[i] = x->roots[i].node >= 0 ? rg_egraph_class(x->eg, x->roots[i]) : -1;
  if (!st) rg_egraph_reach(x->eg, x->root_cls, rg_model_n_roots(x->m), x->live);
  if (!st) st = rg_ops_index_build(x->eg, x->m->g, x->live, &x->ix, x->err);
  if (!st && !x->o->full_rematch) st = rg_dirty_update(&x->dirty, x->eg, x->live, x->max_depth, x->err);
  memset(x->near_built, 0, (size_t)x->max_depth + 1);
  uint32_t present = st ? 0 : rg_ops_index_present(&x->ix);
  for (int di = 0; !st && !full && di < rg_apply_set_size(x->s); di++) {
    /* The time limit too, not only while applying: matching grows with the rule set (TASO's
     * operators at depth 4: 75,913 rules, 151,826 directions each iteration). Read before a
     * direction is skipped, so that skipped ones cannot hide every reading. */
    if (di % 16 == 0 && out_of_time(x)) {
      full = true; /* the directions after the cut were not matched */
      break;
    }
    const rg_apply_dir *d = rg_apply_set_dir(x->s, di);
    if (x->ops[di] & ~present) continue;    /* an operator no live node has: no match */
    if (d->n > 1 && multi && !x->apart[di]) /* bounded by --multi-rounds already */
      st = rg_ematch(x->eg, x->m->g, d, di, x->shared[di], &x->ix, NULL, 0, &x->ms, MATCH_LIMIT, &full, x->err);
    else if (d->n == 1 && x->banned_until[di] <= x->it)
      st = match_or_ban(x, d, di, &full);
  }
  x->stats->matches += x->ms.count;
  x->rematch_all = full; /* the directions after the cut were not matched */
  if (!st) st = apply_matches(x);
  st = rg_search_watch_nomem(&x->watch, st, x->err); /* a stop: what was merged stays merged */
  int64_t merged = 0;
  if (!st) st = rg_search_watch_nomem(&x->watch, rg_egraph_rebuild(x->eg, &merged, x->err), x->err);
  x->stats->congruences += merged;
  bool whole = !x->watch.why || strcmp(x->watch.why, "out of memory"); /* else a rebuild may be cut short */
  if (!st && whole && CHECK_ALWAYS + x->o->check) st = rg_egraph_check(x->eg, x->err);
  *changed = rg_egraph_n_nodes(x->eg) > nodes0 || x->stats->applied > applied0;
  return st;
}

/* origin -2 for the nodes of the original model (those its roots reach), -1 for the rest. */
static rg_status mark_original(explorer *x) {
  int32_t size = rg_graph_size(x->m->g);
  rg_status st = note_origin(x, -1);
  uint32_t *seen = calloc((size_t)size + 1, sizeof *seen);
  int32_t *stack = malloc(sizeof *stack * ((size_t)size + 1)), *order = malloc(sizeof *order * ((size_t)size + 1));
  if (!st && (!seen || !stack || !order)) st = rg_err_set(x->err, RG_ERR_NOMEM, "out of memory");
  int32_t n = st ? 0 : rg_graph_reach(x->m->g, x->roots, rg_model_n_roots(x->m), seen, 1, stack, order);
  for (int32_t i = 0; i < n; i++) x->origin[order[i]] = -2;
  free(seen), free(stack), free(order);
  return st;
}

static int32_t max_vars(const rg_apply_set *s, bool params) {
  int32_t n = 1;
  for (int i = 0; i < rg_apply_set_size(s); i++) {
    const rg_graph *g = rg_apply_set_dir(s, i)->g;
    int32_t k = params ? rg_graph_n_pvars(g) : rg_graph_n_tvars(g);
    if (k > n) n = k;
  }
  return n;
}

/* Why exploration stops now, or NULL to go on: a stop found within the last iteration first. */
static const char *stop_reason(explorer *x, int it, bool changed) {
  if (x->watch.why) return x->watch.why;
  /* saturated only after an iteration that matched every direction (not one cut short) */
  if (it > 0 && !changed && !x->rematch_all && !any_banned(x, it, true)) return "saturated";
  if (rg_egraph_n_nodes(x->eg) > x->o->max_enodes) return "e-node limit";
  if (past_time_limit(x)) return "time limit";
  if (it >= x->o->iterations) return "iterations";
  return rg_search_watch_check(&x->watch);
}

static rg_status explore(explorer *x) {
  double t0 = rg_clock_seconds(); /* for the progress lines and the stats */
  x->t0 = limit_clock(x);
  rg_status st = rg_match_env_init(&x->env, max_vars(x->s, false), max_vars(x->s, true), x->err);
  if (!st) st = mark_original(x);
  for (int di = 0; !st && di < rg_apply_set_size(x->s); di++) {
    const rg_apply_dir *d = rg_apply_set_dir(x->s, di);
    x->depth[di] = rg_pattern_depth(d->g, d->from[0]);
    bool apart = false;
    if (d->n > 1) st = rg_outputs_sharing(d, &x->shared[di], &apart, x->err);
    x->apart[di] = apart;
    for (int k = 0; k < d->n; k++) x->ops[di] |= rg_pattern_ops(d->g, d->from[k]);
    if (x->depth[di] > x->max_depth) x->max_depth = x->depth[di];
  }
  if (!st && (!(x->near_ix = calloc((size_t)x->max_depth + 1, sizeof *x->near_ix)) ||
              !(x->near_built = calloc((size_t)x->max_depth + 1, 1))))
    st = rg_err_set(x->err, RG_ERR_NOMEM, "out of memory");
  x->rematch_all = true;
  bool changed = true;
  int it = 0;
  while (!st && !(x->stats->stop_reason = stop_reason(x, it, changed))) {
    x->it = it;
    st = iterate(x, it < x->o->multi_rounds, &changed);
    it++;
    if (!st && x->o->progress)
      fprintf(stderr, "graphopt: eqsat iteration %d: %d e-nodes, %d classes, %lld merges, %.1f s\n", it,
              rg_egraph_n_nodes(x->eg), rg_egraph_n_classes(x->eg), (long long)x->stats->applied,
              rg_clock_seconds() - t0);
  }
  st = rg_search_watch_nomem(&x->watch, st, x->err); /* out of memory before the first iteration */
  if (!x->stats->stop_reason) x->stats->stop_reason = x->watch.why;
  x->stats->iterations = it;
  x->stats->enodes = rg_egraph_n_nodes(x->eg), x->stats->classes = rg_egraph_n_classes(x->eg);
  x->stats->explore_seconds = rg_clock_seconds() - t0;
  return st;
}

rg_status rg_eqsat(rg_model *m, const rg_apply_set *s, const rg_eqsat_opts *o, rg_search_result *out,
                   rg_eqsat_stats *stats, rg_err *err) {
  memset(out, 0, sizeof *out);
  memset(stats, 0, sizeof *stats);
  int32_t nr = rg_model_n_roots(m);
  explorer x = {.m = m, .eg = rg_egraph_new(m), .s = s, .o = o, .stats = stats, .err = err};
  rg_search_watch_start(&x.watch, o->stop, &o->memory);
  x.roots = malloc(sizeof *x.roots * ((size_t)nr + 1)), x.root_cls = malloc(sizeof *x.root_cls * ((size_t)nr + 1));
  x.bans = calloc((size_t)rg_apply_set_size(s) + 1, sizeof *x.bans);
  x.banned_until = calloc((size_t)rg_apply_set_size(s) + 1, sizeof *x.banned_until);
  x.rematch = calloc((size_t)rg_apply_set_size(s) + 1, sizeof *x.rematch);
  x.depth = calloc((size_t)rg_apply_set_size(s) + 1, sizeof *x.depth);
  x.ops = calloc((size_t)rg_apply_set_size(s) + 1, sizeof *x.ops);
  x.apart = calloc((size_t)rg_apply_set_size(s) + 1, 1);
  x.shared = calloc((size_t)rg_apply_set_size(s) + 1, sizeof *x.shared);
  rg_status st = x.eg && x.roots && x.root_cls && x.bans && x.banned_until && x.rematch && x.depth && x.ops && x.apart &&
                         x.shared
                     ? RG_OK
                     : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) rg_model_roots(m, x.roots);
  if (!st) st = explore(&x);
  rg_eqsat_trace t = {x.origin, x.n_origin, x.apps, x.n_apps};
  if (!st) st = rg_eqsat_extract(x.eg, o, &t, &x.watch, out, stats, err);
  out->stop_reason = x.watch.why ? x.watch.why : stats->stop_reason; /* extraction's stop, or exploration's */
  out->explored = stats->iterations, out->queued = stats->enodes, out->applications = stats->applied;
  rg_egraph_free(x.eg);
  rg_ops_index_free(&x.ix), free(x.ms.v), free(x.origin), free(x.apps), free(x.roots), free(x.root_cls), free(x.live);
  for (int di = 0; x.shared && di < rg_apply_set_size(s); di++) free(x.shared[di]);
  free(x.bans), free(x.banned_until), free(x.rematch), free(x.depth), free(x.ops), free(x.apart), free(x.shared);
  for (int h = 0; x.near_ix && h <= x.max_depth; h++) free(x.near_ix[h].ids);
  free(x.near_ix), free(x.near_built);
  rg_dirty_free(&x.dirty);
  rg_match_env_free(&x.env);
  if (st) rg_search_result_free(out);
  return st;
}
