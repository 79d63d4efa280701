/* verify/prove.c: the proof stage (see prove.h). */
#include "prove.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axcheck.h"
#include "ir/shapesolve.h"
#include "journal.h"
#include "refute.h"

void rg_prove_opts_init(rg_prove_opts *o) {
  memset(o, 0, sizeof *o);
  o->timeout_ms = 5000;
  o->require = RG_REQUIRE_BOTH;
  o->check_axioms = true;
  o->check_typed = true;
  o->refute_sets = 8;
}

/* The axioms must hold under random testing before anything is proved from them. */
static rg_status require_sound(const rg_axioms *ax, const rg_prove_opts *o, rg_err *err) {
  rg_axcheck_opts co;
  rg_axcheck_opts_init(&co);
  co.threads = o->threads;
  rg_axiom_verdict *vs = calloc((size_t)ax->rules.n + 1, sizeof *vs);
  if (!vs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int bad = 0;
  rg_status st = rg_axioms_check(ax, &co, vs, &bad, err);
  for (int i = 0; !st && i < ax->rules.n; i++)
    if (!vs[i].sound) {
      const rg_rule *a = ax->rules.rules[i];
      st = rg_err_at(err, RG_ERR_ARG, a->line, 1, "axiom %s is UNSOUND: %s%s", a->name, vs[i].why,
                     bad > 1 ? " (and more: run rulegen check-axioms)" : "");
    }
  if (!st && o->progress) fprintf(stderr, "prove: %d axioms random-tested, all sound\n", ax->rules.n);
  free(vs);
  return st;
}

/* A rule is worth proving only if its sides have equal output types at some shapes. */
static rg_status require_typed(const rg_rule *r, rg_err *err) {
  rg_assignment_list sets;
  rg_err e;
  rg_status st = rg_shapes_solve(r, NULL, 1, 1, &sets, &e);
  rg_assignment_list_free(&sets);
  if (st == RG_ERR_NOMEM) return rg_err_set(err, st, "out of memory");
  if (st)
    return rg_err_at(err, RG_ERR_SHAPE, r->line, 1,
                     "%s%sthe two sides do not have the same output shapes at any shapes tried "
                     "(%s): fix the rule (rulegen eval shows the mismatch)",
                     r->name, r->name[0] ? ": " : "", e.msg);
  return RG_OK;
}

/* Compares every rule at o->refute_sets shape sets; marks those whose sides differ. */
static rg_status refute_all(const rg_ruleset *rules, const rg_prove_opts *o, rg_rule_proof *proofs,
                            rg_err *err) {
  rg_status first = RG_OK;
  int bad = -1, n = 0;
  rg_err e0 = {0};
  int nth = o->threads > 0 ? o->threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 8) num_threads(nth) reduction(+ : n)
  for (int i = 0; i < rules->n; i++) {
    rg_err e;
    rg_rule_proof *p = &proofs[i];
    rg_status st = rg_refute_rule(rules->rules[i], o->refute_sets, 3, &p->refuted, p->refutation,
                                  sizeof p->refutation, &e);
    n += p->refuted;
    if (st) {
#pragma omp critical(rg_prove_refute)
      if (bad < 0 || i < bad) bad = i, first = st, e0 = e;
    }
  }
  if (first) {
    *err = e0;
    return first;
  }
  if (o->progress)
    fprintf(stderr,
            "prove: %d rules compared at %d shape sets each: %d differ (not sent to the solvers)\n",
            rules->n, o->refute_sets, n);
  return RG_OK;
}

const char *rg_proof_status_name(rg_proof_status s) {
  switch (s) {
  case RG_PROOF_VERIFIED: return "verified";
  case RG_PROOF_Z3_ONLY: return "proved-by-z3-only";
  case RG_PROOF_CVC5_ONLY: return "proved-by-cvc5-only";
  case RG_PROOF_UNPROVED: return "unproved";
  case RG_PROOF_SKIPPED: return "skipped";
  }
  return "?";
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One query: obligation (rule, output) for one solver. */
typedef struct {
  int rule, out, solver;
  const rg_obligation *ob;
} task;

static rg_status dump(const char *dir, const rg_obligation *ob, rg_err *err) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.smt2", dir, ob->sha256);
  FILE *f = fopen(path, "w");
  if (!f) return rg_err_set(err, RG_ERR_IO, "cannot write %s (does the directory exist?)", path);
  bool ok = fwrite(ob->text, 1, ob->len, f) == ob->len;
  ok &= fclose(f) == 0;
  return ok ? RG_OK : rg_err_set(err, RG_ERR_IO, "cannot write %s", path);
}

