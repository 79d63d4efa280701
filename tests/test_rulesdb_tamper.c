/* tests/test_rulesdb_tamper.c: the reader takes exactly what the writer writes. Tampering that
 * a signature over parsed values would not see (text past a NUL byte, an id longer than 64
 * characters, an integer wider than its field, a value of another storage type, an extra
 * column, table, index, trigger or view, a UTF-16 file) must be refused by rg_db_read and
 * rg_db_open, even with allow_unsigned, with a message naming the file, table, row and column;
 * files too short to be SQLite, or with bytes appended, are called what they are; the writer
 * refuses an id the reader would refuse; an untampered copy still verifies. */
#define _DEFAULT_SOURCE
#include <sqlite3.h>
#include <unistd.h>

#include "check.h"
#include "rulesdb/rulesdb.h"
#include "rulesdb_helpers.h"

static char dir[64];

static const char *path_in(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", dir, name);
  return buf;
}

/* Two rules with a proof, a test, a certificate, a pruning record, stages and config. */
static rg_db *sample_db(void) {
  static const char *texts[] = {"(ewadd ?x ?y) => (ewadd ?y ?x)",
                                "(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))"};
  rg_db *db = rg_db_new();
  rg_err err;
  for (size_t i = 0; i < 2; i++) {
    rg_rule *r;
    rg_db_rule rec;
    CHECK(rg_text_parse_rule(texts[i], &r, &err) == RG_OK);
    CHECK(rg_db_rule_make(r, RG_DB_VERIFIED, &rec, &err) == RG_OK);
    CHECK(rg_db_add_rule(db, &rec, &err) == RG_OK);
    rg_db_proof p = {rec.id, "z3", "4.8.12", "unsat", 0.25, "comm", {{0}}, 0};
    rg_db_digest(texts[i], strlen(texts[i]), &p.obligation);
    CHECK(rg_db_add_proof(db, &p, &err) == RG_OK);
    rg_db_test t = {rec.id, "Z_p", 8, 42, "x=2x4 y=4x4 z=4x4", "", "agree"};
    CHECK(rg_db_add_test(db, &t, &err) == RG_OK);
    uint8_t body[] = "pet-certificate 1\n";
    CHECK(rg_db_add_cert(db, &(rg_db_cert){rec.id, 1, body, sizeof body - 1}, &err) == RG_OK);
    rg_db_rule_clear(&rec);
    rg_rule_free(r);
  }
  rg_db_prune pr = {{{0}}, "(ewadd ?a ?b) => (ewadd ?b ?a)", "renaming", db->rules.v[0].id.hex};
  rg_db_digest("x", 1, &pr.removed_id);
  CHECK(rg_db_add_prune(db, &pr, &err) == RG_OK);
  rg_db_stage s1 = {"enumerate", 0, 1000, "", 1.5}, s2 = {"test", 1000, 2, "float64:3", 0.25};
  CHECK(rg_db_add_stage(db, &s1, &err) == RG_OK && rg_db_add_stage(db, &s2, &err) == RG_OK);
  CHECK(rg_db_set_config(db, "depth", "3", &err) == RG_OK);
  return db;
}

/* Copies the first n bytes of from (all when n is -1) to to, then appends extra zero bytes. */
static void copy_file(const char *from, const char *to, long n, long extra) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  char buf[4096];
  size_t k;
  while (a && b && n != 0 && (k = fread(buf, 1, n > 0 && n < 4096 ? (size_t)n : 4096, a)) > 0)
    fwrite(buf, 1, k, b), n -= n > 0 ? (long)k : 0;
  memset(buf, 0, sizeof buf);
  for (; b && extra > 0; extra -= 4096)
    fwrite(buf, 1, extra < 4096 ? (size_t)extra : 4096, b);
  if (a) fclose(a);
  if (b) fclose(b);
}

/* rg_db_read and rg_db_open (even with allow_unsigned) refuse path with status want_st and a
 * message holding path and every string of want (NULL-terminated). */
static void expect_refused(const char *path, const char *what, rg_status want_st,
                           const char *const *want, const rg_db_pubkey *pk) {
  rg_db *db = NULL;
  rg_err err;
  rg_status st = rg_db_read(path, &db, &err);
  int has = st == want_st && !db && strstr(err.msg, path);
  for (size_t i = 0; has && want[i]; i++)
    has = strstr(err.msg, want[i]) != NULL;
  CHECK_MSG(has, "%s: status %d, message: %s", what, st, st ? err.msg : "(read)");
  rg_db_free(db);
  st = rg_db_open(path, pk, 1, &db, NULL, &err);
  CHECK_MSG(st == want_st && !db, "%s: rg_db_open status %d", what, st);
  rg_db_free(db);
}

