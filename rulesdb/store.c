/* rulesdb/store.c: the SQLite schema, atomic writes, and reading a database back. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contentid.h"

static const char schema[] =
    "CREATE TABLE rules(id TEXT PRIMARY KEY, text TEXT NOT NULL, src_size INTEGER NOT NULL,"
    " tgt_size INTEGER NOT NULL, n_outputs INTEGER NOT NULL, ops TEXT NOT NULL,"
    " status TEXT NOT NULL);"
    "CREATE TABLE proofs(rule_id TEXT NOT NULL, output INTEGER NOT NULL, solver TEXT NOT NULL,"
    " version TEXT NOT NULL, result TEXT NOT NULL, seconds REAL NOT NULL,"
    " unsat_core TEXT NOT NULL, obligation TEXT NOT NULL);"
    "CREATE TABLE tests(rule_id TEXT NOT NULL, domain TEXT NOT NULL, trials INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, shapes TEXT NOT NULL, params TEXT NOT NULL, result TEXT NOT NULL);"
    "CREATE TABLE certs(rule_id TEXT NOT NULL, version INTEGER NOT NULL, body BLOB NOT NULL);"
    "CREATE TABLE prunes(removed_id TEXT NOT NULL, removed_text TEXT NOT NULL,"
    " reason TEXT NOT NULL, implied_by TEXT NOT NULL);"
    "CREATE TABLE stages(ord INTEGER PRIMARY KEY, name TEXT NOT NULL, n_in INTEGER NOT NULL,"
    " n_out INTEGER NOT NULL, dropped TEXT NOT NULL, seconds REAL NOT NULL);"
    "CREATE TABLE config(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE signature(key_id TEXT NOT NULL, manifest TEXT NOT NULL, sig BLOB NOT NULL);";

/* ---- writing ---- */

typedef struct {
  sqlite3 *db;
  const char *tmp;
  const rg_db_write_opts *opts;
  int64_t done, total;
  rg_err *err;
} writer;

static rg_status sql_fail(writer *w, const char *what) {
  return rg_err_set(w->err, RG_ERR_IO, "%s: %s: %s", w->tmp, what, sqlite3_errmsg(w->db));
}

/* Runs a prepared insert: binds args per a format string ('t' text, 'i' int64, 'd' double,
 * 'b' blob+length), steps, resets. */
static rg_status insert(writer *w, sqlite3_stmt *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  for (int i = 1; *fmt; fmt++, i++) {
    switch (*fmt) {
    case 't': sqlite3_bind_text(s, i, va_arg(ap, const char *), -1, SQLITE_STATIC); break;
    case 'i': sqlite3_bind_int64(s, i, va_arg(ap, int64_t)); break;
    case 'd': sqlite3_bind_double(s, i, va_arg(ap, double)); break;
    case 'b': {
      const void *p = va_arg(ap, const void *);
      size_t n = va_arg(ap, size_t);
      sqlite3_bind_blob64(s, i, p, n, SQLITE_STATIC);
      break;
    }
    }
  }
  va_end(ap);
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  if (rc == SQLITE_CONSTRAINT)
    return rg_err_set(
        w->err, RG_ERR_ARG,
        "duplicate record (two rules with one content id, or two config values with one key): %s",
        sqlite3_errmsg(w->db));
  if (rc != SQLITE_DONE) return sql_fail(w, "insert failed");
  if (++w->done % 1024 == 0 && w->opts && w->opts->progress &&
      w->opts->progress(w->opts->user, w->done, w->total))
    return rg_err_set(w->err, RG_ERR_IO, "write interrupted");
  return RG_OK;
}

static rg_status prep(writer *w, const char *sql, sqlite3_stmt **s) {
  if (sqlite3_prepare_v2(w->db, sql, -1, s, NULL) != SQLITE_OK) return sql_fail(w, "prepare");
  return RG_OK;
}

