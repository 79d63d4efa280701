/* bench/rulesdb_bench.c: time to build, sign, write, read and verify a large rule database.
 *
 * usage: rulesdb_bench [N_RULES] [DIR]   (default 100000 rules, files in /tmp)
 * Each rule gets two proof records (z3, cvc5) and two test records (Z_p, float64), like a real
 * run. Prints one table row per step with wall time; figures are noisy on a shared machine.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/ir.h"
#include "rulesdb/rulesdb.h"

static int die(const char *what, const rg_err *e) {
  fprintf(stderr, "rulesdb_bench: %s: %s\n", what, e->msg);
  return 1;
}

/* Adds n rules, each with two proof and two test records; NULL, or the step that failed. */
static const char *add_rules(rg_db *db, long n, rg_err *err) {
  char text[256];
  for (long i = 0; i < n; i++) {
    snprintf(text, sizeof text,
             "(matmul (ewadd ?x%ld ?y) ?z) => (ewadd (matmul ?x%ld ?z) (matmul ?y ?z))", i, i);
    rg_rule *r;
    rg_db_rule rec;
    if (rg_text_parse_rule(text, &r, err) || rg_db_rule_make(r, RG_DB_VERIFIED, &rec, err))
      return "rule";
    rg_rule_free(r);
    if (rg_db_add_rule(db, &rec, err)) return "add";
    rg_db_proof p = {rec.id, "z3", "4.8.12", "unsat", 0.012, "distrib assoc", {{0}}, 0};
    rg_db_digest(text, strlen(text), &p.obligation);
    rg_db_test t = {rec.id, "Z_p", 8, (uint64_t)i, "x=2x4 y=2x4 z=4x4", "", "agree"};
    if (rg_db_add_proof(db, &p, err)) return "proof";
    p.solver = "cvc5", p.version = "1.0.3";
    if (rg_db_add_proof(db, &p, err) || rg_db_add_test(db, &t, err)) return "records";
    t.domain = "float64";
    if (rg_db_add_test(db, &t, err)) return "test";
    rg_db_rule_clear(&rec);
  }
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
  const char *dir = argc > 2 ? argv[2] : "/tmp";
  if (n < 1) return fprintf(stderr, "usage: rulesdb_bench [N_RULES] [DIR]\n"), 2;
  char path[4096], sec[4096], pub[4096];
  snprintf(path, sizeof path, "%s/rulesdb-bench-%d.db", dir, (int)getpid());
  snprintf(sec, sizeof sec, "%s/rulesdb-bench-%d.key", dir, (int)getpid());
  snprintf(pub, sizeof pub, "%s/rulesdb-bench-%d.pub", dir, (int)getpid());
  rg_err err;
  rg_db_seckey sk;
  rg_db_pubkey pk;
  if (rg_db_keygen(sec, pub, &err) || rg_db_load_seckey(sec, &sk, &err) ||
      rg_db_load_pubkey(pub, &pk, &err))
    return die("keys", &err);

  double t0 = rg_clock_seconds();
  rg_db *db = rg_db_new();
  const char *failed = add_rules(db, n, &err);
  if (failed) return die(failed, &err);
  double t1 = rg_clock_seconds();
  rg_strbuf m;
  rg_sb_init(&m);
  if (rg_db_manifest(db, &m, &err)) return die("manifest", &err);
  double t2 = rg_clock_seconds();
  if (rg_db_sign(db, &sk, &err)) return die("sign", &err);
  double t3 = rg_clock_seconds();
  if (rg_db_write(db, path, NULL, &err)) return die("write", &err);
  double t4 = rg_clock_seconds();
  rg_db *back;
  if (rg_db_read(path, &back, &err)) return die("read", &err);
  double t5 = rg_clock_seconds();
  rg_strbuf rep;
  rg_sb_init(&rep);
  rg_db_verdict v = rg_db_verify(back, &pk, &rep);
  double t6 = rg_clock_seconds();
  struct stat st;
  stat(path, &st);
  printf("rules %ld (+%zu proof, %zu test records); manifest %.1f MB; file %.1f MB\n", n,
         db->proofs.n, db->tests.n, (double)m.len / 1e6, (double)st.st_size / 1e6);
  printf("%-34s %10s\n", "step", "seconds");
  printf("%-34s %10.3f\n", "parse rules, make records", t1 - t0);
  printf("%-34s %10.3f\n", "manifest (digests, sort)", t2 - t1);
  printf("%-34s %10.3f\n", "sign (manifest + Ed25519)", t3 - t2);
  printf("%-34s %10.3f\n", "write (SQLite, fsync, rename)", t4 - t3);
  printf("%-34s %10.3f\n", "read", t5 - t4);
  printf("%-34s %10.3f\n", "verify (manifest + Ed25519)", t6 - t5);
  printf("verdict: %s", rg_sb_str(&rep));
  rg_sb_free(&m), rg_sb_free(&rep);
  rg_db_free(db), rg_db_free(back);
  rg_db_seckey_wipe(&sk);
  unlink(path), unlink(sec), unlink(pub);
  return v == RG_DB_VERIFY_OK ? 0 : 1;
}
