/* tests/test_rulesdb_store.c: the rule database: write/read round trip, signing and verifying,
 * tampering with each kind of record (verify must name it), wrong and missing keys, damaged and
 * foreign files, atomic writes under SIGKILL and cancellation, keygen's file rules. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "rulesdb/rulesdb.h"
#include "rulesdb_helpers.h"

static const char *rule_texts[] = {
    "(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))",
    "(relu (conv2d ?i ?w)) => (conv2d 1 1 same relu ?i ?w)",
    "(ewadd ?x ?y) => (ewadd ?y ?x)",
    "(relu ?x) ; (relu ?y) => (split.0 1 (relu (concat 1 ?x ?y))) ; (split.1 1 (relu (concat 1 ?x "
    "?y)))",
};

static char dir[64];

static const char *path_in(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", dir, name);
  return buf;
}

/* A database with every kind of record, for rules_n copies of the sample rules. */
static rg_db *sample_db(void) {
  rg_db *db = rg_db_new();
  rg_err err;
  for (size_t i = 0; i < sizeof rule_texts / sizeof *rule_texts; i++) {
    rg_rule *r;
    if (rg_text_parse_rule(rule_texts[i], &r, &err)) return fprintf(stderr, "%s\n", err.msg), db;
    rg_db_rule rec;
    CHECK(rg_db_rule_make(r, i == 2 ? RG_DB_TESTED : RG_DB_VERIFIED, &rec, &err) == RG_OK);
    CHECK(rg_db_add_rule(db, &rec, &err) == RG_OK);
    rg_db_proof p = {rec.id, "z3", "4.8.12", "unsat", 0.012, "assoc comm", {{0}}, 0};
    rg_db_digest("obligation", 10, &p.obligation);
    CHECK(rg_db_add_proof(db, &p, &err) == RG_OK);
    rg_db_test t = {rec.id, "zp", 8, 42 + i, "x=2x4 y=4x4 z=4x4", "", "agree"};
    CHECK(rg_db_add_test(db, &t, &err) == RG_OK);
    if (i == 1) {
      uint8_t body[] = "pet-certificate 1\nbox 0 0\n";
      rg_db_cert c = {rec.id, 1, body, sizeof body - 1};
      CHECK(rg_db_add_cert(db, &c, &err) == RG_OK);
    }
    rg_db_rule_clear(&rec);
    rg_rule_free(r);
  }
  rg_db_prune pr = {{{0}}, "(ewadd ?a ?b) => (ewadd ?b ?a)", "renaming", db->rules.v[2].id.hex};
  rg_db_digest("x", 1, &pr.removed_id);
  CHECK(rg_db_add_prune(db, &pr, &err) == RG_OK);
  rg_db_stage s1 = {"enumerate", 0, 1000, "", 1.5}, s2 = {"test", 1000, 4, "float64:3", 0.25};
  CHECK(rg_db_add_stage(db, &s1, &err) == RG_OK && rg_db_add_stage(db, &s2, &err) == RG_OK);
  CHECK(rg_db_set_config(db, "depth", "3", &err) == RG_OK);
  CHECK(rg_db_set_config(db, "ops", "matmul ewadd relu conv2d concat split", &err) == RG_OK);
  return db;
}

/* Verifies path with pk; returns the verdict and leaves the report in rep. */
static rg_db_verdict verify_file(const char *path, const rg_db_pubkey *pk, rg_strbuf *rep) {
  rg_db *db;
  rg_err err;
  rg_sb_clear(rep);
  if (rg_db_read(path, &db, &err)) {
    rg_sb_puts(rep, err.msg);
    return RG_DB_VERIFY_ERROR;
  }
  rg_db_verdict v = rg_db_verify(db, pk, rep);
  rg_db_free(db);
  return v;
}

static void copy_file(const char *from, const char *to) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  char buf[4096];
  size_t n;
  while (a && b && (n = fread(buf, 1, sizeof buf, a)) > 0)
    fwrite(buf, 1, n, b);
  if (a) fclose(a);
  if (b) fclose(b);
}

