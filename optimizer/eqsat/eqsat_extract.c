/* optimizer/eqsat/eqsat_extract.c: equality saturation's extraction step (eqsat_internal.h): the
 * e-nodes costed, the cheapest model chosen (greedy, then the ILP from there), built, costed as
 * the backtracking search costs models, and kept only when cheaper than the original. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eqsat_internal.h"

/* The relative gain below which a model is not better (search.c's, for the same reason). */
#define MIN_GAIN 1e-9

/* What a class can fuse, by its members: bit 1, a Conv or 2-D product (an activation after it is
 * free); bit 2, one with no activation of its own (a bias after it is free too). Bit 4 of a
 * class: a channel bias after such a product (an activation after it is free). */
#define FUSE_ACT 1
#define FUSE_BIAS 2
#define FUSE_BIASED 4

/* A line on stderr when o asks for progress: extraction can take seconds (a measuring cost
 * model times every configuration the e-graph holds; local moves price whole models). */
static void progress(const rg_eqsat_opts *o, double t0, const char *fmt, ...) {
  if (!o->progress) return;
  va_list ap;
  va_start(ap, fmt);
  fputs("graphopt: eqsat extraction: ", stderr);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, ", %.1f s\n", rg_clock_seconds() - t0);
  va_end(ap);
}

static void fusable(rg_egraph *eg, uint8_t *fuse) {
  const rg_model *m = rg_egraph_model(eg);
  for (int32_t id = 0; id < rg_egraph_n_nodes(eg); id++) { /* operands first: ids are topological */
    const rg_node *nd = rg_graph_node(m->g, id);
    int32_t v = id * RG_MAX_OUTPUTS, c = rg_egraph_find(eg, v);
    bool gemm = nd->op == RG_OP_MATMUL && rg_model_shape(m, rg_egraph_ref(v))->rank == 2;
    if (nd->op == RG_OP_CONV2D || gemm) {
      int act = nd->op == RG_OP_CONV2D ? nd->params[3] : nd->params[0];
      fuse[c] |= FUSE_ACT | (act == RG_ACT_NONE ? FUSE_BIAS : 0);
    }
    if (nd->op == RG_OP_BIAS && nd->params[0] == 1 && fuse[rg_egraph_class(eg, nd->in[0])] & FUSE_BIAS)
      fuse[c] |= FUSE_BIASED;
  }
}

/* Every e-node's own cost (full; 0 for variables and values computed from weights alone) and
 * its hoped cost: as full, but 0, as rg_cost_sum counts them, for a bias or activation a Conv
 * or Gemm before it can compute (when its operand's class holds one: a hope, which holds only
 * where nothing else reads that operand; extract_local.c prices it exactly). Until w says stop
 * (asked every 64 nodes: a measuring cost model times each configuration): then w->why. */
static rg_status node_costs(rg_egraph *eg, rg_cost_model *cm, rg_search_watch *w, double *hoped, double *full,
                            rg_err *err) {
  rg_model *m = rg_egraph_model(eg);
  uint8_t *fuse = calloc((size_t)rg_egraph_n_nodes(eg) * RG_MAX_OUTPUTS + 1, 1);
  if (!fuse) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  fusable(eg, fuse);
  rg_status st = RG_OK;
  for (int32_t id = 0; !st && id < rg_egraph_n_nodes(eg) && !(w && id % 64 == 0 && rg_search_watch_check(w)); id++) {
    const rg_node *nd = rg_graph_node(m->g, id);
    hoped[id] = full[id] = 0;
    if (nd->op == RG_OP_INPUT || rg_egraph_weight_only(eg, id)) continue;
    st = rg_cost_node(cm, m, id, &full[id], err);
    bool bias = nd->op == RG_OP_BIAS && nd->params[0] == 1;
    bool act = nd->op == RG_OP_RELU || nd->op == RG_OP_SIGMOID || nd->op == RG_OP_TANH;
    uint8_t f = bias || act ? fuse[rg_egraph_class(eg, nd->in[0])] : 0;
    if (!((bias && (f & FUSE_BIAS)) || (act && (f & (FUSE_ACT | FUSE_BIASED))))) hoped[id] = full[id];
  }
  free(fuse);
  return st;
}

/* The steps out reports: each application that built a node the extraction uses, once, in the
 * order they were made; every step's roots the extracted model's. */
