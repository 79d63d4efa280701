/* verify/prove.h: the proof stage: prove a rule set from the axioms with z3 and cvc5.
 *
 * Each rule gives one obligation per output pair (rg_smt_encode); every obligation goes to both
 * solvers, in parallel over (obligation, solver) with OpenMP. A solver proves a rule when it
 * answers unsat on all its obligations. Status: verified (both), proved-by-z3-only,
 * proved-by-cvc5-only, unproved. A rule shipped under --require both needs verified; under any,
 * one proof. An obligation that one solver proves and the other refutes (sat) is a
 * disagreement: counted, flagged on the rule, never silent. Before the solvers, each rule is
 * compared at shape sets the shape solver finds (refute.h): one whose sides differ there is
 * unproved with that counterexample, and its queries are not run. With fail_fast (require both),
 * cvc5 is asked only about obligations z3 proved: a rule z3 misses is unproved either way, and
 * its cvc5 query (most often a timeout as long as z3's) is saved; proved-by-cvc5-only is then
 * not observed. The solvers are solvers.def's table: with more than two, "both" is every one,
 * and fail_fast asks each only what the one before it proved. With core_hint (the default under
 * fail_fast) the solvers after the first are given the obligation cut down to the axioms of the
 * first one's unsat core (rg_obligation_within_core): a subset of the premises, so their unsat
 * is still a proof of the whole obligation, found on their own, and it comes far sooner (cvc5's
 * median on depth-4 rules fell from about 100 ms to about 30 ms: bench/README).
 */
#ifndef RG_VERIFY_PROVE_H
#define RG_VERIFY_PROVE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "axioms.h"
#include "smt.h"
#include "solver.h"
#include "timeout.h"

typedef enum { RG_REQUIRE_BOTH = 0, RG_REQUIRE_ANY = 1 } rg_require;

/* verified: every solver proved the rule; RG_PROOF_<ID>_ONLY (one per solvers.def line, in its
 * order): some but not every solver did, the first of them <ID> ("proved-by-z3-only"). */
typedef enum {
  RG_PROOF_VERIFIED = 0,
#define RG_SOLVER(ID, name) RG_PROOF_##ID##_ONLY,
#include "solvers.def"
#undef RG_SOLVER
  RG_PROOF_UNPROVED,
  RG_PROOF_SKIPPED, /* not attempted: interrupted */
} rg_proof_status;

typedef struct {
  int timeout_ms;       /* per query and solver (default RG_DEFAULT_TIMEOUT_MS) */
  int threads;          /* OpenMP threads; 0 = OpenMP's default */
  rg_require require;
  bool all_axioms;      /* assert every axiom, not only those over the rule's operators */
  /* per solver kind: its own binary to run instead of its helper (NULL: the helper; a backend
   * without a binary mode ignores it): rulegen prove --cvc5 PATH */
  const char *binary[RG_SOLVER_COUNT];
  /* If set, the caller's RG_SOLVER_COUNT solvers, zeroed before the first call: the first call
   * that needs them sets them up there (rg_solvers_init asks each helper its version) and later
   * calls take them, as kept_journal keeps the journal: a run's rounds and chunks set up once. */
  rg_solver *kept_solvers;
  const char *dump_dir;  /* if set, each obligation is written there as <sha256>.smt2 */
  const volatile sig_atomic_t *stop; /* if set and non-zero, remaining queries are skipped */
  bool progress;        /* a progress line on stderr */
  bool check_axioms;    /* random-test the axioms first (default true): an unsound one is an error */
  bool check_typed;     /* require each rule well-typed at some shapes first (default true) */
  int refute_sets; /* shape sets each rule is compared at before the solvers (default 8, 0 off) */
  const char *journal; /* if set: answers are read from and appended to this file (journal.h) */
  bool journal_cache;  /* the journal is a proof cache's: a line not believed is refused, not an error */
  /* If set, the journal stays open after the call, in *kept_journal (NULL before the first; the
   * caller closes it with rg_journal_close), and a later call with it reads only the lines
   * appended since (rg_journal_catch_up): a run's proof rounds read the file once. */
  struct rg_journal **kept_journal;
  bool fail_fast; /* require both: ask each solver only what the one before it (solvers.def's
                   * order: cvc5 only what z3 proved) proved (a rule one misses cannot pass) */
  bool core_hint;  /* fail_fast: the solvers after the first see only the axioms of the first
                   * one's unsat core (default true) */
  int chunk_rules; /* rules whose obligations are encoded and held at once (0: 4096) */
  /* The deep recheck of every proved rule (recheck.h) at this many assignments (default 64, 0
   * off): a rule the solvers proved whose sides differ somewhere is unproved (false_proof),
   * and some axiom of its proofs' cores is unsound. kernel, var_shape, var_shape_ctx: as in
   * rg_recheck_opts (kernel also serves the comparison before the solvers). */
  int recheck;
  rg_node_kernel kernel;
  const rg_shape *(*var_shape)(const void *ctx, const char *name);
  const void *var_shape_ctx;
} rg_prove_opts;

