/* fingerprint/kernels.h: faster Z_p (and float64) kernels for the operators the enumerator applies most.
 *
 * The ir/ interpreter is the source of truth for semantics; it evaluates one element at a time
 * through a fetch callback, which is what costs in the innermost loop of the enumeration. These
 * kernels compute the same values with direct array access. They are checked against the
 * interpreter in tests/test_fingerprint.c on every variant of `--ops all` with wide choices
 * (strides, paddings, activations, permutations, kernels) and on concat seams; an operator
 * without a kernel here is evaluated by the interpreter (fingerprint/opeval.h).
 */
#ifndef RG_FINGERPRINT_KERNELS_H
#define RG_FINGERPRINT_KERNELS_H

#include "enumerate/enumerate.h"

/* Evaluates variant v on operands in[] (values vals[]) into out (room for the numel of
 * out_shape) in Z_p with the keyed functions of ctx. Returns false, doing nothing, when there
 * is no kernel for v's operator. */
bool rg_fp_kernel_run(const rg_enum_variant *v, const rg_shape *const *in, const rg_shape *out_shape,
                      const rg_value *const *vals, const rg_eval_ctx *ctx, rg_value *out);

/* Evaluates variant v in Z_p at the output positions pos[0..count) only (row-major indices
 * into out_shape), writing out[k] for pos[k]: the last operator of a graph is only hashed, at
 * its fingerprint's sample positions (hash.h). Returns false, doing nothing, when v's operator
 * has no such kernel (then evaluate it whole). */
bool rg_fp_kernel_sample(const rg_enum_variant *v, const rg_shape *const *in,
                         const rg_shape *out_shape, const rg_value *const *vals,
                         const rg_eval_ctx *ctx, const int64_t *pos, int count, rg_value *out);

/* An rg_node_kernel (ir/interp.h) over the same kernels, in Z_p and float64 (real semantics:
 * relu is max, tanh and sigmoid the real functions; sums in the interpreter's order): set as
 * rg_eval_ctx.kernel, whole-output evaluation uses it for the operators it covers. */
bool rg_fp_node_kernel(rg_op op, const int32_t *params, int out, int n_in, const rg_shape *const *in,
                       const rg_shape *out_shape, rg_domain dom, const rg_eval_ctx *ctx,
                       const rg_value *const *vals, rg_value *dst);

#endif
