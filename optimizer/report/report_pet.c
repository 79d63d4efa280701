/* optimizer/report/report_pet.c: what graphopt --pet says after the search: each applied PET
 * rewrite with its certificate, how many the search took, and all of it as JSON (report.h). */
#include "report.h"

#include <string.h>

void rg_pet_step_print(const rg_pet_set *s, const rg_rule *r, rg_strbuf *out) {
  const rg_pet_rewrite *rw = s ? rg_pet_of_rule(s, r) : NULL;
  if (!rw) return;
  rg_sb_printf(out, "       PET rewrite %s at %s: the mutant differs in %lld of %lld boxes, %lld correction "
                    "region%s; the corrected mutant's certificate sha256 %s\n",
               rg_mutant_name(rw->cand.kind), rw->shapes, (long long)rw->neq_boxes, (long long)rw->boxes,
               (long long)rw->regions, rw->regions == 1 ? "" : "s", rw->digest);
}

static int times_applied(const rg_pet_set *s, const rg_ruleset *rules, const rg_search_result *r, const rg_pet_rewrite *rw) {
  int n = 0;
  for (int k = 0; r && k < r->n_steps; k++) n += rg_pet_of_rule(s, rules->rules[r->steps[k].app.rule]) == rw;
  return n;
}

void rg_pet_applied_print(const rg_pet_set *s, const rg_ruleset *rules, const rg_search_result *r, rg_strbuf *out) {
  if (!s) return;
  int applied = 0; /* r NULL: the original was written */
  for (int k = 0; r && k < r->n_steps; k++) applied += rg_pet_of_rule(s, rules->rules[r->steps[k].app.rule]) != NULL;
  rg_sb_printf(out, "pet: %d PET rewrite%s applied in the model written\n", applied, applied == 1 ? "" : "s");
}

static void kinds_json(const char *name, const int *counts, rg_strbuf *out) {
  rg_sb_printf(out, "\"%s\": {", name);
  for (int k = 0; k < RG_MUTANT_COUNT; k++)
    rg_sb_printf(out, "%s\"%s\": %d", k ? ", " : "", rg_mutant_name((rg_mutant_kind)k), counts[k]);
  rg_sb_puts(out, "}");
}

void rg_pet_json(const rg_pet_set *s, const rg_ruleset *rules, const rg_search_result *r, rg_strbuf *out) {
  if (!s) return; /* without --pet, no member: the report is as it was */
  int refused[RG_MUTANT_COUNT];
  for (int k = 0; k < RG_MUTANT_COUNT; k++) refused[k] = s->considered[k] - s->certified[k];
  rg_sb_puts(out, ", \"pet\": {");
  kinds_json("candidates", s->considered, out), rg_sb_puts(out, ", ");
  kinds_json("certified", s->certified, out), rg_sb_puts(out, ", ");
  kinds_json("refused", refused, out);
  rg_sb_puts(out, ", \"rewrites\": [");
  for (int i = 0; i < s->n; i++) {
    const rg_pet_rewrite *rw = &s->rw[i];
    rg_sb_printf(out, "%s{\"kind\": \"%s\", \"shapes\": ", i ? ", " : "", rg_mutant_name(rw->cand.kind));
    rg_json_string(out, rw->shapes ? rw->shapes : "");
    rg_sb_printf(out, ", \"places\": %d, \"boxes\": %lld, \"neq_boxes\": %lld, \"regions\": %lld, \"digest\": ",
                 rw->cand.sites, (long long)rw->boxes, (long long)rw->neq_boxes, (long long)rw->regions);
    if (rw->refused) rg_sb_puts(out, "null, \"refused\": "), rg_json_string(out, rw->why);
    else rg_sb_printf(out, "\"%s\", \"refused\": null", rw->digest);
    rg_sb_printf(out, ", \"applied\": %d}", rw->refused ? 0 : times_applied(s, rules, r, rw));
  }
  rg_sb_printf(out, "], \"seconds\": %.3f}", s->seconds);
}