void rg_prove_opts_init(rg_prove_opts *o);

/* o's solvers into out: those o->kept_solvers holds, else set up by rg_solvers_init with
 * o->binary (and kept there, when o keeps them). */
rg_status rg_prove_solvers(const rg_prove_opts *o, rg_solver out[RG_SOLVER_COUNT],
                           rg_err *err) RG_MUST_CHECK;
/* --require's value: "both" or "any" into *out; false for anything else. */
bool rg_require_parse(const char *name, rg_require *out);

/* A solver's answer as a proof record keeps it: rg_solver_answer (the solver's working answer)
 * with its fixed buffers (2.3 KB) cut to their text, since most cores are under 200 bytes (a
 * depth-4 round's 139,000 records took 2.7 GB with them). core and detail share one
 * allocation, owned through core: both non-NULL (maybe "") once the record's done[s] is set,
 * both NULL before; rg_answer_keep fills it, rg_rule_proofs_free frees it. */
typedef struct {
  rg_smt_result result;
  double ms;
  char *core;   /* as rg_solver_answer's */
  char *detail; /* as rg_solver_answer's; inside core's allocation, never freed itself */
} rg_answer_record;

/* Copies a into *r (what r held freed first). RG_ERR_NOMEM when out of memory (r then holds
 * nothing, core NULL). */
rg_status rg_answer_keep(rg_answer_record *r, const rg_solver_answer *a) RG_MUST_CHECK;

typedef struct {
  char sha256[65];
  int n_axioms;
  rg_answer_record ans[RG_SOLVER_COUNT]; /* ans[s] set when done[s] */
  bool done[RG_SOLVER_COUNT];
  /* fail_fast: the solver before this one (in solvers.def's order) did not prove it, so this
   * one was not asked */
  bool not_asked[RG_SOLVER_COUNT];
  /* core_hint: the obligation the solvers after the first were given (its axioms those of the
   * first one's unsat core; core_axioms 0 and core_sha256 "" when none was) */
  int core_axioms;
  char core_sha256[65];
} rg_obligation_record;

/* One rule's proof. It owns its answers' texts and its refutation: release an array of them
 * with rg_rule_proofs_free (copying a record moves what it owns). */
typedef struct {
  rg_proof_status status;
  bool shipped;    /* meets the requirement */
  bool disagree;   /* one solver unsat, the other sat, on some obligation */
  bool refuted;    /* the sides differ at some shapes: unproved, not sent to the solvers */
  bool false_proof; /* a solver proved it, but the recheck found shapes where its sides differ:
                     * unproved (an axiom of its cores is unsound: rg_proof_suspects) */
  char *refutation; /* refuted or false_proof: the counterexample (owned; NULL otherwise) */
  int n_obl;
  rg_obligation_record obl[RG_RULE_MAX_OUTPUTS];
} rg_rule_proof;

