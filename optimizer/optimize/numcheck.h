/* optimizer/optimize/numcheck.h: the numeric check before an optimized model is written: the rewritten
 * model against the original, both through the project's float64 evaluator on the same seeded
 * random inputs (the stream models/ort_run.js draws): floats uniform in [-1, 1), int64 inputs
 * within the rows of the tables Gather reads with them (else [0, 100)). Each output's difference
 * is relative to its scale, max |a - b| / max |b|; the largest over the outputs is the verdict.
 * Downstream operators can hide a wrong rewrite (a sigmoid saturates, a normalization rescales)
 * and one scale of inputs can miss it (a rule true only for positive or small operands), so each
 * rewritten region is checked too: every step's replacement against the value it replaced, on
 * the values that reach it in the model with floats drawn in [-s, s) for each s of
 * rg_numcheck_scales (values of order 1, raw pixels, small values). */
#ifndef RG_OPTIMIZER_NUMCHECK_H
#define RG_OPTIMIZER_NUMCHECK_H

#include "optimizer/search/search.h"

#define RG_NUMCHECK_SCALES 3
extern const double rg_numcheck_scales[RG_NUMCHECK_SCALES];

/* The check's inputs at rg_numcheck_scales[scale] (as rg_model_random_inputs gives them; NULL
 * when out of memory). */
double **rg_numcheck_inputs(const rg_model *m, uint32_t seed, int scale);

/* Before a search: can the check run m at all on the inputs it draws? Only a model with int64
 * inputs can refuse them (an index a table does not have), and one with values or nodes graphopt
 * keeps as read can hold what it does not evaluate (model.h); its evaluation's error, saying so. */
rg_status rg_numcheck_preflight(const rg_model *m, uint32_t seed, rg_err *err) RG_MUST_CHECK;

/* *worst: the largest relative difference between m seen from roots and m itself (scale 1). */
rg_status rg_numcheck(const rg_model *m, const rg_ref *roots, uint32_t seed, double *worst, rg_err *err) RG_MUST_CHECK;

/* The first step of r's derivation after which the model differs from the original by more
 * than tolerance (*step, -1 when none), with that difference in *worst. */
rg_status rg_numcheck_steps(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                            int *step, double *worst, rg_err *err) RG_MUST_CHECK;

/* The first step of r whose replacements (app.by) differ from the values they replaced (app.at)
 * by more than tolerance on the model's values at some scale (*step, -1 when none), with that
 * difference (else the largest) in *worst. */
rg_status rg_numcheck_regions(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                              int *step, double *worst, rg_err *err) RG_MUST_CHECK;

#endif
