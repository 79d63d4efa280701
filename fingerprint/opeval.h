/* fingerprint/opeval.h: evaluating one enumerated operator in Z_p on given operand tensors, with
 * the ir/ interpreter (the one source of operator semantics).
 *
 * The enumerator keeps every prefix's tensors, so each new graph costs one operator evaluation:
 * the operator is a node of a small private graph over tensor variables a0, a1, planned once per
 * (variant, operand shape ids) and then evaluated by rg_eval_full on the operand arrays.
 * Not thread-safe: one evaluator per thread (shape ids are the thread's enumerator's).
 */
#ifndef RG_FINGERPRINT_OPEVAL_H
#define RG_FINGERPRINT_OPEVAL_H

#include "enumerate/enumerate.h"

typedef struct rg_fp_opeval rg_fp_opeval;

/* NULL when out of memory. ctx must outlive the evaluator. */
rg_fp_opeval *rg_fp_opeval_new(const rg_enum_space *sp, const rg_eval_ctx *ctx);
void rg_fp_opeval_free(rg_fp_opeval *e);

/* Evaluates variant v on operands with shapes in[] (shape ids sid[]) and values vals[] into
 * *out, a malloc'd buffer of *cap elements that is grown as needed (the caller owns it). Uses
 * a kernel of fingerprint/kernels.h when there is one (unless interp_only), else the
 * interpreter. out_shape is the result's shape. */
rg_status rg_fp_opeval_run(rg_fp_opeval *e, int v, const rg_shape *const *in, const int32_t *sid,
                           const rg_shape *out_shape, const rg_value *const *vals, bool interp_only,
                           rg_value **out, int64_t *cap, rg_err *err) RG_MUST_CHECK;

#endif
