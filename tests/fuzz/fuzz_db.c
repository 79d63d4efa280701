/* tests/fuzz/fuzz_db.c: rule databases (rulesdb/store.h): any file is read, refused, or
 * verified against a key it was not signed with, never crashes. */
#include <unistd.h>

#include "fuzz.h"
#include "rulesdb/rulesdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write_temp("db", data, size);
  if (!path) return 0;
  rg_db *db = NULL;
  rg_err err;
  if (rg_db_read(path, &db, &err) == RG_OK) {
    rg_db_pubkey pk;
    memset(&pk, 0x5a, sizeof pk);
    rg_strbuf rep;
    rg_sb_init(&rep);
    if (rg_db_verify(db, &pk, &rep) == RG_DB_VERIFY_OK) FUZZ_FAIL("a database verified under a made-up key");
    rg_sb_free(&rep);
    rg_db_free(db);
  }
  unlink(path);
  return 0;
}
