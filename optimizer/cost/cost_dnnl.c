/* optimizer/cost/cost_dnnl.c: the measured CPU cost model: each distinct operator configuration is
 * run with oneDNN (2.x C API: an operation descriptor, then dnnl_primitive_desc_create) on the
 * CPU engine and timed: 3 warm-up runs, then at least 10 and at most 30 timed runs, stopping
 * after 10 once 20 ms are spent; the cost is their median. Figures go to the SQLite cache
 * (cost_cache.h) under a device key naming the CPU, oneDNN's instruction set, the OpenMP thread
 * count oneDNN runs on and oneDNN's version, so a second run times nothing.
 *
 * Mapping: conv2d is a (dilated, grouped) forward-inference convolution with the IR's SAME/VALID
 * padding made explicit and its activation as an eltwise post-op; matmul a (batched) matmul;
 * poolmax/poolavg pooling (max; average counting padded cells, as the IR does); relu, tanh and
 * sigmoid eltwise, smul eltwise linear; ewadd, ewmul and bias binary add/mul (bias's vector
 * broadcast along its axis); concat concat; transpose a reorder into permuted strides.
 * Activations are in plain row-major layouts, as the IR and the exported model hold them;
 * convolution weights in the layout oneDNN prefers, as a runtime reorders constant weights once
 * at load time. split, slice, pad, reshape, enlarge and the constants have no primitive here and
 * get the roofline's figure (cost_roofline.c says why data movement costs at all), as does a
 * configuration oneDNN has no implementation for; their cache rows say "roofline".
 *
 * Timings are of the threads oneDNN runs on (OpenMP's, OMP_NUM_THREADS) on a machine doing
 * nothing else: beside other work, OpenMP's barriers wait for descheduled threads and the
 * figures measure the scheduler as well. A cost model is not thread-safe. */
#include <dnnl.h>
#include <dnnl_debug.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_cache.h"
#include "cost_internal.h"

#define WARMUP 3
#define MIN_REPEATS 10
#define MAX_REPEATS 30
#define ENOUGH_US 20000.0

typedef struct {
  rg_machine mc;
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  rg_cost_cache *cache; /* NULL: none */
  char device[320];
  rg_cost_stats stats;
  rg_cost_seen seen;
  rg_strbuf config;
} dnnl_ctx;

/* ---- operation descriptors ---- */

static rg_status dnnl_fail(rg_err *err, dnnl_status_t s, const char *what) {
  return rg_err_set(err, s == dnnl_out_of_memory ? RG_ERR_NOMEM : RG_ERR_IO, "oneDNN: %s: %s", what,
                    dnnl_status2str(s));
}

/* A plain row-major float32 memory descriptor of s (rank 0 as one element). */
static dnnl_status_t plain(dnnl_memory_desc_t *md, const rg_shape *s) {
  dnnl_dims_t dims, strides;
  int nd = s->rank ? s->rank : 1;
  dims[0] = 1;
  for (int i = 0; i < s->rank; i++)
    dims[i] = s->dim[i];
  strides[nd - 1] = 1;
  for (int i = nd - 2; i >= 0; i--)
    strides[i] = strides[i + 1] * dims[i + 1];
  return dnnl_memory_desc_init_by_strides(md, nd, dims, dnnl_f32, strides);
}

static dnnl_alg_kind_t act_alg(int act) {
  return act == RG_ACT_RELU   ? dnnl_eltwise_relu
         : act == RG_ACT_TANH ? dnnl_eltwise_tanh
                              : dnnl_eltwise_logistic;
}

/* Attributes carrying a fused activation as an eltwise post-op (*attr NULL for none). */
static dnnl_status_t act_attr(int act, dnnl_primitive_attr_t *attr) {
  *attr = NULL;
  if (act == RG_ACT_NONE) return dnnl_success;
  dnnl_post_ops_t po = NULL;
  dnnl_status_t s = dnnl_post_ops_create(&po);
  if (s == dnnl_success) s = dnnl_post_ops_append_eltwise(po, 1.0f, act_alg(act), 0.0f, 0.0f);
  if (s == dnnl_success) s = dnnl_primitive_attr_create(attr);
  if (s == dnnl_success) s = dnnl_primitive_attr_set_post_ops(*attr, po);
  if (po) dnnl_post_ops_destroy(po);
  if (s != dnnl_success && *attr) dnnl_primitive_attr_destroy(*attr), *attr = NULL;
  return s;
}

