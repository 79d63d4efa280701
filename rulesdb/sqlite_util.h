/* rulesdb/sqlite_util.h: small SQLite helpers that the rule database and other modules' SQLite
 * files (optimizer/'s cost cache) share, so each is written once. */
#ifndef RG_RULESDB_SQLITE_UTIL_H
#define RG_RULESDB_SQLITE_UTIL_H

#include <sqlite3.h>

/* Runs a statement that yields one integer (a PRAGMA such as "PRAGMA user_version") into *out.
 * Returns SQLITE_OK, or the SQLite result code of what failed (SQLITE_NOTADB for a file that is
 * not a database, for example); *out is unchanged then. */
int rg_sqlite_pragma_int(sqlite3 *db, const char *sql, int *out);

#endif