/* Frees what the n records of p own (answers' texts, refutations), not p itself, and leaves
 * each record zeroed: fresh for rg_prove_rules again. p NULL is a no-op. */
void rg_rule_proofs_free(rg_rule_proof *p, int n);

/* Sets p's refutation to the first max bytes of why (the one before freed). RG_ERR_NOMEM when
 * out of memory (the refutation then NULL). */
rg_status rg_proof_refutation_set(rg_rule_proof *p, const char *why, size_t max) RG_MUST_CHECK;

typedef struct {
#define RG_PROVE_COUNT(field, what) int field;
#include "prove_counts.def"
#undef RG_PROVE_COUNT
  int only[RG_SOLVER_COUNT]; /* proved-by-<solver>-only, by the solver that names the status */
  /* where the proof time goes: every answer the rules' records hold, by solver and result, and
   * the time each took when a solver gave it (in this run, or in the run whose answer the
   * journal or proof cache kept) */
  int answers[RG_SOLVER_COUNT][RG_SMT_RESULTS];
  double answer_ms[RG_SOLVER_COUNT][RG_SMT_RESULTS];
  double wall_ms;
  char version[RG_SOLVER_COUNT][96]; /* "z3 4.8.12" */
} rg_prove_summary;

/* Adds every counter of s to t (and the time); t takes s's versions. */
void rg_prove_summary_add(rg_prove_summary *t, const rg_prove_summary *s);
/* The summary as one JSON object: the counters by name, "only" and "versions" by solver. */
void rg_prove_summary_json(const rg_prove_summary *s, FILE *out);
/* "<lead>answers: z3 N unsat (T s), N unknown (T s); cvc5 ..." (the results each solver gave,
 * with their time), or nothing when no solver answered. */
void rg_prove_answers_print(FILE *out, const char *lead, const rg_prove_summary *s);
/* The versions of the solvers that ran, joined by ", " into buf (n bytes); "none ran" when no
 * query reached them (a run with no candidates), never an empty list. Returns the text. */
const char *rg_prove_summary_versions(const rg_prove_summary *s, char *buf, size_t n);
/* Where the answers came from: "<lead>N solver answers taken from WHERE (earlier runs'), M asked
 * now", a line of the checks' passes taken there (proofcache_checks.h) where there were any, and
 * where refused lines of a proof cache were not believed (refused, counted once) a WARNING line
 * after warn_lead. */
void rg_prove_journal_print(FILE *out, const char *lead, const char *warn_lead, const char *where,
                            const rg_prove_summary *s, int refused);

const char *rg_proof_status_name(rg_proof_status s);

/* The axioms named in the unsat cores of p's answers, each once, space-separated, into buf
 * (truncated to n): for a false proof, the suspects. */
void rg_proof_suspects(const rg_rule_proof *p, char *buf, size_t n);

/* Proves every rule of rules (each with a target) from ax. proofs must have rules->n entries
 * that own nothing (fresh, or released by rg_rule_proofs_free: they are zeroed first, so a
 * second call on the same array without the release leaks the first's texts); release them
 * with rg_rule_proofs_free whatever the status (a failed run leaves them partial).
 * First (unless switched off in o) the axioms are random-tested (verify/axcheck.h) and every
 * rule must be well-typed at some shapes (ir/shapesolve.h): proofs from an unsound axiom, or of
 * a rule whose sides never have equal output types, would mean nothing.
 * Errors: an unsound axiom (RG_ERR_ARG, naming it, with a counterexample), an ill-typed rule
 * (RG_ERR_SHAPE) or one without a target (RG_ERR_ARG), both with err->line set to its line; a
 * solver that cannot be set up (RG_ERR_IO: missing cvc5 binary), a dump file that cannot be
 * written, allocation. Solver answers (sat, unknown, timeout, crash) are results, not errors. */
rg_status rg_prove_rules(const rg_ruleset *rules, const rg_axioms *ax, const rg_prove_opts *o,
                         rg_rule_proof *proofs, rg_prove_summary *sum, rg_err *err) RG_MUST_CHECK;

#endif