static dnnl_status_t with_attr(dnnl_primitive_desc_t *pd, const void *op_desc, int act,
                               dnnl_engine_t eng) {
  dnnl_primitive_attr_t attr;
  dnnl_status_t s = act_attr(act, &attr);
  if (s == dnnl_success) s = dnnl_primitive_desc_create(pd, op_desc, attr, eng, NULL);
  if (attr) dnnl_primitive_attr_destroy(attr);
  return s;
}

/* Padding of one spatial dimension as the IR's SAME/VALID gives it (ops.def): before, after. */
static void window_pads(int32_t in, int32_t k_eff, int32_t stride, int pad, dnnl_dim_t *before,
                        dnnl_dim_t *after) {
  int32_t out, pb;
  rg_window_geometry(in, k_eff, stride, pad, &out, &pb);
  int64_t total = pad == RG_PAD_SAME ? (int64_t)(out - 1) * stride + k_eff - in : 0;
  if (total < 0) total = 0;
  *before = pb, *after = total - pb;
}

/* The arguments a primitive is run with, besides the descriptor. */
typedef struct {
  int arg[RG_MAX_INPUTS + 1];
  int n;
} args;

static dnnl_status_t desc_conv(dnnl_ctx *c, const rg_model *m, const rg_node *nd, rg_ref out,
                               dnnl_primitive_desc_t *pd, args *a) {
  const rg_shape *x = rg_model_shape(m, nd->in[0]), *w = rg_model_shape(m, nd->in[1]);
  const int32_t *p = nd->params; /* sh sw pad act dh dw g */
  int32_t g = p[6];
  dnnl_memory_desc_t src, wei, dst;
  dnnl_dims_t wd = {w->dim[0], w->dim[1], w->dim[2], w->dim[3]};
  if (g > 1) { /* (g, O/g, C/g, KH, KW) */
    wd[0] = g, wd[1] = w->dim[0] / g, wd[2] = w->dim[1], wd[3] = w->dim[2], wd[4] = w->dim[3];
  }
  dnnl_status_t s = plain(&src, x);
  if (s == dnnl_success) s = plain(&dst, rg_model_shape(m, out));
  if (s == dnnl_success)
    s = dnnl_memory_desc_init_by_tag(&wei, g > 1 ? 5 : 4, wd, dnnl_f32, dnnl_format_tag_any);
  dnnl_dims_t strides = {p[0], p[1]}, dil = {p[4] - 1, p[5] - 1}, pl,
              pr; /* oneDNN counts dilation from 0 */
  window_pads(x->dim[2], (w->dim[2] - 1) * p[4] + 1, p[0], p[2], &pl[0], &pr[0]);
  window_pads(x->dim[3], (w->dim[3] - 1) * p[5] + 1, p[1], p[2], &pl[1], &pr[1]);
  dnnl_convolution_desc_t cd;
  if (s == dnnl_success)
    s = dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference,
                                                   dnnl_convolution_direct, &src, &wei, NULL, &dst,
                                                   strides, dil, pl, pr);
  if (s == dnnl_success) s = with_attr(pd, &cd, p[3], c->engine);
  *a = (args){{DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}, 3};
  return s;
}

