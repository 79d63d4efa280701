/* optimizer/opaque/opaque_nn.c: the windows and products opaque.h keeps for the cases the rule
 * vocabulary does not cover: convolution and pooling over 1 to 3 spatial axes with any padding,
 * dilation, ceil mode and count_include_pad; Gemm with any bias; Pad in every mode. ONNX's
 * semantics, in float64. */
#include <math.h>
#include <string.h>

#include "optimizer/proto/proto.h"
#include "opaque_internal.h"

/* ---- window geometry ---- */

#define MAX_SPATIAL 3

typedef struct {
  int n;                          /* spatial axes (rank - 2) */
  int64_t in[MAX_SPATIAL], k[MAX_SPATIAL], stride[MAX_SPATIAL], dil[MAX_SPATIAL];
  int64_t before[MAX_SPATIAL], end[MAX_SPATIAL]; /* end: the padded extent, in + before + after */
  int64_t out[MAX_SPATIAL];
} geometry;

/* Reads the window attributes of c (kernel from kernel_shape, or from the weight's trailing
 * dims when kernel is given) against input x; false when they do not fit. */
static bool read_geometry(const rg_opaque_call *c, const rg_shape *x, const int32_t *kernel, geometry *g) {
  g->n = x->rank - 2;
  if (g->n < 1 || g->n > MAX_SPATIAL) return false;
  const int64_t *v;
  int cnt = rg_onnx_attr_ints(c->node, "kernel_shape", &v);
  for (int a = 0; a < g->n; a++) {
    g->in[a] = x->dim[2 + a];
    g->k[a] = cnt == g->n ? v[a] : kernel ? kernel[a] : 0;
    g->stride[a] = g->dil[a] = 1, g->before[a] = 0, g->end[a] = g->in[a];
    if (g->k[a] < 1 || (kernel && g->k[a] != kernel[a])) return false;
  }
  if (cnt >= 0 && cnt != g->n) return false;
  if ((cnt = rg_onnx_attr_ints(c->node, "strides", &v)) >= 0)
    for (int a = 0; a < g->n; a++)
      if (cnt != g->n || (g->stride[a] = v[a]) < 1) return false;
  if ((cnt = rg_onnx_attr_ints(c->node, "dilations", &v)) >= 0)
    for (int a = 0; a < g->n; a++)
      if (cnt != g->n || (g->dil[a] = v[a]) < 1) return false;
  char buf[32];
  const char *ap = rg_onnx_attr_str(c->node, "auto_pad", buf, sizeof buf, "NOTSET");
  bool ceil_mode = rg_onnx_attr_int(c->node, "ceil_mode", 0) != 0;
  cnt = rg_onnx_attr_ints(c->node, "pads", &v);
  for (int a = 0; a < g->n; a++) {
    int64_t keff = (g->k[a] - 1) * g->dil[a] + 1, in = g->in[a];
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
      g->out[a] = (in + g->stride[a] - 1) / g->stride[a];
      int64_t total = (g->out[a] - 1) * g->stride[a] + keff - in;
      if (total < 0) total = 0;
      g->before[a] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
      g->end[a] = in + total;
      continue;
    }
    if (!strcmp(ap, "NOTSET") && cnt >= 0) {
      if (cnt != 2 * g->n || v[a] < 0 || v[a + g->n] < 0) return false;
      g->before[a] = v[a], g->end[a] = in + v[a] + v[a + g->n];
    } else if (strcmp(ap, "VALID") && strcmp(ap, "NOTSET")) return false;
    int64_t span = g->end[a] - keff;
    if (span < 0) return false;
    g->out[a] = (ceil_mode ? (span + g->stride[a] - 1) / g->stride[a] : span / g->stride[a]) + 1;
    /* a last window that would start in the padding after the input is dropped */
    if (ceil_mode && (g->out[a] - 1) * g->stride[a] >= in + g->before[a]) g->out[a]--;
  }
  return true;
}

static rg_shape window_shape(const rg_shape *x, int32_t channels, const geometry *g) {
  int32_t dims[RG_MAX_RANK] = {x->dim[0], channels};
  for (int a = 0; a < g->n; a++) dims[2 + a] = (int32_t)g->out[a];
  return rg_shape_make(2 + g->n, dims);
}

