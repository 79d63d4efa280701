/* optimizer/cost/cost_roofline.c: the analytic cost model: a node costs max(FLOPs / peak, bytes /
 * bandwidth) plus a fixed overhead, with the machine's figures from a file (cost_machine.c).
 *
 * Bytes are float32 tensors: every operand read once (weights included: a CPU streams them from
 * memory on each run) and every result written once. Data movement (transpose, reshape, split,
 * concat, slice, pad, enlarge) costs its bytes too. TASO gives reshape, transpose and split no
 * cost, as its runtime reads them as views of their operand; by default we do not, because the
 * runtime our models are exported to, onnxruntime, writes a new tensor for each of them (Reshape
 * shares the buffer only where its allocation planner can alias it), so a rewrite that adds one
 * costs time. A machine file that says `views 1` (gpu-h100: TASO's and TENSAT's setting) prices
 * them as TASO does, and a slice (a split's part as exported) with them.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"

/* FLOPs an activation takes per element: relu a compare, sigmoid and tanh a vectorized exp (a
 * polynomial of some ten FMAs) and a division; counted the same standalone and fused. */
static const double act_flops[RG_ACT_COUNT] = {
    [RG_ACT_NONE] = 0, [RG_ACT_RELU] = 1, [RG_ACT_SIGMOID] = 20, [RG_ACT_TANH] = 20};

static double numel(const rg_model *m, rg_ref r) {
  return (double)rg_shape_numel(rg_model_shape(m, r));
}

void rg_roofline_figures(const rg_model *m, int32_t id, double *flops, double *bytes) {
  const rg_node *nd = rg_graph_node(m->g, id);
  const rg_op_info *info = rg_op_get((rg_op)nd->op);
  double in = 0, out = 0;
  for (int k = 0; k < nd->n_in; k++)
    in += numel(m, nd->in[k]);
  for (int j = 0; j < info->n_outputs; j++)
    out += numel(m, (rg_ref){id, j});
  const rg_shape *x = nd->n_in ? rg_model_shape(m, nd->in[0]) : NULL;
  const rg_shape *y = nd->n_in > 1 ? rg_model_shape(m, nd->in[1]) : NULL;
  *flops = 0;
  *bytes = 4 * (in + out);
  switch ((rg_op)nd->op) {
  case RG_OP_INPUT: *bytes = 0; break;
  case RG_OP_EWADD:
  case RG_OP_EWMUL:
  case RG_OP_SMUL:
  case RG_OP_BIAS: *flops = out; break;
  case RG_OP_RELU: *flops = out * act_flops[RG_ACT_RELU]; break;
  case RG_OP_TANH: *flops = out * act_flops[RG_ACT_TANH]; break;
  case RG_OP_SIGMOID: *flops = out * act_flops[RG_ACT_SIGMOID]; break;
  case RG_OP_MATMUL: {
    /* a (..., m, k) times b (..., k, n): a multiply and an add per (batch, m, n, k) */
    double k = x->dim[x->rank - 1];
    *flops = 2 * out * k + out * act_flops[nd->params[0]];
    break;
  }
  case RG_OP_CONV2D: {
    /* each output element sums C/g * KH * KW products; params: sh sw pad act dh dw g */
    double taps = (double)y->dim[1] * y->dim[2] * y->dim[3];
    *flops = 2 * out * taps + out * act_flops[nd->params[3]];
    break;
  }
  case RG_OP_POOLAVG:
  case RG_OP_POOLMAX:
    /* a window's kh * kw cells per output element; params: kh kw sh sw pad act */
    *flops = out * nd->params[0] * nd->params[1] + out * act_flops[nd->params[5]];
    break;
  case RG_OP_SLICE:
    *bytes = 4 * 2 * out; /* only the part kept is read */
    break;
  case RG_OP_TRANSPOSE:
  case RG_OP_RESHAPE:
  case RG_OP_SPLIT:
  case RG_OP_CONCAT:
  case RG_OP_PAD:
  case RG_OP_ENLARGE: break;
  case RG_OP_IEWMUL:
  case RG_OP_IMATMUL:
  case RG_OP_ICONV:
  case RG_OP_CPOOL:
    /* constants: written, nothing read (weight-only, so folded before they run) */
    break;
  case RG_OP_COUNT: break;
  }
}

double rg_roofline_node_us(const rg_machine *mc, const rg_model *m, int32_t id) {
  rg_op op = (rg_op)rg_graph_node(m->g, id)->op;
  /* a slice too: export writes each part of a split as one, and the output re-costed must cost
   * what the search priced */
  if (mc->views && (op == RG_OP_SPLIT || op == RG_OP_SLICE || op == RG_OP_RESHAPE || op == RG_OP_TRANSPOSE)) return 0;
  double flops, bytes;
  rg_roofline_figures(m, id, &flops, &bytes);
  return rg_roofline_us(mc, flops, bytes) + (op == RG_OP_MATMUL ? mc->matmul_us : 0);
}

double rg_roofline_us(const rg_machine *mc, double flops, double bytes) {
  /* GFLOP/s = 1e3 FLOPs per microsecond; GB/s = 1e3 bytes per microsecond */
  double compute = flops / (mc->peak_gflops * 1e3), memory = bytes / (mc->mem_gbps * 1e3);
  return (compute > memory ? compute : memory) + mc->overhead_us;
}

int rg_roofline_row_and_cached(const rg_machine *mc, rg_cost_cache *cache, const char *device, const rg_model *m,
                               int32_t id, const char *op, const char *config, rg_cost_row *row, rg_cost_row *had,
                               rg_err *err) {
  *row = (rg_cost_row){rg_roofline_node_us(mc, m, id), "roofline", 0}, *had = (rg_cost_row){0};
  return cache ? rg_cost_cache_get(cache, device, op, config, had, err) : 0;
}

/* ---- the backend ---- */

typedef struct {
  rg_machine mc;
  int64_t computed;
  char *path; /* the machine file */
} roofline;

static rg_status node_cost(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err) {
  (void)err;
  roofline *r = ctx;
  *us = rg_roofline_node_us(&r->mc, m, id);
  r->computed++;
  return RG_OK;
}

static void stats(void *ctx, rg_cost_stats *s) {
  s->computed = ((roofline *)ctx)->computed;
  s->device = ((roofline *)ctx)->path;
}

static void ctx_free(void *ctx) {
  roofline *r = ctx;
  if (r) free(r->path);
  free(r);
}

rg_status rg_cost_roofline_open(const rg_cost_opts *o, rg_cost_model **out, rg_err *err) {
  rg_data_file named;
  const char *path;
  rg_status st = rg_machine_path(o->machine_file ? o->machine_file : rg_machine_default_path(),
                                 &named, &path, err);
  if (st) return st;
  roofline *r = calloc(1, sizeof *r);
  if (!r || !(r->path = strdup(path))) {
    free(r);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  st = rg_machine_read(path, &r->mc, err);
  static const rg_cost_iface iface = {"roofline", node_cost, stats, ctx_free, NULL};
  if (!st && !(*out = rg_cost_model_new(&iface, r)))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (st) ctx_free(r);
  return st;
}
