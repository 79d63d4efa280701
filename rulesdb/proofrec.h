/* rulesdb/proofrec.h: proof records from the verify stage's results (verify/prove.h), so that
 * a writer (rulegen -o rules.db) stores exactly what the solvers answered: one record per output
 * pair and solver that ran, with the obligation's SHA-256, result, time, unsat core and version.
 */
#ifndef RG_RULESDB_PROOFREC_H
#define RG_RULESDB_PROOFREC_H

#include "records.h"
#include "verify/prove.h"

/* Appends the proof records of one rule (content id `rule`) from its rg_rule_proof; sum gives
 * the solver versions. Queries that did not run (interrupted) give no record. */
rg_status rg_db_add_rule_proof(rg_db *db, const rg_db_id *rule, const rg_rule_proof *p,
                               const rg_prove_summary *sum, rg_err *err) RG_MUST_CHECK;

/* The database status for a proof status: verified only when both solvers proved every output
 * pair; anything less is unproved here (the records say which solver proved what). */
rg_db_status rg_db_status_of_proof(rg_proof_status s);

#endif
