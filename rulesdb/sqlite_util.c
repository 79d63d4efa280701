/* rulesdb/sqlite_util.c: SQLite helpers shared by the rule database and the cost cache
 * (sqlite_util.h). */
#include "sqlite_util.h"

#include <stddef.h>

int rg_sqlite_pragma_int(sqlite3 *db, const char *sql, int *out) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) return sqlite3_errcode(db);
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) *out = sqlite3_column_int(s, 0), rc = SQLITE_OK;
  sqlite3_finalize(s);
  return rc;
}
