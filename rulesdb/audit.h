/* rulesdb/audit.h: re-checking a database's content without trusting the machine that made it.
 *
 * Re-checked (OpenMP over records): every rule's content id and record against its re-parsed
 * text; every random-test record, re-run; every proof record: its obligation regenerated from
 * the rule text by verify/'s encoder must hash to the stored SHA-256, and the solver it names
 * re-runs it (a stored unsat must come back unsat); every certificate, re-checked by certify/'s
 * auditor against the programs of the rule text (not the certificate's copy); statuses against
 * the evidence (verified needs unsat answers from both z3 and cvc5 on every output pair,
 * certified a certificate); pruning records name rules that exist and carry their own text's id.
 * With opts->deep, every rule that claims equal sides (verified, tested, imported) is also
 * rechecked at many drawn shapes (verify/recheck.h):
 * a proof resting on an unsound axiom shows there as sides that differ.
 * Not re-checked, and counted so, never as passed: derivations of pruned rules (prune/ has no
 * re-derivation API), and proof records when no axioms are given (opts->ax NULL).
 */
#ifndef RG_RULESDB_AUDIT_H
#define RG_RULESDB_AUDIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "ir/strbuf.h"
#include "records.h"
#include "verify/axioms.h"

typedef struct {
  size_t sample;    /* audit only this many rules (chosen by seed) and their records; 0 = all */
  uint64_t seed;    /* for choosing the sample */
  size_t max_lines; /* failure lines to report per category */
  /* Solver re-runs: the axioms the obligations were made from (NULL: not re-run), whether all
   * axioms were asserted (verify/smt.h), the time limit per query, the cvc5 binary (NULL:
   * verify/'s default). */
  const rg_axioms *ax;
  bool all_axioms;
  int timeout_ms;
  const char *cvc5_path;
  const volatile sig_atomic_t *stop; /* if set and non-zero, remaining solver runs are skipped */
  /* The deep recheck (verify/recheck.h): every rule in scope that claims equal sides (verified,
   * tested, imported) evaluated at this many drawn assignments (its test record's shapes
   * first), 0 for none; with whole-node kernels (ir/interp.h) or NULL. A rule whose sides
   * differ somewhere fails, with the shapes. */
  int deep;
  rg_node_kernel kernel;
  bool progress; /* a progress line (ir/progress.h) over the deep rechecks and solver re-runs */
} rg_audit_opts;

/* Counts per category. What could not be re-checked is counted as unchecked, so a caller can
 * tell a complete audit from a partial one. */
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
  RG_AUDIT_DEEP,        /* rules rechecked at many drawn assignments (opts->deep) */
  RG_AUDIT_NCAT
};

typedef struct {
  rg_audit_count cat[RG_AUDIT_NCAT];
  size_t rules_in_scope;
} rg_audit_result;

/* Audits db. Appends one line per failure (category, rule id, what) to report. Returns RG_OK
 * (the result says what failed), RG_ERR_NOMEM, or RG_ERR_IO when a solver cannot be set up
 * (cvc5 binary missing). */
rg_status rg_db_audit(const rg_db *db, const rg_audit_opts *opts, rg_audit_result *res,
                      rg_strbuf *report, rg_err *err) RG_MUST_CHECK;

/* The summary table ("category  checked  failed  not re-checked") of a result. */
void rg_audit_print(const rg_audit_result *res, rg_strbuf *out);
/* The failures and the records not re-checked, over every category. */
void rg_audit_totals(const rg_audit_result *res, size_t *failed, size_t *unchecked);
/* Whether db's configuration says its obligations asserted every axiom (prove.all_axioms is 1
 * or true), as the audit must then regenerate them. */
bool rg_audit_db_all_axioms(const rg_db *db);

/* How an audit ended; the values are rulesdb audit's exit statuses. */
typedef enum { RG_AUDIT_PASSED = 0, RG_AUDIT_FAILED = 1, RG_AUDIT_INCOMPLETE = 3 } rg_audit_verdict;
/* "signature: good", or why not: checked (a key was given), verified (it was good), present
 * (db carries one). */
void rg_db_audit_signature_line(bool checked, bool verified, bool present, rg_strbuf *out);
/* The failure lines rg_db_audit wrote, "N of M rules audited", the table and the verdict line,
 * into out. sig_failed: a signature that is there failed (a failure); !verified: the signature
 * was not checked (incomplete); interrupted: the audit was stopped (said in the verdict). */
rg_audit_verdict rg_db_audit_report(const rg_db *db, const rg_audit_result *res, const rg_strbuf *failures,
                                 bool verified, bool sig_failed, bool interrupted, rg_strbuf *out);

#endif
