/* optimizer/pet/pet_print.c: what graphopt --pet says before the search (pet.h). */
#include "pet.h"

void rg_pet_found_print(const rg_pet_set *s, int rules, const char *certs, rg_strbuf *out) {
  int considered = 0, certified = 0;
  rg_strbuf kinds;
  rg_sb_init(&kinds);
  for (int k = 0; k < RG_MUTANT_COUNT; k++) {
    considered += s->considered[k], certified += s->certified[k];
    if (s->considered[k])
      rg_sb_printf(&kinds, "%s%s %d/%d", kinds.len ? ", " : "", rg_mutant_name((rg_mutant_kind)k), s->certified[k],
                   s->considered[k]);
  }
  rg_sb_printf(out, "pet: %d candidates at the model's shapes, %d certified with their corrections%s%s%s, %d refused; "
                    "%d rewrites offered to the search (%.2f s)\n",
               considered, certified, kinds.len ? " (" : "", rg_sb_str(&kinds), kinds.len ? ")" : "",
               considered - certified, rules, s->seconds);
  for (int i = 0; i < s->n; i++)
    if (s->rw[i].refused)
      rg_sb_printf(out, "pet: refused %s at %s: %s\n", rg_mutant_name(s->rw[i].cand.kind),
                   s->rw[i].shapes ? s->rw[i].shapes : "?", s->rw[i].why);
  if (certs && certified) rg_sb_printf(out, "pet: certificates in %s (rulegen certify check NAME.cert NAME.rules)\n", certs);
  rg_sb_free(&kinds);
}
