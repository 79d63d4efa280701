/* tests/rulesdb_helpers.h: what the rule-database tests share: raw SQL on a written file (to
 * tamper with it behind the library's back). */
#ifndef RG_TESTS_RULESDB_HELPERS_H
#define RG_TESTS_RULESDB_HELPERS_H

#include <sqlite3.h>
#include <stdio.h>

/* Runs sql on the database file at path; 0 when SQLite accepted it. */
static inline int exec_sql(const char *path, const char *sql) {
  sqlite3 *s;
  if (sqlite3_open(path, &s) != SQLITE_OK) return -1;
  char *msg = NULL;
  int rc = sqlite3_exec(s, sql, NULL, NULL, &msg);
  if (rc) fprintf(stderr, "sql %s: %s\n", sql, msg);
  sqlite3_free(msg);
  sqlite3_close(s);
  return rc;
}

#endif