static void test_keys(rg_db_pubkey *pk, rg_db_seckey *sk, rg_db_pubkey *other) {
  char s[128], p[128], s2[128], p2[128];
  rg_err err;
  CHECK(rg_db_keygen(path_in(s, sizeof s, "k.key"), path_in(p, sizeof p, "k.pub"), &err) == RG_OK);
  struct stat sb;
  CHECK(stat(s, &sb) == 0 && (sb.st_mode & 0777) == 0600);
  CHECK_MSG(rg_db_keygen(s, path_in(p2, sizeof p2, "other.pub"), &err) != RG_OK &&
                strstr(err.msg, "never overwrites"),
            "%s", err.msg);
  CHECK(access(p2, F_OK) != 0); /* refused before writing anything */
  CHECK(rg_db_load_pubkey(p, pk, &err) == RG_OK && rg_db_load_seckey(s, sk, &err) == RG_OK);
  CHECK(rg_db_keygen(path_in(s2, sizeof s2, "o.key"), path_in(p2, sizeof p2, "o.pub"), &err) ==
        RG_OK);
  CHECK(rg_db_load_pubkey(p2, other, &err) == RG_OK);
  chmod(s2, 0644);
  rg_db_seckey tmp;
  CHECK_MSG(rg_db_load_seckey(s2, &tmp, &err) != RG_OK && strstr(err.msg, "chmod 600"), "%s",
            err.msg);
  CHECK(rg_db_load_pubkey(s, &tmp.sk[0] ? other : other, &err) !=
        RG_OK); /* a secret key is not a public key */
}

static void test_roundtrip_and_tamper(const rg_db_pubkey *pk, const rg_db_seckey *sk,
                                      const rg_db_pubkey *other) {
  char good[128], t[128];
  rg_err err;
  rg_strbuf rep;
  rg_sb_init(&rep);
  rg_db *db = sample_db();
  CHECK(rg_db_sign(db, sk, &err) == RG_OK);
  CHECK_MSG(rg_db_write(db, path_in(good, sizeof good, "good.db"), NULL, &err) == RG_OK, "%s",
            err.msg);

  rg_db *back;
  CHECK(rg_db_read(good, &back, &err) == RG_OK);
  if (back) {
    CHECK(back->rules.n == db->rules.n && back->proofs.n == db->proofs.n);
    CHECK(back->certs.n == 1 && back->certs.v[0].len == db->certs.v[0].len &&
          !memcmp(back->certs.v[0].body, db->certs.v[0].body, db->certs.v[0].len));
    CHECK(back->stages.n == 2 && !strcmp(back->stages.v[1].name, "test"));
    CHECK(back->tests.v[3].seed == 45 && back->prunes.n == 1);
    rg_strbuf m1, m2;
    rg_sb_init(&m1), rg_sb_init(&m2);
    CHECK(rg_db_manifest(db, &m1, &err) == RG_OK && rg_db_manifest(back, &m2, &err) == RG_OK);
    CHECK(!strcmp(rg_sb_str(&m1), rg_sb_str(&m2)));
    rg_sb_free(&m1), rg_sb_free(&m2);
    rg_db_free(back);
  }
  CHECK_MSG(verify_file(good, pk, &rep) == RG_DB_VERIFY_OK, "%s", rg_sb_str(&rep));
  CHECK(verify_file(good, other, &rep) == RG_DB_VERIFY_WRONG_KEY &&
        strstr(rg_sb_str(&rep), "another key"));

  /* VACUUM rewrites every page but changes no meaning: still good. */
  path_in(t, sizeof t, "t.db");
  copy_file(good, t);
  CHECK(exec_sql(t, "VACUUM") == 0);
  CHECK_MSG(verify_file(t, pk, &rep) == RG_DB_VERIFY_OK, "%s", rg_sb_str(&rep));

  static const struct {
    const char *sql, *want;
    rg_db_verdict verdict;
  } tamper[] = {
      {"UPDATE rules SET text='(ewadd ?x ?y) => (ewadd ?x ?y)' WHERE rowid=3", "rule ",
       RG_DB_VERIFY_CONTENT},
      {"UPDATE rules SET status='verified' WHERE status='tested'", "rule ", RG_DB_VERIFY_CONTENT},
      {"UPDATE proofs SET result='unknown' WHERE rowid=2", "proof ", RG_DB_VERIFY_CONTENT},
      {"UPDATE certs SET body=CAST(replace(CAST(body AS TEXT),'box 0','box 1') AS BLOB)", "cert ",
       RG_DB_VERIFY_CONTENT},
      {"UPDATE config SET value='4' WHERE key='depth'", "config depth", RG_DB_VERIFY_CONTENT},
      {"UPDATE tests SET seed=7 WHERE rowid=1", "test ", RG_DB_VERIFY_CONTENT},
      {"UPDATE prunes SET implied_by=''", "prune ", RG_DB_VERIFY_CONTENT},
      {"UPDATE stages SET n_out=5 WHERE ord=1", "stage 000001", RG_DB_VERIFY_CONTENT},
      /* a rule deleted with its operator and variable rows (left alone, those rows are refused
       * as an altered file: regress/run_rulesdb.sh) */
      {"DELETE FROM rules WHERE rowid=1; DELETE FROM rule_ops WHERE rule_id NOT IN (SELECT id FROM rules);"
       " DELETE FROM rule_vars WHERE rule_id NOT IN (SELECT id FROM rules)",
       "signed but missing", RG_DB_VERIFY_CONTENT},
      /* a rule's operator list changed through its rows */
      {"UPDATE rule_ops SET op='relu' WHERE rowid=1", "rule ", RG_DB_VERIFY_CONTENT},
      {"UPDATE signature SET sig=CAST(zeroblob(64) AS BLOB)", "bad signature",
       RG_DB_VERIFY_BAD_SIGNATURE},
      {"UPDATE signature SET manifest=replace(manifest,'config','konfig')", "bad signature",
       RG_DB_VERIFY_BAD_SIGNATURE},
      {"DELETE FROM signature", "unsigned", RG_DB_VERIFY_UNSIGNED},
      {"UPDATE signature SET sig=x'00'", "not exactly one", RG_DB_VERIFY_BAD_SIGNATURE},
      {"INSERT INTO signature SELECT * FROM signature", "not exactly one",
       RG_DB_VERIFY_BAD_SIGNATURE},
  };
  for (size_t i = 0; i < sizeof tamper / sizeof *tamper; i++) {
    copy_file(good, t);
    CHECK(exec_sql(t, tamper[i].sql) == 0);
    rg_db_verdict v = verify_file(t, pk, &rep);
    CHECK_MSG(v == tamper[i].verdict && strstr(rg_sb_str(&rep), tamper[i].want),
              "%s: verdict %d, report %s", tamper[i].sql, v, rg_sb_str(&rep));
  }
  /* rg_db_open refuses a tampered file unless told to allow it. */
  copy_file(good, t);
  CHECK(exec_sql(t, tamper[2].sql) == 0);
  rg_db *o;
  CHECK_MSG(rg_db_open(t, pk, 0, &o, NULL, &err) == RG_ERR_ARG && strstr(err.msg, "tampered") && !o,
            "%s", err.msg);
  rg_sb_clear(&rep);
  CHECK(rg_db_open(t, pk, 1, &o, &rep, &err) == RG_OK && o && strstr(rg_sb_str(&rep), "tampered"));
  rg_db_free(o);
  CHECK(rg_db_open(good, NULL, 0, &o, NULL, &err) == RG_ERR_ARG && strstr(err.msg, "--pub"));
  CHECK(rg_db_open(good, pk, 0, &o, NULL, &err) == RG_OK && o);
  rg_db_free(o);
  rg_db_free(db);
  rg_sb_free(&rep);
}

