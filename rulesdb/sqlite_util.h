/* rulesdb/sqlite_util.h: the SQLite plumbing that the rule database (store.c, schema.c) and other
 * modules' SQLite files (optimizer/'s cost cache) share, so each piece is written once: opening,
 * telling an SQLite file of ours from anything else, one-value queries, quick_check, binding and
 * running a statement, and walking a query's rows.
 *
 * Every function returns an SQLite result code (SQLITE_OK, or the code of what failed, with
 * sqlite3_errmsg(db) saying why) unless its comment says otherwise; none prints anything. The
 * messages that name a file are the callers': what a file is called ("rule database", "cost
 * cache") and what to do about it differ. */
#ifndef RG_RULESDB_SQLITE_UTIL_H
#define RG_RULESDB_SQLITE_UTIL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The smallest SQLite file: one page of 512 bytes. SQLite opens a shorter one (or a missing
 * one) as an empty database, so what such a file is must be told from its first bytes. */
#define RG_SQLITE_MIN_FILE 512

/* Opens path with SQLite's open flags (SQLITE_OPEN_READONLY: never creates a file), waiting up
 * to busy_ms for another connection's lock (0: not at all). On failure *db is closed and NULL
 * and why (n bytes) holds SQLite's message ("out of memory" when it made no connection). */
int rg_sqlite_open(const char *path, int flags, int busy_ms, sqlite3 **db, char *why, size_t n);

/* Whether the file at path begins with the first n (at most 16) bytes of SQLite's magic string
 * "SQLite format 3\0": with n = 16 an SQLite file, with n its size for a shorter file one cut
 * short. False when it cannot be read or has fewer than n bytes. */
bool rg_sqlite_has_magic(const char *path, size_t n);

/* Tells an opened file of ours (application_id app_id) from anything else, with why (n bytes):
 * SQLITE_OK, ours; SQLITE_NOTADB, "not an SQLite file"; SQLITE_MISMATCH, "an SQLite file, but not
 * a rulegen <kind> (application id 0x...)"; any other code, SQLite's message (the header could
 * not be read: SQLITE_CORRUPT for a damaged file, for example). */
int rg_sqlite_identify(sqlite3 *db, int app_id, const char *kind, char *why, size_t n);

/* Runs a statement that yields one integer (a PRAGMA such as "PRAGMA user_version", or a
 * count(*)) into *out; *out is unchanged on failure (SQLITE_NOTADB for a file that is not a
 * database, for example, or SQLITE_DONE for a statement that yields no row). */
int rg_sqlite_pragma_int(sqlite3 *db, const char *sql, int *out);
int rg_sqlite_pragma_int64(sqlite3 *db, const char *sql, int64_t *out);

/* The first value of a statement's first row as text (a pragma's answer: "PRAGMA encoding")
 * into buf (n bytes, cut to fit); on failure buf holds SQLite's message. */
int rg_sqlite_pragma_text(sqlite3 *db, const char *sql, char *buf, size_t n);

/* Runs PRAGMA quick_check: true when the file is intact; false with why (n bytes) holding the
 * first problem quick_check names, or SQLite's message when it could not run. */
bool rg_sqlite_intact(sqlite3 *db, char *why, size_t n);

/* Binds the values after fmt to s's parameters 1, 2, ... one character of fmt each: 't' text
 * (const char *), 'i' int64_t, 'd' double, 'b' a BLOB (const void *, then its size_t length).
 * The values are not copied: they must outlive the statement's run. */
void rg_sqlite_bind(sqlite3_stmt *s, const char *fmt, ...);

/* Binds as rg_sqlite_bind, steps s once (an INSERT, an UPDATE), then resets it and clears its
 * bindings for the next run. Returns SQLITE_DONE when it ran, else the step's code (with
 * sqlite3_errmsg of s's connection saying why: SQLITE_CONSTRAINT for a duplicate key, say). */
int rg_sqlite_run(sqlite3_stmt *s, const char *fmt, ...);

/* What rg_sqlite_each calls with each row (s on it): 0 to go on, anything else to stop. */
typedef int (*rg_sqlite_row_fn)(sqlite3_stmt *s, void *user);

/* Steps the prepared (and bound) statement s through its rows, calling fn on each, then resets
 * it. Returns SQLITE_OK after the last row, SQLITE_ABORT when fn stopped it (what for is the
 * caller's to keep in user), else the failing step's code. */
int rg_sqlite_each_row(sqlite3_stmt *s, rg_sqlite_row_fn fn, void *user);

/* Prepares sql on db and steps it through its rows as rg_sqlite_each_row, then finalizes it;
 * a failure to prepare returns its code. */
int rg_sqlite_each(sqlite3 *db, const char *sql, rg_sqlite_row_fn fn, void *user);

#endif
