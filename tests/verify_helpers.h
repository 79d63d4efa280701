/* tests/verify_helpers.h: helpers the verify tests share. */
#ifndef RG_TESTS_VERIFY_HELPERS_H
#define RG_TESTS_VERIFY_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "check.h"
#include "verify/verify.h"

/* Releases an array of n proofs from prove_with: what they own, then the array. */
static inline void proofs_free(rg_rule_proof *p, int n) {
  rg_rule_proofs_free(p, n);
  free(p);
}

/* Proves rules (no counterexample search first: every rule reaches the solvers; with
 * check_typed false, not even a search for shapes where they type, which the shape solver may
 * not find for a reshape to fixed sizes); returns the proofs (caller frees: proofs_free) and
 * checks cores name existing axioms. */
static inline rg_rule_proof *prove_with(const rg_axioms *ax, const char *text, int timeout_ms, bool check_typed,
                                        bool all_axioms, rg_ruleset *rs, rg_prove_summary *sum) {
  rg_ruleset_init(rs);
  rg_err err;
  if (rg_text_parse(text, strlen(text), rs, &err)) {
    fprintf(stderr, "cannot parse: %s\n", err.msg);
    exit(2);
  }
  rg_prove_opts o;
  rg_prove_opts_init(&o);
  o.timeout_ms = timeout_ms;
  o.refute_sets = 0; /* the solvers themselves are under test: false rules go to them too */
  o.check_axioms = false; /* test_verify checks them once; here they would run at every call */
  o.check_typed = check_typed;
  o.all_axioms = all_axioms;
  rg_rule_proof *p = calloc((size_t)rs->n, sizeof *p);
  rg_status st = rg_prove_rules(rs, ax, &o, p, sum, &err);
  CHECK_MSG(st == RG_OK, "%s", err.msg);
  for (int i = 0; i < rs->n; i++)
    for (int k = 0; k < p[i].n_obl; k++)
      for (int s = 0; s < RG_SOLVER_COUNT; s++) {
        const rg_answer_record *a = &p[i].obl[k].ans[s];
        if (!p[i].obl[k].done[s] || a->result != RG_SMT_UNSAT) continue;
        CHECK_MSG(a->core[0], "empty unsat core for %s", rs->rules[i]->name);
        for (const char *c = a->core; *c;) {
          size_t n = strcspn(c, " ");
          bool fact = n > strlen(RG_SMT_FACT) && !strncmp(c, RG_SMT_FACT, strlen(RG_SMT_FACT));
          CHECK_MSG(fact || rg_axioms_find(ax, c, n) >= 0, "core of %s names '%.*s', not an axiom or fact",
                    rs->rules[i]->name, (int)n, c);
          c += n;
          while (*c == ' ') c++;
        }
      }
  return p;
}

/* The same, with the axioms relevant to each rule (as rulegen prove does by default). */
static inline rg_rule_proof *prove_typed(const rg_axioms *ax, const char *text, int timeout_ms, bool check_typed,
                                         rg_ruleset *rs, rg_prove_summary *sum) {
  return prove_with(ax, text, timeout_ms, check_typed, false, rs, sum);
}

static inline rg_rule_proof *prove(const rg_axioms *ax, const char *text, int timeout_ms, rg_ruleset *rs,
                                   rg_prove_summary *sum) {
  return prove_typed(ax, text, timeout_ms, true, rs, sum);
}

/* Every rule of text is verified by both solvers (check_typed: after a search for shapes where
 * it types). The timeout is generous: these goals are true, and a machine busy with other builds
 * slows the solvers several times over (cvc5 passed 10 s on split's two obligations in the
 * sanitizer build at load 9); the test is about what is proved, not how fast. */
static inline void expect_verified(const rg_axioms *ax, const char *text, bool check_typed) {
  rg_ruleset rs;
  rg_prove_summary sum;
  rg_rule_proof *p = prove_typed(ax, text, 60000, check_typed, &rs, &sum);
  for (int i = 0; i < rs.n; i++)
    CHECK_MSG(p[i].status == RG_PROOF_VERIFIED, "%s: %s", rs.rules[i]->name, rg_proof_status_name(p[i].status));
  proofs_free(p, rs.n);
  rg_ruleset_free(&rs);
}

/* Every rule of text is proved by z3 at least: goals cvc5 times out on since the axioms they
 * need are guarded by the sizes that make both of their sides type (verify/axioms.rules). */
static inline void expect_proved_by_z3(const rg_axioms *ax, const char *text, bool check_typed) {
  rg_ruleset rs;
  rg_prove_summary sum;
  rg_rule_proof *p = prove_typed(ax, text, 10000, check_typed, &rs, &sum);
  for (int i = 0; i < rs.n; i++)
    CHECK_MSG(p[i].status == RG_PROOF_VERIFIED || p[i].status == RG_PROOF_Z3_ONLY, "%s: %s", rs.rules[i]->name,
              rg_proof_status_name(p[i].status));
  proofs_free(p, rs.n);
  rg_ruleset_free(&rs);
}

/* No rule of text is proved by either solver within timeout_ms (all_axioms: with every axiom
 * asserted, as rulegen prove -A). */
static inline void expect_unproved(const rg_axioms *ax, const char *text, int timeout_ms, bool check_typed,
                                   bool all_axioms) {
  rg_ruleset rs;
  rg_prove_summary sum;
  rg_rule_proof *p = prove_with(ax, text, timeout_ms, check_typed, all_axioms, &rs, &sum);
  for (int i = 0; i < rs.n; i++)
    for (int s = 0; s < RG_SOLVER_COUNT; s++)
      CHECK_MSG(p[i].obl[0].ans[s].result != RG_SMT_UNSAT, "%s proved by %s%s", rs.rules[i]->name,
                s ? "cvc5" : "z3", all_axioms ? " with every axiom" : "");
  proofs_free(p, rs.n);
  rg_ruleset_free(&rs);
}

/* Loads the project's axioms (tests run in the build folder); exits 1 naming the line on error. */
static inline void load_axioms(rg_axioms *ax) {
  rg_err err;
  if (rg_axioms_load("../verify/axioms.rules", ax, &err)) {
    fprintf(stderr, "verify/axioms.rules:%d: %s\n", err.line, err.msg);
    exit(1);
  }
}

static inline double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Descriptors this process has open (a worker must leave none behind). */
static inline int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

/* A process we started and ended is reaped: waitpid finds no such child. */
static inline bool reaped(int pid) {
  int status;
  return pid > 0 && waitpid(pid, &status, WNOHANG) < 0 && errno == ECHILD;
}

#endif
