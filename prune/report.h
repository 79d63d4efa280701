/* prune/report.h: pruning's and coverage's results as text, the lines `rulegen prune` and
 * `rulegen covers` print. Included by prune.h after its types. */
#ifndef RG_PRUNE_REPORT_H
#define RG_PRUNE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "prune.h"

/* The stage table: rules in and out, removed and time per stage, the kept count, and a line
 * when derivability was interrupted. */
void rg_prune_table_print(FILE *out, const rg_prune_result *res);
/* The audit's one line: records checked, by reason, against how many kept rules. */
void rg_audit_report_print(FILE *out, const rg_audit_report *rep);
/* A line per rule of other (quiet: only those not covered) with c's verdict, then the
 * summary, and a line counting the rules not checked (interrupted) if any. */
void rg_coverage_print(FILE *out, const rg_ruleset *other, const rg_coverage *c, bool quiet);

#endif