static rg_status explain(rg_egraph *eg, const rg_eqsat_trace *t, const int32_t *choice, const int32_t *root_cls,
                         int n_roots, rg_search_result *out, rg_err *err) {
  int32_t *nodes = malloc(sizeof *nodes * ((size_t)rg_egraph_n_nodes(eg) + 1));
  uint8_t *used = calloc((size_t)t->n_apps + 1, 1);
  int32_t n = nodes && used ? rg_extract_used(eg, choice, root_cls, n_roots, nodes) : -1;
  for (int32_t i = 0; i < n; i++)
    if (nodes[i] < t->n_origin && t->origin[nodes[i]] >= 0) used[t->origin[nodes[i]]] = 1;
  int32_t n_steps = 0;
  for (int32_t a = 0; n >= 0 && a < t->n_apps; a++) n_steps += used[a];
  out->steps = n >= 0 ? calloc((size_t)n_steps + 1, sizeof *out->steps) : NULL;
  rg_status st = out->steps ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int32_t nr = rg_model_n_roots(rg_egraph_model(eg));
  for (int32_t a = 0; !st && a < t->n_apps; a++) {
    if (!used[a]) continue;
    rg_search_step *s = &out->steps[out->n_steps];
    s->app = t->apps[a], s->cost_before = out->cost_before, s->cost_after = out->cost_after;
    if (!(s->roots = malloc(sizeof *s->roots * ((size_t)nr + 1)))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else memcpy(s->roots, out->roots, sizeof *s->roots * (size_t)nr), out->n_steps++;
  }
  free(nodes), free(used);
  return st;
}

/* One extraction's inputs: the e-graph, its costs, the roots' classes; w asked to stop (NULL
 * after a stop in exploration: then greedy and local moves to their end, no ILP). */
typedef struct {
  rg_egraph *eg;
  const rg_eqsat_opts *o;
  rg_search_watch *w;
  const double *hoped, *full;
  const int32_t *root_cls;
  int n_roots;
  double t0; /* when extraction began (progress lines) */
  rg_eqsat_stats *stats;
  rg_err *err;
} extraction;

/* The ILP from choice (local moves' answer, at stats->local_cost), its answer improved by
 * local moves in turn and kept when that is cheaper (then stats->extracted_cost); a stop (w)
 * ends it with its incumbent. CBC's preprocessing can drop the start (CBC 2.10 says "mipstart
 * values could not be used") and stop at its time limit with a dearer incumbent, or with none:
 * then the start is kept, as when CBC runs out of memory (a stop: w says so). */
static rg_status ilp(extraction *e, int32_t *choice) {
  rg_eqsat_stats *stats = e->stats;
  if (e->o->ilp_time_limit > 0) progress(e->o, e->t0, "CBC's ILP from there, at most %g s", e->o->ilp_time_limit);
  else progress(e->o, e->t0, "CBC's ILP from there, no time limit");
  size_t size = sizeof *choice * ((size_t)rg_egraph_n_nodes(e->eg) * RG_MAX_OUTPUTS + 1);
  int32_t *start = malloc(size);
  if (!start) return rg_err_set(e->err, RG_ERR_NOMEM, "out of memory");
  memcpy(start, choice, size);
  double t0 = rg_clock_seconds(), found = INFINITY;
  rg_ilp_result res;
  stats->ilp_run = true;
  rg_status st = rg_extract_ilp(e->eg, e->hoped, e->root_cls, e->n_roots, e->o->ilp_time_limit, e->w, choice, &res, e->err);
  stats->ilp_seconds = rg_clock_seconds() - t0;
  stats->ilp_cost = res.obj, stats->ilp_bound = res.bound, stats->ilp_optimal = res.optimal;
  stats->ilp_stopped = st == RG_ERR_NOMEM ? "out of memory" : res.stopped;
  double deadline = e->o->ilp_time_limit > 0 ? rg_clock_seconds() + e->o->ilp_time_limit : 0;
  if (!st) st = rg_extract_improve(e->eg, e->full, e->root_cls, e->n_roots, deadline, e->w, choice, &found, e->err);
  if (st == RG_ERR_LIMIT || st == RG_ERR_NOMEM || (!st && !(found < stats->local_cost))) { /* none, or no better */
    memcpy(choice, start, size);
    if (st == RG_ERR_NOMEM) st = rg_search_watch_nomem(e->w, st, e->err);
    if (st) *e->err = (rg_err){0}; /* CBC's "no solution" is no error of the run's */
    st = RG_OK;
  } else if (!st) {
    stats->extracted_cost = found;
  }
  free(start);
  return st;
}

/* Chooses into choice, and the costs into stats: greedy by hoped costs, then local moves on the
 * model's cost; with the ILP, its answer (ilp()). */
static rg_status choose(extraction *e, int32_t *choice) {
  rg_eqsat_stats *stats = e->stats;
  rg_status st = rg_extract_greedy(e->eg, e->hoped, choice, e->err);
  if (!st) stats->greedy_cost = rg_extract_dag_cost(e->eg, e->hoped, choice, e->root_cls, e->n_roots);
  if (!st) progress(e->o, e->t0, "greedy: %.6g by e-node costs", stats->greedy_cost);
  double deadline = e->o->ilp_time_limit > 0 ? rg_clock_seconds() + e->o->ilp_time_limit : 0;
  if (!st)
    st = rg_extract_improve(e->eg, e->full, e->root_cls, e->n_roots, deadline, e->w, choice, &stats->local_cost, e->err);
  stats->extracted_cost = stats->local_cost;
  if (!st) progress(e->o, e->t0, "local moves: %.6g", stats->local_cost);
  if (st || !e->w || e->o->extract != RG_EXTRACT_ILP || rg_search_watch_check(e->w)) return st;
  return ilp(e, choice);
}

/* The extracted model built and costed into out (the original kept when it is no cheaper). */
static rg_status keep_better(rg_egraph *eg, const rg_eqsat_opts *o, const rg_ref *roots, const int32_t *choice,
                             rg_search_result *out, rg_err *err) {
  rg_model *m = rg_egraph_model(eg);
  int32_t nr = rg_model_n_roots(m);
  rg_ref *built = malloc(sizeof *built * ((size_t)nr + 1));
  if (!built) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int64_t ops;
  double cost;
  rg_status st = rg_extract_build(eg, m, choice, roots, nr, built, err);
  if (!st) st = o->model_cost(o->model_cost_ctx, m, built, &cost, &ops, err);
  bool better = !st && cost < (1 - MIN_GAIN) * out->cost_before;
  memcpy(out->roots, better ? built : roots, sizeof *built * (size_t)nr);
  out->cost_after = better ? cost : out->cost_before;
  free(built);
  return st;
}

/* The e-nodes costed, a model chosen, built and explained into out; *chosen false (out
 * untouched) when a stop came before anything was chosen. */
static rg_status extract(extraction *e, const rg_eqsat_trace *t, const rg_ref *roots, int32_t *choice, double *cost,
                         double *full, rg_search_result *out, bool *chosen) {
  progress(e->o, e->t0, "costing %d e-nodes", rg_egraph_n_nodes(e->eg));
  rg_status st = node_costs(e->eg, e->o->cost, e->w, cost, full, e->err);
  *chosen = !st && !(e->w && e->w->why);
  if (*chosen) st = choose(e, choice);
  if (*chosen && !st) st = keep_better(e->eg, e->o, roots, choice, out, e->err);
  if (*chosen && !st && out->cost_after < out->cost_before)
    st = explain(e->eg, t, choice, e->root_cls, e->n_roots, out, e->err);
  return st;
}

/* The original kept: no steps, its roots (out of memory, or a stop before a choice). */
static void keep_original(const rg_ref *roots, int32_t nr, rg_search_result *out) {
  for (int i = 0; out->steps && i < out->n_steps; i++) free(out->steps[i].roots);
  free(out->steps), out->steps = NULL, out->n_steps = 0;
  memcpy(out->roots, roots, sizeof *roots * (size_t)nr);
  out->cost_after = out->cost_before;
}

rg_status rg_eqsat_extract(rg_egraph *eg, const rg_eqsat_opts *o, const rg_eqsat_trace *t, rg_search_watch *w,
                           rg_search_result *out, rg_eqsat_stats *stats, rg_err *err) {
  rg_model *m = rg_egraph_model(eg);
  int32_t nr = rg_model_n_roots(m), nv = rg_egraph_n_nodes(eg) * RG_MAX_OUTPUTS;
  rg_ref *roots = malloc(sizeof *roots * ((size_t)nr + 1));
  int32_t *root_cls = malloc(sizeof *root_cls * ((size_t)nr + 1)), *choice = malloc(sizeof *choice * ((size_t)nv + 1));
  double *cost = malloc(sizeof *cost * ((size_t)rg_egraph_n_nodes(eg) + 1));
  double *full = malloc(sizeof *full * ((size_t)rg_egraph_n_nodes(eg) + 1));
  out->roots = malloc(sizeof *out->roots * ((size_t)nr + 1));
  rg_status st = roots && root_cls && choice && cost && full && out->roots ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  extraction e = {eg, o, w->why ? NULL : w, cost, full, root_cls, nr, rg_clock_seconds(), stats, err};
  int64_t ops;
  bool chosen = false;
  if (!st) {
    rg_model_roots(m, roots);
    for (int32_t i = 0; i < nr; i++) root_cls[i] = roots[i].node >= 0 ? rg_egraph_class(eg, roots[i]) : -1;
    st = o->model_cost(o->model_cost_ctx, m, roots, &out->cost_before, &ops, err);
    rg_status x = st ? st : extract(&e, t, roots, choice, cost, full, out, &chosen);
    st = rg_search_watch_nomem(w, x, err); /* out of memory extracting: a stop, the original kept */
    if (!st && (!chosen || x == RG_ERR_NOMEM)) keep_original(roots, nr, out);
  }
  stats->extract_seconds = rg_clock_seconds() - e.t0;
  out->seconds = stats->explore_seconds + stats->extract_seconds;
  free(roots), free(root_cls), free(choice), free(cost), free(full);
  return st;
}