/* Steps a spatial position; false after the last one. */
static bool next_pos(int64_t *pos, const int64_t *lim, int n) {
  for (int a = n - 1; a >= 0; a--) {
    if (++pos[a] < lim[a]) return true;
    pos[a] = 0;
  }
  return false;
}

static int64_t spatial_size(const int64_t *dims, int n) {
  int64_t s = 1;
  for (int a = 0; a < n; a++) s *= dims[a];
  return s;
}

/* ---- pooling ---- */

/* The type of a window's output over x (kernel: a weight's trailing dims, or NULL) with these
 * output channels. */
static rg_status window_type(const rg_opaque_call *c, const rg_shape *x, const int32_t *kernel, int32_t channels,
                             rg_tinfo *out, rg_err *err) {
  geometry g;
  if (!read_geometry(c, x, kernel, &g)) return rg_opaque_fail(c, err, "a window that does not fit its input");
  for (int a = 0; a < g.n; a++)
    if (g.out[a] < 1 || g.out[a] > RG_MAX_DIM) return rg_opaque_fail(c, err, "an empty or oversized result");
  out[0] = (rg_tinfo){c->in[0].elem, window_shape(x, channels, &g), true};
  return RG_OK;
}

/* The input cell tap `tap` of the window at output position pos reads: whether it is inside
 * the input (not padding), and its row-major index there. */
static bool window_cell(const geometry *g, const int64_t *pos, const int64_t *tap, int64_t *at) {
  bool inside = true;
  *at = 0;
  for (int a = 0; a < g->n; a++) {
    int64_t i = pos[a] * g->stride[a] - g->before[a] + tap[a] * g->dil[a];
    inside = inside && i >= 0 && i < g->in[a];
    *at = *at * g->in[a] + i;
  }
  return inside;
}

static rg_status type_pool(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  if (c->n_out > 1) return rg_opaque_fail(c, err, "MaxPool's indices output: not supported");
  return window_type(c, &c->in[0].shape, NULL, c->in[0].shape.dim[1], out, err);
}

static rg_status eval_pool(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                           rg_err *err) {
  (void)t, (void)err;
  geometry g;
  const rg_shape *x = &c->in[0].shape;
  read_geometry(c, x, NULL, &g);
  bool max = !strcmp(c->node->op_type, "MaxPool");
  bool count_pad = rg_onnx_attr_int(c->node, "count_include_pad", 0) != 0;
  int64_t planes = (int64_t)x->dim[0] * x->dim[1], in_size = spatial_size(g.in, g.n), o = 0;
  for (int64_t p = 0; p < planes; p++) {
    const double *xp = v[0] + p * in_size;
    int64_t pos[MAX_SPATIAL] = {0};
    do {
      double acc = max ? -INFINITY : 0;
      int64_t cells = 0, padded = 1, tap[MAX_SPATIAL] = {0};
      for (int a = 0; a < g.n; a++) { /* cells of the window inside the padded extent */
        int64_t lo = pos[a] * g.stride[a], hi = lo + (g.k[a] - 1) * g.dil[a] + 1;
        if (hi > g.end[a]) hi = g.end[a];
        padded *= (hi - lo + g.dil[a] - 1) / g.dil[a];
      }
      do {
        int64_t at;
        if (!window_cell(&g, pos, tap, &at)) continue;
        cells++;
        acc = max ? (xp[at] > acc ? xp[at] : acc) : acc + xp[at];
      } while (next_pos(tap, g.k, g.n));
      out[0][o++] = max ? acc : acc / (double)(count_pad ? padded : cells);
    } while (next_pos(pos, g.out, g.n));
  }
  return RG_OK;
}

static rg_status type_global_pool(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  rg_shape o = c->in[0].shape;
  if (o.rank < 3) return rg_opaque_fail(c, err, "an input without spatial axes");
  for (int d = 2; d < o.rank; d++) o.dim[d] = 1, o.nseam[d] = 0;
  out[0] = (rg_tinfo){c->in[0].elem, o, true};
  return RG_OK;
}

