/* ir/interp.c: whole-output and single-element evaluation in float64, Z_p (p = 2^61-1) and the
 * wide field Z_q (q = 2^127-1).
 *
 * The operator semantics live in interp_kernels.inc, instantiated here once per domain. Values
 * travel between element functions as `ival`, a union wide enough for every domain (rg_value
 * itself stays 8 bytes, as whole-output buffers elsewhere use it). Whole outputs are computed
 * node by node in id (topological) order over the nodes the outputs need, in buffers of the
 * domain's element type (rg_value, or rg_z127 for Z_q);
 * single elements are computed recursively through the same element functions, with a memo of
 * (node, output, index) -> value so that shared subgraphs are computed once. Data-movement
 * nodes (moves_data in interp_kernels.inc) are not memoised: single-element evaluation forwards
 * the index through them to the node that computes, or to the input.
 */
#include "interp.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp.h"

/* One value of any domain; the wide member first, so that {0} clears all of it (0.0, 0, 0). */
typedef union {
  rg_z127 w;
  rg_value v;
} ival;

/* The domains inside this file: rg_domain's two, and the wide one with its own API. */
typedef enum { NK_F64 = RG_DOM_F64, NK_ZP = RG_DOM_ZP, NK_Z127 } num_kind;

typedef struct {
  rg_op op;
  const int32_t *p;
  int n_in;
  const rg_shape *in[RG_MAX_INPUTS];
  const rg_shape *out; /* n_outputs shapes */
  uint64_t zp_scale;
  rg_z127 z127_scale; /* 1/(window size) in Z_q: set for Z_q only (site_for) */
} rg_site;

typedef struct rg_fetch {
  ival (*get)(struct rg_fetch *self, int input, int64_t flat);
} rg_fetch;

static rg_site site_of(const rg_plan *plan, int32_t id) {
  const rg_node *nd = rg_graph_node(plan->g, id);
  rg_site s = {(rg_op)nd->op, plan->params[id], nd->n_in, {0}, plan->shape[id], plan->zp_scale[id], 0};
  for (int k = 0; k < nd->n_in; k++) s.in[k] = &plan->shape[nd->in[k].node][nd->in[k].out];
  return s;
}

/* ---- float64 ---- */
#define NUM double
#define SFX(n) n##_f64
#define ADD(a, b) ((a) + (b))
#define MUL(a, b) ((a) * (b))
#define ZERO 0.0
#define ONE 1.0
#define FROM(x) ((x).v.f)
#define SCALE(s, count) (1.0 / (double)(count))
#define ACT(ctx, act, x) ((void)(ctx), rg_act_f64(act, x))
#define PM_INIT(ctx) (-INFINITY)
#define PM_CELL(ctx, acc, x) ((x) > (acc) ? (x) : (acc))
#define PM_PAD(ctx, acc) (acc)
#define PM_DONE(ctx, acc) (acc)
#include "interp_kernels.inc" /* it undefines the macros above */

/* ---- Z_p ---- */
/* Max pooling in Z_p: ir/zp.h's keyed function of the window. */
#define NUM uint64_t
#define SFX(n) n##_zp
#define FIELD(n) rg_zp_##n
#define FROM(x) ((x).v.z)
#define SCALE(s, count) ((s)->zp_scale)
#define PM_INIT(ctx) ((ctx)->poolmax_key)
#define PM_CELL(ctx, acc, x) rg_zp_poolmax_cell(acc, x)
#define PM_PAD(ctx, acc) rg_zp_poolmax_pad(acc)
#include "interp_kernels.inc" /* it undefines the macros above */

/* ---- Z_q, q = 2^127-1 ---- */
/* Max pooling in Z_q: as in Z_p, a keyed random function of the window's cells in row-major
 * order; a padded cell is hashed under its own key, so no cell value can stand for it. The
 * sums wrap modulo 2^128, which only feeds the hash. 1/count is precomputed per node (GMP). */
#define NUM rg_z127
#define SFX(n) n##_z127
#define FIELD(n) rg_z127_##n
#define FROM(x) ((x).w)
#define SCALE(s, count) ((s)->z127_scale)
#define PM_INIT(ctx) ((rg_z127)(ctx)->poolmax_key)
#define PM_CELL(ctx, acc, x) rg_z127_hash(UINT64_C(0x9e3779b97f4a7c15), (acc) + (x))
#define PM_PAD(ctx, acc) rg_z127_hash(RG_ZP_PAD_MARK, acc)
#include "interp_kernels.inc"

