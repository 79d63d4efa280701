/* fingerprint/hash.c */
#include "hash.h"
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

static uint64_t shape_hash(const rg_shape *s, uint64_t salt) {
  uint64_t h = rg_mix64(UINT64_C(0x6a09e667f3bcc908) + s->rank + salt);
  for (int d = 0; d < s->rank; d++) {
    h = rg_mix64(h ^ (uint64_t)s->dim[d]);
    h = rg_mix64(h ^ (UINT64_C(0x100) + s->nseam[d]));
    for (int k = 0; k < s->nseam[d]; k++) h = rg_mix64(h ^ (uint64_t)s->seam[d][k]);
  }
  return h;
}

/* Hash h extended by values v[0..n): four independent lanes (elements i, i+4, ...), so the
 * mixing chains overlap in the CPU; each lane is seeded differently, so moving values between
 * lanes changes the hash. */
static uint64_t values_hash(uint64_t h, const rg_value *v, int64_t n) {
  int64_t i = 0;
  uint64_t lane[4] = {h, h ^ UINT64_C(0x3c6ef372fe94f82b), h ^ UINT64_C(0xa54ff53a5f1d36f1),
                      h ^ UINT64_C(0x510e527fade682d1)};
  for (; i + 4 <= n; i += 4)
    for (int j = 0; j < 4; j++) lane[j] = rg_mix64(lane[j] + v[i + j].z) * UINT64_C(0x9e3779b97f4a7c15);
  for (int j = 0; i < n; i++, j++) lane[j] = rg_mix64(lane[j] + v[i].z) * UINT64_C(0x9e3779b97f4a7c15);
  for (int j = 0; j < 4; j++) h = rg_mix64(h ^ lane[j]) + (uint64_t)j;
  return rg_mix64(h ^ (uint64_t)n);
}

uint64_t rg_fp_tensor_hash(const rg_shape *s, const rg_value *v) {
  return values_hash(shape_hash(s, 0), v, rg_shape_numel(s));
}

void rg_fp_sample_init(int64_t n, rg_fp_sample *s) {
  s->n = n;
  s->count = n < RG_FP_SAMPLES ? (int)n : RG_FP_SAMPLES;
  for (int k = 0; k < s->count; k++) {
    int64_t lo = n * k / s->count, hi = n * (k + 1) / s->count;
    uint64_t r = rg_mix64((uint64_t)n * UINT64_C(0x9e3779b97f4a7c15) + (uint64_t)k);
    s->pos[k] = lo + (int64_t)(r % (uint64_t)(hi - lo));
  }
}

#define SAMPLE_SALT UINT64_C(0x5a3d1e)

uint64_t rg_fp_sample_hash(const rg_shape *s, const rg_value *vals, int count) {
  return values_hash(shape_hash(s, SAMPLE_SALT), vals, count);
}

uint64_t rg_fp_tensor_sample_hash(const rg_shape *s, const rg_value *v, const rg_fp_sample *smp) {
  rg_fp_sample own;
  if (!smp) rg_fp_sample_init(rg_shape_numel(s), &own), smp = &own;
  rg_value at[RG_FP_SAMPLES];
  for (int k = 0; k < smp->count; k++)
    at[k] = v[smp->pos[k]];
  return rg_fp_sample_hash(s, at, smp->count);
}

uint64_t rg_fp_combine(const uint64_t *h, int n) {
  uint64_t s[RG_RULE_MAX_OUTPUTS + 1];
  memcpy(s, h, sizeof *h * (size_t)n);
  for (int i = 1; i < n; i++) /* insertion sort: n <= 4 */
    for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
      uint64_t t = s[j];
      s[j] = s[j - 1], s[j - 1] = t;
    }
  uint64_t f = rg_mix64(UINT64_C(0xbb67ae8584caa73b) + (uint64_t)n);
  for (int i = 0; i < n; i++) f = rg_mix64(f ^ s[i]) + UINT64_C(0x3c6ef372fe94f82b);
  return rg_mix64(f);
}

rg_value **rg_fp_inputs_new(const rg_enum_space *sp, uint64_t seed) {
  rg_value **v = calloc((size_t)sp->inputs.n, sizeof *v);
  if (!v) return NULL;
  for (int i = 0; i < sp->inputs.n; i++) {
    int64_t n = rg_shape_numel(&sp->inputs.in[i].shape);
    v[i] = malloc(sizeof(rg_value) * (size_t)(n ? n : 1));
    if (!v[i]) {
      rg_fp_inputs_free(sp, v);
      return NULL;
    }
    for (int64_t k = 0; k < n; k++) v[i][k] = rg_random_value(RG_DOM_ZP, seed, i, k);
  }
  return v;
}

void rg_fp_inputs_free(const rg_enum_space *sp, rg_value **values) {
  if (!values) return;
  for (int i = 0; i < sp->inputs.n; i++) free(values[i]);
  free(values);
}

/* The whole-node kernels are bit-identical to the interpreter (tests/test_fingerprint_nodekernel.c)
 * and far faster on conv2d and matmul. */
void rg_fp_eval_ctx(uint64_t seed, rg_eval_ctx *ctx) {
  rg_eval_ctx_init(ctx, rg_mix64(seed ^ 0x5eed));
  ctx->kernel = rg_fp_node_kernel;
}

rg_status rg_fp_graph_hashes(const rg_enum_space *sp, const rg_enum_code *c, uint64_t seed,
                             rg_value *const *in, uint64_t *hashes, int *n_outs, uint64_t *fp,
                             rg_err *err) {
  rg_graph *g = rg_graph_new();
  const rg_shape *shapes[RG_ENUM_MAX_INPUTS];
  const rg_value *vals[RG_ENUM_MAX_INPUTS];
  rg_ref outs[RG_RULE_MAX_OUTPUTS];
  rg_value *res[RG_RULE_MAX_OUTPUTS] = {0};
  rg_plan *plan = NULL;
  rg_eval_ctx ctx;
  rg_fp_eval_ctx(seed, &ctx);
  rg_status st = g ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory evaluating a graph");
  if (!st) st = rg_enum_build(sp, c, g, outs, n_outs, err);
  /* the graph's variables are the inputs it uses, in order of use (not interning all of them
   * first: this runs for many bucket members) */
  for (int32_t q = 0; !st && q < rg_graph_n_tvars(g); q++) {
    int i = rg_enum_input_index(sp, rg_graph_tvar_name(g, q));
    shapes[q] = &sp->inputs.in[i].shape;
    vals[q] = in[i];
  }
  if (!st) st = rg_plan_new(g, outs, *n_outs, shapes, NULL, NULL, &plan, err);
  if (!st) st = rg_eval_full(plan, RG_DOM_ZP, &ctx, vals, outs, *n_outs, res, err);
  if (!st) {
    uint64_t sampled[RG_RULE_MAX_OUTPUTS];
    for (int i = 0; i < *n_outs; i++) {
      const rg_shape *s = rg_plan_shape(plan, outs[i]);
      hashes[i] = rg_fp_tensor_hash(s, res[i]);
      sampled[i] = rg_fp_tensor_sample_hash(s, res[i], NULL);
    }
    *fp = rg_fp_combine(sampled, *n_outs);
  }
  for (int i = 0; i < RG_RULE_MAX_OUTPUTS; i++) free(res[i]);
  rg_plan_free(plan);
  rg_graph_free(g);
  return st;
}
