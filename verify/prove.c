/* verify/prove.c: the proof stage (see prove.h). */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "prove.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axcheck.h"
#include "ir/shapesolve.h"
#include "journal.h"
#include "parallel.h"
#include "proofcache_checks.h"
#include "recheck.h"
#include "refute.h"

bool rg_require_parse(const char *name, rg_require *out) {
  bool both = !strcmp(name, "both"), any = !strcmp(name, "any");
  if (both || any) *out = both ? RG_REQUIRE_BOTH : RG_REQUIRE_ANY;
  return both || any;
}

void rg_prove_opts_init(rg_prove_opts *o) {
  memset(o, 0, sizeof *o);
  o->timeout_ms = RG_DEFAULT_TIMEOUT_MS;
  o->require = RG_REQUIRE_BOTH;
  o->check_axioms = true;
  o->check_typed = true;
  o->refute_sets = 8;
  o->recheck = 64;
  o->core_hint = true;
}

rg_status rg_prove_solvers(const rg_prove_opts *o, rg_solver out[RG_SOLVER_COUNT], rg_err *err) {
  rg_solver *kept = o->kept_solvers;
  if (kept && kept[0].name[0]) { /* set up by an earlier call (a set-up solver has its name) */
    memcpy(out, kept, sizeof *out * RG_SOLVER_COUNT);
    return RG_OK;
  }
  rg_status st = rg_solvers_init(out, o->binary, err);
  if (!st && kept) memcpy(kept, out, sizeof *out * RG_SOLVER_COUNT);
  return st;
}

rg_status rg_answer_keep(rg_answer_record *r, const rg_solver_answer *a) {
  free(r->core);
  size_t lc = strnlen(a->core, sizeof a->core), ld = strnlen(a->detail, sizeof a->detail);
  *r = (rg_answer_record){.result = a->result, .ms = a->ms, .core = malloc(lc + ld + 2)};
  if (!r->core) return RG_ERR_NOMEM;
  memcpy(r->core, a->core, lc);
  r->core[lc] = 0;
  r->detail = r->core + lc + 1;
  memcpy(r->detail, a->detail, ld);
  r->detail[ld] = 0;
  return RG_OK;
}

void rg_rule_proofs_free(rg_rule_proof *p, int n) {
  for (int i = 0; p && i < n; i++) {
    for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++)
      for (int s = 0; s < RG_SOLVER_COUNT; s++) free(p[i].obl[k].ans[s].core);
    free(p[i].refutation);
    memset(&p[i], 0, sizeof p[i]);
  }
}

rg_status rg_proof_refutation_set(rg_rule_proof *p, const char *why, size_t max) {
  size_t n = strnlen(why, max);
  free(p->refutation);
  p->refutation = malloc(n + 1);
  if (!p->refutation) return RG_ERR_NOMEM;
  memcpy(p->refutation, why, n);
  p->refutation[n] = 0;
  return RG_OK;
}

/* The axioms must hold under random testing before anything is proved from them (a proof
 * cache's journal j keeps a pass: proofcache_checks.h). */
