/* tests/fuzz/fuzz_axioms.c: axiom files with guards (verify/axioms.h, verify/guard.h); what
 * parses is encoded as it would be for a proof (every guard printed in SMT-LIB). */
#include "fuzz.h"
#include "verify/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rg_axioms ax;
  rg_err err;
  if (rg_axioms_parse((const char *)data, size, "<fuzz>", &ax, &err) == RG_OK && ax.rules.n > 0) {
    rg_rule *r = NULL; /* a goal over the first axiom's operators brings those axioms in */
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_rule un = *ax.rules.rules[0];
    un.name[0] = 0;
    rg_text_print_rule(&un, &sb);
    if (rg_text_parse_rule(rg_sb_str(&sb), &r, &err) == RG_OK && r->n_tgt > 0) {
      rg_obligation ob;
      if (rg_smt_encode(r, 0, &ax, true, &ob, &err) == RG_OK) rg_obligation_free(&ob);
    }
    rg_rule_free(r);
    rg_sb_free(&sb);
  }
  rg_axioms_free(&ax);
  return 0;
}