static void test_tampering(const char *good, const rg_db_pubkey *pk) {
  static const struct {
    const char *sql, *want[4];
  } cases[] = {
      /* text past a NUL byte: invisible to a C string, there for any other reader */
      {"UPDATE rules SET text=text||char(0)||' ; (relu ?evil)' WHERE rowid=2",
       {"rules row 2 (id ", "): text holds a NUL byte", "altered"}},
      {"UPDATE rules SET status=status||char(0)||'x'", {"rules row 1 (id ", "status holds a NUL"}},
      {"UPDATE config SET value=value||char(0)||'5'", {"config row 1: value holds a NUL byte"}},
      {"UPDATE signature SET manifest=manifest||char(0)||'x'",
       {"signature row 1: manifest holds a NUL byte"}},
      /* ids: exactly 64 lowercase hex digits */
      {"UPDATE rules SET id=id||'-EVIL' WHERE rowid=1",
       {"rules row 1: id '", "(69 characters) is not a content id"}},
      {"UPDATE rules SET id=upper(id) WHERE rowid=2", {"rules row 2: id '", "not a content id"}},
      {"UPDATE proofs SET obligation=substr(obligation,2)",
       {"proofs row 1 (id ", "obligation '", "(63 characters)"}},
      {"UPDATE prunes SET removed_id=removed_id||'0'", {"prunes row 1: removed_id"}},
      {"UPDATE signature SET key_id=key_id||'0'", {"signature row 1: key_id"}},
      /* integers: the whole INTEGER, range-checked against the field */
      {"UPDATE rules SET src_size=src_size+4294967296 WHERE rowid=1",
       {"rules row 1 (id ", "src_size is 4294967", "outside the range -2147483648..2147483647"}},
      {"UPDATE tests SET trials=trials+4294967296", {"tests row 1 (id ", "trials is 4294967304"}},
      {"UPDATE proofs SET output=-2147483649", {"proofs row 1 (id ", "output is -2147483649"}},
      {"UPDATE certs SET version=version+4294967296",
       {"certs row 1 (id ", "version is 4294967297"}},
      {"UPDATE stages SET ord=ord+10", {"stages row 10: ord is 10", "(expected 0)"}},
      /* storage types */
      {"UPDATE rules SET n_outputs=1.5", {"n_outputs holds a real number", "writes an integer"}},
      {"UPDATE tests SET seed='many'", {"tests row 1 (id ", "seed holds text"}},
      {"UPDATE proofs SET seconds='fast'", {"seconds holds text", "writes a real number"}},
      {"UPDATE certs SET body=CAST(body AS TEXT)", {"certs row 1 (id ", "body holds text"}},
      {"UPDATE config SET value=CAST(value AS BLOB)", {"value holds a BLOB", "writes text"}},
      {"UPDATE rules SET id=NULL WHERE rowid=1", {"rules row 1: id holds NULL"}},
      {"UPDATE signature SET sig=hex(sig)", {"signature row 1: sig holds text"}},
      /* the schema */
      {"ALTER TABLE rules ADD COLUMN evil TEXT",
       {"table rules has a column 'evil' that this program does not write"}},
      {"ALTER TABLE stages RENAME COLUMN dropped TO why",
       {"table stages has a column 'why' where this program writes 'dropped'"}},
      {"CREATE TABLE extra(a)", {"the schema holds a table 'extra'"}},
      {"CREATE INDEX evil_index ON proofs(solver)",
       {"the schema holds an index 'evil_index' on proofs"}},
      {"CREATE TRIGGER evil_trigger AFTER INSERT ON rules BEGIN SELECT 1; END",
       {"the schema holds a trigger 'evil_trigger' on rules"}},
      {"CREATE VIEW evil_view AS SELECT 1", {"the schema holds a view 'evil_view'"}},
      {"ANALYZE", {"the schema holds a table 'sqlite_stat1'"}},
      {"DROP TABLE prunes", {"the schema lacks the table 'prunes'"}},
  };
  char t[128];
  path_in(t, sizeof t, "t.db");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    copy_file(good, t, -1, 0);
    CHECK_MSG(exec_sql(t, cases[i].sql) == 0, "%s", cases[i].sql);
    expect_refused(t, cases[i].sql, RG_ERR_PARSE, cases[i].want, pk);
  }
  /* What SQLite stores as the writer does is the same content: still good. */
  static const char *same[] = {"UPDATE rules SET src_size='1' WHERE src_size=1",
                               "UPDATE proofs SET seconds=0.25", "VACUUM"};
  for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
    copy_file(good, t, -1, 0);
    CHECK(exec_sql(t, same[i]) == 0);
    rg_db *db = NULL;
    rg_err err;
    CHECK_MSG(rg_db_open(t, pk, 0, &db, NULL, &err) == RG_OK, "%s: %s", same[i], err.msg);
    rg_db_free(db);
  }
}