/* a (..., m, k) times b (..., k, n) with its batch dims as one */
static dnnl_status_t desc_matmul(dnnl_ctx *c, const rg_model *m, const rg_node *nd, rg_ref out,
                                 dnnl_primitive_desc_t *pd, args *a) {
  const rg_shape *x = rg_model_shape(m, nd->in[0]), *y = rg_model_shape(m, nd->in[1]);
  int r = x->rank;
  int32_t batch = 1;
  for (int i = 0; i < r - 2; i++)
    batch *= x->dim[i];
  int32_t mm = x->dim[r - 2], k = x->dim[r - 1], n = y->dim[r - 1];
  rg_shape sa = rg_shape_make(3, (int32_t[]){batch, mm, k}),
           sb = rg_shape_make(3, (int32_t[]){batch, k, n}),
           sc = rg_shape_make(3, (int32_t[]){batch, mm, n});
  if (r == 2) sa = *x, sb = *y, sc = *rg_model_shape(m, out);
  dnnl_memory_desc_t ma, mb, mc;
  dnnl_status_t s = plain(&ma, &sa);
  if (s == dnnl_success) s = plain(&mb, &sb);
  if (s == dnnl_success) s = plain(&mc, &sc);
  dnnl_matmul_desc_t md;
  if (s == dnnl_success) s = dnnl_matmul_desc_init(&md, &ma, &mb, NULL, &mc);
  if (s == dnnl_success) s = with_attr(pd, &md, nd->params[0], c->engine);
  *a = (args){{DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}, 3};
  return s;
}

static dnnl_status_t desc_pool(dnnl_ctx *c, const rg_model *m, const rg_node *nd, rg_ref out,
                               dnnl_primitive_desc_t *pd, args *a) {
  const rg_shape *x = rg_model_shape(m, nd->in[0]);
  const int32_t *p = nd->params; /* kh kw sh sw pad act */
  dnnl_memory_desc_t src, dst;
  dnnl_status_t s = plain(&src, x);
  if (s == dnnl_success) s = plain(&dst, rg_model_shape(m, out));
  dnnl_dims_t kernel = {p[0], p[1]}, strides = {p[2], p[3]}, pl, pr;
  window_pads(x->dim[2], p[0], p[2], p[4], &pl[0], &pr[0]);
  window_pads(x->dim[3], p[1], p[3], p[4], &pl[1], &pr[1]);
  dnnl_pooling_desc_t d;
  /* the IR's average counts padded cells as zeros: oneDNN's include-padding */
  dnnl_alg_kind_t alg =
      nd->op == RG_OP_POOLMAX ? dnnl_pooling_max : dnnl_pooling_avg_include_padding;
  if (s == dnnl_success)
    s = dnnl_pooling_forward_desc_init(&d, dnnl_forward_inference, alg, &src, &dst, strides, kernel,
                                       pl, pr);
  if (s == dnnl_success) s = with_attr(pd, &d, p[5], c->engine);
  *a = (args){{DNNL_ARG_SRC, DNNL_ARG_DST}, 2};
  return s;
}

static dnnl_status_t desc_eltwise(dnnl_ctx *c, const rg_model *m, const rg_node *nd,
                                  dnnl_primitive_desc_t *pd, args *a) {
  dnnl_memory_desc_t data;
  dnnl_status_t s = plain(&data, rg_model_shape(m, nd->in[0]));
  dnnl_alg_kind_t alg = nd->op == RG_OP_RELU   ? dnnl_eltwise_relu
                        : nd->op == RG_OP_TANH ? dnnl_eltwise_tanh
                        : nd->op == RG_OP_SMUL
                            ? dnnl_eltwise_linear /* x * alpha: the scalar's value */
                            : dnnl_eltwise_logistic;
  dnnl_eltwise_desc_t d;
  if (s == dnnl_success)
    s = dnnl_eltwise_forward_desc_init(&d, dnnl_forward_inference, alg, &data, 0.5f, 0.0f);
  if (s == dnnl_success) s = dnnl_primitive_desc_create(pd, &d, NULL, c->engine, NULL);
  *a = (args){{DNNL_ARG_SRC, DNNL_ARG_DST}, 2};
  return s;
}

