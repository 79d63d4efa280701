/* tests/test_rulesdb_diff.c: diff semantics (added only, removed, downgraded, pruned, evidence
 * changed, JSON; the --lost and --lost-text modes) and the audit's own re-checks (content ids, random tests re-run, statuses,
 * pruning references, sampling, what it reports as not re-checked). */
#define _DEFAULT_SOURCE
#include "check.h"
#include "rulesdb/rulesdb.h"

static void add(rg_db *db, const char *text, rg_db_status st) {
  rg_rule *r;
  rg_err err;
  rg_db_rule rec;
  if (rg_text_parse_rule(text, &r, &err)) {
    CHECK_MSG(0, "%s: %s", text, err.msg);
    return;
  }
  CHECK(rg_db_rule_make(r, st, &rec, &err) == RG_OK);
  CHECK(rg_db_add_rule(db, &rec, &err) == RG_OK);
  rg_db_rule_clear(&rec);
  rg_rule_free(r);
}

static const char *A = "(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))";
static const char *B = "(ewadd ?x ?y) => (ewadd ?y ?x)";
static const char *C = "(ewmul ?x ?y) => (ewmul ?y ?x)";

static rg_db_diff run_mode(const rg_db *a, const rg_db *b, rg_diff_mode mode) {
  rg_db_diff d;
  rg_err err;
  CHECK(rg_db_diff_compute(a, b, mode, &d, &err) == RG_OK);
  return d;
}

static rg_db_diff run(const rg_db *a, const rg_db *b) {
  return run_mode(a, b, RG_DIFF_PROVED);
}

/* A set without C (verified in base) and a record of it implied by `by`, with more records. */
static int lost_with(const rg_db *base, const char *by, const rg_db_prune *more, int n_more, rg_db_status a_status) {
  rg_db *s = rg_db_new();
  rg_err err;
  add(s, A, a_status), add(s, B, RG_DB_TESTED);
  rg_db_prune p = {base->rules.v[2].id, (char *)C, "derivable(k=1)", (char *)by};
  CHECK(rg_db_add_prune(s, &p, &err) == RG_OK);
  for (int i = 0; i < n_more; i++) CHECK(rg_db_add_prune(s, &more[i], &err) == RG_OK);
  rg_db_diff d = run_mode(base, s, RG_DIFF_LOST);
  int lost = (int)d.lost_rules;
  rg_db_diff_free(&d);
  rg_db_free(s);
  return lost;
}

static void test_lost_chains(const rg_db *base) {
  const char *a = base->rules.v[0].id.hex, *b = base->rules.v[1].id.hex, *c = base->rules.v[2].id.hex;
  char two[2 * RG_DB_ID_LEN + 2];
  snprintf(two, sizeof two, "%s %s", a, c);
  CHECK(lost_with(base, a, NULL, 0, RG_DB_VERIFIED) == 0);  /* A kept and proved */
  CHECK(lost_with(base, a, NULL, 0, RG_DB_TESTED) == 1);    /* A kept, not proved: C's proof lost */
  CHECK(lost_with(base, b, NULL, 0, RG_DB_VERIFIED) == 1);  /* B is only tested */
  CHECK(lost_with(base, c, NULL, 0, RG_DB_VERIFIED) == 1);  /* C implied by itself */
  CHECK(lost_with(base, "", NULL, 0, RG_DB_VERIFIED) == 1); /* no implying rule */
  CHECK(lost_with(base, "0123", NULL, 0, RG_DB_VERIFIED) == 1);
  CHECK(lost_with(base, two, NULL, 0, RG_DB_VERIFIED) == 1); /* A and C itself */
  /* C implied by D, a rule the set does not hold, unless a record of D ends in A */
  rg_db_id d = base->rules.v[0].id;
  d.hex[0] = d.hex[0] == 'f' ? 'e' : 'f';
  CHECK(lost_with(base, d.hex, NULL, 0, RG_DB_VERIFIED) == 1);
  rg_db_prune via_a = {d, (char *)A, "renaming", (char *)a}, via_c = {d, (char *)A, "renaming", (char *)c};
  CHECK(lost_with(base, d.hex, &via_a, 1, RG_DB_VERIFIED) == 0);
  CHECK(lost_with(base, d.hex, &via_c, 1, RG_DB_VERIFIED) == 1); /* a cycle C -> D -> C */
}

/* --lost: a rule of any status gone without a pruning record, any lower status; --lost-text:
 * only base's shipped rules (verified, not pruned in base) gone, statuses not compared. */
