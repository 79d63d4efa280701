/* tests/test_rulesdb_audit.c: the audit's re-checks that use the other modules: proof records
 * (obligation regenerated from the rule text, hash compared, solver re-run) and certificates
 * (re-checked by certify/'s auditor against the rule's programs). */
#include "certify/certify.h"
#include "check.h"
#include "rulesdb/rulesdb.h"
#include "verify/verify.h"

static size_t add_rule(rg_db *db, const char *text, rg_db_status st) {
  rg_rule *r;
  rg_err err;
  rg_db_rule rec;
  CHECK(rg_text_parse_rule(text, &r, &err) == RG_OK);
  CHECK(rg_db_rule_make(r, st, &rec, &err) == RG_OK);
  CHECK(rg_db_add_rule(db, &rec, &err) == RG_OK);
  rg_db_rule_clear(&rec);
  rg_rule_free(r);
  return db->rules.n - 1;
}

/* Proof records as verify/ would write them: the obligation's SHA-256, both solvers unsat. */
static void add_proofs(rg_db *db, size_t rule, const rg_axioms *ax) {
  rg_rule *r;
  rg_err err;
  CHECK(rg_text_parse_rule(db->rules.v[rule].text, &r, &err) == RG_OK);
  rg_obligation ob;
  CHECK(rg_smt_encode(r, 0, ax, false, &ob, &err) == RG_OK);
  static const char *solvers[] = {"z3", "cvc5"};
  for (int s = 0; s < 2; s++) {
    rg_db_proof p = {db->rules.v[rule].id, (char *)solvers[s], "", "unsat", 0.01, "", {{0}}, 0};
    memcpy(p.obligation.hex, ob.sha256, sizeof p.obligation.hex);
    CHECK(rg_db_add_proof(db, &p, &err) == RG_OK);
  }
  rg_obligation_free(&ob);
  rg_rule_free(r);
}

static void add_cert(rg_db *db, size_t rule, const char *orig, const char *mut,
                     const char *shapes) {
  rg_pet_pair *pp;
  rg_err err;
  CHECK_MSG(rg_pet_pair_new(orig, mut, shapes, &pp, &err) == RG_OK, "%s", err.msg);
  rg_pet_result res;
  rg_cert c;
  memset(&res, 0, sizeof res), memset(&c, 0, sizeof c);
  CHECK(rg_pet_check(pp, &(rg_pet_opts){3, RG_ZP_P, NULL}, &res, &err) == RG_OK);
  CHECK(rg_cert_make(pp, &res, &c, &err) == RG_OK);
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_cert_write(&c, &sb);
  rg_db_cert rc = {db->rules.v[rule].id, RG_CERT_VERSION, (uint8_t *)sb.s, sb.len};
  CHECK(rg_db_add_cert(db, &rc, &err) == RG_OK);
  rg_sb_free(&sb);
  rg_cert_free(&c);
  rg_pet_pair_free(pp);
}

static rg_audit_result audit_deep(const rg_db *db, const rg_axioms *ax, rg_strbuf *rep, int timeout_ms, int deep) {
  rg_audit_opts o = {.seed = 1, .max_lines = 20, .ax = ax, .timeout_ms = timeout_ms, .deep = deep};
  rg_audit_result res;
  rg_err err;
  rg_sb_clear(rep);
  CHECK_MSG(rg_db_audit(db, &o, &res, rep, &err) == RG_OK, "%s", err.msg);
  return res;
}

static rg_audit_result audit(const rg_db *db, const rg_axioms *ax, rg_strbuf *rep, int timeout_ms) {
  return audit_deep(db, ax, rep, timeout_ms, 0);
}

