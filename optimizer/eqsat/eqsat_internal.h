/* optimizer/eqsat/eqsat_internal.h: private to optimizer/eqsat*.c and extract*.c: e-matching's
 * match records and the extraction steps. */
#ifndef RG_OPTIMIZER_EQSAT_INTERNAL_H
#define RG_OPTIMIZER_EQSAT_INTERNAL_H

#include "optimizer/search/search.h"
#include "egraph.h"
#include "eqsat.h"
#include "match/match.h"

/* Matches found in one iteration, applied after all are found (the e-graph does not change
 * while it is matched). Each record: the direction's index, the classes its outputs matched
 * (d->n of them), then per tensor variable of the rule's graph the value bound (-1 none), then
 * per parameter variable three numbers: bound, whether the value is a variable, the value. */
typedef struct {
  int32_t *v;
  int64_t n, cap;
  int64_t count; /* records */
} rg_matches;

/* The e-graph's nodes in live classes (those the model's roots reach: nodes built for matches
 * that were not applied are left alone) grouped by operator, for matching a pattern's root:
 * ids[at[op] .. at[op + 1]) are the nodes with operator op, in id order. */
typedef struct {
  int32_t at[RG_OP_COUNT + 1];
  int32_t *ids;
  uint32_t *class_ops; /* [class root value]: its live members' operators (bit op); the full
                        * index owns it, those of rg_ops_index_near share it, as the next three */
  int32_t *user_at;    /* [class root value .. + 1]: users[user_at[c] .. user_at[c + 1]) are the
                        * live nodes with an operand in class c, each once */
  int32_t *users;
  int32_t *stamp;   /* [value], then a counter at [n_values]: scratch marks for matching */
  int32_t n_values;
} rg_ops_index;

void rg_ops_index_free(rg_ops_index *ix);

rg_status rg_ops_index_build(rg_egraph *eg, const rg_graph *g, const uint8_t *live, rg_ops_index *ix,
                             rg_err *err) RG_MUST_CHECK;
/* The nodes of all with a value in a class c with near[c] <= h (rg_dirty's), in the same order:
 * the roots worth trying for patterns of depth h, so that semi-naive matching does not walk
 * every node with the pattern's operator. */
rg_status rg_ops_index_near(const rg_ops_index *all, rg_egraph *eg, const rg_graph *g, const uint8_t *near, int h,
                            rg_ops_index *ix, rg_err *err) RG_MUST_CHECK;

/* Semi-naive matching (eqsat_dirty.c). A class changed since the last matching when it is new
 * (not a class root then), grew by a merge (a class that was a root then and is one now holds
 * a superset of its values then: values never leave a class), or was not live then. near[c],
 * for each class root c: 0 when c changed, else the fewest operand steps (from a member of c
 * to its operand's class, and so on) to a changed class; RG_DIRTY_FAR when none is within the
 * depth asked. A pattern of h operator levels (rg_pattern_depth) matches at a class with
 * near[c] > h only as it did at the last matching: every class it can reach down to its
 * variables' holds the values it held then (so a nonlinear variable binds as it did). */
#define RG_DIRTY_FAR 255
typedef struct {
  uint8_t *near;    /* [class root value] */
  int32_t n_values; /* values at the last matching; 0 before any */
  int32_t *size;    /* [value]: its class's values then when it was a root, else 0 */
  uint8_t *live;    /* [value]: live then */
} rg_dirty;

/* near computed for eg now (live: its live classes) against the last matching, for patterns
 * up to depth operator levels; then eg now noted as the last matching. */
rg_status rg_dirty_update(rg_dirty *d, rg_egraph *eg, const uint8_t *live, int depth, rg_err *err) RG_MUST_CHECK;
void rg_dirty_free(rg_dirty *d);

/* The operator levels of pattern pr in its rule's graph g (the root 1, a variable 0). */
int rg_pattern_depth(const rg_graph *g, rg_ref pr);

/* The operators pattern pr uses (bit op), and those an index holds nodes of: a direction whose
 * pattern uses an operator no live node has cannot match (nor could it before: the live nodes
 * only grow), so it is not tried; once one is built, every match uses it, near a change. */
_Static_assert(RG_OP_COUNT <= 32, "operator sets are 32-bit masks");
uint32_t rg_pattern_ops(const rg_graph *g, rg_ref pr);
uint32_t rg_ops_index_present(const rg_ops_index *ix);

/* Appends every match of direction d (index di) in eg to out; stops at limit records in all
 * (*full set). Roots computed from weights alone are not matched. With near (rg_dirty's; used
 * for single-output directions only), only at roots c with near[c] <= depth, the pattern's
 * (rg_pattern_depth, which the caller keeps). */
rg_status rg_ematch(rg_egraph *eg, const rg_graph *g, const rg_apply_dir *d, int32_t di, const uint8_t *shared,
                    const rg_ops_index *ix, const uint8_t *near, int depth, rg_matches *out, int64_t limit, bool *full,
                    rg_err *err) RG_MUST_CHECK;

