/* optimizer/report/report.h: what graphopt says about models, costs, evaluations and searches, as
 * text appended to an rg_strbuf: the commands print it. Kept here, beside the figures, so that
 * the commands only parse, call and print.
 *
 * The room optimizer/report/ (the top floor: above optimize/, whose results it prints):
 * report.c         models and costs;  report_search.c  a search's steps and figures
 * report_eval.c    graphopt eval's work: inputs, evaluations, differences
 * report_pet.c     graphopt --pet's rewrites: found, certified, applied
 */
#ifndef RG_OPTIMIZER_REPORT_H
#define RG_OPTIMIZER_REPORT_H

#include <stdbool.h>

#include "optimizer/cost/cost.h"
#include "optimizer/eqsat/eqsat.h"
#include "optimizer/model/model.h"
#include "optimizer/opaque/opaque.h"
#include "optimizer/optimize/optimize.h"
#include "optimizer/pet/pet.h"
#include "optimizer/search/search.h"

/* "  input  NAME: float DIMS" per input, "  output NAME: DIMS" per output. */
void rg_model_io_print(const rg_model *m, rg_strbuf *out);
/* The operators of the rule vocabulary with their counts, the opaque nodes by operator (and
 * those graphopt cannot evaluate), the number of weights. */
void rg_model_counts_print(const rg_model *m, rg_strbuf *out);

/* What graphopt cost prints: "NAME: imported in T s; cost model C (device)", then cm's figures
 * for all of m (rg_cost_sum_print) and how they were had (rg_cost_stats_print; cache: the
 * cache's path or ""). Errors: rg_cost_sum_model's. */