static void test_lost(void) {
  rg_db *base = rg_db_new(), *gone = rg_db_new(), *down = rg_db_new(), *text = rg_db_new();
  rg_err err;
  add(base, A, RG_DB_VERIFIED), add(base, B, RG_DB_TESTED), add(base, C, RG_DB_VERIFIED);
  add(gone, A, RG_DB_VERIFIED), add(gone, C, RG_DB_VERIFIED);           /* B (tested) gone */
  add(down, A, RG_DB_CERTIFIED), add(down, B, RG_DB_UNPROVED), add(down, C, RG_DB_VERIFIED);
  add(text, A, RG_DB_IMPORTED), add(text, B, RG_DB_IMPORTED);           /* C gone */

  rg_db_diff d = run_mode(base, base, RG_DIFF_LOST);
  CHECK(d.n == 0 && d.regressions == 0);
  rg_db_diff_free(&d);
  d = run(base, gone); /* diff's default counts only proved rules */
  CHECK(d.removed == 1 && d.regressions == 0);
  rg_db_diff_free(&d);
  d = run_mode(base, gone, RG_DIFF_LOST);
  CHECK(d.removed == 1 && d.regressions == 1 && d.lost_rules == 1 && d.lost_proofs == 0);
  rg_strbuf out;
  rg_sb_init(&out);
  rg_db_diff_print(&d, &out);
  CHECK_MSG(strstr(rg_sb_str(&out), "LOST rule  ") && strstr(rg_sb_str(&out), base->rules.v[1].id.hex) &&
                strstr(rg_sb_str(&out), B) && strstr(rg_sb_str(&out), "1 lost (1 rule gone, 0 proofs lost) of 3 rules"),
            "%s", rg_sb_str(&out));
  rg_db_diff_free(&d);
  /* Its pruning record in the new set accounts for it. */
  rg_db_prune p = {base->rules.v[1].id, (char *)B, "derivable(k=2)", base->rules.v[0].id.hex};
  CHECK(rg_db_add_prune(gone, &p, &err) == RG_OK);
  d = run_mode(base, gone, RG_DIFF_LOST);
  CHECK(d.removed == 1 && d.regressions == 0 && d.v[0].pruned);
  rg_db_diff_free(&d);
  /* A record accounts only through rules that stand in the new set (a hostile set's records). */
  test_lost_chains(base);
  /* verified -> certified and tested -> unproved are lost proofs (the default sees one). */
  d = run_mode(base, down, RG_DIFF_LOST);
  CHECK(d.changed == 2 && d.regressions == 2 && d.lost_proofs == 2);
  rg_sb_clear(&out);
  rg_db_diff_print(&d, &out);
  CHECK_MSG(strstr(rg_sb_str(&out), "LOST proof ") && strstr(rg_sb_str(&out), "verified -> certified") &&
                strstr(rg_sb_str(&out), "tested -> unproved"),
            "%s", rg_sb_str(&out));
  rg_db_diff_free(&d);
  d = run(base, down);
  CHECK(d.regressions == 0);
  rg_db_diff_free(&d);
  /* Rule text: C (shipped) gone is lost; B (not verified) is not shipped; A's status is text's. */
  d = run_mode(base, text, RG_DIFF_SHIPPED);
  CHECK(d.regressions == 1 && d.lost_rules == 1 && d.removed == 1 && d.changed == 2);
  rg_sb_clear(&out);
  rg_db_diff_print_json(&d, &out);
  CHECK_MSG(strstr(rg_sb_str(&out), "{\"mode\":\"shipped\"") && strstr(rg_sb_str(&out), "\"lost_rules\":1"), "%s",
            rg_sb_str(&out));
  rg_db_diff_free(&d);
  /* ... unless base itself records C as pruned (derived: not in base's text either). */
  rg_db_prune pc = {base->rules.v[2].id, (char *)C, "derivable(k=1)", base->rules.v[0].id.hex};
  CHECK(rg_db_add_prune(base, &pc, &err) == RG_OK);
  d = run_mode(base, text, RG_DIFF_SHIPPED);
  CHECK(d.regressions == 0);
  rg_db_diff_free(&d);
  rg_sb_free(&out);
  rg_db_free(base), rg_db_free(gone), rg_db_free(down), rg_db_free(text);
}

