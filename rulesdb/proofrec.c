/* rulesdb/proofrec.c: proof records from verify/'s results. */
#include "proofrec.h"

#include <string.h>

rg_status rg_db_add_rule_proof(rg_db *db, const rg_db_id *rule, const rg_rule_proof *p,
                               const rg_prove_summary *sum, rg_err *err) {
  for (int k = 0; k < p->n_obl; k++)
    for (int s = 0; s < RG_SOLVER_COUNT; s++) {
      if (!p->obl[k].done[s]) continue;
      const rg_answer_record *a = &p->obl[k].ans[s];
      /* sum->version is "z3 4.8.12": keep the version part only. */
      const char *v = sum->version[s], *sp = strchr(v, ' ');
      rg_db_proof rec = {*rule,
                         (char *)rg_solver_kind_name((rg_solver_kind)s),
                         (char *)(sp ? sp + 1 : v),
                         (char *)rg_smt_result_name(a->result),
                         a->ms / 1000.0,
                         (char *)(a->result == RG_SMT_UNSAT ? a->core : ""),
                         {{0}},
                         k};
      /* the obligation this solver was given: under core_hint, after the first, the cut-down one */
      const char *sha = s > 0 && p->obl[k].core_sha256[0] ? p->obl[k].core_sha256 : p->obl[k].sha256;
      memcpy(rec.obligation.hex, sha, sizeof rec.obligation.hex);
      rg_status st = rg_db_add_proof(db, &rec, err);
      if (st) return st;
    }
  return RG_OK;
}

rg_db_status rg_db_status_of_proof(rg_proof_status s) {
  return s == RG_PROOF_VERIFIED ? RG_DB_VERIFIED : RG_DB_UNPROVED;
}