static rg_status write_tables(writer *w, const rg_db *db) {
  sqlite3_stmt *s = NULL;
  rg_status st = prep(w, "INSERT INTO rules VALUES(?,?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    st = insert(w, s, "ttiiitt", r->id.hex, r->text, (int64_t)r->src_size, (int64_t)r->tgt_size,
                (int64_t)r->n_outputs, r->ops, rg_db_status_name(r->status));
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO proofs VALUES(?,?,?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->proofs.n; i++) {
    const rg_db_proof *p = &db->proofs.v[i];
    st = insert(w, s, "titttdtt", p->rule_id.hex, (int64_t)p->output, p->solver, p->version,
                p->result, p->seconds, p->unsat_core, p->obligation.hex);
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO tests VALUES(?,?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->tests.n; i++) {
    const rg_db_test *t = &db->tests.v[i];
    st = insert(w, s, "ttiittt", t->rule_id.hex, t->domain, (int64_t)t->trials, (int64_t)t->seed,
                t->shapes, t->params, t->result);
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO certs VALUES(?,?,?)", &s);
  for (size_t i = 0; !st && i < db->certs.n; i++) {
    const rg_db_cert *c = &db->certs.v[i];
    st = insert(w, s, "tib", c->rule_id.hex, (int64_t)c->version, (const void *)c->body, c->len);
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO prunes VALUES(?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->prunes.n; i++) {
    const rg_db_prune *p = &db->prunes.v[i];
    st = insert(w, s, "tttt", p->removed_id.hex, p->removed_text, p->reason, p->implied_by);
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO stages VALUES(?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->stages.n; i++) {
    const rg_db_stage *g = &db->stages.v[i];
    st = insert(w, s, "itiitd", (int64_t)i, g->name, g->n_in, g->n_out, g->dropped, g->seconds);
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO config VALUES(?,?)", &s);
  for (size_t i = 0; !st && i < db->config.n; i++)
    st = insert(w, s, "tt", db->config.v[i].key, db->config.v[i].value);
  sqlite3_finalize(s), s = NULL;
  if (!st && db->sig.present && !db->sig.malformed) { /* a damaged one is not carried over */
    st = prep(w, "INSERT INTO signature VALUES(?,?,?)", &s);
    if (!st)
      st = insert(w, s, "ttb", db->sig.key_id.hex, db->sig.manifest, (const void *)db->sig.sig,
                  sizeof db->sig.sig);
    sqlite3_finalize(s);
  }
  return st;
}

/* fsync of a file or directory by path. */
static int sync_path(const char *path, int dir) {
  int fd = open(path, (dir ? O_RDONLY | O_DIRECTORY : O_RDWR));
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

rg_status rg_db_write(const rg_db *db, const char *path, const rg_db_write_opts *opts,
                      rg_err *err) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16), *dcopy = strdup(path);
  if (!tmp || !dcopy) return free(tmp), free(dcopy), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* The temp file sits beside the target so that rename() stays on one file system. */
  snprintf(tmp, plen + 16, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    rg_status st = rg_err_set(err, RG_ERR_IO, "%s: cannot create a temporary file beside it: %s",
                              path, strerror(errno));
    return free(tmp), free(dcopy), st;
  }
  /* mkstemp makes 0600; a database is not secret: keep the old file's mode, else 0644. */
  struct stat old;
  fchmod(fd, stat(path, &old) == 0 ? (old.st_mode & 0777) : 0644);
  close(fd);
  writer w = {NULL, tmp, opts, 0, 0, err};
  w.total = (int64_t)(db->rules.n + db->proofs.n + db->tests.n + db->certs.n + db->prunes.n +
                      db->stages.n + db->config.n);
  rg_status st = RG_OK;
  char pragma[160];
  snprintf(pragma, sizeof pragma,
           "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA application_id=%d;"
           " PRAGMA user_version=%d; BEGIN;",
           RG_DB_APPLICATION_ID, RG_DB_SCHEMA_VERSION);
  /* No journal: the temporary file is thrown away on any failure, so rollback is not needed. */
  if (sqlite3_open_v2(tmp, &w.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
    st = sql_fail(&w, "open");
  if (!st && sqlite3_exec(w.db, pragma, NULL, NULL, NULL) != SQLITE_OK) st = sql_fail(&w, "set-up");
  if (!st && sqlite3_exec(w.db, schema, NULL, NULL, NULL) != SQLITE_OK) st = sql_fail(&w, "schema");
  if (!st) st = write_tables(&w, db);
  if (!st && sqlite3_exec(w.db, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK)
    st = sql_fail(&w, "commit");
  if (sqlite3_close(w.db) != SQLITE_OK && !st)
    st = rg_err_set(err, RG_ERR_IO, "%s: close failed", tmp);
  if (!st && sync_path(tmp, 0) != 0)
    st = rg_err_set(err, RG_ERR_IO, "%s: fsync failed: %s", tmp, strerror(errno));
  if (!st && rename(tmp, path) != 0)
    st = rg_err_set(err, RG_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
  if (st) {
    unlink(tmp);
    size_t l = strlen(err ? err->msg : "");
    if (err && l + 40 + plen < sizeof err->msg)
      snprintf(err->msg + l, sizeof err->msg - l, "; %s is unchanged", path);
  } else {
    sync_path(dirname(dcopy), 1); /* makes the rename durable; failure here loses nothing */
  }
  free(tmp), free(dcopy);
  return st;
}

rg_status rg_db_save(rg_db *db, const char *path, const char *key_path,
                     const rg_db_write_opts *opts, rg_err *err) {
  if (key_path) {
    rg_db_seckey sk;
    rg_status st = rg_db_load_seckey(key_path, &sk, err);
    if (!st) st = rg_db_sign(db, &sk, err);
    rg_db_seckey_wipe(&sk);
    if (st) return st;
  }
  return rg_db_write(db, path, opts, err);
}

/* ---- reading ---- */

typedef struct {
  sqlite3 *db;
  const char *path;
  rg_err *err;
} reader;

static const char *col_text(sqlite3_stmt *s, int i) {
  const unsigned char *t = sqlite3_column_text(s, i);
  return t ? (const char *)t : "";
}

static void col_id(sqlite3_stmt *s, int i, rg_db_id *id) {
  snprintf(id->hex, sizeof id->hex, "%s", col_text(s, i));
}

static rg_status read_fail(reader *r, const char *table) {
  int code = sqlite3_errcode(r->db);
  if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_IOERR)
    return rg_err_set(r->err, RG_ERR_IO,
                      "%s: damaged database (truncated or corrupt) reading %s: %s", r->path, table,
                      sqlite3_errmsg(r->db));
  return rg_err_set(
      r->err, RG_ERR_IO,
      "%s: cannot read table %s: %s (is this a rulegen database of schema version %d?)", r->path,
      table, sqlite3_errmsg(r->db), RG_DB_SCHEMA_VERSION);
}

/* Runs a query and hands each row to fn; stops at the first error. */
static rg_status each_row(reader *r, rg_db *db, const char *table, const char *sql,
                          rg_status (*fn)(rg_db *, sqlite3_stmt *, rg_err *)) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(r->db, sql, -1, &s, NULL) != SQLITE_OK) return read_fail(r, table);
  rg_status st = RG_OK;
  int rc;
  while (!st && (rc = sqlite3_step(s)) == SQLITE_ROW)
    st = fn(db, s, r->err);
  if (!st && rc != SQLITE_DONE) st = read_fail(r, table);
  sqlite3_finalize(s);
  return st;
}

static rg_status row_rule(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  rg_db_rule r = {0};
  col_id(s, 0, &r.id);
  r.text = (char *)col_text(s, 1);
  r.src_size = sqlite3_column_int(s, 2), r.tgt_size = sqlite3_column_int(s, 3);
  r.n_outputs = sqlite3_column_int(s, 4);
  r.ops = (char *)col_text(s, 5);
  int status = rg_db_status_by_name(col_text(s, 6));
  if (status < 0)
    return rg_err_set(err, RG_ERR_PARSE, "rule %.16s...: unknown status '%s'", r.id.hex,
                      col_text(s, 6));
  r.status = (rg_db_status)status;
  return rg_db_add_rule(db, &r, err);
}

static rg_status row_proof(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  rg_db_proof p = {0};
  col_id(s, 0, &p.rule_id);
  p.solver = (char *)col_text(s, 1), p.version = (char *)col_text(s, 2);
  p.result = (char *)col_text(s, 3), p.seconds = sqlite3_column_double(s, 4);
  p.unsat_core = (char *)col_text(s, 5);
  col_id(s, 6, &p.obligation);
  p.output = sqlite3_column_int(s, 7);
  return rg_db_add_proof(db, &p, err);
}

static rg_status row_test(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  rg_db_test t = {0};
  col_id(s, 0, &t.rule_id);
  t.domain = (char *)col_text(s, 1), t.trials = sqlite3_column_int(s, 2);
  t.seed = (uint64_t)sqlite3_column_int64(s, 3);
  t.shapes = (char *)col_text(s, 4), t.params = (char *)col_text(s, 5);
  t.result = (char *)col_text(s, 6);
  return rg_db_add_test(db, &t, err);
}

static rg_status row_cert(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  rg_db_cert c = {0};
  col_id(s, 0, &c.rule_id);
  c.version = sqlite3_column_int(s, 1);
  c.body = (uint8_t *)sqlite3_column_blob(s, 2);
  c.len = (size_t)sqlite3_column_bytes(s, 2);
  return rg_db_add_cert(db, &c, err);
}

static rg_status row_prune(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  rg_db_prune p = {0};
  col_id(s, 0, &p.removed_id);
  p.removed_text = (char *)col_text(s, 1), p.reason = (char *)col_text(s, 2);
  p.implied_by = (char *)col_text(s, 3);
  return rg_db_add_prune(db, &p, err);
}

static rg_status row_stage(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  rg_db_stage g = {0};
  g.name = (char *)col_text(s, 0), g.n_in = sqlite3_column_int64(s, 1);
  g.n_out = sqlite3_column_int64(s, 2), g.dropped = (char *)col_text(s, 3);
  g.seconds = sqlite3_column_double(s, 4);
  return rg_db_add_stage(db, &g, err);
}

static rg_status row_config(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  return rg_db_set_config(db, col_text(s, 0), col_text(s, 1), err);
}

/* A damaged signature row is not a read error: verify reports it as a bad signature, which is
 * what it is (the reader may still go on with --allow-unsigned). */
static rg_status row_sig(rg_db *db, sqlite3_stmt *s, rg_err *err) {
  if (db->sig.present || sqlite3_column_bytes(s, 2) != (int)sizeof db->sig.sig) {
    db->sig.present = db->sig.malformed = 1;
    return RG_OK;
  }
  col_id(s, 0, &db->sig.key_id);
  db->sig.manifest = strdup(col_text(s, 1));
  if (!db->sig.manifest) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memcpy(db->sig.sig, sqlite3_column_blob(s, 2), sizeof db->sig.sig);
  db->sig.present = 1;
  return RG_OK;
}

static int pragma_int(sqlite3 *db, const char *sql, int *out) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return sqlite3_errcode(db);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) *out = sqlite3_column_int(s, 0), rc = SQLITE_OK;
  sqlite3_finalize(s);
  return rc;
}

/* Identifies the file before reading: exists, non-empty, SQLite, ours, our version, intact. */
static rg_status check_file(reader *r) {
  struct stat sb;
  if (stat(r->path, &sb) != 0)
    return rg_err_set(r->err, RG_ERR_IO, "%s: cannot open: %s", r->path, strerror(errno));
  if (sb.st_size == 0)
    return rg_err_set(r->err, RG_ERR_IO, "%s: empty file, not a rule database", r->path);
  int app = 0, ver = 0;
  int rc = pragma_int(r->db, "PRAGMA application_id", &app);
  if (rc == SQLITE_NOTADB)
    return rg_err_set(r->err, RG_ERR_IO, "%s: not a rule database (not an SQLite file)", r->path);
  if (rc != SQLITE_OK) return read_fail(r, "header");
  if (app != RG_DB_APPLICATION_ID)
    return rg_err_set(r->err, RG_ERR_IO,
                      "%s: an SQLite file, but not a rulegen rule database (application id %#x)",
                      r->path, (unsigned)app);
  if (pragma_int(r->db, "PRAGMA user_version", &ver) != SQLITE_OK) return read_fail(r, "header");
  if (ver != RG_DB_SCHEMA_VERSION)
    return rg_err_set(
        r->err, RG_ERR_IO, "%s: schema version %d, but this program reads version %d only (%s)",
        r->path, ver, RG_DB_SCHEMA_VERSION,
        ver > RG_DB_SCHEMA_VERSION ? "use a newer rulesdb" : "regenerate it with this rulegen");
  /* A cut at a page boundary can still pass quick_check when the lost pages were free. */
  int page_size = 0, page_count = 0;
  if (pragma_int(r->db, "PRAGMA page_size", &page_size) != SQLITE_OK ||
      pragma_int(r->db, "PRAGMA page_count", &page_count) != SQLITE_OK)
    return read_fail(r, "header");
  if ((int64_t)sb.st_size != (int64_t)page_size * page_count)
    return rg_err_set(r->err, RG_ERR_IO,
                      "%s: damaged database (truncated: %lld bytes, but %d pages of %d bytes)",
                      r->path, (long long)sb.st_size, page_count, page_size);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(r->db, "PRAGMA quick_check", -1, &s, NULL) != SQLITE_OK)
    return read_fail(r, "integrity check");
  rc = sqlite3_step(s);
  int ok = rc == SQLITE_ROW && !strcmp(col_text(s, 0), "ok");
  char first[200];
  snprintf(first, sizeof first, "%s", rc == SQLITE_ROW ? col_text(s, 0) : sqlite3_errmsg(r->db));
  sqlite3_finalize(s);
  if (!ok)
    return rg_err_set(r->err, RG_ERR_IO, "%s: damaged database (truncated or corrupt): %s", r->path,
                      first);
  return RG_OK;
}

rg_status rg_db_read(const char *path, rg_db **out, rg_err *err) {
  *out = NULL;
  reader r = {NULL, path, err};
  /* Opening read-only also keeps SQLite from creating a missing file. */
  if (sqlite3_open_v2(path, &r.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
    rg_status st = rg_err_set(err, RG_ERR_IO, "%s: cannot open: %s", path,
                              r.db ? sqlite3_errmsg(r.db) : "out of memory");
    sqlite3_close(r.db);
    return st;
  }
  rg_db *db = rg_db_new();
  rg_status st = db ? check_file(&r) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
#define ROWS(table, cols, fn)                                                                      \
  if (!st) st = each_row(&r, db, table, "SELECT " cols " FROM " table, fn)
  ROWS("rules", "id,text,src_size,tgt_size,n_outputs,ops,status", row_rule);
  ROWS("proofs", "rule_id,solver,version,result,seconds,unsat_core,obligation,output", row_proof);
  ROWS("tests", "rule_id,domain,trials,seed,shapes,params,result", row_test);
  ROWS("certs", "rule_id,version,body", row_cert);
  ROWS("prunes", "removed_id,removed_text,reason,implied_by", row_prune);
  if (!st)
    st = each_row(&r, db, "stages",
                  "SELECT name,n_in,n_out,dropped,seconds FROM stages ORDER BY ord", row_stage);
  ROWS("config", "key,value", row_config);
  ROWS("signature", "key_id,manifest,sig", row_sig);
#undef ROWS
  sqlite3_close(r.db);
  if (st) {
    if (err && strncmp(err->msg, path, strlen(path))) {
      char tmp[sizeof err->msg + 1024];
      snprintf(tmp, sizeof tmp, "%.1000s: %s", path, err->msg);
      memcpy(err->msg, tmp, sizeof err->msg - 1);
      err->msg[sizeof err->msg - 1] = 0;
    }
    rg_db_free(db);
    return st;
  }
  *out = db;
  return RG_OK;
}

rg_status rg_db_open(const char *path, const rg_db_pubkey *pub, int allow_unsigned, rg_db **out,
                     rg_strbuf *warning, rg_err *err) {
  *out = NULL;
  rg_db *db;
  rg_status st = rg_db_read(path, &db, err);
  if (st) return st;
  rg_strbuf rep;
  rg_sb_init(&rep);
  rg_db_verdict v;
  if (pub)
    v = rg_db_verify(db, pub, &rep);
  else if (!allow_unsigned) {
    rg_db_free(db);
    rg_sb_free(&rep);
    return rg_err_set(err, RG_ERR_ARG,
                      "%s: no public key to verify it with (give --pub KEY.pub, or "
                      "--allow-unsigned to skip verification)",
                      path);
  } else
    v = RG_DB_VERIFY_UNSIGNED,
    rg_sb_puts(&rep,
               db->sig.present ? "signature not checked (no public key given)\n" : "unsigned\n");
  if (v != RG_DB_VERIFY_OK && !allow_unsigned) {
    st = rg_err_set(err, RG_ERR_ARG, "%s: refused: %s", path, rg_sb_str(&rep));
    rg_db_free(db);
  } else {
    if (v != RG_DB_VERIFY_OK && warning) rg_sb_printf(warning, "%s: %s", path, rg_sb_str(&rep));
    *out = db;
  }
  rg_sb_free(&rep);
  return st;
}