static ival elem(num_kind k, const rg_site *s, const rg_eval_ctx *ctx, int out, const int32_t *pos,
                 rg_fetch *f) {
  ival v = {0};
  if (k == NK_F64) v.v.f = elem_f64(s, ctx, out, pos, f);
  else if (k == NK_ZP) v.v.z = elem_zp(s, ctx, out, pos, f);
  else v.w = elem_z127(s, ctx, out, pos, f);
  return v;
}

void rg_eval_ctx_init(rg_eval_ctx *c, uint64_t seed) {
  for (int a = 0; a < RG_ACT_COUNT; a++) c->act_key[a] = rg_mix64(seed ^ (UINT64_C(0x100) + (uint64_t)a));
  c->poolmax_key = rg_mix64(seed ^ UINT64_C(0x200));
  c->kernel = NULL;
}

const char *rg_domain_name(rg_domain d) { return d == RG_DOM_F64 ? "float64" : "Z_p"; }

/* ---- whole outputs ---- */

/* A node's site, with what the domain needs beyond the plan. */
static rg_site site_for(const rg_plan *plan, int32_t id, num_kind kind) {
  rg_site s = site_of(plan, id);
  /* The plan keeps 1/count in Z_p only; count < 2^61 is the inverse of that inverse. */
  if (kind == NK_Z127 && plan->zp_scale[id]) s.z127_scale = rg_z127_inv(rg_zp_inv(plan->zp_scale[id]));
  return s;
}

/* Whole-tensor buffers hold rg_value (8 bytes) or rg_z127 (16 bytes) by domain. */
typedef struct {
  rg_fetch base;
  const void *in[RG_MAX_INPUTS];
} array_fetch;

static ival array_get(rg_fetch *self, int input, int64_t flat) {
  ival v = {0};
  v.v = ((const rg_value *)((array_fetch *)self)->in[input])[flat];
  return v;
}

static ival array_get_z127(rg_fetch *self, int input, int64_t flat) {
  ival v = {0};
  v.w = ((const rg_z127 *)((array_fetch *)self)->in[input])[flat];
  return v;
}

/* Per node, its outputs' whole arrays. */
typedef void *out_bufs[RG_MAX_OUTPUTS];

/* Output o of node s into dst: a faster whole-node kernel where ctx has one, else element by
 * element. */
static void eval_output(num_kind kind, const rg_eval_ctx *ctx, const rg_site *s, int o, array_fetch *f,
                        void *dst) {
  const rg_shape *os = &s->out[o];
  int64_t cnt = rg_shape_numel(os);
  if (kind != NK_Z127 && ctx->kernel) {
    const rg_value *vals[RG_MAX_INPUTS];
    for (int k = 0; k < s->n_in; k++) vals[k] = f->in[k];
    if (ctx->kernel(s->op, s->p, o, s->n_in, s->in, os, (rg_domain)kind, ctx, vals, dst)) return;
  }
  int32_t pos[RG_MAX_RANK] = {0};
  for (int64_t i = 0; i < cnt; i++) {
    ival v = elem(kind, s, ctx, o, pos, &f->base);
    if (kind == NK_Z127) ((rg_z127 *)dst)[i] = v.w;
    else ((rg_value *)dst)[i] = v.v;
    for (int d = os->rank - 1; d >= 0 && ++pos[d] == os->dim[d]; d--) pos[d] = 0;
  }
}

/* Evaluates node id (not an input) into new arrays buf[id][o]. */
static rg_status eval_node(const rg_plan *plan, num_kind kind, const rg_eval_ctx *ctx, int32_t id, out_bufs *buf,
                           rg_err *err) {
  size_t esz = kind == NK_Z127 ? sizeof(rg_z127) : sizeof(rg_value);
  const rg_node *nd = rg_graph_node(plan->g, id);
  rg_site s = site_for(plan, id, kind);
  array_fetch f = {{kind == NK_Z127 ? array_get_z127 : array_get}, {0}};
  for (int k = 0; k < nd->n_in; k++) f.in[k] = buf[nd->in[k].node][nd->in[k].out];
  for (int o = 0; o < rg_op_get(s.op)->n_outputs; o++) {
    int64_t cnt = rg_shape_numel(&s.out[o]);
    void *dst = malloc(esz * (size_t)(cnt ? cnt : 1));
    if (!dst) return rg_err_set(err, RG_ERR_NOMEM, "out of memory evaluating a %s node", rg_op_get(s.op)->name);
    buf[id][o] = dst;
    eval_output(kind, ctx, &s, o, &f, dst);
  }
  return RG_OK;
}

