/* prune/report.c: pruning's and coverage's results as text (prune/report.h). */
#include "report.h"

void rg_prune_table_print(FILE *out, const rg_prune_result *res) {
  fprintf(out, "%-18s %8s %8s %8s %9s\n", "stage", "in", "out", "removed", "time");
  fprintf(out, "%-18s %8s %8d\n", "input", "", res->n);
  for (int s = 0; s < RG_PRUNE_STAGES; s++) {
    const rg_prune_stage *st = &res->stage[s];
    if (!st->run) {
      fprintf(out, "%-18s %8s\n", st->name, "skipped");
      continue;
    }
    fprintf(out, "%-18s %8d %8d %8d %8.2fs\n", st->name, st->in, st->out, st->in - st->out, st->seconds);
  }
  fprintf(out, "%-18s %8s %8d\n", "kept", "", res->kept);
  if (res->interrupted)
    fprintf(out, "interrupted: derivability stopped early; rules it had not decided are kept\n");
}

void rg_audit_report_print(FILE *out, const rg_audit_report *rep) {
  fprintf(out,
          "audit: %d removal records check against %d kept rules (renaming %d, subgraph %d, "
          "supergraph %d, derived %d)\n",
          rep->records, rep->kept, rep->by_reason[RG_FATE_RENAMING], rep->by_reason[RG_FATE_SUBGRAPH],
          rep->by_reason[RG_FATE_SUPERGRAPH], rep->by_reason[RG_FATE_DERIVED]);
}

void rg_coverage_print(FILE *out, const rg_ruleset *other, const rg_coverage *c, bool quiet) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int i = 0; i < other->n; i++) {
    if (quiet && c->verdict[i] != RG_COVER_NOT_COVERED) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(other->rules[i], &sb);
    char what[48];
    if (c->verdict[i] == RG_COVER_DERIVED)
      snprintf(what, sizeof what, "derived (%d step%s)", c->steps[i], c->steps[i] == 1 ? "" : "s");
    else
      snprintf(what, sizeof what, "%s", rg_cover_verdict_name(c->verdict[i]));
    fprintf(out, "line %-5d %-21s %s\n", other->rules[i]->line, what, rg_sb_str(&sb));
  }
  rg_sb_free(&sb);
  const int *n = c->count;
  int have = n[RG_COVER_CONTAINED] + n[RG_COVER_CONTAINED_REVERSED];
  fprintf(out, "covers: %d of %d rules: %d contained, %d derived (longest %d steps), %d not covered\n",
          have + n[RG_COVER_DERIVED], other->n, have, n[RG_COVER_DERIVED], c->longest, n[RG_COVER_NOT_COVERED]);
  if (n[RG_COVER_NOT_CHECKED]) fprintf(out, "interrupted: %d rules not checked\n", n[RG_COVER_NOT_CHECKED]);
}
