/* tests/fuzz/fuzz_taso.c: TASO's rules.proto binary (rulesdb/exchange.h). */
#include "fuzz.h"
#include "rulesdb/rulesdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_strbuf skipped;
  rg_sb_init(&skipped);
  rg_err err;
  rg_status st = rg_taso_import(data, size, &rs, &skipped, &err);
  if (st == RG_OK) fuzz_check_reparse(&rs);
  rg_sb_free(&skipped);
  rg_ruleset_free(&rs);
  return 0;
}
