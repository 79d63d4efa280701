/* verify/report.h: the verify stages' results as text, the lines `rulegen prove`, `recheck` and
 * `check-axioms` print (and any other program that runs the stages may print). */
#ifndef RG_VERIFY_REPORT_H
#define RG_VERIFY_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "filerun.h"

/* A rule's status line ("verified  FILE:LINE  RULE"), its refutation or false proof, and
 * under it what each solver said of each obligation. */
void rg_proof_print(FILE *out, const rg_rule *r, const rg_rule_proof *p, const char *file);
/* The summary of a proof run: the solvers' answers by result with their time
 * (rg_prove_answers_print), then one line of counts by status (one per solver), how many pass
 * --require, the solvers' versions, the timeout and the time. */
void rg_prove_summary_print(FILE *out, const rg_prove_summary *sum, const rg_prove_opts *o);
/* The same run as one JSON object for CI, written whole to path (ir/atomic.h): the rule file,
 * --require and the timeout, the summary (rg_prove_summary_json: the counts by status) and each
 * rule's line and status. RG_ERR_IO naming the file when it cannot be written. */
rg_status rg_prove_json_write(const char *path, const char *file, const rg_prove_run *run, const rg_prove_opts *o,
                              rg_err *err) RG_MUST_CHECK;

/* A line per rule of run (quiet: only those that differ) with why under it, then the summary
 * (assignments and seed of o; seconds the run took). */
void rg_recheck_print(FILE *out, const rg_recheck_run *run, const rg_recheck_opts *o, const char *file,
                      bool quiet, double seconds);

/* An UNSOUND line per unsound axiom of the axiom file path (verbose: an ok line per sound one
 * too), then the summary. */
void rg_axcheck_print(FILE *out, const rg_axcheck_run *run, const rg_axcheck_opts *o, const char *path,
                      bool verbose);

#endif