static void judge(rg_rule_proof *p, rg_require req) {
  bool proved[RG_SOLVER_COUNT] = {true, true}, all_done = true;
  p->disagree = false;
  if (p->refuted) {
    p->status = RG_PROOF_UNPROVED;
    p->shipped = false;
    return;
  }
  for (int k = 0; k < p->n_obl; k++) {
    const rg_obligation_record *r = &p->obl[k];
    for (int s = 0; s < RG_SOLVER_COUNT; s++) {
      all_done &= r->done[s];
      proved[s] &= r->done[s] && r->ans[s].result == RG_SMT_UNSAT;
    }
    if (r->done[0] && r->done[1] &&
        ((r->ans[0].result == RG_SMT_UNSAT && r->ans[1].result == RG_SMT_SAT) ||
         (r->ans[0].result == RG_SMT_SAT && r->ans[1].result == RG_SMT_UNSAT)))
      p->disagree = true;
  }
  if (proved[0] && proved[1]) p->status = RG_PROOF_VERIFIED;
  else if (proved[0]) p->status = RG_PROOF_Z3_ONLY;
  else if (proved[1]) p->status = RG_PROOF_CVC5_ONLY;
  else p->status = all_done ? RG_PROOF_UNPROVED : RG_PROOF_SKIPPED;
  p->shipped = p->status == RG_PROOF_VERIFIED ||
               (req == RG_REQUIRE_ANY && (proved[0] || proved[1]));
}

