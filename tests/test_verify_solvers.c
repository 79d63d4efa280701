/* tests/test_verify_solvers.c: the solver table (verify/solvers.def). Every entry has a name
 * that maps back to its kind, a helper program, and (when its helper is installed: here every
 * solver's is built) answers a trivially unsat query with unsat, through a one-shot process and
 * through a pool; the proof statuses and the journal take their names from the table. z3 proves
 * a goal only model-based instantiation finds (its trigger matches no term: E-matching runs dry
 * and says unknown), through its second pass (verify/z3_serve.h), whose budget grows with the
 * limit. */
#include "check.h"
#include "verify/solver_impl.h"
#include "verify/verify.h"
#include "verify/z3_options.h"

static const char unsat_query[] =
    "(set-option :produce-unsat-cores true)\n(set-logic QF_LIA)\n(declare-const a Int)\n"
    "(assert (! (not (= a a)) :named goal))\n(check-sat)\n(get-unsat-core)\n";

/* f(a) = a follows from the axiom at x = a, but the axiom's pattern f(f x) matches nothing. */
static const char mbqi_query[] =
    "(set-option :produce-unsat-cores true)\n(set-logic UF)\n(declare-sort T 0)\n(declare-fun f (T) T)\n"
    "(declare-const a T)\n(assert (! (forall ((x T)) (! (= (f x) a) :pattern ((f (f x))))) :named ax))\n"
    "(assert (! (not (= (f a) a)) :named goal))\n(check-sat)\n(get-unsat-core)\n";

static void test_z3_mbqi_pass(rg_solver_pool *pool) {
  rg_solver s;
  rg_err err;
  CHECK_MSG(rg_solver_init(&s, RG_SOLVER_Z3, NULL, &err) == RG_OK, "%s", err.msg);
  rg_solver_answer a;
  CHECK(rg_solver_prove_in(pool, &s, mbqi_query, sizeof mbqi_query - 1, 5000, &a, &err) == RG_OK);
  CHECK_MSG(a.result == RG_SMT_UNSAT, "z3: %s (%s)", rg_smt_result_name(a.result), a.detail);
}

static void test_entry(rg_solver_kind k, rg_solver_pool *pool) {
  const rg_solver_backend *b = rg_solver_backend_of(k);
  CHECK_MSG(b && b->name && b->name[0], "solver %d has no name", (int)k);
  if (!b) return;
  CHECK(!strcmp(rg_solver_kind_name(k), b->name) && rg_solver_kind_of(b->name) == (int)k);
  CHECK_MSG(b->helper && b->helper->program && b->helper->env, "%s: no helper", b->name);
  /* A backend with a binary mode has all of it. */
  CHECK(!b->binary_init == !b->binary_prove && !b->binary_init == !b->binary_worker);
  char status[64];
  snprintf(status, sizeof status, "proved-by-%s-only", b->name);
  CHECK(!strcmp(rg_proof_status_name((rg_proof_status)(RG_PROOF_VERIFIED + 1 + (int)k)), status));
  rg_solver s;
  rg_err err;
  CHECK_MSG(rg_solver_init(&s, k, NULL, &err) == RG_OK, "%s: %s", b->name, err.msg);
  CHECK(s.helper && !strcmp(s.name, b->name) && s.version[0]);
  rg_solver_answer a;
  CHECK(rg_solver_prove(&s, unsat_query, sizeof unsat_query - 1, 5000, &a, &err) == RG_OK);
  CHECK_MSG(a.result == RG_SMT_UNSAT, "%s: %s (%s)", b->name, rg_smt_result_name(a.result), a.detail);
  CHECK(rg_solver_prove_in(pool, &s, unsat_query, sizeof unsat_query - 1, 5000, &a, &err) == RG_OK);
  CHECK_MSG(a.result == RG_SMT_UNSAT, "%s in a pool: %s (%s)", b->name, rg_smt_result_name(a.result),
            a.detail);
}

/* MBQI's budget: the quarter at tight limits, an eighth from 600 ms, never less for a larger
 * limit (a larger -T must not take a proof away), never 0 (z3 reads 0 as no limit). */
static void test_z3_mbqi_budget(void) {
  CHECK(rg_z3_mbqi_budget(200) == 50 && rg_z3_mbqi_budget(300) == 75 &&
        rg_z3_mbqi_budget(600) == 75);
  CHECK(rg_z3_mbqi_budget(2000) == 250 && rg_z3_mbqi_budget(24000) == 3000);
  int before = 0;
  for (int t = 4; t <= 100000; t++) {
    int b = rg_z3_mbqi_budget(t);
    CHECK_MSG(b >= 1 && b >= before && b <= t / 4, "budget %d at %d ms (%d before)", b, t, before);
    before = b;
  }
}

int main(void) {
  CHECK(RG_SOLVER_COUNT >= 1);
  test_z3_mbqi_budget();
  CHECK(rg_solver_backend_of(RG_SOLVER_COUNT) == NULL && rg_solver_backend_of((rg_solver_kind)-1) == NULL);
  CHECK(!strcmp(rg_solver_kind_name(RG_SOLVER_COUNT), "?") && rg_solver_kind_of("no-such-solver") == -1);
  rg_solver_pool *pool = rg_solver_pool_new();
  CHECK(pool != NULL);
  for (int k = 0; pool && k < RG_SOLVER_COUNT; k++) test_entry((rg_solver_kind)k, pool);
  if (pool) test_z3_mbqi_pass(pool);
  rg_solver_pool_free(pool);
  /* All solvers at once, as the proof stage sets them up. */
  rg_solver all[RG_SOLVER_COUNT];
  rg_err err;
  CHECK_MSG(rg_solvers_init(all, NULL, &err) == RG_OK, "%s", err.msg);
  for (int k = 0; k < RG_SOLVER_COUNT; k++) CHECK(all[k].kind == (rg_solver_kind)k);
  CHECK(rg_proof_status_name((rg_proof_status)(RG_PROOF_VERIFIED + 1 + RG_SOLVER_COUNT)) ==
        rg_proof_status_name(RG_PROOF_UNPROVED));
  return check_done("test_verify_solvers");
}