/* Copies of the outputs' arrays, for the caller. */
static rg_status copy_results(const rg_plan *plan, size_t esz, out_bufs *buf, const rg_ref *outs, int n,
                              void **results, rg_err *err) {
  for (int i = 0; i < n; i++) {
    int64_t cnt = rg_shape_numel(rg_plan_shape(plan, outs[i]));
    results[i] = malloc(esz * (size_t)(cnt ? cnt : 1));
    if (!results[i]) {
      for (int j = 0; j < i; j++) free(results[j]), results[j] = NULL;
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory copying results");
    }
    memcpy(results[i], buf[outs[i].node][outs[i].out], esz * (size_t)cnt);
  }
  return RG_OK;
}

/* Node by node in id order over the nodes the outputs need; inputs[v] and results[i] are
 * arrays of the domain's element type. */
static rg_status eval_full(const rg_plan *plan, num_kind kind, const rg_eval_ctx *ctx, const void *const *inputs,
                           const rg_ref *outs, int n, void **results, rg_err *err) {
  int32_t nn = plan->n;
  uint8_t *need = calloc(nn ? (size_t)nn : 1, 1);
  out_bufs *buf = calloc(nn ? (size_t)nn : 1, sizeof *buf);
  rg_status st = RG_OK;
  for (int i = 0; i < n; i++) results[i] = NULL;
  if (!need || !buf) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory evaluating a graph");
  if (st == RG_OK) rg_graph_mark_reachable(plan->g, outs, n, need);
  for (int32_t id = 0; id < nn && st == RG_OK; id++) {
    if (!need[id]) continue;
    assert(plan->typed[id]);
    const rg_node *nd = rg_graph_node(plan->g, id);
    if (nd->op == RG_OP_INPUT) buf[id][0] = (void *)inputs[nd->params[0]]; /* borrowed, never freed here */
    else st = eval_node(plan, kind, ctx, id, buf, err);
  }
  size_t esz = kind == NK_Z127 ? sizeof(rg_z127) : sizeof(rg_value);
  if (st == RG_OK) st = copy_results(plan, esz, buf, outs, n, results, err);
  if (buf)
    for (int32_t id = 0; id < nn; id++)
      if (rg_graph_node(plan->g, id)->op != RG_OP_INPUT)
        for (int o = 0; o < RG_MAX_OUTPUTS; o++) free(buf[id][o]);
  free(buf);
  free(need);
  return st;
}

rg_status rg_eval_op(rg_op op, const int32_t *params, int n_in, const rg_shape *const *in,
                     const rg_value *const *vals, int out, rg_domain dom, const rg_eval_ctx *ctx,
                     rg_value *dst, rg_err *err) {
  rg_shape shapes[RG_MAX_OUTPUTS];
  rg_status st = rg_shape_infer(op, params, n_in, in, shapes, err);
  if (st) return st;
  rg_site s = {op, params, n_in, {0}, shapes, rg_plan_window_scale(op, params), 0};
  for (int k = 0; k < n_in; k++) s.in[k] = in[k];
  const rg_shape *os = &shapes[out];
  if (ctx->kernel && ctx->kernel(op, params, out, n_in, in, os, dom, ctx, vals, dst)) return RG_OK;
  array_fetch f = {{array_get}, {0}};
  for (int k = 0; k < n_in; k++) f.in[k] = vals[k];
  int32_t pos[RG_MAX_RANK] = {0};
  int64_t cnt = rg_shape_numel(os);
  for (int64_t i = 0; i < cnt; i++) {
    dst[i] = elem((num_kind)dom, &s, ctx, out, pos, &f.base).v;
    for (int d = os->rank - 1; d >= 0 && ++pos[d] == os->dim[d]; d--) pos[d] = 0;
  }
  return RG_OK;
}

rg_status rg_eval_full(const rg_plan *plan, rg_domain dom, const rg_eval_ctx *ctx,
                       const rg_value *const *inputs, const rg_ref *outs, int n,
                       rg_value **results, rg_err *err) {
  return eval_full(plan, (num_kind)dom, ctx, (const void *const *)inputs, outs, n, (void **)results, err);
}

rg_status rg_eval_full_z127(const rg_plan *plan, const rg_eval_ctx *ctx, const rg_z127 *const *inputs,
                            const rg_ref *outs, int n, rg_z127 **results, rg_err *err) {
  return eval_full(plan, NK_Z127, ctx, (const void *const *)inputs, outs, n, (void **)results, err);
}