int main(void) {
  rg_axioms ax;
  rg_err err;
  if (rg_axioms_load(rg_axioms_default_path(), &ax, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  rg_db *db = rg_db_new();
  size_t a =
      add_rule(db, "(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))", RG_DB_VERIFIED);
  add_proofs(db, a, &ax);
  size_t c = add_rule(db, "(ewadd ?x ?y) => (ewadd ?y ?x)", RG_DB_CERTIFIED);
  add_cert(db, c, "(ewadd ?x ?y)", "(ewadd ?y ?x)", "x=2x4 y=2x4");
  rg_strbuf rep;
  rg_sb_init(&rep);

  rg_audit_result res = audit(db, &ax, &rep, 10000);
  CHECK_MSG(res.cat[RG_AUDIT_SOLVER].checked == 2 && res.cat[RG_AUDIT_SOLVER].failed == 0 &&
                res.cat[RG_AUDIT_SOLVER].unchecked == 0,
            "%s", rg_sb_str(&rep));
  CHECK_MSG(res.cat[RG_AUDIT_CERTS].checked == 1 && res.cat[RG_AUDIT_CERTS].failed == 0, "%s",
            rg_sb_str(&rep));
  CHECK(res.cat[RG_AUDIT_STATUS].failed == 0);
  /* Without axioms the proofs are not re-run, and say so. */
  res = audit(db, NULL, &rep, 10000);
  CHECK(res.cat[RG_AUDIT_SOLVER].checked == 0 && res.cat[RG_AUDIT_SOLVER].unchecked == 2);

  /* A stored hash that the rule text does not give. */
  char saved = db->proofs.v[0].obligation.hex[0];
  db->proofs.v[0].obligation.hex[0] = saved == '0' ? '1' : '0';
  res = audit(db, &ax, &rep, 10000);
  CHECK_MSG(res.cat[RG_AUDIT_SOLVER].failed == 1 && strstr(rg_sb_str(&rep), "hashes to"), "%s",
            rg_sb_str(&rep));
  db->proofs.v[0].obligation.hex[0] = saved;

  /* A certificate byte changed: rejected. A certificate of other programs: rejected. */
  rg_db_cert *ce = &db->certs.v[0];
  char *seed = strstr((char *)ce->body, "\nseed ");
  CHECK(seed != NULL);
  if (seed) {
    char old = seed[6];
    seed[6] = old == 'a' ? 'b' : 'a';
    res = audit(db, &ax, &rep, 10000);
    CHECK_MSG(res.cat[RG_AUDIT_CERTS].failed == 1 && strstr(rg_sb_str(&rep), "certificate of"),
              "%s", rg_sb_str(&rep));
    seed[6] = old;
  }
  size_t d = add_rule(db, "(ewmul ?x ?y) => (ewmul ?y ?x)", RG_DB_CERTIFIED);
  add_cert(db, d, "(ewadd ?x ?y)", "(ewadd ?y ?x)", "x=2x4 y=2x4");
  res = audit(db, &ax, &rep, 10000);
  CHECK_MSG(res.cat[RG_AUDIT_CERTS].failed == 1 && strstr(rg_sb_str(&rep), "rejected"), "%s",
            rg_sb_str(&rep));

  /* A verified rule with one solver's answer only. */
  db->proofs.v[1].result[0] = 'x';
  res = audit(db, &ax, &rep, 10000);
  CHECK_MSG(strstr(rg_sb_str(&rep), "without an unsat answer from cvc5"), "%s", rg_sb_str(&rep));
  db->proofs.v[1].result[0] = 'u';

  /* A false rule whose records claim unsat: the re-run does not reproduce it (false goals end
   * in unknown or timeout, never a quick sat: a short limit keeps the test fast). */
  size_t f = add_rule(db, "(relu (ewadd ?x ?y)) => (ewadd (relu ?x) (relu ?y))", RG_DB_VERIFIED);
  add_proofs(db, f, &ax);
  res = audit(db, &ax, &rep, 1500);
  CHECK_MSG(res.cat[RG_AUDIT_SOLVER].failed == 2 && strstr(rg_sb_str(&rep), "stored unsat"), "%s",
            rg_sb_str(&rep));

  /* The deep recheck: the true verified rule agrees everywhere; the false one (whatever its
   * records claim) differs, and the shapes that show it are named. */
  res = audit_deep(db, NULL, &rep, 1500, 32);
  CHECK_MSG(res.cat[RG_AUDIT_DEEP].checked == 2 && res.cat[RG_AUDIT_DEEP].failed == 1 &&
                strstr(rg_sb_str(&rep), "its sides differ") && strstr(rg_sb_str(&rep), "; at x="),
            "%s", rg_sb_str(&rep));
  res = audit(db, NULL, &rep, 1500);
  CHECK(res.cat[RG_AUDIT_DEEP].checked == 0 && res.cat[RG_AUDIT_DEEP].failed == 0);

  rg_sb_free(&rep);
  rg_db_free(db);
  rg_axioms_free(&ax);
  return check_done("test_rulesdb_audit");
}
