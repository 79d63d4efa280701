/* verify/report.c: the verify stages' results as text (verify/report.h). */
#include "report.h"

#include "solver.h"

static void print_answer(FILE *out, const rg_answer_record *a, const char *who) {
  fprintf(out, "    %-5s %-8s %7.1f ms", who, rg_smt_result_name(a->result), a->ms);
  if (a->result == RG_SMT_UNSAT) fprintf(out, "  core: %s", a->core[0] ? a->core : "(none)");
  if (a->detail[0]) fprintf(out, "  (%s)", a->detail);
  fprintf(out, "\n");
}

/* What each solver said of each obligation of p. */
static void print_obligations(FILE *out, const rg_rule_proof *p) {
  for (int k = 0; k < p->n_obl; k++) {
    fprintf(out, "  output %d: obligation %.16s (%d axioms)", k + 1, p->obl[k].sha256, p->obl[k].n_axioms);
    if (p->obl[k].core_sha256[0]) /* core_hint: what the solvers after the first were given */
      fprintf(out, "; after %s, obligation %.16s (its unsat core: %d axioms and the facts)", rg_solver_kind_name(0),
              p->obl[k].core_sha256, p->obl[k].core_axioms);
    fprintf(out, "\n");
    for (int s = 0; s < RG_SOLVER_COUNT; s++) {
      const char *who = rg_solver_kind_name((rg_solver_kind)s);
      if (p->obl[k].done[s]) print_answer(out, &p->obl[k].ans[s], who);
      if (p->obl[k].not_asked[s])
        fprintf(out, "    %s: not asked (%s did not prove it; --fail-fast)\n", who,
                rg_solver_kind_name((rg_solver_kind)(s - 1)));
    }
  }
}

void rg_proof_print(FILE *out, const rg_rule *r, const rg_rule_proof *p, const char *file) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  fprintf(out, "%-19s %s:%d  %s\n", rg_proof_status_name(p->status), file, r->line, rg_sb_str(&sb));
  rg_sb_free(&sb);
  if (p->refuted) fprintf(out, "  the sides differ: %s\n", p->refutation);
  if (p->false_proof) {
    char suspects[1024];
    rg_proof_suspects(p, suspects, sizeof suspects);
    fprintf(out, "  FALSE PROOF: proved, but the sides differ: %s\n  suspect axioms (its unsat cores): %s\n",
            p->refutation, suspects);
  }
  print_obligations(out, p);
}

void rg_prove_summary_print(FILE *out, const rg_prove_summary *sum, const rg_prove_opts *o) {
  char differ[64] = "";
  if (sum->refuted)
    snprintf(differ, sizeof differ, " (%d whose sides differ at some shapes)", sum->refuted);
  fprintf(out, "\n");
  rg_prove_answers_print(out, "", sum);
  fprintf(out, "%d rules: %d verified, ", sum->n_rules, sum->verified);
  for (int s = 0; s < RG_SOLVER_COUNT; s++)
    fprintf(out, "%d proved-by-%s-only, ", sum->only[s], rg_solver_kind_name((rg_solver_kind)s));
  fprintf(out, "%d unproved%s%s; %d pass --require %s (", sum->unproved, differ,
          sum->skipped ? " (some skipped: interrupted)" : "", sum->shipped,
          o->require == RG_REQUIRE_BOTH ? "both" : "any");
  char versions[RG_SOLVER_COUNT * 100];
  fprintf(out, "%s, timeout %d ms%s, %.1f s)\n", rg_prove_summary_versions(sum, versions, sizeof versions), o->timeout_ms,
          o->fail_fast ? ", fail-fast" : "", sum->wall_ms / 1e3);
}

void rg_recheck_print(FILE *out, const rg_recheck_run *run, const rg_recheck_opts *o, const char *file,
                      bool quiet, double seconds) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  int untyped = 0, skipped = 0;
  for (int i = 0; i < run->rules.n; i++) {
    const rg_recheck_verdict *v = &run->verdicts[i];
    untyped += v->untyped, skipped += v->skipped;
    if (quiet && !v->differs) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(run->rules.rules[i], &sb);
    const char *verdict = v->differs ? "DIFFERS" : v->untyped ? "untyped" : v->skipped ? "skipped" : "agrees";
    fprintf(out, "%-8s %s:%d  %s\n", verdict, file, run->rules.rules[i]->line, rg_sb_str(&sb));
    if (v->differs || v->untyped) fprintf(out, "  %s\n", v->why);
  }
  rg_sb_free(&sb);
  fprintf(out, "\n%d rules rechecked at up to %d assignments each (seed %llu): %d differ, %d never type%s (%.1f s)\n",
          run->rules.n, o->assignments, (unsigned long long)o->seed, run->differ, untyped,
          skipped ? ", some skipped: interrupted" : "", seconds);
}

void rg_axcheck_print(FILE *out, const rg_axcheck_run *run, const rg_axcheck_opts *o, const char *path,
                      bool verbose) {
  int min_asg = 1 << 30, n = run->ax.rules.n;
  for (int i = 0; i < n; i++) {
    const rg_rule *r = run->ax.rules.rules[i];
    const rg_axiom_verdict *v = &run->verdicts[i];
    if (v->assignments < min_asg) min_asg = v->assignments;
    if (!v->sound)
      fprintf(out, "UNSOUND %s (%s:%d): %s%s\n", r->name, path, r->line,
              v->typed_only ? "one side types and the other does not (guard it by what makes it type): " : "",
              v->why);
    else if (verbose)
      fprintf(out, "ok      %s: %d assignments (and %d runs with seams, %d at higher ranks) x %d trials x 2 domains\n",
              r->name, v->assignments, v->seamed, v->lifted, o->trials);
  }
  fprintf(out, "%d axioms checked, %d unsound (at least %d assignments each, both ways round, %d trials per domain)\n",
          n, run->unsound, n ? min_asg : 0, o->trials);
}

rg_status rg_prove_json_write(const char *path, const char *file, const rg_prove_run *run, const rg_prove_opts *o,
                              rg_err *err) {
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  if (st) return st;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_json_string(&sb, file);
  fprintf(a.f, "{\"file\": %s, \"require\": \"%s\", \"timeout_ms\": %d,\n \"prove\": ", rg_sb_str(&sb),
          o->require == RG_REQUIRE_BOTH ? "both" : "any", o->timeout_ms);
  rg_prove_summary_json(&run->sum, a.f);
  fprintf(a.f, ",\n \"rules\": [");
  for (int i = 0; i < run->rules.n; i++)
    fprintf(a.f, "%s{\"line\": %d, \"status\": \"%s\", \"shipped\": %s}", i ? ",\n   " : "",
            run->rules.rules[i]->line, rg_proof_status_name(run->proofs[i].status),
            run->proofs[i].shipped ? "true" : "false");
  fprintf(a.f, "]}\n");
  rg_sb_free(&sb);
  return rg_atomic_commit(&a, err);
}