static void test_diff(void) {
  rg_db *base = rg_db_new(), *more = rg_db_new(), *fewer = rg_db_new(), *down = rg_db_new();
  add(base, A, RG_DB_VERIFIED), add(base, B, RG_DB_VERIFIED);
  add(more, A, RG_DB_VERIFIED), add(more, B, RG_DB_VERIFIED), add(more, C, RG_DB_TESTED);
  add(fewer, A, RG_DB_VERIFIED);
  add(down, A, RG_DB_VERIFIED), add(down, B, RG_DB_UNPROVED);

  rg_db_diff d = run(base, more);
  CHECK(d.added == 1 && d.removed == 0 && d.changed == 0 && d.regressions == 0);
  rg_db_diff_free(&d);
  d = run(base, base);
  CHECK(d.n == 0 && d.regressions == 0);
  rg_db_diff_free(&d);
  d = run(base, fewer);
  CHECK(d.removed == 1 && d.regressions == 1 && d.v[0].regression);
  rg_db_diff_free(&d);
  d = run(base, down);
  CHECK(d.changed == 1 && d.regressions == 1 && d.v[0].status_changed);
  rg_strbuf out;
  rg_sb_init(&out);
  rg_db_diff_print(&d, &out);
  CHECK_MSG(strstr(rg_sb_str(&out), "verified -> unproved") &&
                strstr(rg_sb_str(&out), "REGRESSION") && strstr(rg_sb_str(&out), "1 regression"),
            "%s", rg_sb_str(&out));
  rg_sb_clear(&out);
  rg_db_diff_print_json(&d, &out);
  CHECK_MSG(strstr(rg_sb_str(&out), "\"changed\":[{\"id\":") &&
                strstr(rg_sb_str(&out), "\"regressions\":1") &&
                strstr(rg_sb_str(&out), "\"base_status\":\"verified\",\"new_status\":\"unproved\""),
            "%s", rg_sb_str(&out));
  rg_db_diff_free(&d);
  /* An upgrade is a change, not a regression. */
  d = run(down, base);
  CHECK(d.changed == 1 && d.regressions == 0);
  rg_db_diff_free(&d);
  /* A verified rule removed with a pruning record in the new database is not lost. */
  rg_db_prune p = {base->rules.v[1].id, (char *)B, "renaming", base->rules.v[0].id.hex};
  rg_err err;
  CHECK(rg_db_add_prune(fewer, &p, &err) == RG_OK);
  d = run(base, fewer);
  CHECK(d.removed == 1 && d.regressions == 0 && d.v[0].pruned);
  rg_db_diff_free(&d);
  /* Same status, different evidence: changed, not a regression. */
  rg_db_proof pr = {base->rules.v[0].id, "z3", "4.8.12", "unsat", 0.01, "", {{0}}, 0};
  CHECK(rg_db_add_proof(more, &pr, &err) == RG_OK);
  d = run(base, more);
  CHECK(d.changed == 1 && d.added == 1 && d.regressions == 0);
  rg_db_diff_free(&d);
  /* JSON strings are escaped. */
  rg_sb_clear(&out);
  rg_json_string(&out, "a\"b\\c\nd\x01");
  CHECK(!strcmp(rg_sb_str(&out), "\"a\\\"b\\\\c\\nd\\u0001\""));
  rg_sb_free(&out);
  rg_db_free(base), rg_db_free(more), rg_db_free(fewer), rg_db_free(down);
}

/* Evidence is what the records attest: a proof's seconds are not (a run from the proof cache
 * records them rounded), its answer's unsat core is; row order is not. */
static void test_evidence(void) {
  rg_db *a = rg_db_new(), *b = rg_db_new();
  rg_err err;
  add(a, A, RG_DB_VERIFIED), add(b, A, RG_DB_VERIFIED);
  rg_db_proof z = {a->rules.v[0].id, "z3", "4.8.12", "unsat", 0.0537535730004311, "assoc", {{0}}, 0};
  rg_db_proof c = {a->rules.v[0].id, "cvc5", "1.0.3", "unsat", 0.2355942979976, "assoc", {{0}}, 0};
  CHECK(rg_db_add_proof(a, &z, &err) == RG_OK && rg_db_add_proof(a, &c, &err) == RG_OK);
  z.seconds = 0.0538, c.seconds = 0.2356;
  CHECK(rg_db_add_proof(b, &c, &err) == RG_OK && rg_db_add_proof(b, &z, &err) == RG_OK);
  rg_db_diff d = run_mode(a, b, RG_DIFF_LOST);
  CHECK_MSG(d.n == 0, "%zu changed", d.changed);
  rg_db_diff_free(&d);
  free(b->proofs.v[1].unsat_core);
  b->proofs.v[1].unsat_core = strdup("assoc comm");
  d = run_mode(a, b, RG_DIFF_LOST);
  CHECK(d.changed == 1 && d.regressions == 0 && !d.v[0].status_changed);
  rg_db_diff_free(&d);
  rg_db_free(a), rg_db_free(b);
}

static void add_test(rg_db *db, size_t rule, const char *dom, const char *shapes,
                     const char *result) {
  rg_db_test t = {db->rules.v[rule].id, (char *)dom, 3, 7, (char *)shapes, "", (char *)result};
  rg_err err;
  CHECK(rg_db_add_test(db, &t, &err) == RG_OK);
}

static size_t total(const rg_audit_result *r, int what) {
  size_t n = 0;
  for (int c = 0; c < RG_AUDIT_NCAT; c++)
    n += what == 0 ? r->cat[c].failed : r->cat[c].unchecked;
  return n;
}