static rg_status eval_global_pool(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                                  rg_err *err) {
  (void)err;
  const rg_shape *x = &c->in[0].shape;
  bool max = !strcmp(c->node->op_type, "GlobalMaxPool");
  int64_t planes = rg_shape_numel(&t[0].shape), size = rg_shape_numel(x) / planes;
  for (int64_t p = 0; p < planes; p++) {
    double acc = max ? -INFINITY : 0;
    for (int64_t i = 0; i < size; i++) acc = max ? fmax(acc, v[0][p * size + i]) : acc + v[0][p * size + i];
    out[0][p] = max ? acc : acc / (double)size;
  }
  return RG_OK;
}

/* ---- convolution ---- */

static rg_status type_conv(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  const rg_shape *x = &c->in[0].shape, *w = &c->in[1].shape;
  int64_t groups = rg_onnx_attr_int(c->node, "group", 1);
  if (w->rank != x->rank) return rg_opaque_fail(c, err, "a kernel that does not fit its input");
  if (groups < 1 || x->dim[1] % groups || w->dim[0] % groups || w->dim[1] != x->dim[1] / groups)
    return rg_opaque_fail(c, err, "channels that do not match its groups");
  if (c->n_in > 2 && c->in[2].present && (c->in[2].shape.rank != 1 || c->in[2].shape.dim[0] != w->dim[0]))
    return rg_opaque_fail(c, err, "a bias that is not one value per output channel");
  return window_type(c, x, &w->dim[2], w->dim[0], out, err);
}

static rg_status eval_conv(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                           rg_err *err) {
  (void)t, (void)err;
  const rg_shape *x = &c->in[0].shape, *w = &c->in[1].shape;
  geometry g;
  read_geometry(c, x, &w->dim[2], &g);
  int64_t groups = rg_onnx_attr_int(c->node, "group", 1), cout = w->dim[0], cin = w->dim[1];
  int64_t in_size = spatial_size(g.in, g.n), k_size = spatial_size(g.k, g.n), o = 0;
  const double *bias = c->n_in > 2 ? v[2] : NULL;
  for (int64_t n = 0; n < x->dim[0]; n++)
    for (int64_t oc = 0; oc < cout; oc++) {
      int64_t grp = oc / (cout / groups), pos[MAX_SPATIAL] = {0};
      do {
        double acc = bias ? bias[oc] : 0;
        for (int64_t ic = 0; ic < cin; ic++) {
          const double *xp = v[0] + (n * x->dim[1] + grp * cin + ic) * in_size;
          const double *wp = v[1] + (oc * cin + ic) * k_size;
          int64_t tap[MAX_SPATIAL] = {0}, ti = 0;
          do {
            int64_t at;
            if (window_cell(&g, pos, tap, &at)) acc += xp[at] * wp[ti];
            ti++;
          } while (next_pos(tap, g.k, g.n));
        }
        out[0][o++] = acc;
      } while (next_pos(pos, g.out, g.n));
    }
  return RG_OK;
}

/* ---- Gemm ---- */

static rg_status type_gemm(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  const rg_shape *a = &c->in[0].shape, *b = &c->in[1].shape;
  if (a->rank != 2 || b->rank != 2) return rg_opaque_fail(c, err, "operands that are not matrices");
  bool ta = rg_onnx_attr_int(c->node, "transA", 0), tb = rg_onnx_attr_int(c->node, "transB", 0);
  int32_t m = a->dim[ta ? 1 : 0], ka = a->dim[ta ? 0 : 1], kb = b->dim[tb ? 1 : 0], n = b->dim[tb ? 0 : 1];
  if (ka != kb) return rg_opaque_fail(c, err, "inner sizes that differ");
  rg_shape o = rg_shape_make(2, (int32_t[]){m, n});
  if (c->n_in > 2 && c->in[2].present) {
    const rg_shape *cs = &c->in[2].shape;
    for (int d = 0; d < cs->rank; d++)
      if (cs->rank > 2 || (cs->dim[d] != 1 && cs->dim[d] != o.dim[d + 2 - cs->rank]))
        return rg_opaque_fail(c, err, "a C that does not broadcast to the product");
  }
  out[0] = (rg_tinfo){c->in[0].elem, o, true};
  return RG_OK;
}