static dnnl_status_t desc_binary(dnnl_ctx *c, const rg_model *m, const rg_node *nd, rg_ref out,
                                 dnnl_primitive_desc_t *pd, args *a) {
  const rg_shape *x = rg_model_shape(m, nd->in[0]);
  rg_shape y = *rg_model_shape(m, nd->in[1]);
  if (nd->op == RG_OP_BIAS) { /* the vector as x's rank with ones off the axis: broadcast */
    int32_t len = y.dim[0], axis = nd->params[0];
    y = *x;
    for (int i = 0; i < y.rank; i++)
      y.dim[i] = i == axis ? len : 1;
  }
  dnnl_memory_desc_t s0, s1, dst;
  dnnl_status_t s = plain(&s0, x);
  if (s == dnnl_success) s = plain(&s1, &y);
  if (s == dnnl_success) s = plain(&dst, rg_model_shape(m, out));
  dnnl_binary_desc_t d;
  dnnl_alg_kind_t alg = nd->op == RG_OP_EWMUL ? dnnl_binary_mul : dnnl_binary_add;
  if (s == dnnl_success) s = dnnl_binary_desc_init(&d, alg, &s0, &s1, &dst);
  if (s == dnnl_success) s = dnnl_primitive_desc_create(pd, &d, NULL, c->engine, NULL);
  *a = (args){{DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST}, 3};
  return s;
}

static dnnl_status_t desc_concat(dnnl_ctx *c, const rg_model *m, const rg_node *nd, rg_ref out,
                                 dnnl_primitive_desc_t *pd, args *a) {
  dnnl_memory_desc_t src[RG_MAX_INPUTS], dst;
  dnnl_status_t s = plain(&dst, rg_model_shape(m, out));
  a->n = 0;
  for (int k = 0; k < nd->n_in && s == dnnl_success; k++) {
    s = plain(&src[k], rg_model_shape(m, nd->in[k]));
    a->arg[a->n++] = DNNL_ARG_MULTIPLE_SRC + k;
  }
  a->arg[a->n++] = DNNL_ARG_DST;
  if (s == dnnl_success)
    s = dnnl_concat_primitive_desc_create(pd, &dst, nd->n_in, nd->params[0], src, NULL, c->engine);
  return s;
}

/* out[i] = x[perm[i]]: a copy from x's plain layout into one whose dimension perm[i] has the
 * output's stride i */
static dnnl_status_t desc_transpose(dnnl_ctx *c, const rg_model *m, const rg_node *nd, rg_ref out,
                                    dnnl_primitive_desc_t *pd, args *a) {
  const rg_shape *x = rg_model_shape(m, nd->in[0]), *y = rg_model_shape(m, out);
  int perm[RG_MAX_RANK], r = rg_perm_unpack(nd->params[0], perm);
  dnnl_dims_t dims, ostride, strides;
  dnnl_memory_desc_t src, dst;
  dnnl_status_t s = plain(&src, x);
  if (r >= 1) {
    ostride[r - 1] = 1;
    for (int i = r - 2; i >= 0; i--)
      ostride[i] = ostride[i + 1] * y->dim[i + 1];
    for (int i = 0; i < r; i++)
      dims[i] = x->dim[i], strides[perm[i]] = ostride[i];
    if (s == dnnl_success) s = dnnl_memory_desc_init_by_strides(&dst, r, dims, dnnl_f32, strides);
  } else if (s == dnnl_success)
    s = plain(&dst, y);
  if (s == dnnl_success)
    s = dnnl_reorder_primitive_desc_create(pd, &src, c->engine, &dst, c->engine, NULL);
  *a = (args){{DNNL_ARG_FROM, DNNL_ARG_TO}, 2};
  return s;
}

/* A primitive descriptor for node id, or dnnl_unimplemented for the operators without one. */
static dnnl_status_t describe(dnnl_ctx *c, const rg_model *m, int32_t id, dnnl_primitive_desc_t *pd,
                              args *a) {
  const rg_node *nd = rg_graph_node(m->g, id);
  rg_ref out = {id, 0};
  *pd = NULL;
  switch ((rg_op)nd->op) {
  case RG_OP_CONV2D: return desc_conv(c, m, nd, out, pd, a);
  case RG_OP_MATMUL: return desc_matmul(c, m, nd, out, pd, a);
  case RG_OP_POOLAVG:
  case RG_OP_POOLMAX: return desc_pool(c, m, nd, out, pd, a);
  case RG_OP_RELU:
  case RG_OP_TANH:
  case RG_OP_SIGMOID:
  case RG_OP_SMUL: return desc_eltwise(c, m, nd, pd, a);
  case RG_OP_EWADD:
  case RG_OP_EWMUL:
  case RG_OP_BIAS: return desc_binary(c, m, nd, out, pd, a);
  case RG_OP_CONCAT: return desc_concat(c, m, nd, out, pd, a);
  case RG_OP_TRANSPOSE: return desc_transpose(c, m, nd, out, pd, a);
  default: return dnnl_unimplemented;
  }
}