/* ---- single elements ---- */

struct rg_elem_eval {
  const rg_plan *plan;
  num_kind kind;
  const rg_eval_ctx *ctx;
  rg_input_fn input;          /* float64, Z_p */
  rg_z127_input_fn input_w;   /* Z_q */
  void *user;
  uint64_t *keys; /* (node*2 + out) << 40 | flat, plus one; 0 marks an empty slot */
  ival *vals;
  size_t cap, used;
  rg_site *site; /* node -> its site, built once (typed nodes only) */
  bool nomem;
};

typedef struct {
  rg_fetch base;
  rg_elem_eval *e;
  const rg_node *node;
} elem_fetch;

static rg_elem_eval *eval_new(const rg_plan *plan, num_kind kind, const rg_eval_ctx *ctx, rg_input_fn input,
                              rg_z127_input_fn input_w, void *user) {
  rg_elem_eval *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  *e = (rg_elem_eval){plan, kind, ctx, input, input_w, user, NULL, NULL, 1024, 0, NULL, false};
  e->keys = calloc(e->cap, sizeof *e->keys);
  e->vals = malloc(e->cap * sizeof *e->vals);
  e->site = calloc(plan->n ? (size_t)plan->n : 1, sizeof *e->site);
  if (!e->keys || !e->vals || !e->site) {
    rg_elem_eval_free(e);
    return NULL;
  }
  for (int32_t id = 0; id < plan->n; id++)
    if (plan->typed[id]) e->site[id] = site_for(plan, id, kind);
  return e;
}

rg_elem_eval *rg_elem_eval_new(const rg_plan *plan, rg_domain dom, const rg_eval_ctx *ctx,
                               rg_input_fn input, void *user) {
  return eval_new(plan, (num_kind)dom, ctx, input, NULL, user);
}

rg_elem_eval *rg_elem_eval_new_z127(const rg_plan *plan, const rg_eval_ctx *ctx, rg_z127_input_fn input,
                                    void *user) {
  return eval_new(plan, NK_Z127, ctx, NULL, input, user);
}

void rg_elem_eval_free(rg_elem_eval *e) {
  if (e) free(e->keys), free(e->vals), free(e->site), free(e);
}

static size_t slot_of(const rg_elem_eval *e, uint64_t key) {
  size_t h = (size_t)rg_mix64(key) & (e->cap - 1);
  while (e->keys[h] && e->keys[h] != key) h = (h + 1) & (e->cap - 1);
  return h;
}

static bool grow(rg_elem_eval *e) {
  size_t cap = e->cap * 2;
  uint64_t *keys = calloc(cap, sizeof *keys);
  ival *vals = malloc(cap * sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return false;
  }
  uint64_t *ok = e->keys;
  ival *ov = e->vals;
  size_t ocap = e->cap;
  e->keys = keys, e->vals = vals, e->cap = cap;
  for (size_t i = 0; i < ocap; i++)
    if (ok[i]) {
      size_t h = slot_of(e, ok[i]);
      e->keys[h] = ok[i];
      e->vals[h] = ov[i];
    }
  free(ok);
  free(ov);
  return true;
}

static ival eval_ref(rg_elem_eval *e, rg_ref r, int64_t flat);

static ival elem_get(rg_fetch *self, int input, int64_t flat) {
  elem_fetch *f = (elem_fetch *)self;
  return eval_ref(f->e, f->node->in[input], flat);
}

static ival eval_ref(rg_elem_eval *e, rg_ref r, int64_t flat) {
  const rg_node *nd = rg_graph_node(e->plan->g, r.node);
  const rg_site *s = &e->site[r.node];
  ival v = {0};
  /* Data movement is forwarded, not memoised: remembering each element on the way cost a table
   * slot per element and per level, and recomputing one is an index calculation. */
  while (nd->op != RG_OP_INPUT && moves_data(s->op)) {
    int64_t in_flat;
    int k = move_index(s, r.out, NULL, flat, &in_flat);
    if (k < 0) return v; /* a zero of every domain */
    r = nd->in[k], flat = in_flat;
    nd = rg_graph_node(e->plan->g, r.node), s = &e->site[r.node];
  }
  if (nd->op == RG_OP_INPUT) {
    if (e->kind == NK_Z127) v.w = e->input_w(e->user, nd->params[0], flat);
    else v.v = e->input(e->user, nd->params[0], flat);
    return v;
  }
  uint64_t key = (((uint64_t)r.node * 2 + (uint64_t)r.out) << 40 | (uint64_t)flat) + 1;
  size_t h = slot_of(e, key);
  if (e->keys[h]) return e->vals[h];
  elem_fetch f = {{elem_get}, e, nd};
  int32_t pos[RG_MAX_RANK];
  rg_shape_unflat(&s->out[r.out], flat, pos);
  v = elem(e->kind, s, e->ctx, r.out, pos, &f.base);
  if (2 * (e->used + 1) > e->cap && !grow(e)) {
    e->nomem = true; /* the value is still right; it just is not remembered */
    return v;
  }
  h = slot_of(e, key);
  e->keys[h] = key;
  e->vals[h] = v;
  e->used++;
  return v;
}

