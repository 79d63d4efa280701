/* tests/fuzz/fuzz_util.c: helpers of the harnesses (fuzz.h). */
#include <unistd.h>

#include "fuzz.h"

const char *fuzz_write_temp(const char *tag, const uint8_t *data, size_t size) {
  static char path[128];
  snprintf(path, sizeof path, "/tmp/rg_fuzz_%s_%ld", tag, (long)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  bool ok = fwrite(data, 1, size, f) == size;
  ok = fclose(f) == 0 && ok;
  return ok ? path : NULL;
}

void fuzz_check_reparse(const rg_ruleset *rs) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int i = 0; i < rs->n; i++) {
    rg_sb_clear(&sb);
    rg_text_print_rule(rs->rules[i], &sb);
    rg_rule *r = NULL;
    rg_err err;
    if (rg_text_parse_rule(rg_sb_str(&sb), &r, &err) != RG_OK)
      FUZZ_FAIL("imported rule %d prints as text that does not parse: %s: %s", i, rg_sb_str(&sb), err.msg);
    rg_rule_free(r);
  }
  rg_sb_free(&sb);
}
