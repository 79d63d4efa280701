/* rulesdb/dbmigrate.c: a database file of an older schema version rewritten in the current one
 * (`rulesdb migrate`). The signed manifest is the same in every version (schema.h), so the
 * signature is carried over as it is: no key is needed, and a tampered file stays tampered. */
#include "dbexchange.h"
#include "store.h"

rg_status rg_db_migrate_file(const char *path, const rg_db_write_opts *wo, rg_strbuf *log, rg_err *err) {
  rg_db *db;
  rg_status st = rg_db_read(path, &db, err);
  if (st) return st;
  int from = db->schema_version;
  if (from == RG_DB_SCHEMA_VERSION)
    rg_sb_printf(log, "rulesdb migrate: %s is already of schema version %d: nothing to do\n", path, from);
  else if (!(st = rg_db_write(db, path, wo, err)))
    rg_sb_printf(log, "rulesdb migrate: %s: schema version %d -> %d, %zu rules; %s\n", path, from,
                 RG_DB_SCHEMA_VERSION, db->rules.n,
                 db->sig.present ? "its signature is kept (the signed content is the same)" : "unsigned, as it was");
  rg_db_free(db);
  return st;
}
