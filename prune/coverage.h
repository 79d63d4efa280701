/* prune/coverage.h: how much of another rule set ours covers. For each rule of the other set:
 * contained (the same content id as one of ours, in either orientation), derived (our rules
 * rewrite one side into the other: derive.h, with the derivation's length), or not covered.
 * `rulegen covers` prints it; bench and tests use it to check TASO's rules against ours. */
#ifndef RG_PRUNE_COVERAGE_H
#define RG_PRUNE_COVERAGE_H

#include "derive.h"
#include "ir/ir.h"

typedef enum {
  RG_COVER_NOT_COVERED,
  RG_COVER_CONTAINED,
  RG_COVER_CONTAINED_REVERSED,
  RG_COVER_DERIVED,
  RG_COVER_NOT_CHECKED, /* the stop flag was set before or during its search */
  RG_COVER_KINDS
} rg_cover_verdict;

typedef struct {
  rg_cover_verdict *verdict; /* [other->n] */
  int *steps;                /* [other->n]: a derivation's length (RG_COVER_DERIVED) */
  int count[RG_COVER_KINDS];
  int longest; /* the longest derivation used */
} rg_coverage;

/* Called now and then from the searching threads (serialized), with rules looked at so far. */
typedef void (*rg_coverage_progress)(void *ctx, int done, int total);

/* Looks every rule of other up in ours, then searches derivations within lim (in parallel;
 * lim->stop ends the searches, the rest marked not checked). Every rule of both sets must have
 * a target. Errors: allocation, a rule whose content id cannot be built (err->line is its line
 * in the other set). Free c with rg_coverage_free, also after an error. */
rg_status rg_coverage_compute(const rg_ruleset *other, const rg_ruleset *ours, const rg_derive_limits *lim,
                              rg_coverage_progress progress, void *progress_ctx, rg_coverage *c,
                              rg_err *err) RG_MUST_CHECK;
void rg_coverage_free(rg_coverage *c);

/* "contained", "derived", ... (the word `rulegen covers` prints). */
const char *rg_cover_verdict_name(rg_cover_verdict v);

#endif
