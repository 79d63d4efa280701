/* optimizer/cost/cost_cuda.c: the measured GPU cost model (--cost cuda), as cost_dnnl.c is the CPU's:
 * each distinct operator configuration timed once on the GPU by optimizer/cuda/ (conv2d,
 * pooling and the activations by cuDNN, matmul by cuBLAS, the rest by kernels of ours: warm-up,
 * then the median of CUDA-event timings), as TASO measured. Figures go to the SQLite cache
 * (cost_cache.h) with source "cuda" under the GPU's device key (its name, SM count, compute
 * capability, driver and runtime, cuDNN and cuBLAS versions), so a second run times nothing.
 * An operator the GPU side does not run (the weight-only ones, a configuration too large for
 * the device or without a cuDNN algorithm) gets the roofline's figure, source "roofline".
 *
 * Opening probes the device first: with none (CUDA_VISIBLE_DEVICES empty, no driver) or in a
 * build without CUDA it is RG_ERR_ARG with the CUDA side's message, which graphopt reports
 * with exit status 2 before reading the model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_cache.h"
#include "cost_internal.h"
#include "gpu_op.h"

typedef struct {
  rg_machine mc;
  rg_gpu *gpu;
  rg_cost_cache *cache; /* NULL: none */
  rg_cost_stats stats;
  rg_cost_seen seen;
  rg_strbuf config;
} cuda_ctx;

static rg_status gpu_status(rg_gpu_status s, const char *msg, rg_err *err) {
  return rg_err_set(err,
                    s == RG_GPU_NOMEM   ? RG_ERR_NOMEM
                    : s == RG_GPU_NODEV ? RG_ERR_ARG
                                        : RG_ERR_IO,
                    "%s", msg);
}

/* The cost of a configuration not seen in this run: from the cache, measured, or the
 * roofline's (as cost_dnnl.c's). */
static rg_status configuration_cost(void *ctx, const rg_model *m, int32_t id, const char *op,
                                    const char *config, double *us, rg_err *err) {
  cuda_ctx *c = ctx;
  rg_cost_row row, had;
  const char *device = rg_gpu_device(c->gpu);
  int found = rg_roofline_row_and_cached(&c->mc, c->cache, device, m, id, op, config, &row, &had, err);
  if (found < 0) return found;
  if (found && !strcmp(had.source, "cuda")) {
    c->stats.cached++;
    return *us = had.us, RG_OK;
  }
  rg_gpu_op g;
  if (rg_gpu_op_of_node(m, id, &g)) { /* a cached roofline row is timed again: it may have been a busy GPU */
    char msg[1024];
    double t;
    int64_t reps;
    rg_gpu_status s = rg_gpu_time(c->gpu, &g, &t, &reps, msg, sizeof msg);
    if (s < 0) return gpu_status(s, msg, err);
    if (s == RG_GPU_OK) {
      row.us = t, row.repeats = reps;
      snprintf(row.source, sizeof row.source, "cuda");
      c->stats.measured++;
    }
  }
  if (!strcmp(row.source, "roofline")) c->stats.fallback++;
  rg_status st = RG_OK;
  /* only timings are kept: a roofline figure is cheap, and depends on --machine */
  if (c->cache && !strcmp(row.source, "cuda"))
    st = rg_cost_cache_put(c->cache, device, op, config, &row, err);
  return *us = row.us, st;
}

static rg_status node_cost(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err) {
  cuda_ctx *c = ctx;
  return rg_cost_seen_node(&c->seen, &c->config, m, id, configuration_cost, c, us, err);
}

static void stats(void *ctx, rg_cost_stats *s) {
  cuda_ctx *c = ctx;
  *s = c->stats;
  s->device = rg_gpu_device(c->gpu);
}

static void ctx_free(void *ctx) {
  cuda_ctx *c = ctx;
  if (!c) return;
  rg_cost_cache_close(c->cache);
  rg_gpu_close(c->gpu);
  rg_cost_seen_free(&c->seen);
  rg_sb_free(&c->config);
  free(c);
}

rg_status rg_cost_cuda_open(const rg_cost_opts *o, rg_cost_model **out, rg_err *err) {
  cuda_ctx *c = calloc(1, sizeof *c);
  if (!c) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_sb_init(&c->config);
  char msg[1024];
  rg_gpu_status s = rg_gpu_open(&c->gpu, msg, sizeof msg);
  rg_status st = s ? gpu_status(s, msg, err) : RG_OK;
  /* the fallback's figures: a GPU's, unless --machine names others */
  if (!st) st = rg_machine_read(o->machine_file ? o->machine_file : "gpu-h100", &c->mc, err);
  if (!st && o->cache_path && o->cache_path[0])
    st = rg_cost_cache_open(o->cache_path, &c->cache, err);
  static const rg_cost_iface iface = {"cuda", node_cost, stats, ctx_free, NULL};
  if (!st && !(*out = rg_cost_model_new(&iface, c)))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (st) ctx_free(c);
  return st;
}