/* For multi-output direction d, once: *shared, the tensor variables two or more of its outputs
 * read (allocated here; rg_ematch keeps a match only where one of them binds more than a
 * constant scalar), and *apart, whether some output shares no tensor variable with those
 * before it. Such a pattern matches its outputs at unrelated places, every pair of them (TASO's
 * merge of two relus of anything; (matmul ?x ?w1) ; (split.0 0 (concat 0 ?y ?z))), which filled
 * the e-node budget in one round on every zoo model with the depth-3 set whose splits count once. */
rg_status rg_outputs_sharing(const rg_apply_dir *d, uint8_t **shared, bool *apart, rg_err *err) RG_MUST_CHECK;

/* The record at *pos into env (initialized for the direction's graph) and at[]; *pos moves to
 * the next record. Returns the direction's index. */
int32_t rg_matches_read(const rg_matches *ms, int64_t *pos, const rg_apply_set *s, int32_t *at, rg_match_env *env);

/* ---- extraction ---- */

/* choice[class root value] = the value chosen to compute the class (its node's operands'
 * classes chosen in turn), -1 for a class with none. */

/* Greedy: each class's node of least tree cost (node_cost[id] plus its operand classes'),
 * to a fixed point. Costs >= 0 and only strict improvements: the choices form no cycle. */
rg_status rg_extract_greedy(rg_egraph *eg, const double *node_cost, int32_t *choice, rg_err *err) RG_MUST_CHECK;

/* Improves choice (greedy's, whose every class that has a node has one) by local moves on the
 * cost of the model it makes, priced as rg_cost_sum prices models from each node's own cost
 * (full_cost: fusion aside), into *cost (extract_local.c); until no move helps, the clock
 * passes deadline (rg_clock_seconds; 0 none: MAX_PASSES bounds it) or w says stop (NULL:
 * never). Never makes it dearer or cyclic; a choice that computes no model prices INFINITY,
 * for the caller to compare. */
rg_status rg_extract_improve(rg_egraph *eg, const double *full_cost, const int32_t *roots, int n_roots,
                             double deadline, rg_search_watch *w, int32_t *choice, double *cost,
                             rg_err *err) RG_MUST_CHECK;

/* For each reached class c (reached[c]), up to RG_MUST_KEEP classes it cannot be computed
 * without, the nearest (by level) first: cls[c * RG_MUST_KEEP + i] for i < n[c]
 * (extract_must.c). False when out of memory. */
#define RG_MUST_KEEP 8
typedef struct {
  int32_t *n, *cls;
} rg_must;
bool rg_extract_must(rg_egraph *eg, const uint8_t *reached, rg_must *m);
void rg_must_free(rg_must *m);

/* The nodes computing roots' classes (class root values, -1 for none) through choice runs,
 * each once, into nodes (room for every e-node); their count, -1 when out of memory. */
int32_t rg_extract_used(rg_egraph *eg, const int32_t *choice, const int32_t *roots, int n_roots, int32_t *nodes);

/* The cost of those nodes (NaN when out of memory). */
double rg_extract_dag_cost(rg_egraph *eg, const double *node_cost, const int32_t *choice, const int32_t *roots,
                           int n_roots);

/* What the ILP found: its cost and the solver's lower bound by hoped costs; whether proved
 * optimal; else why it ended first: "time limit", or w's "interrupted" or "out of memory". */
typedef struct {
  double obj, bound;
  bool optimal;
  const char *stopped;
} rg_ilp_result;

/* The ILP over the classes roots[0..n) reach: choice in, as the start, and out, the solver's
 * best (its incumbent when stopped by time_limit, 0 none, or by w). RG_ERR_LIMIT when it found
 * none; out of memory in CBC is RG_ERR_NOMEM too. */
rg_status rg_extract_ilp(rg_egraph *eg, const double *node_cost, const int32_t *roots, int n_roots,
                         double time_limit, rg_search_watch *w, int32_t *choice, rg_ilp_result *res,
                         rg_err *err) RG_MUST_CHECK;

/* The model the choices make, built in m's graph: out[i] computes roots[i]'s class (an omitted
 * operand, node -1, stays one). RG_ERR_ARG when a class has no choice or reaches itself. */
rg_status rg_extract_build(rg_egraph *eg, rg_model *m, const int32_t *choice, const rg_ref *roots, int n,
                           rg_ref *out, rg_err *err) RG_MUST_CHECK;

/* What exploration leaves for extraction: who built each e-node (origin[id] for id < n_origin,
 * an index into apps, -1 for the original's nodes and those of matches not applied; an e-node
 * past n_origin was built when memory ran out, by no recorded application). */
typedef struct {
  const int32_t *origin;
  int32_t n_origin;
  const rg_application *apps;
  int32_t n_apps;
} rg_eqsat_trace;

/* Extraction, the extracted model built and costed, out filled (eqsat.h's rg_eqsat). After a
 * stop in exploration (w->why set), the e-graph as it is, without the ILP; a stop during it (w:
 * Ctrl-C, the memory limit, an allocation that fails) ends it with the best choice so far, or
 * the original when there is none yet. */
rg_status rg_eqsat_extract(rg_egraph *eg, const rg_eqsat_opts *o, const rg_eqsat_trace *t, rg_search_watch *w,
                           rg_search_result *out, rg_eqsat_stats *stats, rg_err *err) RG_MUST_CHECK;

#endif
