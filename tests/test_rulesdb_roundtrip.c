/* tests/test_rulesdb_roundtrip.c: the whole life of a database, with the real stages: TASO's
 * rules imported, random-tested (ir/compare) and proved by z3 and cvc5 (verify/), stored with
 * their records, signed, written, opened by a verifying reader, and audited: all green. Then a
 * proof result changed in the file: verify and audit refuse it. */
#define _DEFAULT_SOURCE
#include <sqlite3.h>
#include <unistd.h>

#include "check.h"
#include "rulesdb/rulesdb.h"
#include "verify/verify.h"

#define N_RULES 6

int main(void) {
  rg_err err;
  FILE *f = fopen("regress/anchors/taso-graph_subst.pb", "rb");
  static uint8_t pb[1 << 16];
  size_t len = f ? fread(pb, 1, sizeof pb, f) : 0;
  if (f) fclose(f);
  rg_ruleset all, rs;
  rg_ruleset_init(&all), rg_ruleset_init(&rs);
  rg_strbuf skipped, sb;
  rg_sb_init(&skipped), rg_sb_init(&sb);
  CHECK(rg_taso_import(pb, len, &all, &skipped, &err) == RG_OK && all.n == 133);
  for (int i = 0; i < all.n && rs.n < N_RULES; i++) {
    rg_rule *r;
    rg_sb_clear(&sb);
    rg_text_print_rule(all.rules[i], &sb);
    CHECK(rg_text_parse_rule(rg_sb_str(&sb), &r, &err) == RG_OK && rg_ruleset_add(&rs, r) == RG_OK);
  }
  rg_axioms ax;
  CHECK(rg_axioms_load(rg_axioms_default_path(), &ax, &err) == RG_OK);
  rg_prove_opts po;
  rg_prove_opts_init(&po);
  po.check_axioms = false; /* verify/'s own tests random-test the axioms */
  rg_rule_proof proofs[N_RULES];
  rg_prove_summary sum;
  CHECK_MSG(rg_prove_rules(&rs, &ax, &po, proofs, &sum, &err) == RG_OK, "%s", err.msg);
  CHECK_MSG(sum.verified == N_RULES, "%d of %d verified", sum.verified, N_RULES);

  rg_db *db = rg_db_new();
  for (int i = 0; i < rs.n; i++) {
    rg_db_rule rec;
    CHECK(rg_db_rule_make(rs.rules[i], rg_db_status_of_proof(proofs[i].status), &rec, &err) ==
          RG_OK);
    CHECK(rg_db_add_rule(db, &rec, &err) == RG_OK);
    CHECK(rg_db_add_rule_proof(db, &rec.id, &proofs[i], &sum, &err) == RG_OK);
    /* A random test at TASO's shapes, as the test stage would record it. */
    const rg_rule *r = rs.rules[i];
    rg_shape shapes[RG_TASO_INPUTS + 1];
    const rg_shape *ptr[RG_TASO_INPUTS + 1];
    rg_sb_clear(&sb);
    for (int32_t v = 0; v < rg_graph_n_tvars(r->g); v++) {
      const char *name = rg_graph_tvar_name(r->g, v);
      char dims[64];
      CHECK(rg_taso_input_shape(rg_taso_input_number(name), &shapes[v]));
      ptr[v] = &shapes[v];
      rg_sb_printf(&sb, "%s%s=%s", v ? " " : "", name,
                   rg_shape_format(&shapes[v], dims, sizeof dims));
    }
    rg_eval_ctx ctx;
    rg_eval_ctx_init(&ctx, 5);
    rg_cmp_result cmp;
    CHECK(rg_rule_compare(r, &(rg_binding){ptr, NULL, NULL}, RG_DOM_ZP, &ctx, 5, 4, &cmp, &err) ==
          RG_OK);
    rg_db_test t = {rec.id,
                    (char *)rg_domain_name(RG_DOM_ZP),
                    4,
                    5,
                    (char *)rg_sb_str(&sb),
                    "",
                    cmp.verdict == RG_CMP_AGREE ? "agree" : "value"};
    CHECK(cmp.verdict == RG_CMP_AGREE && rg_db_add_test(db, &t, &err) == RG_OK);
    rg_db_rule_clear(&rec);
  }
  rg_rule_proofs_free(proofs, N_RULES);
  rg_db_stage stage = {"prove", N_RULES, sum.verified, "", sum.wall_ms / 1000.0};
  CHECK(rg_db_add_stage(db, &stage, &err) == RG_OK);
  CHECK(rg_db_set_config(db, "prove.all_axioms", "0", &err) == RG_OK);

  char dir[] = "/tmp/rg-test-roundtrip-XXXXXX", sec[64], pub[64], path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(sec, sizeof sec, "%s/k.key", dir), snprintf(pub, sizeof pub, "%s/k.pub", dir);
  snprintf(path, sizeof path, "%s/rules.db", dir);
  CHECK(rg_db_keygen(sec, pub, &err) == RG_OK);
  CHECK_MSG(rg_db_save(db, path, sec, NULL, &err) == RG_OK, "%s", err.msg);

  rg_db_pubkey pk;
  rg_db *back = NULL;
  CHECK(rg_db_load_pubkey(pub, &pk, &err) == RG_OK);
  CHECK_MSG(rg_db_open(path, &pk, 0, &back, NULL, &err) == RG_OK, "%s", err.msg);
  rg_strbuf rep;
  rg_sb_init(&rep);
  if (back) {
    CHECK(back->proofs.n == 2 * N_RULES && back->tests.n == N_RULES);
    rg_audit_opts o = {.seed = 1, .max_lines = 20, .ax = &ax, .timeout_ms = 10000, .deep = 16};
    rg_audit_result res;
    CHECK(rg_db_audit(back, &o, &res, &rep, &err) == RG_OK);
    size_t failed = 0, unchecked = 0;
    for (int c = 0; c < RG_AUDIT_NCAT; c++)
      failed += res.cat[c].failed, unchecked += res.cat[c].unchecked;
    CHECK_MSG(failed == 0 && unchecked == 0, "%s", rg_sb_str(&rep));
    CHECK(res.cat[RG_AUDIT_SOLVER].checked == 2 * N_RULES &&
          res.cat[RG_AUDIT_TESTS].checked == N_RULES);
    rg_db_free(back);
  }
  /* A proof result changed in the file: the reader refuses, naming the proof. */
  sqlite3 *s;
  CHECK(sqlite3_open(path, &s) == SQLITE_OK);
  CHECK(sqlite3_exec(s, "UPDATE proofs SET result='timeout' WHERE rowid=1", NULL, NULL, NULL) ==
        SQLITE_OK);
  sqlite3_close(s);
  CHECK_MSG(rg_db_open(path, &pk, 0, &back, NULL, &err) == RG_ERR_ARG && strstr(err.msg, "proof "),
            "%s", err.msg);

  unlink(sec), unlink(pub), unlink(path), rmdir(dir);
  rg_sb_free(&rep), rg_sb_free(&skipped), rg_sb_free(&sb);
  rg_db_free(db);
  rg_axioms_free(&ax);
  rg_ruleset_free(&all), rg_ruleset_free(&rs);
  return check_done("test_rulesdb_roundtrip");
}
