/* fingerprint/hash.h: 64-bit hashes of tensors (type and values) and of a graph's outputs.
 *
 * Two hashes of a tensor, both over its rank, dims and seams:
 *   - rg_fp_tensor_hash covers every Z_p value: equal hashes mean equal tensors (up to 2^-64),
 *     which is what pruning by value needs (a graph whose newest tensor equals an older one is not
 *     extended; a => b found equal by congruence; outputs paired by value);
 *   - rg_fp_sample_hash covers the values at RG_FP_SAMPLES positions only, one drawn in each of
 *     that many equal runs of the row-major order (every position when the tensor is smaller).
 *     Fingerprints use it: the last operator of a graph, which is most graphs at depth 4, is then
 *     evaluated at those positions only. Tensors that differ only away from the samples collide
 *     and become candidates that random testing drops; nothing is lost, since equal tensors
 *     still hash equal and pruning decisions use the full hash.
 * A graph's fingerprint combines its outputs' sample hashes in sorted order (with their count),
 * so graphs computing the same tensors collide whatever order their outputs come in.
 */
#ifndef RG_FINGERPRINT_HASH_H
#define RG_FINGERPRINT_HASH_H

#include "enumerate/enumerate.h"

#define RG_FP_SAMPLES 32

/* The sample positions of a tensor of n elements: pos[0..count), increasing. */
typedef struct {
  int64_t n;
  int count;
  int64_t pos[RG_FP_SAMPLES];
} rg_fp_sample;

void rg_fp_sample_init(int64_t n, rg_fp_sample *s);

uint64_t rg_fp_tensor_hash(const rg_shape *s, const rg_value *v);
/* Sample hash of a tensor of shape s from its values at the sample positions of numel(s),
 * vals[k] at pos[k]. */
uint64_t rg_fp_sample_hash(const rg_shape *s, const rg_value *vals, int count);
/* Sample hash of a whole tensor v (reads the sample positions of smp, which must be those of
 * numel(s); NULL: compute them). */
uint64_t rg_fp_tensor_sample_hash(const rg_shape *s, const rg_value *v, const rg_fp_sample *smp);
/* Fingerprint from output hashes h[0..n) (n <= RG_RULE_MAX_OUTPUTS); h is not modified. */
uint64_t rg_fp_combine(const uint64_t *h, int n);

/* The fingerprint seed's inputs: values[i] holds input i's Z_p values (rg_random_value with
 * seed); free with rg_fp_inputs_free. NULL when out of memory. */
rg_value **rg_fp_inputs_new(const rg_enum_space *sp, uint64_t seed);
void rg_fp_inputs_free(const rg_enum_space *sp, rg_value **values);

/* Evaluates the whole graph of code c with the interpreter at the enumeration shapes on the
 * seed's inputs (from rg_fp_inputs_new) and keyed functions, and writes its outputs' full
 * hashes (rg_fp_tensor_hash, in output order) and its fingerprint (from their sample hashes).
 * Used to map outputs of candidates, and to check the incremental fingerprints. */
rg_status rg_fp_graph_hashes(const rg_enum_space *sp, const rg_enum_code *c, uint64_t seed,
                             rg_value *const *inputs, uint64_t *hashes, int *n_outs, uint64_t *fp,
                             rg_err *err) RG_MUST_CHECK;

/* The keyed-function context of a fingerprint seed (one derivation used everywhere). */
void rg_fp_eval_ctx(uint64_t seed, rg_eval_ctx *ctx);

#endif