static rg_status check_pos(const rg_elem_eval *e, rg_ref out, const int32_t *pos, rg_err *err) {
  const rg_shape *os = rg_plan_shape(e->plan, out);
  for (int d = 0; d < os->rank; d++)
    if (pos[d] < 0 || pos[d] >= os->dim[d])
      return rg_err_set(err, RG_ERR_ARG, "position %d in dimension %d is outside 0..%d", pos[d], d,
                        os->dim[d] - 1);
  if (rg_shape_numel(os) >= (INT64_C(1) << 40))
    return rg_err_set(err, RG_ERR_LIMIT, "tensor too large for single-element evaluation");
  return RG_OK;
}

rg_status rg_elem_eval_at(rg_elem_eval *e, rg_ref out, const int32_t *pos, rg_value *val,
                          rg_err *err) {
  assert(e->kind != NK_Z127);
  rg_status st = check_pos(e, out, pos, err);
  if (st == RG_OK) *val = eval_ref(e, out, rg_shape_flat(rg_plan_shape(e->plan, out), pos)).v;
  return st;
}

rg_status rg_elem_eval_at_z127(rg_elem_eval *e, rg_ref out, const int32_t *pos, rg_z127 *val,
                               rg_err *err) {
  assert(e->kind == NK_Z127);
  rg_status st = check_pos(e, out, pos, err);
  if (st == RG_OK) *val = eval_ref(e, out, rg_shape_flat(rg_plan_shape(e->plan, out), pos)).w;
  return st;
}

/* ---- values ---- */

/* The 64 hashed bits behind every random value: addressable by (seed, tensor, index). */
static uint64_t random_bits(uint64_t seed, int32_t tvar, int64_t flat) {
  uint64_t h = rg_mix64(rg_mix64(seed ^ ((uint64_t)tvar << 48)) ^ (uint64_t)flat);
  return rg_mix64(h + UINT64_C(0x9e3779b97f4a7c15));
}

rg_value rg_random_value(rg_domain dom, uint64_t seed, int32_t tvar, int64_t flat) {
  uint64_t h = random_bits(seed, tvar, flat);
  rg_value v;
  if (dom == RG_DOM_ZP) v.z = rg_zp_reduce(h >> 3);
  else v.f = (double)(h >> 11) * 0x1.0p-52 - 1.0; /* [-1, 1) */
  return v;
}

rg_z127 rg_random_z127(uint64_t seed, int32_t tvar, int64_t flat) {
  uint64_t lo = random_bits(seed, tvar, flat), hi = rg_mix64(lo ^ UINT64_C(0xd1b54a32d192ed03));
  return rg_z127_fold((rg_z127)(hi >> 1) << 64 | lo); /* 127 bits; q itself folds to 0 */
}

rg_value rg_value_from_int(rg_domain dom, int64_t i) {
  rg_value v;
  if (dom == RG_DOM_ZP) v.z = rg_zp_from_int(i);
  else v.f = (double)i;
  return v;
}

bool rg_value_eq(rg_domain dom, rg_value a, rg_value b) {
  if (dom == RG_DOM_ZP) return a.z == b.z;
  if (isnan(a.f) || isnan(b.f)) return false;
  double scale = fabs(a.f) > fabs(b.f) ? fabs(a.f) : fabs(b.f);
  return fabs(a.f - b.f) <= 1e-9 * (1.0 + scale);
}

void rg_value_format(rg_domain dom, rg_value v, char *buf, int n) {
  if (dom == RG_DOM_ZP) snprintf(buf, (size_t)n, "%llu", (unsigned long long)v.z);
  else snprintf(buf, (size_t)n, "%.17g", v.f);
}
