/* optimizer/cost/cost_cache.c: the SQLite cache of measured costs (cost_cache.h), and where it lives
 * by default (cost.h). */
#define _POSIX_C_SOURCE 200809L /* mkdir, strdup */
#include "cost_cache.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cost.h"
#include "rulesdb/rulesdb.h"

/* "rgco" (rulegen costs), as PRAGMA application_id; the schema's version as user_version. */
#define CACHE_APPLICATION_ID 0x7267636f
#define CACHE_SCHEMA_VERSION 1

/* Compared byte for byte with what the file's sqlite_master holds. */
static const char schema[] = "CREATE TABLE costs ("
                             "device TEXT NOT NULL, op TEXT NOT NULL, config TEXT NOT NULL, "
                             "us REAL NOT NULL, source TEXT NOT NULL, repeats INTEGER NOT NULL, "
                             "PRIMARY KEY (device, op, config)) WITHOUT ROWID";

/* A row is valid when its cost is a finite positive number (SQLite stores NaN as NULL and
 * keeps infinities as REAL), its source one of ours and its repeats a count. */
#define VALID_ROW                                                                                  \
  "typeof(us) IN ('real', 'integer') AND us > 0 AND us <= 1.7976931348623157e308 AND "             \
  "source IN ('dnnl', 'cuda', 'ort', 'roofline') AND typeof(repeats) = 'integer' AND repeats >= 0"

struct rg_cost_cache {
  sqlite3 *db;
  char *path;
  sqlite3_stmt *get, *put;
};

rg_status rg_cost_cache_default_path(char *buf, size_t n, rg_err *err) {
  return rg_user_cache_path("costs.sqlite", buf, n, err);
}

/* mkdir -p of path's folder. */
static rg_status make_folder(const char *path, rg_err *err) {
  char *dir = strdup(path);
  if (!dir) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  char *slash = strrchr(dir, '/');
  rg_status st = RG_OK;
  if (slash && slash != dir) *slash = 0, st = rg_make_folders(dir, err);
  char why[sizeof err->msg];
  if (st) snprintf(why, sizeof why, "%s", err->msg), rg_err_set(err, st, "cost cache %s: %s", path, why);
  free(dir);
  return st;
}

/* ---- identifying the file ---- */

typedef enum { FILE_OK, FILE_CORRUPT, FILE_ERROR } verdict;

/* Whether a file that is there starts as SQLite files do; why not into why. A file SQLite
 * would take for an empty database (shorter than its header) is no cache either. */
static verdict check_magic(const char *path, char *why, size_t n) {
  struct stat sb;
  if (stat(path, &sb) != 0 || sb.st_size == 0) return FILE_OK; /* none yet: SQLite makes it */
  if (!rg_sqlite_has_magic(path, 16)) return snprintf(why, n, "not an SQLite file"), FILE_CORRUPT;
  if (sb.st_size < RG_SQLITE_MIN_FILE)
    return snprintf(why, n, "cut short (%lld bytes)", (long long)sb.st_size), FILE_CORRUPT;
  return FILE_OK;
}

typedef struct {
  int objects, ours;
  char *why;
  size_t n;
} schema_walk;

static int schema_object(sqlite3_stmt *s, void *user) {
  schema_walk *k = user;
  const char *type = (const char *)sqlite3_column_text(s, 0),
             *name = (const char *)sqlite3_column_text(s, 1),
             *sql = (const char *)sqlite3_column_text(s, 2);
  k->objects++;
  if (type && name && sql && !strcmp(type, "table") && !strcmp(name, "costs") && !strcmp(sql, schema))
    k->ours++;
  else if (k->objects - k->ours == 1)
    snprintf(k->why, k->n, "another schema: the %s '%s' is not this program's", type ? type : "?",
             name ? name : "?");
  return 0;
}

/* The schema: exactly our one table, declared as we declare it. */
static verdict check_schema(sqlite3 *db, char *why, size_t n) {
  schema_walk k = {0, 0, why, n};
  if (rg_sqlite_each(db, "SELECT type, name, sql FROM sqlite_master", schema_object, &k) != SQLITE_OK)
    return snprintf(why, n, "damaged: %s", sqlite3_errmsg(db)), FILE_CORRUPT;
  if (k.objects != k.ours) return FILE_CORRUPT;
  if (!k.ours) return snprintf(why, n, "another schema: no table 'costs'"), FILE_CORRUPT;
  return FILE_OK;
}

