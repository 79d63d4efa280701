/* optimizer/report.h: what graphopt says about models, costs, evaluations and searches, as
 * text appended to an rg_strbuf: the commands print it. Kept here, beside the figures, so that
 * the commands only parse, call and print. */
#ifndef RG_OPTIMIZER_REPORT_H
#define RG_OPTIMIZER_REPORT_H

#include <stdbool.h>

#include "cost.h"
#include "model.h"
#include "search.h"

/* "  input  NAME: float DIMS" per input, "  output NAME: DIMS" per output. */
void rg_report_model_io(const rg_model *m, rg_strbuf *out);
/* The operators of the rule vocabulary with their counts, the opaque nodes by operator (and
 * those graphopt cannot evaluate), the number of weights. */
void rg_report_model_counts(const rg_model *m, rg_strbuf *out);

/* A cost sum by operator (nodes, cost, share) and its total line; opaque: the model's opaque
 * nodes, which are not counted. */
void rg_report_cost_sum(const rg_cost_sum *s, int32_t opaque, rg_strbuf *out);
/* How the figures were had (t_cost: seconds): measured, cached and fallback counts and the
 * load average while measuring for a model that keeps a cache (cached; cache its path), the
 * nodes figured for one that does not. */
void rg_report_cost_stats(const rg_cost_stats *st, bool cached, const char *cache, double t_cost, rg_strbuf *out);

/* The references an evaluation's outputs are compared with: other's outputs of the same name
 * (ref, other evaluated on the same inputs; other_name names it in messages), else the files
 * expect/output_K.pb when expect is set, else none. */
typedef struct {
  const rg_model *other;
  double *const *ref;
  const char *other_name, *expect;
  double tolerance;
} rg_report_refs;
/* Per output of m: "NAME: DIMS sum S abs A", then " rel-diff D" (and " DIFFERS" past the
 * tolerance; *differs is set) when it has a reference. An output whose reference cannot be had
 * ends its line and returns the error (RG_ERR_ARG: other has no such output; the file's). */
rg_status rg_report_outputs(const rg_model *m, double *const *vals, const rg_report_refs *r, bool *differs,
                            rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

/* Search step k of r: the rule (number, line, direction, text), where, the cost before and after. */
void rg_report_search_step(const rg_model *m, const rg_ruleset *rules, int k, const rg_search_step *s,
                           rg_strbuf *out);
/* "operators (before -> after): conv2d 53 -> 37, ...; N opaque" for m and the model at roots
 * after (nothing when they cannot be counted). */
void rg_report_search_operators(const rg_model *m, const rg_ref *after, rg_strbuf *out);
/* The cost before and after by cm, the search's counts and time, the costs timed or cached. */
void rg_report_search(const rg_search_result *r, const rg_cost_model *cm, rg_strbuf *out);

#endif