static rg_status eval_gemm(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                           rg_err *err) {
  (void)err;
  const rg_shape *a = &c->in[0].shape, *b = &c->in[1].shape, *o = &t[0].shape;
  bool ta = rg_onnx_attr_int(c->node, "transA", 0), tb = rg_onnx_attr_int(c->node, "transB", 0);
  double alpha = rg_onnx_attr_float(c->node, "alpha", 1.0f), beta = rg_onnx_attr_float(c->node, "beta", 1.0f);
  int64_t m = o->dim[0], n = o->dim[1], kk = a->dim[ta ? 0 : 1];
  const rg_shape *cs = c->n_in > 2 && v[2] ? &c->in[2].shape : NULL;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double s = 0;
      for (int64_t q = 0; q < kk; q++)
        s += v[0][ta ? q * a->dim[1] + i : i * kk + q] * v[1][tb ? j * b->dim[1] + q : q * n + j];
      double add = 0;
      if (cs) { /* C broadcast: its axes of size 1 repeat */
        int64_t ci = cs->rank == 2 ? (cs->dim[0] == 1 ? 0 : i) * cs->dim[1] + (cs->dim[1] == 1 ? 0 : j)
                   : cs->rank == 1 ? (cs->dim[0] == 1 ? 0 : j) : 0;
        add = v[2][ci];
      }
      out[0][i * n + j] = alpha * s + beta * add;
    }
  return RG_OK;
}

/* ---- Pad in every mode ---- */

static int pad_amounts(const rg_opaque_call *c, const double *const *k, int64_t *pads) {
  int rank = c->in[0].shape.rank;
  if (c->n_in < 2 || !k[1] || rg_shape_numel(&c->in[1].shape) != 2 * rank) return -1;
  for (int i = 0; i < 2 * rank; i++) pads[i] = rg_to_int(k[1][i]);
  return rank;
}

static rg_status type_pad(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  int64_t pads[2 * RG_MAX_RANK];
  int rank = pad_amounts(c, k, pads);
  if (rank < 0) return rg_opaque_fail(c, err, "pads that are not constants, one before and one after each axis");
  rg_shape o = c->in[0].shape;
  for (int d = 0; d < rank; d++) {
    int64_t n = o.dim[d] + pads[d] + pads[d + rank];
    if (n < 1 || n > RG_MAX_DIM) return rg_opaque_fail(c, err, "a padded size that is not 1 to 2^24");
    o.dim[d] = (int32_t)n, o.nseam[d] = 0;
  }
  out[0] = (rg_tinfo){c->in[0].elem, o, true};
  return RG_OK;
}

static rg_status eval_pad(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                          rg_err *err) {
  (void)err;
  int64_t pads[2 * RG_MAX_RANK];
  int rank = pad_amounts(c, v, pads);
  char buf[16];
  const char *mode = rg_onnx_attr_str(c->node, "mode", buf, sizeof buf, "constant");
  double value = c->n_in > 2 && v[2] ? v[2][0] : 0;
  const rg_shape *x = &c->in[0].shape, *o = &t[0].shape;
  int32_t pos[RG_MAX_RANK] = {0}, src[RG_MAX_RANK];
  for (int64_t i = 0, n = rg_shape_numel(o); i < n; i++) {
    bool inside = true;
    for (int d = 0; d < rank; d++) {
      int64_t s = pos[d] - pads[d], len = x->dim[d];
      if (s < 0 || s >= len) {
        if (!strcmp(mode, "edge")) s = s < 0 ? 0 : len - 1;
        else if (!strcmp(mode, "reflect") && len > 1) {
          int64_t period = 2 * (len - 1);
          s = ((s % period) + period) % period;
          if (s >= len) s = period - s;
        } else inside = false;
      }
      src[d] = (int32_t)s;
    }
    out[0][i] = inside ? v[0][rg_shape_flat(x, src)] : value;
    for (int d = rank - 1; d >= 0 && ++pos[d] == o->dim[d]; d--) pos[d] = 0;
  }
  return RG_OK;
}

const rg_opaque_row rg_opaque_nn_rows[] = {
    {"MaxPool", 1, type_pool, eval_pool},
    {"AveragePool", 1, type_pool, eval_pool},
    {"GlobalAveragePool", 1, type_global_pool, eval_global_pool},
    {"GlobalMaxPool", 1, type_global_pool, eval_global_pool},
    {"Conv", 2, type_conv, eval_conv},
    {"Gemm", 2, type_gemm, eval_gemm},
    {"Pad", 2, type_pad, eval_pad},
};
const int rg_opaque_nn_count = (int)(sizeof rg_opaque_nn_rows / sizeof *rg_opaque_nn_rows);
