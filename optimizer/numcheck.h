/* optimizer/numcheck.h: the numeric check before an optimized model is written: the rewritten
 * model against the original, both through the project's float64 evaluator on the same seeded
 * random inputs (drawn as models/ort_run.js draws them). Each output's difference is relative
 * to its scale, max |a - b| / max |b|; the largest over the outputs is the verdict. */
#ifndef RG_OPTIMIZER_NUMCHECK_H
#define RG_OPTIMIZER_NUMCHECK_H

#include "search.h"

/* *worst: the largest relative difference between m seen from roots and m itself. */
rg_status rg_numcheck(const rg_model *m, const rg_ref *roots, uint32_t seed, double *worst, rg_err *err) RG_MUST_CHECK;

/* The first step of r's derivation after which the model differs from the original by more
 * than tolerance (*step, -1 when none), with that difference in *worst. */
rg_status rg_numcheck_steps(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                            int *step, double *worst, rg_err *err) RG_MUST_CHECK;

#endif
