/* optimizer/search/search.h: TASO's cost-based backtracking search over rewritten models.
 *
 * A min-cost priority queue of models (as roots of the shared graph, model.h); pop the
 * cheapest, which becomes the best if cheaper; apply every rule everywhere (apply.h); a new
 * model is queued when its hash is new (hash-consing makes equal models equal roots), it has at
 * most max_growth times the original's operators, and its cost is below alpha times the best.
 * The budget counts popped models. Equal costs pop in the order queued, so a run is
 * deterministic. The queue keeps the cheapest models only (TASO's bound on its queue): past
 * twice its limit (queue_limit, and never more than the budget left can pop), the dearer ones
 * are dropped and counted.
 *
 * Both searches (this one and eqsat.h's) stop early, keeping the best model found so far, on
 * Ctrl-C (stop), when the memory they took reaches a limit (the process's resident memory
 * above what it held when the search began), and when an allocation fails: a stop, not an
 * error; the result says why it stopped (rg_search_result.stop_reason).
 *
 * The room optimizer/search/ (above model/; match/ below it):
 * apply.h/.c       rule application at concrete shapes (both searches use it)
 * search.c         the backtracking search;  search_memory.c  what stops a search early
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

/* The memory a search may take: limit bytes of resident memory beyond what the process held when
 * it began (0 none); resident: the process's resident bytes now (NULL: rg_search_resident;
 * tests give their own). */
typedef struct {
  int64_t limit;
  int64_t (*resident)(void);
} rg_search_memory;

/* The process's resident memory in bytes (Linux's /proc/self/statm); -1 when unknown (then no
 * limit holds). */
int64_t rg_search_resident(void);
/* graphopt's default limit: half the machine's memory (1 GiB when unknown). */
int64_t rg_search_memory_default(void);

/* A search's watch over what stops it early (search_memory.c): Ctrl-C and its memory. */
typedef struct {
  volatile sig_atomic_t *stop;
  rg_search_memory mem;
  int64_t base;    /* resident bytes when the search began (-1 unknown) */
  const char *why; /* once it said stop: "interrupted" or "out of memory" */
} rg_search_watch;

void rg_search_watch_start(rg_search_watch *w, volatile sig_atomic_t *stop, const rg_search_memory *mem);
/* NULL to go on, else why to stop (and from then on always): Ctrl-C, or the memory limit. */
const char *rg_search_watch_check(rg_search_watch *w);
/* A status of the search turned into a stop when it is an allocation failure (err cleared;
 * w->why "out of memory"): RG_OK then, else st. */
rg_status rg_search_watch_nomem(rg_search_watch *w, rg_status st, rg_err *err);

/* TASO's bound on its queue, graphopt's default: models kept queued at most. */
#define RG_SEARCH_QUEUE_LIMIT 100000

typedef struct {
  double alpha;      /* queue a model cheaper than alpha x best (TASO: 1.05; 1 is greedy) */
  int64_t budget;    /* models popped */
  double time_limit; /* seconds, 0 none */
  double max_growth; /* operators at most this times the original's (TASO: 2) */
  rg_search_cost_fn cost;
  void *cost_ctx;
  bool progress;      /* a line on stderr about once a second */
  volatile sig_atomic_t *stop; /* set (Ctrl-C): stop and keep the best so far */
  int64_t queue_limit;         /* models kept queued, the cheapest (0: RG_SEARCH_QUEUE_LIMIT) */
  rg_search_memory memory;     /* reached: stop and keep the best so far */
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
  int64_t dropped;           /* queued models dropped from the full queue (never explored) */
  int64_t applications;      /* rule applications tried (rewritten models built) */
  double seconds;
  int64_t explored_to_best;  /* backtracking: the budget its best model needs (models popped) */
  double seconds_to_best;    /* and the time until that model's rewrites were queued */
  /* Why it stopped: backtracking "budget", "queue empty", "time limit"; equality saturation
   * eqsat.h's reasons; either "interrupted" (Ctrl-C) or "out of memory" (the limit reached or
   * an allocation failed) */
  const char *stop_reason;
  rg_ref *roots;             /* the best model (the original's roots when nothing helps) */
  int n_steps;
  rg_search_step *steps;
} rg_search_result;

rg_status rg_search(rg_model *m, const rg_apply_set *s, const rg_search_opts *o, rg_search_result *out,
                    rg_err *err) RG_MUST_CHECK;
void rg_search_result_free(rg_search_result *r);

#endif