rg_status rg_prove_rules(const rg_ruleset *rules, const rg_axioms *ax, const rg_prove_opts *o,
                         rg_rule_proof *proofs, rg_prove_summary *sum, rg_err *err) {
  memset(sum, 0, sizeof *sum);
  memset(proofs, 0, sizeof *proofs * (size_t)rules->n);
  double t0 = now_ms();
  if (o->timeout_ms < 1) return rg_err_set(err, RG_ERR_ARG, "timeout must be at least 1 ms");
  for (int i = 0; i < rules->n; i++)
    if (rules->rules[i]->n_tgt == 0)
      return rg_err_at(err, RG_ERR_ARG, rules->rules[i]->line, 1,
                       "a bare graph (no '=> target') cannot be proved");
  rg_solver solvers[RG_SOLVER_COUNT];
  rg_status st = o->check_axioms ? require_sound(ax, o, err) : RG_OK;
  for (int i = 0; !st && o->check_typed && i < rules->n; i++) st = require_typed(rules->rules[i], err);
  if (!st && o->refute_sets > 0) st = refute_all(rules, o, proofs, err);
  if (st) return st;
  st = rg_solver_init(&solvers[RG_SOLVER_Z3], RG_SOLVER_Z3, NULL, err);
  if (!st) st = rg_solver_init(&solvers[RG_SOLVER_CVC5], RG_SOLVER_CVC5, o->cvc5_path, err);
  if (st) return st;
  for (int s = 0; s < RG_SOLVER_COUNT; s++)
    snprintf(sum->version[s], sizeof sum->version[s], "%s %s", solvers[s].name, solvers[s].version);
  rg_journal *journal = NULL;
  if (o->journal) {
    const char *versions[RG_SOLVER_COUNT] = {sum->version[0], sum->version[1]};
    st = rg_journal_open(o->journal, versions, &journal, err);
    if (st) return st;
  }

  int n_obl = 0;
  for (int i = 0; i < rules->n; i++) n_obl += rules->rules[i]->n_src;
  rg_obligation *obs = calloc((size_t)n_obl + 1, sizeof *obs);
  task *tasks = calloc((size_t)n_obl * RG_SOLVER_COUNT + 1, sizeof *tasks);
  rg_status *tst = calloc((size_t)n_obl * RG_SOLVER_COUNT + 1, sizeof *tst);
  rg_err *terr = calloc((size_t)n_obl * RG_SOLVER_COUNT + 1, sizeof *terr);
  if (!obs || !tasks || !tst || !terr) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int n_tasks = 0, k = 0;
  for (int i = 0; !st && i < rules->n; i++) {
    const rg_rule *r = rules->rules[i];
    proofs[i].n_obl = r->n_src;
    for (int out = 0; !st && out < r->n_src; out++, k++) {
      st = rg_smt_encode(r, out, ax, o->all_axioms, &obs[k], err);
      if (st) break;
      if (o->dump_dir) st = dump(o->dump_dir, &obs[k], err);
      memcpy(proofs[i].obl[out].sha256, obs[k].sha256, sizeof obs[k].sha256);
      proofs[i].obl[out].n_axioms = obs[k].n_axioms;
      for (int s = 0; s < RG_SOLVER_COUNT && !proofs[i].refuted; s++) {
        rg_obligation_record *rec = &proofs[i].obl[out];
        if (journal && rg_journal_lookup(journal, obs[k].sha256, s, o->timeout_ms, &rec->ans[s])) {
          rec->done[s] = true;
          sum->reused++;
        } else {
          tasks[n_tasks++] = (task){i, out, s, &obs[k]};
        }
      }
    }
  }

  int finished = 0;
  double last_report = now_ms();
  rg_status jst = RG_OK; /* the first failure to write the journal (then journaling stops) */
  rg_err jerr = {0};
  int nth = o->threads > 0 ? o->threads : omp_get_max_threads();
  /* One pool of solver workers per thread (a pool is not shared), ended with the stage. */
  rg_solver_pool **pools = st ? NULL : calloc((size_t)nth, sizeof *pools);
  if (!st && !pools) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < nth; i++)
    if (!(pools[i] = rg_solver_pool_new())) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
    for (int t = 0; t < n_tasks; t++) {
      const task *tk = &tasks[t];
      if (o->stop && *o->stop) continue;
      rg_solver_answer ans;
      rg_solver_pool *pool = pools[omp_get_thread_num()];
      tst[t] = rg_solver_prove_in(pool, &solvers[tk->solver], tk->ob->text, tk->ob->len, o->timeout_ms,
                                  &ans, &terr[t]);
      if (tst[t]) continue;
      rg_obligation_record *rec = &proofs[tk->rule].obl[tk->out];
      rec->ans[tk->solver] = ans; /* each (rule, out, solver) slot has exactly one writer */
      rec->done[tk->solver] = true;
      if (journal) {
#pragma omp critical(rg_prove_journal)
        if (!jst)
          jst = rg_journal_append(journal, tk->ob->sha256, tk->solver, o->timeout_ms, &ans, &jerr);
      }
      int f;
#pragma omp atomic capture
      f = ++finished;
      if (o->progress) {
#pragma omp critical(rg_prove_progress)
        {
          double now = now_ms();
          if (now - last_report > 1000 || f == n_tasks) {
            fprintf(stderr, "prove: %d/%d queries done (%.1f s)\n", f, n_tasks, (now - t0) / 1e3);
            last_report = now;
          }
        }
      }
    }
    for (int t = 0; !st && t < n_tasks; t++)
      if (tst[t]) {
        *err = terr[t];
        st = tst[t];
      }
    /* The proofs stand without their journal: say so, keep them. */
    if (jst)
      fprintf(stderr, "rulegen prove: warning: %s: later answers are not journaled\n", jerr.msg);
  }
  rg_journal_close(journal);
  for (int i = 0; pools && i < nth; i++) rg_solver_pool_free(pools[i]);
  free(pools);
  for (int i = 0; !st && i < rules->n; i++) {
    judge(&proofs[i], o->require);
    sum->n_rules++;
    switch (proofs[i].status) {
    case RG_PROOF_VERIFIED: sum->verified++; break;
    case RG_PROOF_Z3_ONLY: sum->z3_only++; break;
    case RG_PROOF_CVC5_ONLY: sum->cvc5_only++; break;
    case RG_PROOF_UNPROVED: sum->unproved++; break;
    case RG_PROOF_SKIPPED: sum->skipped++; break;
    }
    sum->shipped += proofs[i].shipped;
    sum->refuted += proofs[i].refuted;
    sum->disagreements += proofs[i].disagree;
  }
  for (int i = 0; obs && i < n_obl; i++) rg_obligation_free(&obs[i]);
  free(obs);
  free(tasks);
  free(tst);
  free(terr);
  sum->wall_ms = now_ms() - t0;
  return st;
}
