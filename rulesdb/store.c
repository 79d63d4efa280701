/* rulesdb/store.c: the SQLite schema, atomic writes, and reading a database back. */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
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
#include "ir/atomic.h"
#include "schema.h"
#include "sqlite_util.h"

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

/* What a prepared insert's run (rg_sqlite_run) returned, as a status; counts it for the progress
 * callback. */
static rg_status counted(writer *w, int rc) {
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

/* The reader refuses any id that is not a content id: never write one it would refuse. */
static rg_status check_id(writer *w, const char *what, size_t i, const rg_db_id *id) {
  rg_db_id tmp;
  if (strnlen(id->hex, sizeof id->hex) == RG_DB_ID_LEN && rg_db_id_parse(id->hex, &tmp))
    return RG_OK;
  return rg_err_set(w->err, RG_ERR_ARG,
                    "%s %zu: '%.*s' is not a content id (64 lowercase hex digits)", what, i,
                    (int)sizeof id->hex - 1, id->hex);
}

static rg_status check_ids(writer *w, const rg_db *db) {
  rg_status st = RG_OK;
  for (size_t i = 0; !st && i < db->rules.n; i++)
    st = check_id(w, "rule", i, &db->rules.v[i].id);
  for (size_t i = 0; !st && i < db->proofs.n; i++) {
    st = check_id(w, "proof", i, &db->proofs.v[i].rule_id);
    if (!st) st = check_id(w, "proof (obligation)", i, &db->proofs.v[i].obligation);
  }
  for (size_t i = 0; !st && i < db->tests.n; i++)
    st = check_id(w, "test", i, &db->tests.v[i].rule_id);
  for (size_t i = 0; !st && i < db->certs.n; i++)
    st = check_id(w, "certificate", i, &db->certs.v[i].rule_id);
  for (size_t i = 0; !st && i < db->prunes.n; i++)
    st = check_id(w, "pruning record", i, &db->prunes.v[i].removed_id);
  if (!st && db->sig.present && !db->sig.malformed)
    st = check_id(w, "signature (key id)", 0, &db->sig.key_id);
  return st;
}

static rg_status write_signature(writer *w, const rg_db *db) {
  if (!db->sig.present || db->sig.malformed) return RG_OK; /* a damaged one is not carried over */
  sqlite3_stmt *s = NULL;
  rg_status st = prep(w, "INSERT INTO signature VALUES(?,?,?)", &s);
  if (!st)
    st = counted(w, rg_sqlite_run(s, "ttb", db->sig.key_id.hex, db->sig.manifest,
                                  (const void *)db->sig.sig, sizeof db->sig.sig));
  sqlite3_finalize(s);
  return st;
}

static rg_status write_tables(writer *w, const rg_db *db) {
  sqlite3_stmt *s = NULL;
  rg_status st = check_ids(w, db);
  if (!st) st = prep(w, "INSERT INTO rules VALUES(?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    st = counted(w, rg_sqlite_run(s, "ttiiit", r->id.hex, r->text, (int64_t)r->src_size,
                                  (int64_t)r->tgt_size, (int64_t)r->n_outputs,
                                  rg_db_status_name(r->status)));
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = rg_db_write_derived(w->db, db, w->tmp, w->err); /* rule_ops, rule_vars */
  if (!st) st = prep(w, "INSERT INTO proofs VALUES(?,?,?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->proofs.n; i++) {
    const rg_db_proof *p = &db->proofs.v[i];
    st = counted(w, rg_sqlite_run(s, "titttdtt", p->rule_id.hex, (int64_t)p->output, p->solver,
                                  p->version, p->result, p->seconds, p->unsat_core,
                                  p->obligation.hex));
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO tests VALUES(?,?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->tests.n; i++) {
    const rg_db_test *t = &db->tests.v[i];
    st = counted(w, rg_sqlite_run(s, "ttiittt", t->rule_id.hex, t->domain, (int64_t)t->trials,
                                  (int64_t)t->seed, t->shapes, t->params, t->result));
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO certs VALUES(?,?,?)", &s);
  for (size_t i = 0; !st && i < db->certs.n; i++) {
    const rg_db_cert *c = &db->certs.v[i];
    st = counted(w, rg_sqlite_run(s, "tib", c->rule_id.hex, (int64_t)c->version,
                                  (const void *)c->body, c->len));
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO prunes VALUES(?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->prunes.n; i++) {
    const rg_db_prune *p = &db->prunes.v[i];
    st = counted(w, rg_sqlite_run(s, "tttt", p->removed_id.hex, p->removed_text, p->reason,
                                  p->implied_by));
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO stages VALUES(?,?,?,?,?,?)", &s);
  for (size_t i = 0; !st && i < db->stages.n; i++) {
    const rg_db_stage *g = &db->stages.v[i];
    st = counted(w, rg_sqlite_run(s, "itiitd", (int64_t)i, g->name, g->n_in, g->n_out, g->dropped,
                                  g->seconds));
  }
  sqlite3_finalize(s), s = NULL;
  if (!st) st = prep(w, "INSERT INTO config VALUES(?,?)", &s);
  for (size_t i = 0; !st && i < db->config.n; i++)
    st = counted(w, rg_sqlite_run(s, "tt", db->config.v[i].key, db->config.v[i].value));
  sqlite3_finalize(s);
  return st ? st : write_signature(w, db);
}

/* fsync of a file or directory by path. */
static int sync_path(const char *path, int dir) {
  int fd = open(path, (dir ? O_RDONLY | O_DIRECTORY : O_RDWR));
  if (fd < 0) return -1;
  int rc = fsync(fd);
  close(fd);
  return rc;
}

/* rg_db_write to path, a regular file's name (links followed). */
static rg_status write_file(const rg_db *db, const char *path, const rg_db_write_opts *opts, rg_err *err) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 32), *dcopy = strdup(path);
  if (!tmp || !dcopy) return free(tmp), free(dcopy), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* The temp file sits beside the target so that rename() stays on one file system; named
   * PATH.tmp.PID, so that the next write removes what a killed one left (ir/atomic.h). */
  rg_atomic_remove_stale(path);
  snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
  unlink(tmp);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0) {
    rg_status st = rg_err_set(err, RG_ERR_IO, "%s: cannot create a temporary file beside it: %s",
                              path, strerror(errno));
    return free(tmp), free(dcopy), st;
  }
  /* a database is not secret: keep the old file's mode, else the user's umask's (0666 & ~umask) */
  struct stat old;
  if (stat(path, &old) == 0) fchmod(fd, old.st_mode & 0777);
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
  char why[200];
  if (rg_sqlite_open(tmp, SQLITE_OPEN_READWRITE, 0, &w.db, why, sizeof why) != SQLITE_OK)
    st = rg_err_set(err, RG_ERR_IO, "%s: open: %s", tmp, why);
  if (!st && sqlite3_exec(w.db, pragma, NULL, NULL, NULL) != SQLITE_OK) st = sql_fail(&w, "set-up");
  char *schema = st ? NULL : rg_db_schema_sql(RG_DB_SCHEMA_VERSION);
  if (!st && !schema) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st && sqlite3_exec(w.db, schema, NULL, NULL, NULL) != SQLITE_OK) st = sql_fail(&w, "schema");
  free(schema);
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

rg_status rg_db_write(const rg_db *db, const char *path, const rg_db_write_opts *opts, rg_err *err) {
  char *real;
  bool direct;
  rg_status st = rg_path_output_target(path, &real, &direct, err); /* a link's target, never the link */
  if (!st && direct)
    st = rg_err_set(err, RG_ERR_IO, "%s: a database is written to a file, not to a device or FIFO: give a file name",
                    path);
  if (!st) st = write_file(db, real, opts, err);
  free(real);
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

/* ---- reading ----
 *
 * The manifest is computed from the values read, so the reader must take exactly what the writer
 * writes and refuse anything else: otherwise two SQLite readers could see different content under
 * one good signature (text cut at a NUL byte, a 33-bit integer read as 32 bits, an id cut to 64
 * characters, a column or table that no manifest line covers). Hence the schema is compared with
 * the writer's, and every value must have the storage type the writer gives it and fit its field.
 */

typedef struct {
  sqlite3 *db;
  const char *path;
  rg_err *err;
  int version; /* the file's schema version, once check_file has read it */
} reader;

/* The row being read, for messages that name the file, table, row and column. */
typedef struct {
  reader *r;
  sqlite3_stmt *s;
  const char *table;
  char where[96]; /* "row 3 (id 4f2a...)" */
} row;

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

/* Up to 40 bytes of s for a message, with anything unprintable shown as '?'. */
static const char *excerpt(const char *s, char buf[48]) {
  size_t n = 0;
  for (; s[n] && n < 40; n++)
    buf[n] = s[n] >= 0x20 && s[n] < 0x7f ? s[n] : '?';
  snprintf(buf + n, 48 - n, "%s", s[n] ? "..." : "");
  return buf;
}

/* Refuses the current row: "x.db: rules row 3 (id ...): text holds a NUL byte: ...". */
static rg_status bad(row *w, int col, const char *fmt, ...) RG_PRINTF(3, 4);
static rg_status bad(row *w, int col, const char *fmt, ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return rg_err_set(w->r->err, RG_ERR_PARSE, "%s: %s %s: %s %s: the database was altered",
                    w->r->path, w->table, w->where, sqlite3_column_name(w->s, col), what);
}

static const char *type_name(int type) {
  switch (type) {
  case SQLITE_INTEGER: return "an integer";
  case SQLITE_FLOAT: return "a real number";
  case SQLITE_TEXT: return "text";
  case SQLITE_BLOB: return "a BLOB";
  default: return "NULL";
  }
}

/* SQLite converts between storage types on request; a value stored as another type than the
 * writer's would read back as something else than another reader sees. */
static rg_status want_type(row *w, int col, int type) {
  int have = sqlite3_column_type(w->s, col);
  if (have == type) return RG_OK;
  return bad(w, col, "holds %s, where this program writes %s", type_name(have), type_name(type));
}

/* TEXT without a NUL byte: a C string would end at the NUL and hide what follows. */
static rg_status get_text(row *w, int col, const char **out) {
  rg_status st = want_type(w, col, SQLITE_TEXT);
  if (st) return st;
  const char *t = (const char *)sqlite3_column_text(w->s, col);
  if (!t) return rg_err_set(w->r->err, RG_ERR_NOMEM, "out of memory");
  if (strlen(t) != (size_t)sqlite3_column_bytes(w->s, col)) return bad(w, col, "holds a NUL byte");
  *out = t;
  return RG_OK;
}

/* A content id, exactly; names_row: the row is known by it in later messages. */
static rg_status get_id(row *w, int col, rg_db_id *id, int names_row) {
  const char *t = "";
  rg_status st = get_text(w, col, &t);
  if (st) return st;
  char buf[48];
  if (!rg_db_id_parse(t, id))
    return bad(w, col, "'%s' (%zu characters) is not a content id (64 lowercase hex digits)",
               excerpt(t, buf), strlen(t));
  if (names_row) {
    size_t l = strlen(w->where);
    snprintf(w->where + l, sizeof w->where - l, " (id %.16s...)", id->hex);
  }
  return RG_OK;
}

/* An INTEGER in [lo, hi] (what the record's field holds): refused, never truncated. */
static rg_status get_int(row *w, int col, int64_t lo, int64_t hi, int64_t *out) {
  rg_status st = want_type(w, col, SQLITE_INTEGER);
  if (st) return st;
  int64_t v = sqlite3_column_int64(w->s, col);
  if (v < lo || v > hi)
    return bad(w, col, "is %lld, outside the range %lld..%lld of its field", (long long)v,
               (long long)lo, (long long)hi);
  *out = v;
  return RG_OK;
}

static rg_status get_i32(row *w, int col, int32_t *out) {
  int64_t v = 0;
  rg_status st = get_int(w, col, INT32_MIN, INT32_MAX, &v);
  *out = (int32_t)v;
  return st;
}

static rg_status get_real(row *w, int col, double *out) {
  rg_status st = want_type(w, col, SQLITE_FLOAT);
  if (!st) *out = sqlite3_column_double(w->s, col);
  return st;
}

typedef struct {
  row w;
  rg_db *db;
  rg_status (*fn)(row *, rg_db *);
  rg_status st;
} row_walk;

static int walk_row(sqlite3_stmt *s, void *user) {
  row_walk *k = user;
  k->w.s = s;
  snprintf(k->w.where, sizeof k->w.where, "row %lld", (long long)sqlite3_column_int64(s, 0));
  return (k->st = k->fn(&k->w, k->db)) != RG_OK;
}

/* Runs a query whose first column is the rowid and hands each row to fn; stops at the first
 * error. */
static rg_status each_row(reader *r, rg_db *db, const char *table, const char *sql,
                          rg_status (*fn)(row *, rg_db *)) {
  row_walk k = {{r, NULL, table, ""}, db, fn, RG_OK};
  int rc = rg_sqlite_each(r->db, sql, walk_row, &k);
  if (k.st) return k.st;
  return rc == SQLITE_OK ? RG_OK : read_fail(r, table);
}

static rg_status row_rule(row *w, rg_db *db) {
  rg_db_rule r = {0};
  const char *text = NULL, *ops = NULL, *status = NULL;
  rg_status st = get_id(w, 1, &r.id, 1);
  if (!st) st = get_text(w, 2, &text);
  if (!st) st = get_i32(w, 3, &r.src_size);
  if (!st) st = get_i32(w, 4, &r.tgt_size);
  if (!st) st = get_i32(w, 5, &r.n_outputs);
  if (!st) st = get_text(w, 6, &ops);
  if (!st) st = get_text(w, 7, &status);
  if (st) return st;
  int k = rg_db_status_by_name(status);
  char buf[48];
  if (k < 0) return bad(w, 7, "'%s' is not a status", excerpt(status, buf));
  r.text = (char *)text, r.ops = (char *)ops, r.status = (rg_db_status)k;
  return rg_db_add_rule(db, &r, w->r->err);
}

static rg_status row_proof(row *w, rg_db *db) {
  rg_db_proof p = {0};
  const char *solver = NULL, *version = NULL, *result = NULL, *core = NULL;
  rg_status st = get_id(w, 1, &p.rule_id, 1);
  if (!st) st = get_text(w, 2, &solver);
  if (!st) st = get_text(w, 3, &version);
  if (!st) st = get_text(w, 4, &result);
  if (!st) st = get_real(w, 5, &p.seconds);
  if (!st) st = get_text(w, 6, &core);
  if (!st) st = get_id(w, 7, &p.obligation, 0);
  if (!st) st = get_i32(w, 8, &p.output);
  if (st) return st;
  p.solver = (char *)solver, p.version = (char *)version, p.result = (char *)result;
  p.unsat_core = (char *)core;
  return rg_db_add_proof(db, &p, w->r->err);
}

static rg_status row_test(row *w, rg_db *db) {
  rg_db_test t = {0};
  const char *domain = NULL, *shapes = NULL, *params = NULL, *result = NULL;
  int64_t seed = 0;
  rg_status st = get_id(w, 1, &t.rule_id, 1);
  if (!st) st = get_text(w, 2, &domain);
  if (!st) st = get_i32(w, 3, &t.trials);
  if (!st) st = get_int(w, 4, INT64_MIN, INT64_MAX, &seed); /* the writer stores the bits */
  if (!st) st = get_text(w, 5, &shapes);
  if (!st) st = get_text(w, 6, &params);
  if (!st) st = get_text(w, 7, &result);
  if (st) return st;
  t.domain = (char *)domain, t.seed = (uint64_t)seed, t.shapes = (char *)shapes;
  t.params = (char *)params, t.result = (char *)result;
  return rg_db_add_test(db, &t, w->r->err);
}

static rg_status row_cert(row *w, rg_db *db) {
  rg_db_cert c = {0};
  rg_status st = get_id(w, 1, &c.rule_id, 1);
  if (!st) st = get_i32(w, 2, &c.version);
  if (!st) st = want_type(w, 3, SQLITE_BLOB);
  if (st) return st;
  c.body = (uint8_t *)sqlite3_column_blob(w->s, 3);
  c.len = (size_t)sqlite3_column_bytes(w->s, 3);
  return rg_db_add_cert(db, &c, w->r->err);
}

static rg_status row_prune(row *w, rg_db *db) {
  rg_db_prune p = {0};
  const char *text = NULL, *reason = NULL, *implied = NULL;
  rg_status st = get_id(w, 1, &p.removed_id, 1);
  if (!st) st = get_text(w, 2, &text);
  if (!st) st = get_text(w, 3, &reason);
  if (!st) st = get_text(w, 4, &implied);
  if (st) return st;
  p.removed_text = (char *)text, p.reason = (char *)reason, p.implied_by = (char *)implied;
  return rg_db_add_prune(db, &p, w->r->err);
}

/* The writer numbers stages 0, 1, 2, ... in their order; the manifest keys them by position. */
static rg_status row_stage(row *w, rg_db *db) {
  rg_db_stage g = {0};
  const char *name = NULL, *dropped = NULL;
  int64_t ord = sqlite3_column_int64(w->s, 0); /* INTEGER PRIMARY KEY: always an integer */
  if (ord != (int64_t)db->stages.n)
    return bad(w, 0, "is %lld, where this program numbers stages 0, 1, 2, ... (expected %zu)",
               (long long)ord, db->stages.n);
  rg_status st = get_text(w, 1, &name);
  if (!st) st = get_int(w, 2, INT64_MIN, INT64_MAX, &g.n_in);
  if (!st) st = get_int(w, 3, INT64_MIN, INT64_MAX, &g.n_out);
  if (!st) st = get_text(w, 4, &dropped);
  if (!st) st = get_real(w, 5, &g.seconds);
  if (st) return st;
  g.name = (char *)name, g.dropped = (char *)dropped;
  return rg_db_add_stage(db, &g, w->r->err);
}

static rg_status row_config(row *w, rg_db *db) {
  const char *key = NULL, *value = NULL;
  rg_status st = get_text(w, 1, &key);
  if (!st) st = get_text(w, 2, &value);
  if (st) return st;
  return rg_db_set_config(db, key, value, w->r->err);
}

/* A second signature row or one of the wrong length is not a read error: verify reports it as a
 * bad signature, which is what it is (the reader may still go on with --allow-unsigned). Values
 * of the wrong storage type are refused like any other's. */
static rg_status row_sig(row *w, rg_db *db) {
  rg_db_id key_id;
  const char *manifest = NULL;
  rg_status st = get_id(w, 1, &key_id, 0);
  if (!st) st = get_text(w, 2, &manifest);
  if (!st) st = want_type(w, 3, SQLITE_BLOB);
  if (st) return st;
  if (db->sig.present || sqlite3_column_bytes(w->s, 3) != (int)sizeof db->sig.sig) {
    db->sig.present = db->sig.malformed = 1;
    return RG_OK;
  }
  db->sig.key_id = key_id;
  db->sig.manifest = strdup(manifest);
  if (!db->sig.manifest) return rg_err_set(w->r->err, RG_ERR_NOMEM, "out of memory");
  memcpy(db->sig.sig, sqlite3_column_blob(w->s, 3), sizeof db->sig.sig);
  db->sig.present = 1;
  return RG_OK;
}

/* ---- the schema: exactly the writer's ---- */

/* Tables first, so that a changed table is named before the indexes that follow from it. */
static const char schema_rows[] =
    "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type <> 'table', type, name";

typedef struct {
  char type[16], name[48], tbl[48]; /* excerpts */
  int differs; /* 1: the other schema has it, declared otherwise; 0: it lacks it */
} schema_obj;

typedef struct {
  sqlite3_stmt *in_b; /* b's row of the object bound */
  schema_obj *o;
  bool found;
} schema_walk;

/* One object of a's schema: 0 when b has it, declared alike; else 1 with it in *o. */
static int compare_object(sqlite3_stmt *sa, void *user) {
  schema_walk *k = user;
  for (int i = 0; i < 4; i++)
    sqlite3_bind_value(k->in_b, i + 1, sqlite3_column_value(sa, i));
  int step = sqlite3_step(k->in_b), same = step == SQLITE_ROW && sqlite3_column_int(k->in_b, 0);
  k->o->differs = step == SQLITE_ROW;
  sqlite3_reset(k->in_b);
  if (same) return 0;
  const char *t = (const char *)sqlite3_column_text(sa, 0),
             *n = (const char *)sqlite3_column_text(sa, 1),
             *tb = (const char *)sqlite3_column_text(sa, 2);
  char buf[48];
  schema_obj *o = k->o;
  /* cut to the fields' sizes on purpose: they name the row, the full text is elsewhere */
  snprintf(o->type, sizeof o->type, "%.*s", (int)sizeof o->type - 1, t ? excerpt(t, buf) : "?");
  snprintf(o->name, sizeof o->name, "%.*s", (int)sizeof o->name - 1, n ? excerpt(n, buf) : "?");
  snprintf(o->tbl, sizeof o->tbl, "%.*s", (int)sizeof o->tbl - 1, tb ? excerpt(tb, buf) : "?");
  return k->found = true;
}

/* The first object of a's schema that b lacks or declares otherwise: 1 and *o when there is
 * one, 0 when none, -1 on an SQLite error. */
static int schema_difference(sqlite3 *a, sqlite3 *b, schema_obj *o) {
  schema_walk k = {NULL, o, false};
  int found = -1;
  if (sqlite3_prepare_v2(b,
                         "SELECT tbl_name IS ?3 AND sql IS ?4 FROM sqlite_master"
                         " WHERE type IS ?1 AND name IS ?2",
                         -1, &k.in_b, NULL) == SQLITE_OK) {
    int rc = rg_sqlite_each(a, schema_rows, compare_object, &k);
    found = k.found ? 1 : rc == SQLITE_OK ? 0 : -1;
  }
  sqlite3_finalize(k.in_b);
  return found;
}

/* Says which column of table differs between have (the file) and want (the writer's schema). */
static void column_difference(sqlite3 *have, sqlite3 *want, const char *table, char *out,
                              size_t n) {
  static const char q[] =
      "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid";
  sqlite3_stmt *h = NULL, *w = NULL;
  snprintf(out, n, "table %s is declared otherwise than this program declares it", table);
  if (sqlite3_prepare_v2(have, q, -1, &h, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(want, q, -1, &w, NULL) == SQLITE_OK) {
    sqlite3_bind_text(h, 1, table, -1, SQLITE_STATIC),
        sqlite3_bind_text(w, 1, table, -1, SQLITE_STATIC);
    for (;;) {
      int hr = sqlite3_step(h) == SQLITE_ROW, wr = sqlite3_step(w) == SQLITE_ROW;
      if (!hr && !wr) break;
      char buf[48];
      const char *hn = hr ? (const char *)sqlite3_column_text(h, 0) : NULL;
      const char *wn = wr ? (const char *)sqlite3_column_text(w, 0) : NULL;
      if (hr && !wr) {
        snprintf(out, n, "table %s has a column '%s' that this program does not write", table,
                 hn ? excerpt(hn, buf) : "?");
      } else if (!hr) {
        snprintf(out, n, "table %s lacks the column '%s'", table, wn ? wn : "?");
      } else if (!hn || !wn || strcmp(hn, wn)) {
        snprintf(out, n, "table %s has a column '%s' where this program writes '%s'", table,
                 hn ? excerpt(hn, buf) : "?", wn ? wn : "?");
      } else {
        int same = 1;
        for (int i = 1; i < 5; i++) {
          const char *a = (const char *)sqlite3_column_text(h, i);
          const char *b = (const char *)sqlite3_column_text(w, i);
          same &= (!a && !b) || (a && b && !strcmp(a, b));
        }
        if (same) continue;
        snprintf(out, n, "table %s declares its column '%s' otherwise than this program does",
                 table, wn);
      }
      break;
    }
  }
  sqlite3_finalize(h), sqlite3_finalize(w);
}

static const char *a_or_an(const char *word) { return strchr("aeiou", word[0]) ? "an" : "a"; }

/* Compares the file's schema with the writer's, built in memory: a table, column, index,
 * trigger or view more, less or declared otherwise is refused, and named. */
static rg_status check_schema(reader *r) {
  sqlite3 *want = NULL;
  char *schema = rg_db_schema_sql(r->version);
  char why[200];
  if (!schema ||
      rg_sqlite_open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0, &want, why,
                     sizeof why) != SQLITE_OK ||
      sqlite3_exec(want, schema, NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_close(want), free(schema);
    return rg_err_set(r->err, RG_ERR_NOMEM, "%s: cannot build the expected schema in memory",
                      r->path);
  }
  free(schema);
  schema_obj o = {0};
  char what[300];
  int d = schema_difference(r->db, want, &o);
  int on = !strcmp(o.type, "index") || !strcmp(o.type, "trigger"); /* belongs to a table */
  if (d == 1 && o.differs && !strcmp(o.type, "table"))
    column_difference(r->db, want, o.name, what, sizeof what);
  else if (d == 1 && o.differs)
    snprintf(what, sizeof what, "the %s '%s' is declared otherwise than this program declares it",
             o.type, o.name);
  else if (d == 1)
    snprintf(what, sizeof what, "the schema holds %s %s '%s'%s%s that this program does not write",
             a_or_an(o.type), o.type, o.name, on ? " on " : "", on ? o.tbl : "");
  else if (d == 0 && (d = schema_difference(want, r->db, &o)) == 1)
    snprintf(what, sizeof what, "the schema lacks the %s '%s'", o.type, o.name);
  rg_status st = RG_OK;
  if (d < 0)
    st = read_fail(r, "the schema");
  else if (d == 1)
    st = rg_err_set(r->err, RG_ERR_PARSE, "%s: %s: the database was altered", r->path, what);
  sqlite3_close(want);
  return st;
}

/* ---- the file ---- */

/* The file's size against its header's page count: a cut at a page boundary can still pass
 * quick_check when the lost pages were free, and bytes appended are never looked at. */
static rg_status check_size(reader *r, int64_t size) {
  int page_size = 0, page_count = 0;
  if (rg_sqlite_pragma_int(r->db, "PRAGMA page_size", &page_size) != SQLITE_OK ||
      rg_sqlite_pragma_int(r->db, "PRAGMA page_count", &page_count) != SQLITE_OK)
    return read_fail(r, "header");
  int64_t want = (int64_t)page_size * page_count;
  if (size < want)
    return rg_err_set(r->err, RG_ERR_IO,
                      "%s: damaged database (truncated: %lld bytes, but %d pages of %d bytes)",
                      r->path, (long long)size, page_count, page_size);
  if (size > want)
    return rg_err_set(r->err, RG_ERR_IO,
                      "%s: damaged database (its size does not match its page count: %lld bytes, "
                      "but %d pages of %d bytes; %lld bytes more than the database holds)",
                      r->path, (long long)size, page_count, page_size, (long long)(size - want));
  return RG_OK;
}

/* Identifies the file before reading: exists, non-empty, SQLite, ours, our version, intact, our
 * schema. */
static rg_status check_file(reader *r) {
  struct stat sb;
  if (stat(r->path, &sb) != 0)
    return rg_err_set(r->err, RG_ERR_IO, "%s: cannot open: %s", r->path, strerror(errno));
  if (sb.st_size == 0)
    return rg_err_set(r->err, RG_ERR_IO, "%s: empty file, not a rule database", r->path);
  /* The smallest SQLite file is one page of 512 bytes; SQLite reads a shorter one as an empty
   * database, so what it is must be told from its first bytes here. */
  if (sb.st_size < RG_SQLITE_MIN_FILE && !rg_sqlite_has_magic(r->path, (size_t)sb.st_size))
    return rg_err_set(r->err, RG_ERR_IO, "%s: not a rule database (not an SQLite file)", r->path);
  if (sb.st_size < RG_SQLITE_MIN_FILE)
    return rg_err_set(r->err, RG_ERR_IO,
                      "%s: damaged database (truncated: %lld byte%s, less than the 512 of the "
                      "smallest SQLite file)",
                      r->path, (long long)sb.st_size, sb.st_size == 1 ? "" : "s");
  char what[200];
  int ver = 0;
  int rc = rg_sqlite_identify(r->db, RG_DB_APPLICATION_ID, "rule database", what, sizeof what);
  if (rc == SQLITE_NOTADB)
    return rg_err_set(r->err, RG_ERR_IO, "%s: not a rule database (%s)", r->path, what);
  if (rc == SQLITE_MISMATCH) return rg_err_set(r->err, RG_ERR_IO, "%s: %s", r->path, what);
  if (rc != SQLITE_OK) return read_fail(r, "header");
  if (rg_sqlite_pragma_int(r->db, "PRAGMA user_version", &ver) != SQLITE_OK) return read_fail(r, "header");
  if (ver < 1 || ver > RG_DB_SCHEMA_VERSION)
    return rg_err_set(
        r->err, RG_ERR_IO, "%s: schema version %d, but this program reads versions 1 to %d only (%s)",
        r->path, ver, RG_DB_SCHEMA_VERSION,
        ver > RG_DB_SCHEMA_VERSION ? "use a newer rulesdb" : "regenerate it with this rulegen");
  r->version = ver;
  rg_status st = check_size(r, (int64_t)sb.st_size);
  if (st) return st;
  if (!rg_sqlite_intact(r->db, what, sizeof what))
    return rg_err_set(r->err, RG_ERR_IO, "%s: damaged database (truncated or corrupt): %s", r->path,
                      what);
  /* The writer writes UTF-8; text read from a UTF-16 file would be converted, and two stored
   * byte strings could read as one. */
  if (rg_sqlite_pragma_text(r->db, "PRAGMA encoding", what, sizeof what) != SQLITE_OK)
    return read_fail(r, "header");
  if (strcmp(what, "UTF-8"))
    return rg_err_set(r->err, RG_ERR_PARSE,
                      "%s: text encoding %s, where this program writes UTF-8: the database was "
                      "altered",
                      r->path, what);
  return check_schema(r);
}

/* A folder or a device is no database, and SQLite would call either "disk I/O error". */
static rg_status check_regular(const char *path, rg_err *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) return RG_OK; /* check_file says why */
  if (S_ISDIR(sb.st_mode)) return rg_err_set(err, RG_ERR_IO, "%s is a folder, not a rule database", path);
  if (!S_ISREG(sb.st_mode))
    return rg_err_set(err, RG_ERR_IO, "%s is not a regular file (a device, FIFO or socket), so not a rule database",
                      path);
  return RG_OK;
}

rg_status rg_db_read(const char *path, rg_db **out, rg_err *err) {
  *out = NULL;
  rg_status kind = check_regular(path, err);
  if (kind) return kind;
  reader r = {NULL, path, err, 0};
  /* Opening read-only also keeps SQLite from creating a missing file. */
  char why[200];
  if (rg_sqlite_open(path, SQLITE_OPEN_READONLY, 0, &r.db, why, sizeof why) != SQLITE_OK)
    return rg_err_set(err, RG_ERR_IO, "%s: cannot open: %s", path, why);
  rg_db *db = rg_db_new();
  rg_status st = db ? check_file(&r) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
#define ROWS(table, cols, fn)                                                                      \
  if (!st) st = each_row(&r, db, table, "SELECT rowid," cols " FROM " table, fn)
  /* version 2 keeps a rule's operators in rule_ops: read below, into the same field */
  if (!st)
    st = each_row(&r, db, "rules",
                  r.version == 1 ? "SELECT rowid,id,text,src_size,tgt_size,n_outputs,ops,status FROM rules"
                                 : "SELECT rowid,id,text,src_size,tgt_size,n_outputs,'',status FROM rules",
                  row_rule);
  ROWS("proofs", "rule_id,solver,version,result,seconds,unsat_core,obligation,output", row_proof);
  ROWS("tests", "rule_id,domain,trials,seed,shapes,params,result", row_test);
  ROWS("certs", "rule_id,version,body", row_cert);
  ROWS("prunes", "removed_id,removed_text,reason,implied_by", row_prune);
  if (!st)
    st = each_row(&r, db, "stages",
                  "SELECT ord,name,n_in,n_out,dropped,seconds FROM stages ORDER BY ord", row_stage);
  ROWS("config", "key,value", row_config);
  ROWS("signature", "key_id,manifest,sig", row_sig);
#undef ROWS
  if (!st && r.version >= 2) st = rg_db_read_derived(r.db, db, path, err);
  if (!st) db->schema_version = r.version;
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

rg_status rg_db_open_keyed(const char *path, const char *pub_path, int allow_unsigned, rg_db **out,
                           rg_strbuf *warning, rg_err *err) {
  *out = NULL;
  rg_status kind = check_regular(path, err); /* a folder is not a database, signed or not */
  if (kind) return kind;
  if (!pub_path && !allow_unsigned)
    return rg_err_set(err, RG_ERR_UNBOUND,
                      "%s: give the public key to verify it with (--pub KEY.pub), or --allow-unsigned to "
                      "read it unverified",
                      path);
  rg_db_pubkey pk;
  rg_status st = pub_path ? rg_db_load_pubkey(pub_path, &pk, err) : RG_OK;
  return st ? st : rg_db_open(path, pub_path ? &pk : NULL, allow_unsigned, out, warning, err);
}
