/* verify/randtest.c */
#include "randtest.h"

static const char *const names[] = {
#define X(id, name, help) name,
    RG_RANDTEST_VERDICTS(X)
#undef X
};
static const char *const helps[] = {
#define X(id, name, help) help,
    RG_RANDTEST_VERDICTS(X)
#undef X
};

const char *rg_randtest_verdict_name(rg_randtest_verdict v) {
  return v < RG_RANDTEST_COUNT ? names[v] : "?";
}
const char *rg_randtest_verdict_help(rg_randtest_verdict v) {
  return v < RG_RANDTEST_COUNT ? helps[v] : "?";
}

/* Three other shape sets: with two, 5 of 1,000 depth-4 candidates were false at a set the
 * proof stage's counterexample search found (bench/verify_bench_retest drops exactly those 5
 * with three, and 1 of 1,000 at depth 3). Float64 at the first of them only: a rule that agrees
 * in Z_p agrees for every choice of the keyed functions, so float64 guards against a model
 * that strays from the reals, not against false rules (no candidate of the depth-3 and depth-4
 * runs ever failed it at another set), and the later sets, drawn up to RG_SOLVE_MAX_DIM a
 * size, were a quarter of the test's work in float64 convolutions. */
void rg_randtest_opts_default(rg_randtest_opts *o) {
  *o = (rg_randtest_opts){
      .seed = 2, .zp_trials = 1, .f64_trials = 1, .other_shapes = 3, .f64_sets = 1};
}

/* Runs the trials of one domain at one binding; *agree is false on any disagreement (of type or
 * value). Keyed functions are drawn fresh from the seed, so Z_p trials do not reuse the
 * fingerprint's functions. */
static rg_status trials(const rg_rule *r, const rg_binding *b, rg_domain dom, uint64_t seed, int n,
                        const rg_randtest_opts *o, bool *agree, rg_err *err) {
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, rg_mix64(seed ^ UINT64_C(0x7e57)));
  ctx.kernel = o->kernel;
  rg_cmp_result res;
  rg_status st = rg_rule_compare(r, b, dom, &ctx, seed, n, &res, err);
  *agree = st == RG_OK && res.verdict == RG_CMP_AGREE;
  return st;
}

rg_status rg_randtest_at(const rg_rule *r, const rg_binding *base, const rg_randtest_opts *o,
                         rg_randtest_verdict *v, rg_err *err) {
  bool ok;
  if (!rg_rule_well_typed(r, base)) {
    /* distinguish "both sides type, outputs differ" (a verdict) from "a side does not type" */
    rg_cmp_result res;
    rg_eval_ctx ctx;
    rg_eval_ctx_init(&ctx, o->seed);
    rg_status st = rg_rule_compare(r, base, RG_DOM_ZP, &ctx, o->seed, 1, &res, err);
    if (st) return st;
    *v = RG_RANDTEST_TYPE;
    return RG_OK;
  }
  rg_status st = trials(r, base, RG_DOM_ZP, o->seed, o->zp_trials, o, &ok, err);
  if (st) return st;
  if (!ok) return *v = RG_RANDTEST_ZP, RG_OK;
  st = trials(r, base, RG_DOM_F64, o->seed, o->f64_trials, o, &ok, err);
  if (st) return st;
  *v = ok ? RG_RANDTEST_PASS : RG_RANDTEST_F64;
  return RG_OK;
}

rg_status rg_randtest_other_shapes(const rg_rule *r, const rg_binding *base, const rg_randtest_opts *o,
                                   rg_randtest_verdict *v, rg_err *err) {
  bool ok;
  if (o->other_shapes == 0) return *v = RG_RANDTEST_PASS, RG_OK;
  rg_assignment_list sets;
  /* every other set small (each size 1, else 2, where that types): a rule true only from some
   * size on, such as a slice that needs two rows of a concat's first operand, differs there */
  int first = base ? 1 : 0; /* the solver returns a base it is given first; one it finds, not */
  rg_status st = rg_shapes_solve_small(r, base, o->seed, first + o->other_shapes, &sets, err);
  if (st == RG_ERR_SHAPE) st = RG_OK, sets.n = 0; /* no other sets: a verdict, below */
  *v = RG_RANDTEST_PASS;
  if (!st && sets.n < first + o->other_shapes) *v = RG_RANDTEST_NO_SHAPES;
  for (int i = first; !st && *v == RG_RANDTEST_PASS && i < sets.n; i++) {
    uint64_t seed = o->seed + UINT64_C(1000) * (uint64_t)i;
    st = trials(r, &sets.items[i].binding, RG_DOM_ZP, seed, o->zp_trials, o, &ok, err);
    if (!st && !ok) *v = RG_RANDTEST_SHAPES_ZP;
    if (!st && ok && i < first + o->f64_sets)
      st = trials(r, &sets.items[i].binding, RG_DOM_F64, seed, o->f64_trials, o, &ok, err);
    if (!st && !ok && *v == RG_RANDTEST_PASS) *v = RG_RANDTEST_SHAPES_F64;
  }
  rg_assignment_list_free(&sets);
  return st;
}

rg_status rg_randtest_rule(const rg_rule *r, const rg_binding *base, const rg_randtest_opts *o,
                           rg_randtest_verdict *v, rg_err *err) {
  rg_status st = rg_randtest_at(r, base, o, v, err);
  if (st || *v != RG_RANDTEST_PASS) return st;
  return rg_randtest_other_shapes(r, base, o, v, err);
}