static rg_status require_sound(const rg_axioms *ax, const rg_prove_opts *o, rg_journal *j, rg_prove_summary *sum,
                               rg_err *err) {
  rg_axcheck_opts co;
  rg_axcheck_opts_init(&co);
  co.threads = o->threads;
  rg_axiom_verdict *vs = calloc((size_t)ax->rules.n + 1, sizeof *vs);
  if (!vs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int bad = 0;
  bool taken = false;
  rg_status st = rg_axioms_check_journaled(j, ax, &co, vs, &bad, &taken, err);
  sum->axioms_taken += taken, sum->axioms_tested += !taken;
  for (int i = 0; !st && i < ax->rules.n; i++)
    if (!vs[i].sound) {
      const rg_rule *a = ax->rules.rules[i];
      st = rg_err_at(err, RG_ERR_ARG, a->line, 1, "axiom %s is UNSOUND: %s%s", a->name, vs[i].why,
                     bad > 1 ? " (and more: run rulegen check-axioms)" : "");
    }
  if (!st && o->progress)
    fprintf(stderr, "prove: %d axioms random-tested, all sound%s\n", ax->rules.n,
            taken ? " (this test's pass taken from the proof cache)" : "");
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

#define REFUTE_SEED 3

/* Which rules' comparisons j holds passes of (taken[i]; their keys into keys), counted. */
static int refutes_held(const rg_ruleset *rules, const rg_prove_opts *o, rg_journal *j, char (*keys)[65], bool *taken) {
  int n = 0;
#pragma omp parallel for schedule(dynamic, 64) num_threads(rg_verify_threads(o->threads)) reduction(+ : n)
  for (int i = 0; i < rules->n; i++) /* lookups only: nothing is appended meanwhile */
    n += taken[i] = rg_refute_pass_held(j, rules->rules[i], o->refute_sets, REFUTE_SEED, keys[i]);
  return n;
}

/* Compares every rule at o->refute_sets shape sets; marks those whose sides differ. A rule whose
 * comparison agreed before is taken from the journal j (may be NULL), and each that agrees now is
 * kept there as it is known. */
static rg_status refute_all(const rg_ruleset *rules, const rg_prove_opts *o, rg_journal *j, rg_rule_proof *proofs,
                            rg_prove_summary *sum, rg_err *err) {
  char (*keys)[65] = j ? calloc((size_t)rules->n + 1, sizeof *keys) : NULL;
  bool *taken = j ? calloc((size_t)rules->n + 1, sizeof *taken) : NULL;
  if (j && (!keys || !taken)) return free(keys), free(taken), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (j) sum->refute_taken += refutes_held(rules, o, j, keys, taken);
  rg_first_error first = RG_FIRST_ERROR_INIT;
  int n = 0;
#pragma omp parallel for schedule(dynamic, 8) num_threads(rg_verify_threads(o->threads)) reduction(+ : n)
  for (int i = 0; i < rules->n; i++) {
    if ((o->stop && *o->stop) || (taken && taken[i])) continue; /* Ctrl-C: minutes on 100,000s of rules */
    rg_err e;
    rg_rule_proof *p = &proofs[i];
    char why[512];
    double t0 = rg_clock_ms();
    rg_status st = rg_refute_rule(rules->rules[i], o->refute_sets, REFUTE_SEED, o->kernel, &p->refuted, why, sizeof why, &e);
    if (!st && p->refuted && rg_proof_refutation_set(p, why, sizeof why))
      st = rg_err_set(&e, RG_ERR_NOMEM, "out of memory");
    n += p->refuted;
    if (st) rg_first_error_note(&first, i, st, &e);
    if (!st && !p->refuted && j) {
#pragma omp critical(rg_refute_keep)
      rg_refute_pass_keep(j, keys[i], rg_clock_ms() - t0);
    }
  }
  free(keys), free(taken);
  sum->compared += rules->n;
  if (first.st) return rg_first_error_take(&first, err);
  if (o->progress && rules->n) /* none: only the axioms' test ran */
    fprintf(stderr,
            "prove: %d rules compared at %d shape sets each: %d differ (not sent to the solvers; %d passes taken "
            "from the proof cache)\n",
            rules->n, o->refute_sets, n, sum->refute_taken);
  return RG_OK;
}

void rg_proof_suspects(const rg_rule_proof *p, char *buf, size_t n) {
  size_t len = 0;
  if (n) buf[0] = 0;
  for (int k = 0; n && k < p->n_obl; k++)
    for (int s = 0; s < RG_SOLVER_COUNT; s++) {
      const rg_answer_record *a = &p->obl[k].ans[s];
      if (!p->obl[k].done[s] || a->result != RG_SMT_UNSAT) continue;
      for (const char *c = a->core; *c;) {
        size_t w = strcspn(c, " ");
        bool fact = !strncmp(c, RG_SMT_FACT, strlen(RG_SMT_FACT)); /* the encoder's, not an axiom */
        if (w && !fact && !rg_names_word(buf, c, w) && len + w + 2 < n)
          len += (size_t)snprintf(buf + len, n - len, "%s%.*s", len ? " " : "", (int)w, c);
        c += w + (c[w] == ' ');
      }
    }
}

/* Rechecks every rule a solver proved (recheck.h); one whose sides differ somewhere is unproved,
 * its proof false. A proof cache's journal j keeps the passes (proofcache_checks.h). */
static rg_status recheck_proved(const rg_ruleset *rules, const rg_prove_opts *o, rg_journal *j, rg_rule_proof *proofs,
                                rg_prove_summary *sum, rg_err *err) {
  bool *pick = calloc((size_t)rules->n + 1, sizeof *pick);
  rg_recheck_verdict *vs = calloc((size_t)rules->n + 1, sizeof *vs);
  rg_status st = pick && vs ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < rules->n; i++) {
    rg_proof_status ps = proofs[i].status;
    pick[i] = ps != RG_PROOF_UNPROVED && ps != RG_PROOF_SKIPPED;
    sum->rechecked += pick[i];
  }
  rg_recheck_opts ro;
  rg_recheck_opts_init(&ro);
  ro.assignments = o->recheck;
  ro.threads = o->threads;
  ro.stop = o->stop;
  ro.kernel = o->kernel;
  ro.var_shape = o->var_shape;
  ro.var_shape_ctx = o->var_shape_ctx;
  ro.progress = o->progress;
  int differ = 0, taken = 0;
  double t0 = rg_clock_ms();
  if (!st) st = rg_recheck_rules_journaled(j, rules, pick, &ro, vs, &differ, NULL, &taken, err);
  sum->recheck_taken += taken;
  for (int i = 0; !st && i < rules->n; i++) {
    if (!pick[i] || !vs[i].differs) continue;
    rg_rule_proof *p = &proofs[i];
    p->false_proof = true;
    p->status = RG_PROOF_UNPROVED;
    p->shipped = false;
    if (rg_proof_refutation_set(p, vs[i].why, 500)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  if (!st && o->progress && rules->n)
    fprintf(stderr, "prove: %d proved rules rechecked at up to %d assignments each (%d passes taken from the proof "
            "cache): %d differ (%.1f s)\n",
            sum->rechecked, o->recheck, taken, differ, (rg_clock_ms() - t0) / 1e3);
  free(pick);
  free(vs);
  return st;
}

const char *rg_proof_status_name(rg_proof_status s) {
  switch (s) {
  case RG_PROOF_VERIFIED: return "verified";
#define RG_SOLVER(ID, name)                                                                        \
  case RG_PROOF_##ID##_ONLY: return "proved-by-" #name "-only";
#include "solvers.def"
#undef RG_SOLVER
  case RG_PROOF_UNPROVED: return "unproved";
  case RG_PROOF_SKIPPED: return "skipped";
  }
  return "?";
}

/* One query: obligation (rule, output) for one solver; with chain (fail_fast), the next solvers'
 * queries follow on the same thread, each while the one before proves it. */
typedef struct {
  int rule, out, solver;
  bool chain;
  const rg_obligation *ob;
} task;

/* What the parallel queries share. */
typedef struct {
  const rg_prove_opts *o;
  const rg_solver *solvers;
  rg_rule_proof *proofs;
  rg_journal *journal;
  rg_status jst; /* the first failure to write the journal (then journaling stops) */
  rg_err jerr;
  double t0;
  int finished, n_tasks; /* of the chunk of rules [lo, hi) */
  int asked;             /* queries a solver answered (not the journal) */
  int reused;            /* answers to cut-down obligations the journal had (fail_fast's chain) */
  int lo, hi, n_rules;
  rg_progress line; /* rules done, counting a chunk's by its queries answered */
} query_run;

static bool stopped(const rg_prove_opts *o) { return o->stop && *o->stop; }

static rg_status dump(const char *dir, const rg_obligation *ob, rg_err *err) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.smt2", dir, ob->sha256);
  FILE *f = fopen(path, "w");
  if (!f) return rg_err_set(err, RG_ERR_IO, "cannot write %s (does the directory exist?)", path);
  bool ok = fwrite(ob->text, 1, ob->len, f) == ob->len;
  ok &= fclose(f) == 0;
  return ok ? RG_OK : rg_err_set(err, RG_ERR_IO, "cannot write %s", path);
}

/* Whether solver s is given the first solver's core only (prove.h: core_hint). */
static bool hinted(const rg_prove_opts *o, int s) { return o->fail_fast && o->core_hint && s > 0; }

/* The obligation solver s is asked: ob itself, or under core_hint ob cut down to the first
 * solver's unsat core, into *hint (then owned by the caller; dumped if asked). */
static rg_status obligation_for(const rg_prove_opts *o, const rg_obligation *ob, rg_obligation_record *rec, int s,
                                rg_obligation *hint, const rg_obligation **use, rg_err *err) {
  memset(hint, 0, sizeof *hint);
  *use = ob;
  /* a core near the answer's capacity may have lost names: the whole obligation then */
  if (!hinted(o, s) || !rec->ans[0].core || strlen(rec->ans[0].core) + 80 > RG_CORE_MAX) return RG_OK;
  rg_status st = rg_obligation_within_core(ob, rec->ans[0].core, hint, err);
  if (st) return st;
  rec->core_axioms = hint->n_axioms; /* the same from every thread: one core, one text */
  memcpy(rec->core_sha256, hint->sha256, sizeof hint->sha256);
  *use = hint;
  return o->dump_dir ? dump(o->dump_dir, hint, err) : RG_OK;
}

/* Asks `solver` about tk's obligation; records and journals the answer. */
static rg_status ask(query_run *q, rg_solver_pool *pool, const task *tk, int solver, rg_err *err) {
  rg_solver_answer ans;
  rg_obligation_record *rec = &q->proofs[tk->rule].obl[tk->out];
  rg_obligation hint;
  const rg_obligation *ob;
  rg_status st = obligation_for(q->o, tk->ob, rec, solver, &hint, &ob, err);
  /* a cut-down obligation is known only now that the solver before answered afresh (encode_one
   * could not look it up): the journal may still have it, from a run with the same core */
  bool journaled = false;
  if (!st && q->journal && hinted(q->o, solver)) {
#pragma omp critical(rg_prove_journal)
    journaled = rg_journal_lookup(q->journal, ob->sha256, solver, q->o->timeout_ms, &ans);
  }
  if (!st && !journaled) st = rg_solver_prove_in(pool, &q->solvers[solver], ob->text, ob->len, q->o->timeout_ms, &ans, err);
  if (st) return rg_obligation_free(&hint), st;
  if (journaled) {
#pragma omp atomic
    q->reused++;
  } else {
#pragma omp atomic
    q->asked++;
  }
  /* each (rule, out, solver) slot has exactly one writer */
  if (rg_answer_keep(&rec->ans[solver], &ans)) {
    rg_obligation_free(&hint);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rec->done[solver] = true;
  if (q->journal && !journaled) {
#pragma omp critical(rg_prove_journal)
    if (!q->jst) q->jst = rg_journal_append(q->journal, ob->sha256, solver, q->o->timeout_ms, &ans, &q->jerr);
  }
  rg_obligation_free(&hint);
  return RG_OK;
}

/* The progress line (ir/progress.h): tasks are queries, or obligations under fail_fast. */
static void report_task_done(query_run *q) {
  int f;
#pragma omp atomic capture
  f = ++q->finished;
  if (!q->o->progress) return;
#pragma omp critical(rg_prove_progress)
  rg_progress_tick_extra(&q->line, q->lo + (int64_t)(q->hi - q->lo) * f / q->n_tasks, "%d/%d %s of rules %d-%d",
                         f, q->n_tasks, q->o->fail_fast ? "obligations" : "queries", q->lo + 1, q->hi);
}

/* fail_fast: solver `from`'s answer was not a proof, so no later solver unanswered is asked. */
static void not_asked_after(rg_obligation_record *rec, int from) {
  for (int s = from + 1; s < RG_SOLVER_COUNT; s++)
    if (!rec->done[s]) rec->not_asked[s] = true;
}

/* Queues the queries obligation t.ob still needs. Under fail_fast each solver waits for the
 * unsat of the one before it (solvers.def's order): queued behind its query, asked at once
 * after a journaled unsat, never after another answer. */
static void add_tasks(task *tasks, int *n, task t, rg_obligation_record *rec,
                      const rg_prove_opts *o) {
  if (!o->fail_fast) {
    for (int s = 0; s < RG_SOLVER_COUNT; s++)
      if (!rec->done[s]) tasks[(*n)++] = (task){t.rule, t.out, s, false, t.ob};
    return;
  }
  for (int s = 0; s < RG_SOLVER_COUNT; s++) {
    if (!rec->done[s]) {
      bool later = false;
      for (int k = s + 1; k < RG_SOLVER_COUNT; k++) later |= !rec->done[k];
      tasks[(*n)++] = (task){t.rule, t.out, s, later, t.ob};
      return;
    }
    if (rec->ans[s].result != RG_SMT_UNSAT) {
      not_asked_after(rec, s);
      return;
    }
  }
}

/* fail_fast: after tk's solver answered, asks the next solvers in turn while each before
 * proves it (one already answered from the journal is passed over). */
static rg_status ask_chain(query_run *q, rg_solver_pool *pool, const task *tk, rg_err *err) {
  rg_obligation_record *rec = &q->proofs[tk->rule].obl[tk->out];
  for (int s = tk->solver; s + 1 < RG_SOLVER_COUNT; s++) {
    if (rec->ans[s].result != RG_SMT_UNSAT) {
      not_asked_after(rec, s);
      return RG_OK;
    }
    if (rec->done[s + 1]) continue;
    if (stopped(q->o)) return RG_OK;
    rg_status st = ask(q, pool, tk, s + 1, err);
    if (st) return st;
  }
  return RG_OK;
}

/* Whether on obligation r one solver proved what another refuted. */
static bool disagree_on(const rg_obligation_record *r) {
  bool unsat = false, sat = false;
  for (int s = 0; s < RG_SOLVER_COUNT; s++) {
    unsat |= r->done[s] && r->ans[s].result == RG_SMT_UNSAT;
    sat |= r->done[s] && r->ans[s].result == RG_SMT_SAT;
  }
  return unsat && sat;
}

static void judge(rg_rule_proof *p, rg_require req) {
  bool proved[RG_SOLVER_COUNT], all_done = true;
  for (int s = 0; s < RG_SOLVER_COUNT; s++) proved[s] = true;
  p->disagree = false;
  if (p->refuted) {
    p->status = RG_PROOF_UNPROVED;
    p->shipped = false;
    return;
  }
  for (int k = 0; k < p->n_obl; k++) {
    const rg_obligation_record *r = &p->obl[k];
    for (int s = 0; s < RG_SOLVER_COUNT; s++) {
      all_done &= r->done[s] || r->not_asked[s];
      proved[s] &= r->done[s] && r->ans[s].result == RG_SMT_UNSAT;
    }
    p->disagree |= disagree_on(r);
  }
  int first = -1, n_proved = 0;
  for (int s = RG_SOLVER_COUNT - 1; s >= 0; s--)
    if (proved[s]) first = s, n_proved++;
  if (n_proved == RG_SOLVER_COUNT) p->status = RG_PROOF_VERIFIED;
  else if (first >= 0) p->status = (rg_proof_status)(RG_PROOF_VERIFIED + 1 + first);
  else p->status = all_done ? RG_PROOF_UNPROVED : RG_PROOF_SKIPPED;
  p->shipped = p->status == RG_PROOF_VERIFIED || (req == RG_REQUIRE_ANY && first >= 0);
}

/* Rules per chunk of obligations encoded and held at once, unless the options say. */
#define PROVE_CHUNK 4096

/* Encodes obligation (i, out) into *ob, dumps it if asked, and takes what the journal knows
 * (counted into *reused). Called from several threads at once: nothing is appended to the
 * journal while a chunk is encoded. */
static rg_status encode_one(query_run *q, const rg_rule *r, int i, int out, const rg_axioms *ax,
                            rg_obligation *ob, int *reused, rg_err *err) {
  const rg_prove_opts *o = q->o;
  rg_status st = rg_smt_encode(r, out, ax, o->all_axioms, ob, err);
  if (st) return st;
  if (o->dump_dir) st = dump(o->dump_dir, ob, err);
  rg_obligation_record *rec = &q->proofs[i].obl[out];
  memcpy(rec->sha256, ob->sha256, sizeof ob->sha256);
  rec->n_axioms = ob->n_axioms;
  for (int s = 0; !st && q->journal && s < RG_SOLVER_COUNT && !q->proofs[i].refuted; s++) {
    /* under core_hint a later solver's answer is filed under the cut-down obligation, known
     * only from the first solver's core */
    if (hinted(o, s) && !(rec->done[0] && rec->ans[0].result == RG_SMT_UNSAT)) break;
    rg_obligation hint;
    const rg_obligation *asked;
    rg_solver_answer ans;
    st = obligation_for(o, ob, rec, s, &hint, &asked, err);
    if (!st && rg_journal_lookup(q->journal, asked->sha256, s, o->timeout_ms, &ans)) {
      st = rg_answer_keep(&rec->ans[s], &ans) ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
      rec->done[s] = !st;
      *reused += !st;
    }
    rg_obligation_free(&hint);
  }
  return st;
}

/* Encodes the obligations of rules [lo, hi) into obs (first[i - lo]: rule i's first), on every
 * thread (a warm rerun is mostly this), then queues the queries they still need in order. */
static rg_status encode_chunk(query_run *q, const rg_ruleset *rules, int lo, int hi, const int *first,
                              const rg_axioms *ax, rg_obligation *obs, task *tasks, int *n_tasks,
                              rg_prove_summary *sum, rg_err *err) {
  rg_first_error fe = RG_FIRST_ERROR_INIT;
  int reused = 0;
#pragma omp parallel for schedule(dynamic, 16) num_threads(rg_verify_threads(q->o->threads)) reduction(+ : reused)
  for (int i = lo; i < hi; i++) {
    rg_err e;
    rg_status st = RG_OK;
    for (int out = 0; !st && out < rules->rules[i]->n_src; out++)
      st = encode_one(q, rules->rules[i], i, out, ax, &obs[first[i - lo] + out], &reused, &e);
    if (st) rg_first_error_note(&fe, i, st, &e);
  }
  sum->reused += reused;
  if (fe.st) return rg_first_error_take(&fe, err);
  *n_tasks = 0;
  for (int i = lo; i < hi; i++)
    for (int out = 0; out < rules->rules[i]->n_src && !q->proofs[i].refuted; out++)
      add_tasks(tasks, n_tasks, (task){i, out, 0, false, &obs[first[i - lo] + out]}, &q->proofs[i].obl[out], q->o);
  return RG_OK;
}

/* Asks the solvers the queued queries on nth threads (one pool each); the first error stands. */
static rg_status run_tasks(query_run *q, const task *tasks, int n_tasks, rg_solver_pool **pools,
                           int nth, rg_status *tst, rg_err *terr, rg_err *err) {
  const rg_prove_opts *o = q->o;
  q->finished = 0, q->n_tasks = n_tasks;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth)
  for (int t = 0; t < n_tasks; t++) {
    const task *tk = &tasks[t];
    if (stopped(o)) continue;
    rg_solver_pool *pool = pools[omp_get_thread_num()];
    tst[t] = ask(q, pool, tk, tk->solver, &terr[t]);
    if (!tst[t] && tk->chain) tst[t] = ask_chain(q, pool, tk, &terr[t]);
    if (!tst[t]) report_task_done(q);
  }
  for (int t = 0; t < n_tasks; t++)
    if (tst[t]) {
      *err = terr[t];
      return tst[t];
    }
  return RG_OK;
}

/* Encodes the obligations of rules [lo, hi), takes what the journal knows, and asks the solvers
 * the rest on nth threads. */
static rg_status prove_chunk(query_run *q, const rg_ruleset *rules, int lo, int hi,
                             const rg_axioms *ax, rg_solver_pool **pools, int nth,
                             rg_prove_summary *sum, rg_err *err) {
  int n_obl = 0, n_tasks = 0;
  int *first = malloc(sizeof *first * (size_t)(hi - lo + 1));
  for (int i = lo; first && i < hi; i++)
    first[i - lo] = n_obl, n_obl += rules->rules[i]->n_src;
  size_t n_max = (size_t)n_obl * RG_SOLVER_COUNT + 1;
  rg_obligation *obs = calloc((size_t)n_obl + 1, sizeof *obs);
  task *tasks = calloc(n_max, sizeof *tasks);
  rg_status *tst = calloc(n_max, sizeof *tst);
  rg_err *terr = calloc(n_max, sizeof *terr);
  rg_status st =
      first && obs && tasks && tst && terr ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = encode_chunk(q, rules, lo, hi, first, ax, obs, tasks, &n_tasks, sum, err);
  q->lo = lo, q->hi = hi;
  if (!st) st = run_tasks(q, tasks, n_tasks, pools, nth, tst, terr, err);
  for (int i = 0; obs && i < n_obl; i++)
    rg_obligation_free(&obs[i]);
  free(obs);
  free(first);
  free(tasks);
  free(tst);
  free(terr);
  return st;
}

/* What rg_prove_rules refuses before any work: a bad timeout or requirement, a bare graph. */
static rg_status check_request(const rg_ruleset *rules, const rg_prove_opts *o, rg_err *err) {
  if (o->timeout_ms < 1) return rg_err_set(err, RG_ERR_ARG, "timeout must be at least 1 ms");
  if (o->fail_fast && o->require != RG_REQUIRE_BOTH)
    return rg_err_set(err, RG_ERR_ARG,
                      "fail-fast needs --require both (under any, cvc5 counts alone)");
  for (int i = 0; i < rules->n; i++)
    if (rules->rules[i]->n_tgt == 0)
      return rg_err_at(err, RG_ERR_ARG, rules->rules[i]->line, 1,
                       "a bare graph (no '=> target') cannot be proved");
  return RG_OK;
}

/* The checks before the solvers: sound axioms, typed rules, the comparison at shape sets. */
static rg_status precheck(const rg_ruleset *rules, const rg_axioms *ax, const rg_prove_opts *o, rg_journal *j,
                          rg_rule_proof *proofs, rg_prove_summary *sum, rg_err *err) {
  rg_status st = o->check_axioms ? require_sound(ax, o, j, sum, err) : RG_OK;
  for (int i = 0; !st && o->check_typed && i < rules->n; i++)
    st = require_typed(rules->rules[i], err);
  if (!st && o->refute_sets > 0) st = refute_all(rules, o, j, proofs, sum, err);
  return st;
}

/* Sets up every solver of the table, records their versions, opens the journal if asked. */
static rg_status open_solvers(const rg_prove_opts *o, rg_solver *solvers, rg_prove_summary *sum,
                              rg_journal **journal, rg_err *err) {
  rg_status st = rg_prove_solvers(o, solvers, err);
  if (st) return st;
  const char *versions[RG_SOLVER_COUNT];
  for (int s = 0; s < RG_SOLVER_COUNT; s++) {
    snprintf(sum->version[s], sizeof sum->version[s], "%s %s", solvers[s].name, solvers[s].version);
    versions[s] = sum->version[s];
  }
  *journal = o->kept_journal ? *o->kept_journal : NULL;
  if (*journal) st = rg_journal_catch_up(*journal, err);
  else if (o->journal)
    st = o->journal_cache ? rg_journal_open_cache(o->journal, versions, journal, err)
                          : rg_journal_open(o->journal, versions, journal, err);
  if (!st && o->kept_journal) *o->kept_journal = *journal;
  sum->cache_refused += rg_journal_refused(*journal);
  return st;
}

/* Closes the journal unless the caller keeps it for its next call. */
static void release(const rg_prove_opts *o, rg_journal *journal) {
  if (!o->kept_journal) rg_journal_close(journal);
}

/* Asks the solvers about every rule, chunk by chunk, on one pool of workers per thread (a pool
 * is not shared), ended with the stage. */
static rg_status ask_all(query_run *q, const rg_ruleset *rules, const rg_axioms *ax,
                         rg_prove_summary *sum, rg_err *err) {
  const rg_prove_opts *o = q->o;
  int nth = rg_verify_threads(o->threads);
  rg_solver_pool **pools = calloc((size_t)nth, sizeof *pools);
  rg_status st = pools ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < nth; i++)
    if (!(pools[i] = rg_solver_pool_new())) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* In chunks, so that only one chunk's obligation texts are held (the 160,000 rules of a
   * depth-4 round took 18 GB all at once). */
  int chunk = o->chunk_rules > 0 ? o->chunk_rules : PROVE_CHUNK;
  rg_progress_start(&q->line, "prove", "rules", rules->n, o->progress);
  for (int lo = 0; !st && lo < rules->n && !stopped(o); lo += chunk) {
    int hi = rules->n - lo < chunk ? rules->n : lo + chunk;
    st = prove_chunk(q, rules, lo, hi, ax, pools, nth, sum, err);
  }
  rg_progress_finish(&q->line);
  for (int i = 0; pools && i < nth; i++) rg_solver_pool_free(pools[i]);
  free(pools);
  return st;
}

