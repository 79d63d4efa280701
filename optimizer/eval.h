/* optimizer/eval.h: float64 evaluation of whole model graphs: the rule vocabulary's nodes by
 * ir/interp.h (with fingerprint/'s kernels where they exist), opaque nodes by opaque.h. Values
 * are computed in dependency order and freed after their last reader, so memory holds the
 * weights plus the live activations.
 */
#ifndef RG_OPTIMIZER_EVAL_H
#define RG_OPTIMIZER_EVAL_H

#include "model.h"

/* The values of refs[0..n) of m into out[i] (new malloc'd arrays of each value's element
 * count, float64 whatever the element type). inputs[v]: the values of input variable v (NULL
 * for the others); an input reached without values is RG_ERR_UNBOUND, which is how a caller
 * learns that a value is not a constant. Errors of opaque operators name the node. */
rg_status rg_model_eval_refs(const rg_model *m, const double *const *inputs, const rg_ref *refs, int n, double **out,
                             rg_err *err) RG_MUST_CHECK;

/* The model's outputs (m->out, in order). */
rg_status rg_model_eval(const rg_model *m, const double *const *inputs, double **out, rg_err *err) RG_MUST_CHECK;

/* Values for every input variable, drawn as models/ort_run.js draws them so both runtimes see
 * the same inputs: one mulberry32 stream from seed over the inputs in order, row-major, one
 * draw u per element; floats (u >> 8) / 2^24 * 2 - 1, int64 u % int_max. An array indexed by
 * variable (NULL for the others; free with rg_model_inputs_free), or NULL when out of memory. */
double **rg_model_random_inputs(const rg_model *m, uint32_t seed, int64_t int_max);
void rg_model_inputs_free(const rg_model *m, double **inputs);

#endif
