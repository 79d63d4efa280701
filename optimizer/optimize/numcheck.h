/* optimizer/optimize/numcheck.h: the numeric check before an optimized model is written: the rewritten
 * model against the original, both through the project's float64 evaluator on the same seeded
 * random inputs (the stream models/ort_run.js draws): floats uniform in [-1, 1), int64 inputs
 * within the rows of the tables Gather reads with them (else [0, 100)). Each output's difference
 * is relative to its scale, max |a - b| / max |b|; the largest over the outputs is the verdict.
 * Downstream operators can hide a wrong rewrite (a sigmoid saturates, a normalization rescales)
 * and one scale of inputs can miss it (a rule true only for positive or small operands), so each
 * rewritten region is checked too: every step's replacement against the value it replaced, on
 * the values that reach it in the model with floats drawn in [-s, s) for each s of
 * rg_numcheck_scales (values of order 1, raw pixels, small values).
 *
 * Where the evaluator cannot run the whole model (an operator or element type it does not
 * evaluate, a node with subgraphs, int64 inputs it cannot draw ids for), the search still runs
 * and each rewritten region is checked on its own: every step's replacement against the value it
 * replaced, both evaluated back to the region's boundary, where every float value an opaque node
 * makes is drawn at random at its shape (at each scale, like an input) instead of computed, and
 * inputs and weights are as above. The rule vocabulary reads only float values, so a region
 * never reads an int64 or other value it could not draw; a boundary of the model's own leaves
 * keeps what ties one operand to another (x and relu(x) are drawn as one x), so a sound rewrite
 * never fails for values the model cannot hold. Then, since regions alone leave how they compose
 * unchecked, every value the rewritten part hands on (the model's outputs and opaque nodes'
 * operands that the rewrite changed) against the original's, on the same drawn values. */
#ifndef RG_OPTIMIZER_NUMCHECK_H
#define RG_OPTIMIZER_NUMCHECK_H

#include "optimizer/search/search.h"

#define RG_NUMCHECK_SCALES 3
extern const double rg_numcheck_scales[RG_NUMCHECK_SCALES];

/* The check's inputs at rg_numcheck_scales[scale] (as rg_model_random_inputs gives them; NULL
 * when out of memory). */
double **rg_numcheck_inputs(const rg_model *m, uint32_t seed, int scale);
/* Per input variable of m, the rows of the smallest table a Gather reads with it (0: none), so
 * that drawn indices are ones the model accepts (the guard's onnxruntime inputs too). Owned by
 * the caller; NULL when out of memory. */
int64_t *rg_numcheck_index_bounds(const rg_model *m);

/* Which check runs: the whole model and its regions, or the regions alone (why: what the
 * evaluator could not do with the whole model, its message). */
typedef enum { RG_NUMCHECK_WHOLE, RG_NUMCHECK_REGIONS } rg_numcheck_mode;
typedef struct {
  rg_numcheck_mode mode;
  char why[sizeof(rg_err){0}.msg + 256]; /* the evaluator's message, with what it could not do */
} rg_numcheck_plan;

/* Before a search: can the check run m whole on the inputs it draws? Only a model with int64
 * inputs can refuse them (an index a table does not have), and one with values or nodes graphopt
 * keeps as read can hold what it does not evaluate (model.h); then the plan is the regions alone.
 * Errors: RG_ERR_NOMEM only. */
rg_status rg_numcheck_preflight(const rg_model *m, uint32_t seed, rg_numcheck_plan *plan, rg_err *err) RG_MUST_CHECK;

/* *worst: the largest relative difference between m seen from roots and m itself (scale 1). */
rg_status rg_numcheck(const rg_model *m, const rg_ref *roots, uint32_t seed, double *worst, rg_err *err) RG_MUST_CHECK;

/* The first step of r's derivation after which the model differs from the original by more
 * than tolerance (*step, -1 when none), with that difference in *worst. */
rg_status rg_numcheck_steps(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                            int *step, double *worst, rg_err *err) RG_MUST_CHECK;

/* The first step of r whose replacements (app.by) differ from the values they replaced (app.at)
 * by more than tolerance on the model's values at some scale (*step, -1 when none), with that
 * difference (else the largest) in *worst; alone: each region on its own, the values opaque
 * nodes make drawn at random, then (no region differing) what the rewritten part hands on
 * (above), whose difference past tolerance leaves *step -1. */
rg_status rg_numcheck_regions(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance, bool alone,
                              int *step, double *worst, rg_err *err) RG_MUST_CHECK;

#endif