static bool timed_op(rg_op op) {
  switch (op) {
  case RG_OP_CONV2D:
  case RG_OP_MATMUL:
  case RG_OP_POOLAVG:
  case RG_OP_POOLMAX:
  case RG_OP_RELU:
  case RG_OP_TANH:
  case RG_OP_SIGMOID:
  case RG_OP_SMUL:
  case RG_OP_EWADD:
  case RG_OP_EWMUL:
  case RG_OP_BIAS:
  case RG_OP_CONCAT:
  case RG_OP_TRANSPOSE: return true;
  default: return false;
  }
}

/* ---- timing ---- */

/* Runs pd's primitive on memory of its arguments (filled with small normal numbers: denormals
 * would slow some kernels down) and times it; *median in microseconds. */
static rg_status time_pd(dnnl_ctx *c, dnnl_primitive_desc_t pd, const args *a, double *median,
                         int64_t *repeats, rg_err *err) {
  dnnl_primitive_t prim = NULL;
  dnnl_exec_arg_t ex[RG_MAX_INPUTS + 1];
  int made = 0;
  dnnl_status_t s = dnnl_primitive_create(&prim, pd);
  rg_status st = s == dnnl_success ? RG_OK : dnnl_fail(err, s, "creating a primitive");
  for (; made < a->n && !st; made++) {
    const dnnl_memory_desc_t *md =
        dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, a->arg[made]);
    ex[made].arg = a->arg[made];
    s = md ? dnnl_memory_create(&ex[made].memory, md, c->engine, DNNL_MEMORY_ALLOCATE)
           : dnnl_invalid_arguments;
    if (s != dnnl_success) {
      st = dnnl_fail(err, s, "allocating an argument");
      break;
    }
    void *h = NULL;
    dnnl_memory_get_data_handle(ex[made].memory, &h);
    float *f = h;
    for (size_t i = 0, n = dnnl_memory_desc_get_size(md) / sizeof(float); f && i < n; i++)
      f[i] = (float)(i % 97) * 0.01f - 0.4f;
  }
  double t[MAX_REPEATS], spent = 0;
  int reps = 0;
  for (int w = 0; w < WARMUP && !st; w++) {
    s = dnnl_primitive_execute(prim, c->stream, a->n, ex);
    if (s == dnnl_success) s = dnnl_stream_wait(c->stream);
    if (s != dnnl_success) st = dnnl_fail(err, s, "running a primitive");
  }
  while (!st && reps < MAX_REPEATS && (reps < MIN_REPEATS || spent < ENOUGH_US)) {
    double t0 = rg_clock_seconds();
    s = dnnl_primitive_execute(prim, c->stream, a->n, ex);
    if (s == dnnl_success) s = dnnl_stream_wait(c->stream);
    if (s != dnnl_success) st = dnnl_fail(err, s, "running a primitive");
    t[reps] = (rg_clock_seconds() - t0) * 1e6; /* microseconds */
    spent += t[reps++];
  }
  for (int k = 0; k < made; k++)
    dnnl_memory_destroy(ex[k].memory);
  if (prim) dnnl_primitive_destroy(prim);
  if (st) return st;
  *median = rg_cost_median(t, reps);
  /* a clock's tick can read 0 for the smallest: a cost is positive */
  if (*median < 1e-3) *median = 1e-3;
  *repeats = reps;
  return RG_OK;
}

/* ---- the backend ---- */

/* The cost of a configuration not seen in this run: from the cache, measured, or the
 * roofline's. */