/* good's header and schema (no rows) in a UTF-16 database at t: the encoding is all that
 * differs. */
static void make_utf16(const char *good, const char *t) {
  rg_strbuf sql;
  rg_sb_init(&sql);
  rg_sb_printf(&sql,
               "PRAGMA encoding='UTF-16le'; PRAGMA application_id=%d; PRAGMA user_version=%d;",
               RG_DB_APPLICATION_ID, RG_DB_SCHEMA_VERSION);
  sqlite3 *s;
  sqlite3_stmt *q;
  CHECK(sqlite3_open(good, &s) == SQLITE_OK &&
        sqlite3_prepare_v2(s, "SELECT sql FROM sqlite_master WHERE sql NOT NULL", -1, &q, NULL) ==
            SQLITE_OK);
  while (sqlite3_step(q) == SQLITE_ROW)
    rg_sb_printf(&sql, "%s;", sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
  sqlite3_close(s);
  unlink(t);
  CHECK(exec_sql(t, rg_sb_str(&sql)) == 0);
  rg_sb_free(&sql);
}

static void test_files(const char *good, const rg_db_pubkey *pk) {
  char t[128];
  path_in(t, sizeof t, "f.db");
  /* Too short for SQLite (which would read it as an empty database): truncated if it begins as
   * SQLite does, else not SQLite at all. */
  copy_file(good, t, 1, 0);
  expect_refused(t, "1 byte", RG_ERR_IO,
                 (const char *[]){"damaged database (truncated: 1 byte,", NULL}, pk);
  copy_file(good, t, 511, 0);
  expect_refused(t, "511 bytes", RG_ERR_IO, (const char *[]){"truncated: 511 bytes", NULL}, pk);
  FILE *f = fopen(t, "wb");
  fputs("x", f);
  fclose(f);
  expect_refused(t, "x", RG_ERR_IO, (const char *[]){"not an SQLite file", NULL}, pk);
  /* Bytes appended: not truncated, but its size does not match its page count. */
  copy_file(good, t, -1, 4096);
  expect_refused(t, "a page appended", RG_ERR_IO,
                 (const char *[]){"damaged database (its size does not match its page count",
                                  "4096 bytes more", NULL},
                 pk);
  copy_file(good, t, -1, 1);
  expect_refused(t, "a byte appended", RG_ERR_IO,
                 (const char *[]){"does not match its page count", NULL}, pk);
  make_utf16(good, t);
  expect_refused(t, "UTF-16", RG_ERR_PARSE,
                 (const char *[]){"text encoding UTF-16le, where this program writes UTF-8", NULL},
                 pk);
}

/* The writer refuses an id that the reader would refuse, and leaves the target. */
static void test_writer_ids(const char *good, const rg_db_pubkey *pk) {
  rg_db *db = sample_db();
  rg_err err;
  snprintf(db->proofs.v[1].obligation.hex, sizeof db->proofs.v[1].obligation.hex, "ABC");
  CHECK_MSG(rg_db_write(db, good, NULL, &err) == RG_ERR_ARG &&
                strstr(err.msg, "proof (obligation) 1: 'ABC' is not a content id"),
            "%s", err.msg);
  rg_db_free(db);
  rg_db *back = NULL;
  CHECK(rg_db_open(good, pk, 0, &back, NULL, &err) == RG_OK);
  rg_db_free(back);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/rg-test-tamper-XXXXXX");
  if (!mkdtemp(dir)) return perror("mkdtemp"), 1;
  char key[128], pub[128], good[128];
  rg_err err;
  rg_db_pubkey pk;
  CHECK(rg_db_keygen(path_in(key, sizeof key, "k.key"), path_in(pub, sizeof pub, "k.pub"), &err) ==
        RG_OK);
  CHECK(rg_db_load_pubkey(pub, &pk, &err) == RG_OK);
  rg_db *db = sample_db();
  CHECK_MSG(rg_db_save(db, path_in(good, sizeof good, "good.db"), key, NULL, &err) == RG_OK, "%s",
            err.msg);
  rg_db_free(db);
  rg_db *back = NULL;
  CHECK_MSG(rg_db_open(good, &pk, 0, &back, NULL, &err) == RG_OK && back && back->certs.n == 2,
            "%s", err.msg);
  rg_db_free(back);
  test_tampering(good, &pk);
  test_files(good, &pk);
  test_writer_ids(good, &pk);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_done("test_rulesdb_tamper");
}