static void write_bytes(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (n) fwrite(p, 1, n, f);
  fclose(f);
}

static void test_bad_files(void) {
  char good[128], t[128];
  rg_err err;
  rg_db *db;
  path_in(good, sizeof good, "good.db");
  path_in(t, sizeof t, "bad.db");
  write_bytes(t, "", 0);
  CHECK_MSG(rg_db_read(t, &db, &err) == RG_ERR_IO && strstr(err.msg, "empty file") && !db, "%s",
            err.msg);
  static const char text[] = "(matmul ?x ?y) => (matmul ?x ?y)\nnot sqlite at all, but longer than "
                             "an SQLite header.........................................";
  write_bytes(t, text, sizeof text - 1);
  CHECK_MSG(rg_db_read(t, &db, &err) == RG_ERR_IO && strstr(err.msg, "not an SQLite file"), "%s",
            err.msg);
  CHECK_MSG(rg_db_read(path_in(t, sizeof t, "none.db"), &db, &err) == RG_ERR_IO &&
                strstr(err.msg, "cannot open"),
            "%s", err.msg);
  path_in(t, sizeof t, "bad.db");
  /* Truncations at several points: never a crash, always an error naming the file. */
  FILE *f = fopen(good, "rb");
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  size_t cuts[] = {50, 100, 4096, n / 2, n - 100};
  for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
    write_bytes(t, buf, cuts[i]);
    rg_status st = rg_db_read(t, &db, &err);
    CHECK_MSG(st != RG_OK && strstr(err.msg, "bad.db"), "cut at %zu: %s", cuts[i],
              st ? err.msg : "read ok");
    if (!st) rg_db_free(db);
  }
  copy_file(good, t);
  CHECK(exec_sql(t, "PRAGMA user_version=3") == 0);
  CHECK_MSG(rg_db_read(t, &db, &err) == RG_ERR_IO && strstr(err.msg, "schema version 3") &&
                strstr(err.msg, "newer"),
            "%s", err.msg);
  remove(t);
  CHECK(exec_sql(t, "CREATE TABLE x(a)") == 0);
  CHECK_MSG(rg_db_read(t, &db, &err) == RG_ERR_IO && strstr(err.msg, "not a rulegen rule database"),
            "%s", err.msg);
}

