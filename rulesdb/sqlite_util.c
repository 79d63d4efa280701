/* rulesdb/sqlite_util.c: SQLite helpers shared by the rule database and the cost cache
 * (sqlite_util.h). */
#include "sqlite_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rg_sqlite_open(const char *path, int flags, int busy_ms, sqlite3 **db, char *why, size_t n) {
  int rc = sqlite3_open_v2(path, db, flags, NULL);
  if (rc != SQLITE_OK) {
    snprintf(why, n, "%s", *db ? sqlite3_errmsg(*db) : "out of memory");
    sqlite3_close(*db);
    *db = NULL;
    return rc;
  }
  if (busy_ms > 0) sqlite3_busy_timeout(*db, busy_ms);
  return SQLITE_OK;
}

bool rg_sqlite_has_magic(const char *path, size_t n) {
  static const char magic[16] = "SQLite format 3";
  char head[sizeof magic];
  if (n > sizeof magic) n = sizeof magic;
  FILE *f = fopen(path, "rb");
  bool like = f && fread(head, 1, n, f) == n && !memcmp(head, magic, n);
  if (f) fclose(f);
  return like;
}

int rg_sqlite_identify(sqlite3 *db, int app_id, const char *kind, char *why, size_t n) {
  int app = 0, rc = rg_sqlite_pragma_int(db, "PRAGMA application_id", &app);
  if (rc == SQLITE_NOTADB) snprintf(why, n, "not an SQLite file");
  else if (rc != SQLITE_OK) snprintf(why, n, "%s", sqlite3_errmsg(db));
  else if (app != app_id)
    snprintf(why, n, "an SQLite file, but not a rulegen %s (application id %#x)", kind, (unsigned)app),
        rc = SQLITE_MISMATCH;
  return rc;
}

int rg_sqlite_pragma_int64(sqlite3 *db, const char *sql, int64_t *out) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return sqlite3_errcode(db);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) *out = sqlite3_column_int64(s, 0), rc = SQLITE_OK;
  sqlite3_finalize(s);
  return rc;
}

int rg_sqlite_pragma_int(sqlite3 *db, const char *sql, int *out) {
  int64_t v = 0;
  int rc = rg_sqlite_pragma_int64(db, sql, &v);
  if (rc == SQLITE_OK) *out = (int)v; /* the low 32 bits, as sqlite3_column_int gives them */
  return rc;
}

int rg_sqlite_pragma_text(sqlite3 *db, const char *sql, char *buf, size_t n) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    snprintf(buf, n, "%s", sqlite3_errmsg(db));
    return sqlite3_errcode(db);
  }
  int rc = sqlite3_step(s);
  const unsigned char *t = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
  snprintf(buf, n, "%s", t ? (const char *)t : sqlite3_errmsg(db));
  if (rc == SQLITE_ROW) rc = SQLITE_OK;
  sqlite3_finalize(s);
  return rc;
}

bool rg_sqlite_intact(sqlite3 *db, char *why, size_t n) {
  return rg_sqlite_pragma_text(db, "PRAGMA quick_check", why, n) == SQLITE_OK && !strcmp(why, "ok");
}

static void bind_list(sqlite3_stmt *s, const char *fmt, va_list ap) {
  for (int i = 1; *fmt; fmt++, i++) {
    switch (*fmt) {
    case 't': sqlite3_bind_text(s, i, va_arg(ap, const char *), -1, SQLITE_STATIC); break;
    case 'i': sqlite3_bind_int64(s, i, va_arg(ap, int64_t)); break;
    case 'd': sqlite3_bind_double(s, i, va_arg(ap, double)); break;
    case 'b': {
      const void *p = va_arg(ap, const void *);
      size_t len = va_arg(ap, size_t);
      sqlite3_bind_blob64(s, i, p, len, SQLITE_STATIC);
      break;
    }
    }
  }
}

void rg_sqlite_bind(sqlite3_stmt *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bind_list(s, fmt, ap);
  va_end(ap);
}

int rg_sqlite_run(sqlite3_stmt *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bind_list(s, fmt, ap);
  va_end(ap);
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc;
}

int rg_sqlite_each_row(sqlite3_stmt *s, rg_sqlite_row_fn fn, void *user) {
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    if (fn(s, user)) {
      rc = SQLITE_ABORT;
      break;
    }
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

int rg_sqlite_each(sqlite3 *db, const char *sql, rg_sqlite_row_fn fn, void *user) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return sqlite3_errcode(db);
  int rc = rg_sqlite_each_row(s, fn, user);
  sqlite3_finalize(s);
  return rc;
}
