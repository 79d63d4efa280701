/* verify/randtest.h: random testing of candidate rules before any solver sees them.
 *
 * A candidate found by a fingerprint collision is re-run on fresh Z_p trials (new inputs AND new
 * keyed functions, so it must hold for other choices of the nonlinear functions too) and on
 * float64 trials with real semantics (true max pooling, average pooling divides, relu is max),
 * first at the shapes it was found at, then at other shape sets found by the shape solver from
 * those (other batch, channel and spatial sizes; every other set with each size 1, else 2,
 * where that types). The first failing check decides the verdict,
 * so every dropped candidate has exactly one counted reason. This is what drops candidates that
 * hold only under field semantics (average pooling as a window sum) or only at one shape (a
 * width-1 coincidence).
 */
#ifndef RG_VERIFY_RANDTEST_H
#define RG_VERIFY_RANDTEST_H

#include "ir/ir.h"
#include "ir/shapesolve.h"

typedef struct {
  uint64_t seed;    /* of trials and keyed functions; must differ from the fingerprint seed */
  int zp_trials;    /* per shape set, >= 1 */
  int f64_trials;   /* per shape set that has them, >= 1 */
  int other_shapes; /* shape sets required besides the base, >= 0 */
  int f64_sets;     /* of the other shape sets, the first this many also get the float64 trials */
  rg_node_kernel kernel; /* whole-node kernels for the trials (ir/interp.h), or NULL */
} rg_randtest_opts;
/* Defaults: one Z_p trial (fresh inputs and keyed functions; a false rule passes one with
 * probability about degree/2^61) per shape set, one float64 trial at the base and the first
 * other shape set, 3 other shape sets, the interpreter alone (no kernel). */

/* Verdicts, in the order the checks run. */
#define RG_RANDTEST_VERDICTS(X)                                                                  \
  X(PASS, "pass", "passed every trial")                                                          \
  X(TYPE, "type", "outputs differ in shape or seams at the enumeration shapes")                  \
  X(ZP, "zp", "differ on fresh Z_p trials (new inputs and keyed functions)")                     \
  X(F64, "float64", "differ in float64 (true only in Z_p, e.g. pooling as a window sum)")        \
  X(NO_SHAPES, "no-shapes", "fewer other shape sets than required could be found")               \
  X(SHAPES_ZP, "shapes-zp", "differ in Z_p at another shape set (true only at one shape)")       \
  X(SHAPES_F64, "shapes-float64", "differ in float64 at another shape set")

typedef enum {
#define X(id, name, help) RG_RANDTEST_##id,
  RG_RANDTEST_VERDICTS(X)
#undef X
  RG_RANDTEST_COUNT
} rg_randtest_verdict;

const char *rg_randtest_verdict_name(rg_randtest_verdict v);
const char *rg_randtest_verdict_help(rg_randtest_verdict v);

void rg_randtest_opts_default(rg_randtest_opts *o); /* seed 2, 1 Z_p, 1 float64, 3 other sets */

/* Tests rule r (n_src == n_tgt >= 1) at binding base (which must type both sides) and at
 * o->other_shapes solver-found shape sets. Sets *v. Errors (RG_ERR_SHAPE when base does not
 * type the rule, RG_ERR_NOMEM) are not verdicts. */
rg_status rg_randtest_rule(const rg_rule *r, const rg_binding *base, const rg_randtest_opts *o,
                           rg_randtest_verdict *v, rg_err *err) RG_MUST_CHECK;

/* The two halves of rg_randtest_rule. At: the type check and the trials at base (verdicts
 * PASS, TYPE, ZP, F64). Other shapes: the trials at o->other_shapes solver-found shape sets
 * (verdicts PASS, NO_SHAPES, SHAPES_ZP, SHAPES_F64); base may be NULL, and the sets are then
 * found from the rule alone, so the verdict depends on the rule and o only. */
rg_status rg_randtest_at(const rg_rule *r, const rg_binding *base, const rg_randtest_opts *o,
                         rg_randtest_verdict *v, rg_err *err) RG_MUST_CHECK;
rg_status rg_randtest_other_shapes(const rg_rule *r, const rg_binding *base, const rg_randtest_opts *o,
                                   rg_randtest_verdict *v, rg_err *err) RG_MUST_CHECK;

#endif
