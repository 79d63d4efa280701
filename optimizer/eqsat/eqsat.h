/* optimizer/eqsat/eqsat.h: equality saturation (TENSAT, MLSys'21) over a model graph: every rule
 * applied everywhere in an e-graph (egraph.h) for a number of iterations, then the cheapest
 * model the e-graph holds extracted, greedily or optimally by an ILP (CBC).
 *
 * Exploration: each iteration matches every direction of every rule at every e-class (e-
 * matching: a pattern variable binds a class, each member node of a class is tried), then
 * applies the matches: the target is built over the bound classes and merged with the matched
 * class where it types at the model's shapes with the same output type, and where the merge
 * would not make a class computable only from itself (TENSAT's cycle filtering: the e-graph
 * stays acyclic, so no extraction can produce a cycle). Multi-output rules are matched only in
 * the first multi_rounds iterations (TENSAT's k_multi: their matches multiply), and never one
 * whose outputs share no variable (it matches every pair of unrelated places). Values
 * computed from weights alone are not rewritten (export folds them).
 *
 * Extraction: each e-node costs what the cost model says of it (weight-only nodes 0). Greedy
 * picks each class's cheapest node by the cost of its tree; the ILP (TENSAT's formulation: one
 * 0/1 variable per e-node, a root class needs a chosen node, a chosen node needs a chosen node
 * in each operand class; no ordering variables, the filtered e-graph being acyclic) counts a
 * shared node once, starts from the greedy solution and keeps the best incumbent at its time
 * limit. The extracted model is then costed as the backtracking search costs models
 * (rg_search_cost_fn); when it is not cheaper than the original, the original is kept.
 *
 * Ctrl-C and the memory limit (search.h) stop exploration, and then what is there is extracted
 * (greedy and local moves; not the ILP); during extraction they stop it with the best choice
 * so far (the ILP's incumbent, else the local moves'), or the original when there is none.
 *
 * The room optimizer/eqsat/ (above search/ and cost/):
 * egraph.h/.c, egraph_check.c  the e-graph over the model graph and its invariants
 * eqsat.c          exploration;  eqsat_dirty.c  what changed since the last matching
 * ematch.c         e-matching
 * eqsat_extract.c  the extraction step: extract.c (greedy, costs, the model made),
 *                  extract_local.c (local moves), extract_ilp.c (the ILP, CBC through
 *                  extract_cbc.cpp), extract_must.c (the ILP's implied rows)
 * eqsat_internal.h, extract_cbc.h: private here
 */
#ifndef RG_OPTIMIZER_EQSAT_H
#define RG_OPTIMIZER_EQSAT_H

#include <signal.h>

#include "optimizer/cost/cost.h"
#include "optimizer/search/search.h"

#include "egraph.h"

typedef enum { RG_EXTRACT_GREEDY, RG_EXTRACT_ILP } rg_extract_kind;

typedef struct {
  int64_t max_enodes;   /* stop exploring past this many e-nodes (TENSAT: 50,000) */
  int iterations;       /* at most (TENSAT: 15) */
  int multi_rounds;     /* iterations that apply multi-output rules (TENSAT's k_multi; graphopt: 2) */
  double time_limit;    /* seconds of exploration, 0 none: checked within an iteration too */
  /* the seconds time_limit is read on (NULL: rg_clock_seconds; tests give their own) */
  double (*clock)(void);
  rg_extract_kind extract;
  double ilp_time_limit; /* seconds for the ILP solver, 0 none */
  rg_cost_model *cost;   /* the e-nodes' costs */
  rg_search_cost_fn model_cost; /* and the whole models' (as the backtracking search's) */
  void *model_cost_ctx;
  bool progress;               /* a line on stderr per iteration and per extraction step */
  bool check;                  /* check the e-graph's invariants after every iteration */
  volatile sig_atomic_t *stop; /* set (Ctrl-C): stop exploring, extract what is there */
  rg_search_memory memory;     /* reached: likewise (search.h) */
  bool full_rematch; /* match every class each iteration, not only near changed ones (tests) */
} rg_eqsat_opts;

/* What exploration and extraction did. */
typedef struct {
  int iterations;
  int64_t matches, applied; /* matches found (after the first iteration, near changes only:
                               eqsat.c); merges made by rule applications */
  int64_t cycles_filtered, untyped; /* matches not applied: a cycle; a target that does not type
                                       (or a rule held at other shapes: rule.h's `at`) */
  int64_t congruences;              /* merges made by rebuilding */
  int64_t bans;                     /* rule directions set aside by the backoff scheduler */
  int32_t enodes, classes;
  const char *stop_reason; /* exploration's: "saturated", "iterations", "e-node limit", "time limit",
                              "interrupted", "out of memory" */
  double explore_seconds, extract_seconds;
  double greedy_cost;   /* greedy's choice by hoped e-node costs (eqsat_extract.c; shared nodes once) */
  double local_cost;    /* after local moves, priced as models are (fusion only where it holds) */
  double extracted_cost; /* the choice extracted, priced likewise */
  double ilp_cost, ilp_bound; /* the ILP's answer and the solver's lower bound, by hoped costs */
  double ilp_seconds;         /* of extract_seconds, the ILP's */
  bool ilp_optimal;                   /* proved optimal within its time limit */
  bool ilp_run;                       /* asked for and run (not after a stop in exploration) */
  const char *ilp_stopped;            /* why it ended unproved: "time limit", "interrupted", "out of memory" */
} rg_eqsat_stats;

/* Equality saturation over s's rules on m, then extraction. out as rg_search fills it: the
 * costs before and after (by model_cost), the best model's roots (the original's when
 * nothing is cheaper), and as steps the rule applications whose targets the extracted model
 * uses (each step's roots: the extracted model; n_steps 0 when the original is kept). */
rg_status rg_eqsat(rg_model *m, const rg_apply_set *s, const rg_eqsat_opts *o, rg_search_result *out,
                   rg_eqsat_stats *stats, rg_err *err) RG_MUST_CHECK;

#endif
