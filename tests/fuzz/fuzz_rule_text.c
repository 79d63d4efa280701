/* tests/fuzz/fuzz_rule_text.c: rule text (ir/text.h), also what candidates files hold. What
 * parses prints back to text that parses to the same rules (printed alike). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err;
  if (rg_text_parse((const char *)data, size, &rs, &err) == RG_OK) {
    rg_strbuf a, b;
    rg_sb_init(&a), rg_sb_init(&b);
    for (int i = 0; i < rs.n; i++) rg_text_print_rule(rs.rules[i], &a), rg_sb_puts(&a, "\n");
    rg_ruleset back;
    rg_ruleset_init(&back);
    if (rg_text_parse(rg_sb_str(&a), a.len, &back, &err) != RG_OK) FUZZ_FAIL("printed rules do not parse: %s", err.msg);
    if (back.n != rs.n) FUZZ_FAIL("%d rules printed, %d parsed back", rs.n, back.n);
    for (int i = 0; i < back.n; i++) rg_text_print_rule(back.rules[i], &b), rg_sb_puts(&b, "\n");
    if (strcmp(rg_sb_str(&a), rg_sb_str(&b))) FUZZ_FAIL("printing is not stable:\n%s\n%s", rg_sb_str(&a), rg_sb_str(&b));
    rg_ruleset_free(&back);
    rg_sb_free(&a), rg_sb_free(&b);
  }
  rg_ruleset_free(&rs);
  return 0;
}
