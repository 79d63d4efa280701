/* optimizer/search.h: TASO's cost-based backtracking search over rewritten models.
 *
 * A min-cost priority queue of models (as roots of the shared graph, model.h); pop the
 * cheapest, which becomes the best if cheaper; apply every rule everywhere (apply.h); a new
 * model is queued when its hash is new (hash-consing makes equal models equal roots), it has at
 * most max_growth times the original's operators, and its cost is below alpha times the best.
 * The budget counts popped models. Equal costs pop in the order queued, so a run is
 * deterministic.
 */
#ifndef RG_OPTIMIZER_SEARCH_H
#define RG_OPTIMIZER_SEARCH_H

#include <signal.h>

#include "apply.h"

/* The cost of m seen from roots (weight-only values free: they are folded), and in *ops the
 * operators of the rule vocabulary it runs (weight-only ones left out), which the growth limit
 * counts: one walk over the model gives both. */
typedef rg_status (*rg_search_cost_fn)(void *ctx, const rg_model *m, const rg_ref *roots, double *cost,
                                       int64_t *ops, rg_err *err);

typedef struct {
  double alpha;      /* queue a model cheaper than alpha x best (TASO: 1.05; 1 is greedy) */
  int64_t budget;    /* models popped */
  double time_limit; /* seconds, 0 none */
  double max_growth; /* operators at most this times the original's (TASO: 2) */
  rg_search_cost_fn cost;
  void *cost_ctx;
  bool progress;      /* a line on stderr about once a second */
  volatile sig_atomic_t *stop; /* set (Ctrl-C): stop and keep the best so far */
} rg_search_opts;

/* One step of the best model's derivation, from the original. */
typedef struct {
  rg_application app;
  double cost_before, cost_after;
  rg_ref *roots; /* the model after this step */
} rg_search_step;

typedef struct {
  double cost_before, cost_after;
  int64_t explored, queued;  /* models popped; models queued */
  int64_t applications;      /* rule applications tried (rewritten models built) */
  double seconds;
  int64_t explored_to_best;  /* backtracking: the budget its best model needs (models popped) */
  double seconds_to_best;    /* and the time until that model's rewrites were queued */
  bool stopped;              /* by the time limit or stop */
  rg_ref *roots;             /* the best model (the original's roots when nothing helps) */
  int n_steps;
  rg_search_step *steps;
} rg_search_result;

rg_status rg_search(rg_model *m, const rg_apply_set *s, const rg_search_opts *o, rg_search_result *out,
                    rg_err *err) RG_MUST_CHECK;
void rg_search_result_free(rg_search_result *r);

#endif