static void test_audit(void) {
  rg_db *db = rg_db_new();
  rg_err err;
  add(db, A, RG_DB_VERIFIED);
  add(db, "(relu (ewadd ?x ?y)) => (ewadd (relu ?x) (relu ?y))", RG_DB_TESTED); /* false */
  add_test(db, 0, "Z_p", "x=2x4 y=4x4 z=4x3", "agree");
  add_test(db, 0, "float64", "x=2x4 y=4x4 z=4x3", "agree");
  add_test(db, 1, "Z_p", "x=2x4 y=2x4", "value");
  rg_db_proof z = {db->rules.v[0].id, "z3", "4.8.12", "unsat", 0.01, "assoc", {{0}}, 0};
  rg_db_proof c = {db->rules.v[0].id, "cvc5", "1.0.3", "unsat", 0.01, "assoc", {{0}}, 0};
  CHECK(rg_db_add_proof(db, &z, &err) == RG_OK && rg_db_add_proof(db, &c, &err) == RG_OK);
  rg_db_prune p = {{{0}},
                   "(matmul (matmul ?a ?b) ?c) => (matmul ?a (matmul ?b ?c))",
                   "renaming",
                   db->rules.v[0].id.hex};
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_rule *r;
  CHECK(rg_text_parse_rule(p.removed_text, &r, &err) == RG_OK);
  rg_rule_content_id(r, &sb, &p.removed_id);
  rg_rule_free(r);
  CHECK(rg_db_add_prune(db, &p, &err) == RG_OK);

  rg_audit_opts o = {.seed = 1, .max_lines = 20, .timeout_ms = 5000};
  rg_audit_result res;
  rg_strbuf rep;
  rg_sb_init(&rep);
  CHECK(rg_db_audit(db, &o, &res, &rep, &err) == RG_OK);
  CHECK_MSG(total(&res, 0) == 0, "%s", rg_sb_str(&rep));
  CHECK(res.cat[RG_AUDIT_TESTS].checked == 3 && res.cat[RG_AUDIT_RULES].checked == 2);
  /* Proofs and derivations are never counted as passed. */
  CHECK(res.cat[RG_AUDIT_SOLVER].unchecked == 2 && res.cat[RG_AUDIT_DERIVATIONS].unchecked == 1);
  CHECK(res.cat[RG_AUDIT_SOLVER].checked == 0);

  /* Wrong records are caught: a test result that does not reproduce, a verified rule without
   * cvc5's answer, a text that no longer hashes to its id, a pruning record naming no rule. */
  strcpy(db->tests.v[2].result, "agree"); /* was "value": same length */
  strcpy(db->proofs.v[1].result, "sat");  /* was "unsat" */
  free(db->rules.v[1].text);
  db->rules.v[1].text = strdup("(relu (ewadd ?y ?x)) => (ewadd (relu ?x) (relu ?y))");
  db->prunes.v[0].implied_by[0] = db->prunes.v[0].implied_by[0] == 'a' ? 'b' : 'a';
  rg_sb_clear(&rep);
  CHECK(rg_db_audit(db, &o, &res, &rep, &err) == RG_OK);
  const char *t = rg_sb_str(&rep);
  CHECK_MSG(res.cat[RG_AUDIT_TESTS].failed == 1 &&
                strstr(t, "re-run gives 'value', record says 'agree'"),
            "%s", t);
  CHECK_MSG(res.cat[RG_AUDIT_STATUS].failed == 1 && strstr(t, "without an unsat answer from cvc5"),
            "%s", t);
  CHECK_MSG(res.cat[RG_AUDIT_RULES].failed == 1 && strstr(t, "content id is not the hash"), "%s",
            t);
  CHECK_MSG(res.cat[RG_AUDIT_PRUNE_REFS].failed == 1 && strstr(t, "not in the database"), "%s", t);

  /* A sample audits that many rules and only their tests. */
  o.sample = 1;
  CHECK(rg_db_audit(db, &o, &res, &rep, &err) == RG_OK);
  CHECK(res.rules_in_scope == 1 && res.cat[RG_AUDIT_RULES].checked == 1);
  CHECK(res.cat[RG_AUDIT_TESTS].checked == 1 || res.cat[RG_AUDIT_TESTS].checked == 2);
  rg_sb_clear(&rep);
  rg_audit_print(&res, &rep);
  CHECK(strstr(rg_sb_str(&rep), "solver re-runs") && strstr(rg_sb_str(&rep), "not re-checked"));
  rg_sb_free(&rep), rg_sb_free(&sb);
  rg_db_free(db);
}

int main(void) {
  test_diff();
  test_lost();
  test_evidence();
  test_audit();
  return check_done("test_rulesdb_diff");
}