/* Checks an opened file that holds something: ours, intact, our schema, valid rows. */
static verdict check_content(sqlite3 *db, char *why, size_t n) {
  int ver = 0, bad = 0;
  int rc = rg_sqlite_identify(db, CACHE_APPLICATION_ID, "cost cache", why, n);
  if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
    return snprintf(why, n, "not an SQLite file"), FILE_CORRUPT;
  if (rc == SQLITE_MISMATCH) return FILE_CORRUPT;
  if (rc != SQLITE_OK) return FILE_ERROR; /* why: SQLite's message */
  if (rg_sqlite_pragma_int(db, "PRAGMA user_version", &ver) != SQLITE_OK || ver != CACHE_SCHEMA_VERSION)
    return snprintf(why, n, "schema version %d, where this program writes %d", ver,
                    CACHE_SCHEMA_VERSION),
           FILE_CORRUPT;
  char qc[300]; /* within why, after "damaged: " */
  if (!rg_sqlite_intact(db, qc, sizeof qc)) return snprintf(why, n, "damaged: %s", qc), FILE_CORRUPT;
  verdict v = check_schema(db, why, n);
  if (v != FILE_OK) return v;
  if (rg_sqlite_pragma_int(db, "SELECT count(*) FROM costs WHERE NOT (" VALID_ROW ")", &bad) != SQLITE_OK)
    return snprintf(why, n, "damaged: %s", sqlite3_errmsg(db)), FILE_CORRUPT;
  if (bad)
    return snprintf(why, n,
                    "%d row%s whose cost is not a finite positive number (or whose source "
                    "or repeats are not ours)",
                    bad, bad == 1 ? "" : "s"),
           FILE_CORRUPT;
  return FILE_OK;
}

/* Makes the schema in a file with none, unless another process just did. */
static int init_schema(sqlite3 *db) {
  char sql[sizeof schema + 256];
  /* WAL first: it cannot change inside a transaction; a busy file keeps its journal */
  sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
  int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), objects = 0;
  if (rc != SQLITE_OK) return rc;
  rc = rg_sqlite_pragma_int(db, "SELECT count(*) FROM sqlite_master", &objects);
  if (rc == SQLITE_OK && objects == 0) {
    snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d; %s;",
             CACHE_APPLICATION_ID, CACHE_SCHEMA_VERSION, schema);
    rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  }
  rc = sqlite3_exec(db, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK
           ? rc
           : SQLITE_ERROR;
  return rc;
}

/* Opens path and decides what it is: FILE_OK with *db open and our schema in it. */
static verdict try_open(const char *path, sqlite3 **db, char *why, size_t n) {
  verdict v = check_magic(path, why, n);
  if (v != FILE_OK) return v;
  if (rg_sqlite_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 10000, db, why, n) != SQLITE_OK)
    return FILE_ERROR;
  int objects = 0, app = 0;
  int rc = rg_sqlite_pragma_int(*db, "PRAGMA application_id", &app);
  if (rc == SQLITE_OK) rc = rg_sqlite_pragma_int(*db, "SELECT count(*) FROM sqlite_master", &objects);
  if (rc == SQLITE_OK && objects == 0 && app == 0) {
    if ((rc = init_schema(*db)) != SQLITE_OK) {
      snprintf(why, n, "cannot write the schema: %s", sqlite3_errmsg(*db));
      return FILE_ERROR;
    }
  }
  return check_content(*db, why, n);
}

