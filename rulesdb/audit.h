/* rulesdb/audit.h: re-checking a database's content without trusting the machine that made it.
 *
 * What this module re-checks by itself: every rule's content id and record against its text
 * (re-parsed), every random-test record by re-running it (OpenMP over records), the consistency
 * of statuses with the evidence (a verified rule needs an unsat answer from both z3 and cvc5, a
 * certified one a certificate), and that pruning records name rules that exist and carry the id
 * of their own text. What it cannot re-check without the solver and certificate modules (re-
 * running the solvers on regenerated obligations, re-checking PET certificates, re-deriving
 * pruned rules) is counted as "not re-checked", never as passed.
 */
#ifndef RG_RULESDB_AUDIT_H
#define RG_RULESDB_AUDIT_H

#include <stdint.h>

#include "ir/strbuf.h"
#include "records.h"

typedef struct {
  size_t sample;    /* audit only this many rules (chosen by seed) and their records; 0 = all */
  uint64_t seed;    /* for choosing the sample */
  size_t max_lines; /* failure lines to report per category */
} rg_audit_opts;

/* Counts per category. The last three are what this build cannot re-check: they are always
 * counted as unchecked, so a caller can tell a complete audit from a partial one. */
typedef struct {
  const char *name;
  size_t checked, failed, unchecked;
} rg_audit_count;

enum {
  RG_AUDIT_RULES,       /* content id and record against the re-parsed text */
  RG_AUDIT_TESTS,       /* random-test records, re-run */
  RG_AUDIT_STATUS,      /* statuses backed by the evidence they need */
  RG_AUDIT_PRUNE_REFS,  /* pruning records: own id, implying rules exist */
  RG_AUDIT_SOLVER,      /* proof records: solvers re-run on regenerated obligations */
  RG_AUDIT_CERTS,       /* certificates re-checked */
  RG_AUDIT_DERIVATIONS, /* pruned rules re-derived from the implying ones */
  RG_AUDIT_NCAT
};

typedef struct {
  rg_audit_count cat[RG_AUDIT_NCAT];
  size_t rules_in_scope;
} rg_audit_result;

/* Audits db. Appends one line per failure (category, rule id, what) to report. Returns RG_OK
 * (the result says what failed) or RG_ERR_NOMEM. */
rg_status rg_db_audit(const rg_db *db, const rg_audit_opts *opts, rg_audit_result *res,
                      rg_strbuf *report, rg_err *err) RG_MUST_CHECK;

/* The summary table ("category  checked  failed  not re-checked") of a result. */
void rg_audit_print(const rg_audit_result *res, rg_strbuf *out);

#endif