/* Counts the judged proofs into sum. */
static void tally(const rg_rule_proof *proofs, int n, rg_prove_summary *sum) {
  for (int i = 0; i < n; i++) {
    rg_proof_status s = proofs[i].status;
    sum->n_rules++;
    if (s == RG_PROOF_VERIFIED) sum->verified++;
    else if (s == RG_PROOF_UNPROVED) sum->unproved++;
    else if (s == RG_PROOF_SKIPPED) sum->skipped++;
    else sum->only[s - RG_PROOF_VERIFIED - 1]++;
    sum->shipped += proofs[i].shipped;
    sum->refuted += proofs[i].refuted;
    sum->false_proofs += proofs[i].false_proof;
    sum->disagreements += proofs[i].disagree;
    for (int o = 0; o < proofs[i].n_obl; o++)
      for (int k = 0; k < RG_SOLVER_COUNT; k++) {
        const rg_obligation_record *rec = &proofs[i].obl[o];
        if (!rec->done[k] || (unsigned)rec->ans[k].result >= RG_SMT_RESULTS) continue;
        sum->answers[k][rec->ans[k].result]++;
        sum->answer_ms[k][rec->ans[k].result] += rec->ans[k].ms;
      }
  }
}

rg_status rg_prove_rules(const rg_ruleset *rules, const rg_axioms *ax, const rg_prove_opts *o,
                         rg_rule_proof *proofs, rg_prove_summary *sum, rg_err *err) {
  memset(sum, 0, sizeof *sum);
  memset(proofs, 0, sizeof *proofs * (size_t)rules->n);
  double t0 = rg_clock_ms();
  rg_status st = check_request(rules, o, err);
  rg_solver solvers[RG_SOLVER_COUNT];
  rg_journal *journal = NULL;
  if (!st) st = open_solvers(o, solvers, sum, &journal, err);
  /* a proof cache keeps the checks' passes too; a run's own journal (OUT.proofs) does not */
  rg_journal *checks = o->journal_cache ? journal : NULL;
  if (!st) st = precheck(rules, ax, o, checks, proofs, sum, err);
  if (st) return release(o, journal), st;
  /* Every obligation is counted before any is asked: a rule a stop leaves unasked is skipped,
   * never taken for proved by having none. */
  for (int i = 0; i < rules->n; i++)
    proofs[i].n_obl = rules->rules[i]->n_src;
  query_run q = {.o = o, .solvers = solvers, .proofs = proofs, .journal = journal, .t0 = t0,
                 .n_rules = rules->n};
  st = ask_all(&q, rules, ax, sum, err);
  sum->asked += q.asked, sum->reused += q.reused;
  /* The proofs stand without their journal: say so, keep them. */
  if (q.jst)
    fprintf(stderr, "rulegen prove: warning: %s: later answers are not journaled\n", q.jerr.msg);
  for (int i = 0; !st && i < rules->n; i++) judge(&proofs[i], o->require);
  if (!st && o->recheck > 0 && !stopped(o)) st = recheck_proved(rules, o, checks, proofs, sum, err);
  release(o, journal);
  if (!st) tally(proofs, rules->n, sum);
  sum->wall_ms = rg_clock_ms() - t0;
  return st;
}
