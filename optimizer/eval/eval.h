/* optimizer/eval/eval.h: float64 evaluation of whole model graphs: the rule vocabulary's nodes by
 * ir/interp.h (with fingerprint/'s kernels where they exist), opaque nodes by opaque.h. Values
 * are computed in dependency order and freed after their last reader, so memory holds the
 * weights plus the live activations.
 *
 * The room optimizer/eval/ (above model/, proto/ and opaque/):
 * eval.c          the float64 evaluator
 * executors.c     the table of ways to run a model (rg_executor)
 * eval_files.c    inputs read from test-data files or drawn, outputs written, for graphopt eval
 * tensor_io.h/.c  single tensors in files (ONNX test data), relative differences
 */
#ifndef RG_OPTIMIZER_EVAL_H
#define RG_OPTIMIZER_EVAL_H

#include "optimizer/model/model.h"
#include "tensor_io.h"

/* The values of refs[0..n) of m into out[i] (new malloc'd arrays of each value's element
 * count, float64 whatever the element type). inputs[v]: the values of input variable v (NULL
 * for the others; values given for a typed opaque value's variable stand for its node's output,
 * which then is not run); an input reached without values is RG_ERR_UNBOUND, which is how a caller
 * learns that a value is not a constant. Errors of opaque operators name the node. What
 * graphopt does not evaluate is an error naming it and why, never a value: an opaque value
 * (model.h) or an opaque node with a why (RG_ERR_ARG). */
rg_status rg_model_eval_refs(const rg_model *m, const double *const *inputs, const rg_ref *refs, int n, double **out,
                             rg_err *err) RG_MUST_CHECK;

/* The model's outputs (m->out, in order). */
rg_status rg_model_eval(const rg_model *m, const double *const *inputs, double **out, rg_err *err) RG_MUST_CHECK;

/* Values for every typed input variable, drawn as models/ort_run.js draws them so both runtimes
 * see the same inputs: one mulberry32 stream from seed over the inputs in order, row-major, one
 * draw u per element; floats (u >> 8) / 2^24 * 2 - 1, int64 u % int_max (an opaque input draws
 * nothing: the streams part after one). An array indexed by variable (NULL for the others; free
 * with rg_model_inputs_free), or NULL when out of memory. */
double **rg_model_random_inputs(const rg_model *m, uint32_t seed, int64_t int_max);
/* The same stream with floats scaled to [-scale, scale) and int64 input v drawn from
 * [0, int_bound[v]) where int_bound (indexed by variable; NULL: none) gives it a bound > 0. */
double **rg_model_random_inputs_scaled(const rg_model *m, uint32_t seed, double scale, int64_t int_max,
                                       const int64_t *int_bound);
/* Into in (as above): values for every typed float opaque value too, drawn in [-scale, scale)
 * from a stream of seed's apart from the inputs'; each then stands for its node's output in
 * rg_model_eval_refs (the numeric check of a region on its own, numcheck.h). false when out
 * of memory (in keeps what was drawn: free it as ever). */
bool rg_model_random_opaque(const rg_model *m, double **in, uint32_t seed, double scale);
void rg_model_inputs_free(const rg_model *m, double **inputs);

/* A way to run a model: name, one line saying what it is, and the values of refs[0..n) of m on
 * inputs as rg_model_eval_refs gives them (its contract). The table is executors.c; a new
 * executor is a new file plus a row there. */
typedef struct {
  const char *name;
  const char *description;
  rg_status (*eval_refs)(const rg_model *m, const double *const *inputs, const rg_ref *refs, int n,
                         double **out, rg_err *err);
} rg_executor;

/* The executors: rg_executor_get(0 .. rg_executor_count() - 1) (NULL out of range; 0 is the
 * default, the float64 interpreter); rg_executor_find by name (NULL when none). */
int rg_executor_count(void);
const rg_executor *rg_executor_get(int i);
const rg_executor *rg_executor_find(const char *name);

/* ---- around evaluation (eval_files.c) ---- */

/* Input values from dir/input_0.pb, input_1.pb, ... (ONNX test data), one per input variable
 * in order, each of the variable's shape (RG_ERR_SHAPE naming the file otherwise). *out as
 * rg_model_random_inputs gives it. */
rg_status rg_model_inputs_read(const rg_model *m, const char *dir, double ***out, rg_err *err) RG_MUST_CHECK;
/* m's inputs in for another model, matched by name: *out indexed by other's variables, its
 * arrays borrowed from in (free only *out). RG_ERR_ARG when an input of other is not an input
 * of m of the same shape. */
rg_status rg_model_inputs_for(const rg_model *other, const rg_model *m, double *const *in, double ***out,
                              rg_err *err) RG_MUST_CHECK;
/* The model's outputs by executor x (NULL: the default) into *out (new; free with
 * rg_model_outputs_free). */
rg_status rg_model_outputs_eval(const rg_executor *x, const rg_model *m, const double *const *in, double ***out,
                                rg_err *err) RG_MUST_CHECK;
void rg_model_outputs_free(const rg_model *m, double **out);
/* The output of other that output i of m is compared with: the last one of the same name, else
 * the one at i; -1 when there is none. */
int32_t rg_model_output_match(const rg_model *other, const rg_model *m, int32_t i);
/* Writes the inputs and outputs as dir/input_K.pb and dir/output_K.pb (ONNX test data). */
rg_status rg_model_io_save(const rg_model *m, const char *dir, double *const *in, double *const *out,
                           rg_err *err) RG_MUST_CHECK;

#endif