rg_status rg_model_cost_print(rg_cost_model *cm, const rg_model *m, const char *name, double t_import,
                             const char *cache, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;
/* A cost sum by operator (nodes, cost, share) and its total line; opaque: the model's opaque
 * nodes, which are not counted. */
void rg_cost_sum_print(const rg_cost_sum *s, int32_t opaque, rg_strbuf *out);
/* How the figures were had (t_cost: seconds): measured, cached and fallback counts and the
 * load average while measuring for a model that keeps a cache (cached; cache its path), the
 * nodes figured for one that does not. */
void rg_cost_stats_print(const rg_cost_stats *st, bool cached, const char *cache, double t_cost, rg_strbuf *out);

/* The references an evaluation's outputs are compared with: other's outputs of the same name
 * (ref, other evaluated on the same inputs; other_name names it in messages), else the files
 * expect/output_K.pb when expect is set, else none. */
typedef struct {
  const rg_model *other;
  double *const *ref;
  const char *other_name, *expect;
  double tolerance;
} rg_eval_refs;
/* Per output of m: "NAME: DIMS sum S abs A", then " rel-diff D" (and " DIFFERS" past the
 * tolerance; *differs is set) when it has a reference. An output whose reference cannot be had
 * ends its line and returns the error (RG_ERR_ARG: other has no such output; the file's). */
rg_status rg_outputs_print(const rg_model *m, double *const *vals, const rg_eval_refs *r, bool *differs,
                            rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

/* Where graphopt eval's inputs come from: the files dir/input_K.pb when dir is set, else drawn
 * from seed (int64 inputs from [0, int_max)); save: where to write the inputs and outputs as
 * test data (NULL: nowhere). */
typedef struct {
  const char *dir, *save;
  uint32_t seed;
  int64_t int_max;
} rg_eval_inputs;
/* Evaluates m (and refs->other, on the same inputs) on io's inputs, saves them when io says so,
 * and reports the outputs as rg_outputs_print does (refs->ref is ignored: other's outputs are
 * computed here). Errors: reading, evaluating, saving, and rg_outputs_print's. */
rg_status rg_eval_run_print(const rg_model *m, const rg_eval_inputs *io, const rg_eval_refs *refs, bool *differs,
                         rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

/* Search step k of r: the rule (number, line, direction, text), where, the cost before and after. */
void rg_search_step_print(const rg_model *m, const rg_ruleset *rules, int k, const rg_search_step *s,
                           rg_strbuf *out);
/* --explain: every step of r (rg_search_step_print), each PET rewrite's certificate after its
 * step (rg_pet_step_print; pet may be empty). */
void rg_search_steps_print(const rg_model *m, const rg_ruleset *rules, const rg_search_result *r, const rg_pet_set *pet,
                           rg_strbuf *out);
/* "operators (before -> after): conv2d 53 -> 37, ...; N opaque" for m and the model at roots
 * after (nothing when they cannot be counted). */
void rg_search_operators_print(const rg_model *m, const rg_ref *after, rg_strbuf *out);
/* The cost line, the search line and the lines of what equality saturation did (iterations
 * and why it stopped, the e-graph's size, merges, matches not applied, extraction's costs:
 * greedy's, the ILP's and its bound; times) of an equality saturation, and the costs timed or
 * cached. */
void rg_eqsat_result_print(const rg_search_result *r, const rg_eqsat_stats *s, rg_extract_kind extract,
                           const rg_cost_model *cm, rg_strbuf *out);
/* The cost before and after by cm, the search's counts and time and why it stopped, the costs
 * timed or cached. */
void rg_search_result_print(const rg_search_result *r, const rg_cost_model *cm, rg_strbuf *out);
/* The same figures as one JSON object (for CI): cost model, cost before and after, the rules
 * applied (1-based numbers, in order), models explored and queued, rewrites tried, seconds,
 * why the search stopped ("stopped": rg_search_result's stop_reason), which numeric check ran
 * ("numeric_check": "whole model + regions", or "regions only" when the whole model cannot be
 * evaluated) and its largest relative difference; backtracking's models dropped from its queue;
 * with es (equality saturation's run, else NULL) its figures as the member "eqsat". */
void rg_search_result_json(const rg_search_result *r, const rg_cost_model *cm, double worst, bool regions_only,
                           const rg_eqsat_stats *es, rg_strbuf *out);

/* The guard's verdict (optimize/speed_guard.h): both medians, the median of the rounds' ratios with
 * the lowest and highest, and which model is written; on by default and unable to measure, why;
 * else nothing when it measured nothing. */
void rg_speed_guard_print(const rg_speed_guard *g, rg_strbuf *out);
/* The same as JSON members after a comma: ', "guard": null' when off, else an object (measured,
 * asked, unmeasured: why, when on by default it could not measure; when it measured: runtime, threads, rounds, pairs, self, original_ms, optimized_ms, ratio,
 * ratio_low, ratio_high, written: "optimized" or "original"). */
void rg_speed_guard_json(const rg_speed_guard *g, rg_strbuf *out);
/* graphopt optimize's --json report: the rules' provenance (rg_rules_provenance_json), the
 * search's figures (rg_search_result_json's members), the guard's and --pet's (rg_pet_json: pet
 * NULL without --pet, rules the ones searched), one object and a newline. */
void rg_optimize_json(const rg_rules_provenance *pv, const rg_search_result *r, const rg_cost_model *cm, double worst,
                      bool regions_only, const rg_eqsat_stats *es, const rg_speed_guard *g, const rg_pet_set *pet,
                      const rg_ruleset *rules, rg_strbuf *out);

/* The numeric check's verdict and which check ran: agreement within tolerance (seed: of the
 * inputs), or the failure and, when step >= 0, the application after which the model first
 * differs. regions_only: NULL when the whole model was checked with its regions, else why it
 * could not be (the evaluator's message) and each region was checked alone (numcheck.h); step
 * then names the application whose region differs (-1: no region alone does, what they hand
 * on does). Returns whether it passed. */
bool rg_numcheck_print(const rg_model *m, const rg_ruleset *rules, const rg_search_result *r, double worst, int step,
                     double tolerance, int64_t seed, const char *regions_only, rg_strbuf *out);

/* --explain, after a step applying rule r: its certificate's digest and boxes when r is one of
 * s's PET rewrites; nothing otherwise. */
void rg_pet_step_print(const rg_pet_set *s, const rg_rule *r, rg_strbuf *out);
/* --pet as JSON members after a comma: ', "pet": {candidates, certified, refused (by kind),
 * rewrites: [{kind, shapes, places, boxes, neq_boxes, regions, digest, refused: why or null,
 * applied: times in r's steps, the search's model, which "guard" says was written or not}],
 * seconds}' (s NULL, without --pet: nothing). */
void rg_pet_json(const rg_pet_set *s, const rg_ruleset *rules, const rg_search_result *r, rg_strbuf *out);
/* "pet: N PET rewrites applied in the model written": r the model written (NULL: the original
 * was; s NULL, without --pet: nothing). */
void rg_pet_applied_print(const rg_pet_set *s, const rg_ruleset *rules, const rg_search_result *r, rg_strbuf *out);

#endif