static int kill_after(void *user, int64_t done, int64_t total) {
  (void)total;
  if (done >= *(int64_t *)user) raise(SIGKILL);
  return 0;
}
static int cancel_after(void *user, int64_t done, int64_t total) {
  (void)total;
  return done >= *(int64_t *)user;
}

static int count_temp_files(void) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    n += strstr(e->d_name, ".tmp.") != NULL;
  if (d) closedir(d);
  return n;
}

static void test_atomic_write(const rg_db_pubkey *pk, const rg_db_seckey *sk) {
  char good[128];
  rg_err err;
  rg_strbuf rep;
  rg_sb_init(&rep);
  path_in(good, sizeof good, "good.db");
  /* A large new database, so the writer is killed with most rows unwritten. */
  rg_db *big = sample_db();
  for (int i = 0; i < 5000; i++) {
    rg_db_rule r = big->rules.v[0];
    rg_db_digest(&i, sizeof i, &r.id);
    CHECK(rg_db_add_rule(big, &r, &err) == RG_OK);
  }
  CHECK(rg_db_sign(big, sk, &err) == RG_OK);
  int64_t at = 3000;
  rg_db_write_opts opts = {kill_after, &at};
  pid_t pid = fork();
  if (pid == 0) {
    rg_status st = rg_db_write(big, good, &opts, &err);
    _exit(st == RG_OK ? 0 : 3); /* reaching here means the kill did not happen */
  }
  int ws = 0;
  waitpid(pid, &ws, 0);
  CHECK_MSG(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "writer status %d", ws);
  rg_db *back = NULL;
  CHECK(rg_db_read(good, &back, &err) == RG_OK && back && back->rules.n == 4);
  rg_db_free(back);
  CHECK_MSG(verify_file(good, pk, &rep) == RG_DB_VERIFY_OK, "after kill: %s", rg_sb_str(&rep));
  CHECK(count_temp_files() == 1); /* SIGKILL leaves the temp file; the target is intact */

  /* Cancelling (what Ctrl-C does) removes the temp file and leaves the target. */
  opts = (rg_db_write_opts){cancel_after, &at};
  CHECK(rg_db_write(big, good, &opts, &err) == RG_ERR_IO && strstr(err.msg, "interrupted") &&
        strstr(err.msg, "unchanged"));
  CHECK(count_temp_files() == 0); /* and the next write removed the one the killed writer left */
  CHECK(verify_file(good, pk, &rep) == RG_DB_VERIFY_OK);
  /* A complete write replaces it. */
  CHECK(rg_db_write(big, good, NULL, &err) == RG_OK);
  CHECK(rg_db_read(good, &back, &err) == RG_OK && back && back->rules.n == 5004);
  rg_db_free(back);
  CHECK(verify_file(good, pk, &rep) == RG_DB_VERIFY_OK);
  /* A duplicate rule id is refused and leaves the file. */
  CHECK(rg_db_add_rule(big, &big->rules.v[0], &err) == RG_OK);
  CHECK_MSG(rg_db_write(big, good, NULL, &err) == RG_ERR_ARG && strstr(err.msg, "duplicate"), "%s",
            err.msg);
  rg_db_free(big);
  rg_sb_free(&rep);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/rg-test-db-XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  rg_db_pubkey pk, other;
  rg_db_seckey sk;
  test_keys(&pk, &sk, &other);
  test_roundtrip_and_tamper(&pk, &sk, &other);
  test_bad_files();
  test_atomic_write(&pk, &sk);
  rg_db_seckey_wipe(&sk);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_done("test_rulesdb_store");
}
