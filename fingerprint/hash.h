/* fingerprint/hash.h: 64-bit hashes of tensors (type and values) and of a graph's outputs.
 *
 * A tensor's hash covers its rank, dims, seams and every Z_p value in row-major order. A graph's
 * fingerprint combines its output tensors' hashes in sorted order (with their count), so graphs
 * computing the same tensors collide whatever order their outputs come in; the output mapping
 * of a multi-output candidate is recovered by matching the output hashes.
 */
#ifndef RG_FINGERPRINT_HASH_H
#define RG_FINGERPRINT_HASH_H

#include "enumerate/enumerate.h"

uint64_t rg_fp_tensor_hash(const rg_shape *s, const rg_value *v);
/* Fingerprint from output hashes h[0..n) (n <= RG_RULE_MAX_OUTPUTS); h is not modified. */
uint64_t rg_fp_combine(const uint64_t *h, int n);

/* The fingerprint seed's inputs: values[i] holds input i's Z_p values (rg_random_value with
 * seed); free with rg_fp_inputs_free. NULL when out of memory. */
rg_value **rg_fp_inputs_new(const rg_enum_space *sp, uint64_t seed);
void rg_fp_inputs_free(const rg_enum_space *sp, rg_value **values);

/* Evaluates the whole graph of code c with the interpreter at the enumeration shapes on the
 * seed's inputs (from rg_fp_inputs_new) and keyed functions, and writes its output hashes (in
 * output order) and its fingerprint. Used to map outputs of candidates, and to check the
 * incremental fingerprints. */
rg_status rg_fp_graph_hashes(const rg_enum_space *sp, const rg_enum_code *c, uint64_t seed,
                             rg_value *const *inputs, uint64_t *hashes, int *n_outs, uint64_t *fp,
                             rg_err *err) RG_MUST_CHECK;

/* The keyed-function context of a fingerprint seed (one derivation used everywhere). */
void rg_fp_eval_ctx(uint64_t seed, rg_eval_ctx *ctx);

#endif
