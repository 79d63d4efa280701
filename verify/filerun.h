/* verify/filerun.h: the verify stages run over files, as the commands (rulegen prove, recheck,
 * check-axioms) and any other program want them: load the file(s), check what the stage needs
 * of them, allocate the results, run the stage. The caller prints.
 *
 * Every run names in *file the file its error is about (an axiom file, a rule file) or NULL
 * (the error is no file's: a solver, allocation), for a message "FILE:LINE: ..."; and frees its
 * run with the matching _free whatever the status (a run that failed is empty or partial).
 */
#ifndef RG_VERIFY_FILERUN_H
#define RG_VERIFY_FILERUN_H

#include "axcheck.h"
#include "prove.h"
#include "recheck.h"

/* rg_prove_file's results: the axioms and rules it loaded, one proof per rule, the summary. */
typedef struct {
  rg_axioms ax;
  rg_ruleset rules;
  rg_rule_proof *proofs; /* rules.n of them */
  rg_prove_summary sum;
} rg_prove_run;

/* Proves every rule of the rule file rules_path from the axiom file axioms_path
 * (rg_prove_rules, options o). Errors: those of rg_axioms_load, rg_text_parse_file and
 * rg_prove_rules, allocation. */
rg_status rg_prove_file(const char *rules_path, const char *axioms_path, const rg_prove_opts *o,
                        rg_prove_run *run, const char **file, rg_err *err) RG_MUST_CHECK;
void rg_prove_run_free(rg_prove_run *run);

/* The files a proof run with o writes can be written (its --journal, --dump folder and json, a
 * path or NULL), checked before the axioms' tests and the proofs: else RG_ERR_IO naming the
 * option ("--dump: ..."). */
rg_status rg_prove_check_outputs(const rg_prove_opts *o, const char *json, rg_err *err) RG_MUST_CHECK;

/* Why a proof is an error of the proof system itself (a false proof: an axiom is unsound; a
 * disagreement: an axiom or a solver is wrong), NULL when it is neither. */
const char *rg_proof_error(const rg_rule_proof *p);

/* rg_recheck_file's results: the rules and one verdict per rule. */
typedef struct {
  rg_ruleset rules;
  rg_recheck_verdict *verdicts; /* rules.n of them */
  int differ;                   /* rules that differ */
} rg_recheck_run;

/* Rechecks every rule of the rule file path (rg_recheck_rules, options o). Errors: those of
 * rg_text_parse_file, a bare graph (RG_ERR_ARG, err->line its line), rg_recheck_rules'. */
rg_status rg_recheck_file(const char *path, const rg_recheck_opts *o, rg_recheck_run *run,
                          const char **file, rg_err *err) RG_MUST_CHECK;
void rg_recheck_run_free(rg_recheck_run *run);

/* rg_axioms_check_file's results: the axioms and one verdict per axiom. */
typedef struct {
  rg_axioms ax;
  rg_axiom_verdict *verdicts; /* ax.rules.n of them */
  int unsound;                /* axioms found unsound */
} rg_axcheck_run;

/* Random-tests every axiom of the axiom file path (rg_axioms_check, options o). Errors: those
 * of rg_axioms_load and rg_axioms_check, allocation. */
rg_status rg_axioms_check_file(const char *path, const rg_axcheck_opts *o, rg_axcheck_run *run,
                               const char **file, rg_err *err) RG_MUST_CHECK;
void rg_axcheck_run_free(rg_axcheck_run *run);

#endif