/* Moves a corrupt cache (and its write-ahead log) aside, so a person can look at it. */
static rg_status move_aside(const char *path, const char *why, rg_err *err) {
  size_t len = strlen(path) + 32;
  char *dst = malloc(len), *src = malloc(len);
  if (!dst || !src) {
    free(dst), free(src);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  snprintf(dst, len, "%s.corrupt", path);
  rg_status st = RG_OK;
  if (rename(path, dst) != 0)
    st = rg_err_set(err, RG_ERR_IO, "cost cache %s: %s, and it cannot be moved aside to %s: %s",
                    path, why, dst, strerror(errno));
  else {
    fprintf(stderr,
            "rulegen: warning: cost cache %s: %s; moved aside to %s, starting an empty one\n", path,
            why, dst);
    snprintf(src, len, "%s-wal", path), snprintf(dst, len, "%s.corrupt-wal", path);
    if (rename(src, dst) != 0 && errno != ENOENT) remove(src);
    snprintf(src, len, "%s-shm", path);
    remove(src);
  }
  free(dst), free(src);
  return st;
}

void rg_cost_cache_close(rg_cost_cache *c) {
  if (!c) return;
  sqlite3_finalize(c->get), sqlite3_finalize(c->put);
  sqlite3_close(c->db);
  free(c->path);
  free(c);
}

rg_status rg_cost_cache_open(const char *path, rg_cost_cache **out, rg_err *err) {
  *out = NULL;
  rg_status st = make_folder(path, err);
  if (st) return st;
  rg_cost_cache *c = calloc(1, sizeof *c);
  if (!c || !(c->path = strdup(path))) {
    free(c);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  char why[400];
  for (int attempt = 0;; attempt++) {
    verdict v = try_open(path, &c->db, why, sizeof why);
    if (v == FILE_OK) break;
    sqlite3_close(c->db);
    c->db = NULL;
    /* a file made afresh that still fails is not corruption: report it */
    if (v == FILE_ERROR || attempt > 0)
      st = rg_err_set(err, RG_ERR_IO, "cost cache %s: %s", path, why);
    else
      st = move_aside(path, why, err);
    if (st) {
      rg_cost_cache_close(c);
      return st;
    }
  }
  if (sqlite3_prepare_v2(c->db,
                         "SELECT us, source, repeats, " VALID_ROW
                         " FROM costs WHERE device = ?1 AND op = ?2 AND config = ?3",
                         -1, &c->get, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(c->db, "INSERT OR REPLACE INTO costs VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1,
                         &c->put, NULL) != SQLITE_OK) {
    st = rg_err_set(err, RG_ERR_IO, "cost cache %s: %s", path, sqlite3_errmsg(c->db));
    rg_cost_cache_close(c);
    return st;
  }
  *out = c;
  return RG_OK;
}

int rg_cost_cache_get(rg_cost_cache *c, const char *device, const char *op, const char *config,
                      rg_cost_row *row, rg_err *err) {
  sqlite3_stmt *s = c->get;
  rg_sqlite_bind(s, "ttt", device, op, config);
  int rc = sqlite3_step(s), found = 0;
  if (rc == SQLITE_ROW && !sqlite3_column_int(s, 3)) {
    /* written since the file was checked: not trusted, and replaced once measured again */
    fprintf(stderr,
            "rulegen: warning: cost cache %s: the row of %s %s is not valid; measuring again\n",
            c->path, op, config);
  } else if (rc == SQLITE_ROW) {
    row->us = sqlite3_column_double(s, 0);
    snprintf(row->source, sizeof row->source, "%s", (const char *)sqlite3_column_text(s, 1));
    row->repeats = sqlite3_column_int64(s, 2);
    found = 1;
  } else if (rc != SQLITE_DONE)
    found = rg_err_set(err, RG_ERR_IO, "cost cache %s: %s", c->path, sqlite3_errmsg(c->db));
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return found;
}

rg_status rg_cost_cache_put(rg_cost_cache *c, const char *device, const char *op,
                            const char *config, const rg_cost_row *row, rg_err *err) {
  if (!(isfinite(row->us) && row->us > 0) || row->repeats < 0 ||
      (strcmp(row->source, "dnnl") && strcmp(row->source, "cuda") && strcmp(row->source, "ort") &&
       strcmp(row->source, "roofline")))
    return rg_err_set(err, RG_ERR_ARG, "cost cache %s: refusing the row of %s %s (%g us from %s)",
                      c->path, op, config, row->us, row->source);
  rg_status st = RG_OK;
  int rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
  bool begun = rc == SQLITE_OK;
  if (rc == SQLITE_OK && rg_sqlite_run(c->put, "tttdti", device, op, config, row->us, row->source,
                                       row->repeats) != SQLITE_DONE)
    rc = sqlite3_errcode(c->db);
  if (rc == SQLITE_OK) rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) /* the message before ROLLBACK replaces it */
    st = rg_err_set(err, RG_ERR_IO, "cost cache %s: cannot write: %s", c->path,
                    sqlite3_errmsg(c->db));
  if (st && begun) sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
  return st;
}
