/* verify/prove_summary.c: sums, JSON and the solvers' versions of proof-run summaries, generated from
 * verify/prove_counts.def and verify/solvers.def. */
#include "prove.h"

#include <stdio.h>
#include <string.h>

void rg_prove_summary_add(rg_prove_summary *t, const rg_prove_summary *s) {
#define RG_PROVE_COUNT(field, what) t->field += s->field;
#include "prove_counts.def"
#undef RG_PROVE_COUNT
  for (int k = 0; k < RG_SOLVER_COUNT; k++) {
    t->only[k] += s->only[k];
    for (int r = 0; r < RG_SMT_RESULTS; r++)
      t->answers[k][r] += s->answers[k][r], t->answer_ms[k][r] += s->answer_ms[k][r];
  }
  t->wall_ms += s->wall_ms;
  memcpy(t->version, s->version, sizeof t->version);
}

void rg_prove_summary_json(const rg_prove_summary *s, FILE *out) {
  fprintf(out, "{");
#define RG_PROVE_COUNT(field, what) fprintf(out, "\"%s\": %d, ", #field, s->field);
#include "prove_counts.def"
#undef RG_PROVE_COUNT
  fprintf(out, "\"only\": {");
  for (int k = 0; k < RG_SOLVER_COUNT; k++) fprintf(out, "%s\"%s\": %d", k ? ", " : "", rg_solver_kind_name(k), s->only[k]);
  fprintf(out, "}, \"answers\": {");
  for (int k = 0; k < RG_SOLVER_COUNT; k++) {
    fprintf(out, "%s\"%s\": {", k ? ", " : "", rg_solver_kind_name(k));
    for (int r = 0; r < RG_SMT_RESULTS; r++)
      fprintf(out, "%s\"%s\": {\"n\": %d, \"ms\": %.1f}", r ? ", " : "", rg_smt_result_name((rg_smt_result)r),
              s->answers[k][r], s->answer_ms[k][r]);
    fprintf(out, "}");
  }
  fprintf(out, "}, \"versions\": {");
  for (int k = 0; k < RG_SOLVER_COUNT; k++) {
    rg_strbuf v;
    rg_sb_init(&v);
    rg_json_string(&v, s->version[k]);
    fprintf(out, "%s\"%s\": %s", k ? ", " : "", rg_solver_kind_name(k), rg_sb_str(&v));
    rg_sb_free(&v);
  }
  fprintf(out, "}, \"wall_ms\": %.1f}", s->wall_ms);
}

void rg_prove_journal_print(FILE *out, const char *lead, const char *warn_lead, const char *where,
                            const rg_prove_summary *s, int refused) {
  fprintf(out, "%s%d solver answers taken from %s (earlier runs'), %d asked now\n", lead, s->reused, where, s->asked);
  if (s->axioms_taken || s->recheck_taken || s->refute_taken)
    fprintf(out,
            "%salso taken from there: the passes of %d axiom test%s, %d comparisons at shape sets and %d rechecks; run "
            "now: %d axiom tests, %d comparisons, %d rechecks\n",
            lead, s->axioms_taken, s->axioms_taken == 1 ? "" : "s", s->refute_taken, s->recheck_taken, s->axioms_tested,
            s->compared - s->refute_taken, s->rechecked - s->recheck_taken);
  if (refused)
    fprintf(out, "%s%s: %d lines not believed (altered, forged or garbled): their obligations asked again\n",
            warn_lead, where, refused);
}

void rg_prove_answers_print(FILE *out, const char *lead, const rg_prove_summary *s) {
  bool any = false;
  for (int k = 0; k < RG_SOLVER_COUNT; k++) {
    bool first = true;
    for (int r = 0; r < RG_SMT_RESULTS; r++) {
      if (!s->answers[k][r]) continue;
      fprintf(out, "%s%s", any ? "" : lead, !any ? "answers: " : first ? "; " : ", ");
      if (first) fprintf(out, "%s ", rg_solver_kind_name(k));
      fprintf(out, "%d %s (%.1f s)", s->answers[k][r], rg_smt_result_name((rg_smt_result)r), s->answer_ms[k][r] / 1000);
      first = false, any = true;
    }
  }
  if (any) fprintf(out, "\n");
}

const char *rg_prove_summary_versions(const rg_prove_summary *s, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = 0;
  for (int k = 0; k < RG_SOLVER_COUNT; k++)
    if (s->version[k][0] && len < n)
      len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", s->version[k]);
  return buf[0] ? buf : "none ran";
}