static rg_status configuration_cost(void *ctx, const rg_model *m, int32_t id, const char *op,
                                    const char *config, double *us, rg_err *err) {
  dnnl_ctx *c = ctx;
  rg_cost_row row, had;
  int found = rg_roofline_row_and_cached(&c->mc, c->cache, c->device, m, id, op, config, &row, &had, err);
  if (found < 0) return found;
  if (found && !strcmp(had.source, "dnnl")) {
    c->stats.cached++;
    return *us = had.us, RG_OK;
  }
  /* a "roofline" row is the figure of the machine file then: it is recomputed (cheap), and
   * rewritten when the machine file changed */
  bool measure = timed_op((rg_op)rg_graph_node(m->g, id)->op) && !found;
  rg_status st = RG_OK;
  if (measure) {
    dnnl_primitive_desc_t pd;
    args a;
    dnnl_status_t s = describe(c, m, id, &pd, &a);
    /* unimplemented: no implementation for this configuration, the roofline's figure; anything
     * else is a descriptor this file got wrong, which must not pass for a cost */
    if (s != dnnl_success && s != dnnl_unimplemented) {
      if (pd) dnnl_primitive_desc_destroy(pd);
      return rg_err_set(err, s == dnnl_out_of_memory ? RG_ERR_NOMEM : RG_ERR_IO,
                        "oneDNN: %s %s: %s", op, config, dnnl_status2str(s));
    }
    if (s == dnnl_success) {
      st = time_pd(c, pd, &a, &row.us, &row.repeats, err);
      snprintf(row.source, sizeof row.source, "dnnl");
      c->stats.measured++;
    }
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (st) return st;
  }
  if (!strcmp(row.source, "roofline")) c->stats.fallback++;
  if (c->cache && !(found && had.us == row.us && !strcmp(had.source, row.source)))
    st = rg_cost_cache_put(c->cache, c->device, op, config, &row, err);
  return *us = row.us, st;
}

static rg_status node_cost(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err) {
  dnnl_ctx *c = ctx;
  return rg_cost_seen_node(&c->seen, &c->config, m, id, configuration_cost, c, us, err);
}

static void stats(void *ctx, rg_cost_stats *s) {
  *s = ((dnnl_ctx *)ctx)->stats;
  s->device = ((dnnl_ctx *)ctx)->device;
}

static void ctx_free(void *ctx) {
  dnnl_ctx *c = ctx;
  if (!c) return;
  rg_cost_cache_close(c->cache);
  if (c->stream) dnnl_stream_destroy(c->stream);
  if (c->engine) dnnl_engine_destroy(c->engine);
  rg_cost_seen_free(&c->seen);
  rg_sb_free(&c->config);
  free(c);
}

/* What timings depend on: "CPU model; ISA; N threads; oneDNN x.y.z". */
static void device_key(char *buf, size_t n) {
  char model[200];
  rg_cpu_model(model, sizeof model);
  const dnnl_version_t *v = dnnl_version();
  snprintf(buf, n, "%s; %s; %d thread%s; oneDNN %d.%d.%d", model,
           dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()), omp_get_max_threads(),
           omp_get_max_threads() == 1 ? "" : "s", v->major, v->minor, v->patch);
}

rg_status rg_cost_dnnl_open(const rg_cost_opts *o, rg_cost_model **out, rg_err *err) {
  dnnl_ctx *c = calloc(1, sizeof *c);
  if (!c) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_sb_init(&c->config);
  rg_status st =
      rg_machine_read(o->machine_file ? o->machine_file : rg_machine_default_path(), &c->mc, err);
  dnnl_status_t s = dnnl_success;
  if (!st && (s = dnnl_engine_create(&c->engine, dnnl_cpu, 0)) != dnnl_success)
    st = dnnl_fail(err, s, "no CPU engine");
  if (!st &&
      (s = dnnl_stream_create(&c->stream, c->engine, dnnl_stream_default_flags)) != dnnl_success)
    st = dnnl_fail(err, s, "no stream on the CPU engine");
  if (!st && o->cache_path && o->cache_path[0])
    st = rg_cost_cache_open(o->cache_path, &c->cache, err);
  device_key(c->device, sizeof c->device);
  static const rg_cost_iface iface = {"dnnl", node_cost, stats, ctx_free, NULL};
  if (!st && !(*out = rg_cost_model_new(&iface, c)))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (st) ctx_free(c);
  return st;
}
