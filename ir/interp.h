/* ir/interp.h: the float64, Z_p and wide Z_q interpreters over one graph structure.
 *
 * float64 has real semantics (relu = max(0, x), tanh, sigmoid, true max pooling, average
 * pooling divides by the window size). Z_p (p = 2^61 - 1) is exact for linear and multilinear
 * operators; relu, tanh, sigmoid (standalone or fused) and max pooling are keyed random
 * functions, one key each, so two graphs agree in Z_p exactly when they agree for every choice
 * of those functions. Both evaluate whole outputs, or single output elements reading only the
 * input elements those depend on.
 *
 * The third domain, Z_q with the Mersenne prime q = 2^127 - 1 (ir/z127.h), has the same
 * semantics as Z_p (same kernels, keyed functions under the same keys, averaging by the inverse
 * of the window size in Z_q) for checks that want a larger field. Its values do not fit the
 * 8-byte rg_value, so it has its own entry points below (suffix _z127) and value type.
 */
#ifndef RG_IR_INTERP_H
#define RG_IR_INTERP_H

#include <math.h>
#include <stdbool.h>

#include "plan.h"
#include "z127.h"
#include "zp.h"

typedef enum { RG_DOM_F64 = 0, RG_DOM_ZP = 1 } rg_domain;

/* One value in either domain (both are 8 bytes). */
typedef union {
  double f;
  uint64_t z;
} rg_value;

struct rg_eval_ctx;
/* A faster way to compute a whole node output in float64 or Z_p for rg_eval_full: output `out`
 * of op with resolved parameter slots params on n_in operands of shapes in[] and values vals[],
 * into dst (room for out_shape's element count). It must compute exactly what the interpreter
 * does (the caller checks it against it); it returns false, writing nothing, to leave the node
 * to the interpreter. */
typedef bool (*rg_node_kernel)(rg_op op, const int32_t *params, int out, int n_in,
                               const rg_shape *const *in, const rg_shape *out_shape, rg_domain dom,
                               const struct rg_eval_ctx *ctx, const rg_value *const *vals,
                               rg_value *dst);

/* Keys of the keyed functions: part of the context, never global. */
typedef struct rg_eval_ctx {
  uint64_t act_key[RG_ACT_COUNT]; /* relu, tanh, sigmoid (index rg_act; NONE unused) */
  uint64_t poolmax_key;
  rg_node_kernel kernel; /* NULL after rg_eval_ctx_init: the interpreter alone */
} rg_eval_ctx;

void rg_eval_ctx_init(rg_eval_ctx *c, uint64_t seed);

/* The activations (rg_act), one definition for every evaluator (this interpreter and
 * fingerprint/'s kernels): in float64 the real functions; in Z_p and Z_q the keyed random
 * function of ctx for that activation; none is the identity. */
static inline double rg_act_f64(int act, double x) {
  switch (act) {
  case RG_ACT_RELU: return x > 0 ? x : 0;
  case RG_ACT_TANH: return tanh(x);
  case RG_ACT_SIGMOID: return 1 / (1 + exp(-x));
  default: return x;
  }
}
static inline uint64_t rg_act_zp(const rg_eval_ctx *ctx, int act, uint64_t x) {
  return act == RG_ACT_NONE ? x : rg_zp_keyed(ctx->act_key[act], x);
}
static inline rg_z127 rg_act_z127(const rg_eval_ctx *ctx, int act, rg_z127 x) {
  return act == RG_ACT_NONE ? x : rg_z127_keyed(ctx->act_key[act], x);
}
const char *rg_domain_name(rg_domain d);

/* Evaluates the outputs outs[0..n) of a plan (they must be typed by it). inputs[i] holds the
 * row-major values of tensor variable i. On success results[i] is a new malloc'd array of the
 * output's element count, owned by the caller. */
rg_status rg_eval_full(const rg_plan *plan, rg_domain dom, const rg_eval_ctx *ctx,
                       const rg_value *const *inputs, const rg_ref *outs, int n,
                       rg_value **results, rg_err *err) RG_MUST_CHECK;

/* Evaluates output `out` of one application of op (resolved parameter slots params) to n_in
 * whole operands of shapes in[] and row-major values vals[] into dst (room for the output's
 * element count), in float64 or Z_p: what rg_eval_full does for one node, ctx's kernel first.
 * For a caller that holds values node by node (a model with operators rules do not know between
 * them). Errors: operands that do not type (RG_ERR_SHAPE, as rg_shape_infer says). */
rg_status rg_eval_op(rg_op op, const int32_t *params, int n_in, const rg_shape *const *in,
                     const rg_value *const *vals, int out, rg_domain dom, const rg_eval_ctx *ctx,
                     rg_value *dst, rg_err *err) RG_MUST_CHECK;

/* Input elements supplied on demand, addressed by (tensor variable, row-major index). */
typedef rg_value (*rg_input_fn)(void *user, int32_t tvar, int64_t flat);

/* Single-element evaluation with a memo shared across queries (the same inputs throughout). */
typedef struct rg_elem_eval rg_elem_eval;
rg_elem_eval *rg_elem_eval_new(const rg_plan *plan, rg_domain dom, const rg_eval_ctx *ctx,
                               rg_input_fn input, void *user);
void rg_elem_eval_free(rg_elem_eval *e);
rg_status rg_elem_eval_at(rg_elem_eval *e, rg_ref out, const int32_t *pos, rg_value *val,
                          rg_err *err) RG_MUST_CHECK;

/* ---- the wide domain Z_q, q = 2^127 - 1 ---- */

typedef rg_z127 (*rg_z127_input_fn)(void *user, int32_t tvar, int64_t flat);

/* A single-element evaluator in Z_q (free with rg_elem_eval_free; NULL when out of memory).
 * Use it only with rg_elem_eval_at_z127 (and a narrow one only with rg_elem_eval_at). */
rg_elem_eval *rg_elem_eval_new_z127(const rg_plan *plan, const rg_eval_ctx *ctx, rg_z127_input_fn input,
                                    void *user);
rg_status rg_elem_eval_at_z127(rg_elem_eval *e, rg_ref out, const int32_t *pos, rg_z127 *val,
                               rg_err *err) RG_MUST_CHECK;
/* Whole outputs in Z_q, as rg_eval_full: inputs[i] holds the row-major values of tensor
 * variable i; on success results[i] is a new malloc'd array of the output's element count,
 * owned by the caller. */
rg_status rg_eval_full_z127(const rg_plan *plan, const rg_eval_ctx *ctx, const rg_z127 *const *inputs,
                            const rg_ref *outs, int n, rg_z127 **results, rg_err *err) RG_MUST_CHECK;
/* Uniform in Z_q, addressable by (seed, tensor variable, index) like rg_random_value. Values
 * equal in Z_q are equal as integers (==); rg_z127_format prints them. */
rg_z127 rg_random_z127(uint64_t seed, int32_t tvar, int64_t flat);

/* Deterministic random values addressable by (seed, tensor variable, index): uniform in
 * [-1, 1) for float64, uniform in Z_p for Z_p. */
rg_value rg_random_value(rg_domain dom, uint64_t seed, int32_t tvar, int64_t flat);
/* An integer in either domain (negative integers wrap in Z_p). */
rg_value rg_value_from_int(rg_domain dom, int64_t v);

/* Equality as the domain sees it: exact in Z_p, relative tolerance in float64. */
bool rg_value_eq(rg_domain dom, rg_value a, rg_value b);
/* Prints a value ("%.17g" or the residue). */
void rg_value_format(rg_domain dom, rg_value v, char *buf, int n);

#endif
