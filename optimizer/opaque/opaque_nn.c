/* optimizer/opaque/opaque_nn.c: the windows and products opaque.h keeps for the cases the rule
 * vocabulary does not cover: convolution and pooling over 1 to 3 spatial axes with any padding,
 * dilation, ceil mode and count_include_pad; Gemm with any bias; Pad in every mode; Resize and
 * Upsample. ONNX's semantics at the model's opset, in float64. */
#include <math.h>
#include <stdlib.h>
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

/* Pad's amounts into pads[2 * rank] (all befores, then all afters): the attribute pads before
 * opset 11, from 11 the constant input pads, from 18 for the axes a constant input axes names
 * (the others unpadded). NULL, or why they are none. */
static const char *pad_amounts(const rg_opaque_call *c, const double *const *k, int64_t *pads) {
  int rank = c->in[0].shape.rank, n_axes = rank;
  int64_t axes[RG_MAX_RANK];
  bool seen[RG_MAX_RANK] = {0};
  if (c->opset < 11) {
    const int64_t *a;
    if (c->n_in > 1) return "pads as an input, which Pad takes from opset 11";
    if (rg_onnx_attr_ints(c->node, "pads", &a) != 2 * rank)
      return "no attribute pads of one before and one after each axis";
    memcpy(pads, a, sizeof *pads * (size_t)(2 * rank));
    return NULL;
  }
  if (c->n_in < 2 || !k[1]) return "pads that are not constants";
  if (c->n_in > 3 && c->in[3].present) {
    if (c->opset < 18) return "axes, which Pad takes from opset 18";
    if (!k[3] || (n_axes = (int)rg_shape_numel(&c->in[3].shape)) > rank) return "axes that are not constants";
    for (int i = 0; i < n_axes; i++) axes[i] = rg_to_int(k[3][i]);
  } else for (int i = 0; i < rank; i++) axes[i] = i;
  if (rg_shape_numel(&c->in[1].shape) != 2 * n_axes) return "pads that are not one before and one after each axis";
  memset(pads, 0, sizeof *pads * (size_t)(2 * rank));
  for (int i = 0; i < n_axes; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || seen[a]) return "an axis outside its operand's rank, or named twice";
    seen[a] = true, pads[a] = rg_to_int(k[1][i]), pads[a + rank] = rg_to_int(k[1][i + n_axes]);
  }
  return NULL;
}

/* Pad's mode: constant, reflect, edge, and from opset 19 wrap; NULL for another. */
static const char *pad_mode(const rg_opaque_call *c, char *buf, size_t len) {
  static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
  const char *mode = rg_onnx_attr_str(c->node, "mode", buf, len, "constant");
  for (int i = 0; i < (c->opset >= 19 ? 4 : 3); i++)
    if (!strcmp(mode, modes[i])) return modes[i];
  return NULL;
}

static rg_status type_pad(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  int64_t pads[2 * RG_MAX_RANK];
  char buf[16];
  const char *why = pad_amounts(c, k, pads);
  if (why) return rg_opaque_fail(c, err, why);
  if (!pad_mode(c, buf, sizeof buf))
    return rg_opaque_fail(c, err, "a mode other than constant, reflect, edge (and from opset 19 wrap)");
  int rank = c->in[0].shape.rank;
  rg_shape o = c->in[0].shape;
  for (int d = 0; d < rank; d++) {
    int64_t n = o.dim[d] + pads[d] + pads[d + rank];
    if (n < 1 || n > RG_MAX_DIM) return rg_opaque_fail(c, err, "a padded size that is not 1 to 2^24");
    o.dim[d] = (int32_t)n, o.nseam[d] = 0;
  }
  out[0] = (rg_tinfo){c->in[0].elem, o, true};
  return RG_OK;
}

/* The cell of an axis of length len that padded position s (before the data: s < 0) reads in
 * this mode; false for a constant's cell. */
static bool pad_source(const char *mode, int64_t len, int64_t *s) {
  if (*s >= 0 && *s < len) return true;
  if (!strcmp(mode, "edge")) *s = *s < 0 ? 0 : len - 1;
  else if (!strcmp(mode, "wrap")) *s = ((*s % len) + len) % len;
  else if (!strcmp(mode, "reflect") && len > 1) {
    int64_t period = 2 * (len - 1);
    *s = ((*s % period) + period) % period;
    if (*s >= len) *s = period - *s;
  } else if (!strcmp(mode, "reflect")) *s = 0;
  else return false;
  return true;
}

static rg_status eval_pad(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                          rg_err *err) {
  (void)err;
  int64_t pads[2 * RG_MAX_RANK];
  char buf[16];
  pad_amounts(c, v, pads); /* typing checked them and the mode */
  const char *mode = pad_mode(c, buf, sizeof buf);
  double value = c->opset < 11 ? rg_onnx_attr_float(c->node, "value", 0.0f) : c->n_in > 2 && v[2] ? v[2][0] : 0;
  const rg_shape *x = &c->in[0].shape, *o = &t[0].shape;
  int rank = x->rank;
  int32_t pos[RG_MAX_RANK] = {0}, src[RG_MAX_RANK];
  for (int64_t i = 0, n = rg_shape_numel(o); i < n; i++) {
    bool inside = true;
    for (int d = 0; d < rank; d++) {
      int64_t s = pos[d] - pads[d];
      inside = pad_source(mode, x->dim[d], &s) && inside;
      src[d] = (int32_t)s;
    }
    out[0][i] = inside ? v[0][rg_shape_flat(x, src)] : value;
    for (int d = rank - 1; d >= 0 && ++pos[d] == o->dim[d]; d--) pos[d] = 0;
  }
  return RG_OK;
}

/* ---- Resize and Upsample ---- */

/* Upsample 7 (scales an attribute) and 9 (an input), deprecated at 10; Resize 10 (scales),
 * 11 (roi, scales or sizes, coordinate modes, cubic, nearest modes), 13 (roi and scales
 * optional), 18 (axes, keep_aspect_ratio_policy, antialias: refused where it filters), 19
 * (half_pixel_symmetric). Before Resize 11, coordinates are asymmetric and nearest truncates
 * (rounds up when downsampling), as onnxruntime computes them; coordinates are computed in
 * float32 as there. Each axis is resampled in turn (linear and cubic are separable). */
enum { RS_NEAREST, RS_LINEAR, RS_CUBIC };
enum { CT_HALF_PIXEL, CT_ASYMMETRIC, CT_PYTORCH, CT_TF_NN, CT_ALIGN, CT_CROP, CT_SYMMETRIC };
enum { NM_SIMPLE, NM_FLOOR_HALF, NM_CEIL_HALF, NM_FLOOR, NM_CEIL };

typedef struct {
  int mode, coord, nearest, rank;
  bool exclude_outside, antialias;
  double cubic_a, extrapolation;
  int64_t in[RG_MAX_RANK], out[RG_MAX_RANK];
  float scale[RG_MAX_RANK], roi_lo[RG_MAX_RANK], roi_hi[RG_MAX_RANK];
} resize_plan;

/* The index of s among names[0..n), or -1. */
static int name_index(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

/* The attributes: modes, coordinates, cubic and extrapolation settings. NULL, or why not. */
static const char *resize_attrs(const rg_opaque_call *c, resize_plan *p) {
  static const char *const modes[] = {"nearest", "linear", "cubic"};
  static const char *const coords[] = {"half_pixel",    "asymmetric",         "pytorch_half_pixel",
                                       "tf_half_pixel_for_nn", "align_corners", "tf_crop_and_resize",
                                       "half_pixel_symmetric"};
  static const char *const nearests[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  const Onnx__NodeProto *n = c->node;
  bool resize = !strcmp(n->op_type, "Resize"), v11 = resize && c->opset >= 11;
  char buf[32];
  if (resize && c->opset < 10) return "Resize before opset 10, where it is not an operator";
  if (!resize && c->opset >= 10) return "Upsample from opset 10, where it is deprecated (Resize replaces it)";
  if ((p->mode = name_index(rg_onnx_attr_str(n, "mode", buf, sizeof buf, "nearest"), modes, v11 ? 3 : 2)) < 0)
    return "a mode other than nearest, linear and (from Resize 11) cubic";
  p->coord = CT_ASYMMETRIC, p->nearest = NM_SIMPLE;
  if (v11) {
    const char *ct = rg_onnx_attr_str(n, "coordinate_transformation_mode", buf, sizeof buf, "half_pixel");
    if ((p->coord = name_index(ct, coords, c->opset >= 19 ? 7 : 6)) < 0)
      return "a coordinate_transformation_mode unknown at its opset";
    int nm = name_index(rg_onnx_attr_str(n, "nearest_mode", buf, sizeof buf, "round_prefer_floor"), nearests, 4);
    if (nm < 0) return "an unknown nearest_mode";
    p->nearest = NM_FLOOR_HALF + nm;
  }
  p->cubic_a = rg_onnx_attr_float(n, "cubic_coeff_a", -0.75f);
  p->exclude_outside = v11 && rg_onnx_attr_int(n, "exclude_outside", 0);
  p->extrapolation = rg_onnx_attr_float(n, "extrapolation_value", 0.0f);
  p->antialias = resize && c->opset >= 18 && rg_onnx_attr_int(n, "antialias", 0);
  return NULL;
}

/* The axes the scales or sizes name (Resize 18's attribute axes, else all) into axes: their
 * count, or -1. */
static int resize_axes(const rg_opaque_call *c, int rank, int *axes) {
  const int64_t *a;
  int cnt = !strcmp(c->node->op_type, "Resize") && c->opset >= 18 ? rg_onnx_attr_ints(c->node, "axes", &a) : -1;
  bool seen[RG_MAX_RANK] = {0};
  if (cnt < 0)
    for (int i = 0; i < rank; i++) axes[i] = i;
  if (cnt < 0) return rank;
  if (cnt > rank) return -1;
  for (int i = 0; i < cnt; i++) {
    int64_t d = a[i] < 0 ? a[i] + rank : a[i];
    if (d < 0 || d >= rank || seen[d]) return -1;
    seen[d] = true, axes[i] = (int)d;
  }
  return cnt;
}

/* Operand j's n constant values (as float64), or NULL. */
static const double *const_values(const rg_opaque_call *c, const double *const *k, int j, int n) {
  return j < c->n_in && c->in[j].present && k[j] && rg_shape_numel(&c->in[j].shape) == n ? k[j] : NULL;
}

/* Output sizes from sizes (Resize 11 on), with Resize 18's keep_aspect_ratio_policy. */
static const char *resize_from_sizes(const rg_opaque_call *c, const double *sz, const int *axes, int n,
                                     resize_plan *p) {
  char buf[16];
  const char *policy = c->opset < 18 ? "stretch"
                                     : rg_onnx_attr_str(c->node, "keep_aspect_ratio_policy", buf, sizeof buf, "stretch");
  bool stretch = !strcmp(policy, "stretch"), larger = !strcmp(policy, "not_smaller");
  if (!stretch && !larger && strcmp(policy, "not_larger")) return "an unknown keep_aspect_ratio_policy";
  float common = larger ? 0.0f : INFINITY;
  for (int i = 0; i < n; i++) {
    float r = (float)sz[i] / (float)p->in[axes[i]];
    if (!(sz[i] >= 1 && sz[i] <= RG_MAX_DIM)) return "sizes that are not 1 to 2^24";
    common = larger ? fmaxf(common, r) : fminf(common, r);
    p->out[axes[i]] = (int64_t)sz[i], p->scale[axes[i]] = r;
  }
  for (int i = 0; !stretch && i < n; i++) {
    p->scale[axes[i]] = common;
    p->out[axes[i]] = (int64_t)floor((double)common * (double)p->in[axes[i]] + 0.5);
  }
  return NULL;
}

/* Scales and output sizes: the attribute scales (Upsample 7), input 1 (Upsample 9, Resize 10),
 * or Resize's input scales (2) or sizes (3) from opset 11, and roi (1) for tf_crop_and_resize.
 * NULL, or why not. */
static const char *resize_sizes(const rg_opaque_call *c, const double *const *k, resize_plan *p) {
  const rg_shape *x = &c->in[0].shape;
  bool resize = !strcmp(c->node->op_type, "Resize"), v11 = resize && c->opset >= 11;
  int axes[RG_MAX_RANK], n = resize_axes(c, x->rank, axes), si = !resize && c->opset < 9 ? -1 : v11 ? 2 : 1;
  const Onnx__AttributeProto *attr = si < 0 ? rg_onnx_attr(c->node, "scales") : NULL;
  double sc[RG_MAX_RANK];
  if (n < 0) return "axes outside its input's rank, or named twice";
  p->rank = x->rank;
  for (int d = 0; d < x->rank; d++)
    p->in[d] = p->out[d] = x->dim[d], p->scale[d] = 1, p->roi_lo[d] = 0, p->roi_hi[d] = 1;
  const double *sizes = v11 ? const_values(c, k, 3, n) : NULL, *scales = si > 0 ? const_values(c, k, si, n) : NULL;
  if (attr && (int)attr->n_floats == n)
    for (int i = 0; i < n; i++) sc[i] = attr->floats[i];
  if (attr && (int)attr->n_floats == n) scales = sc;
  if (v11 && c->n_in > 3 && c->in[3].present && c->n_in > 2 && c->in[2].present) return "both scales and sizes";
  if (!sizes && !scales) return "no constant scales or sizes of one value per axis it resizes";
  const double *roi = p->coord == CT_CROP ? const_values(c, k, 1, 2 * n) : NULL;
  if (p->coord == CT_CROP && !roi) return "no constant roi (tf_crop_and_resize) of two values per axis it resizes";
  for (int i = 0; roi && i < n; i++) {
    if (!(fabs(roi[i]) < 1e6 && fabs(roi[i + n]) < 1e6)) return "an roi past 1e6";
    p->roi_lo[axes[i]] = (float)roi[i], p->roi_hi[axes[i]] = (float)roi[i + n];
  }
  if (sizes) return resize_from_sizes(c, sizes, axes, n, p);
  for (int i = 0; i < n; i++) {
    int d = axes[i];
    if (!(scales[i] >= (resize ? 1.0 / RG_MAX_DIM : 1) && scales[i] <= RG_MAX_DIM))
      return resize ? "scales that are not positive" : "scales below 1 (Upsample only enlarges)";
    p->scale[d] = (float)scales[i];
    float len = p->coord == CT_CROP ? (float)p->in[d] * (p->roi_hi[d] - p->roi_lo[d]) : (float)p->in[d];
    p->out[d] = (int64_t)floorf(len * p->scale[d]);
  }
  return NULL;
}

static const char *resize_plan_of(const rg_opaque_call *c, const double *const *k, resize_plan *p) {
  const char *why = resize_attrs(c, p);
  if (!why) why = resize_sizes(c, k, p);
  for (int d = 0; !why && d < p->rank; d++) {
    if (p->out[d] < 1 || p->out[d] > RG_MAX_DIM) return "an output size that is not 1 to 2^24";
    if (p->antialias && p->mode != RS_NEAREST && p->scale[d] < 1) return "antialias when downsampling: not supported";
  }
  if (!why && p->mode != RS_NEAREST && c->in[0].elem != RG_ELEM_FLOAT)
    return "linear or cubic of a tensor that is not float";
  return why;
}

static rg_status type_resize(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  resize_plan p;
  const char *why = resize_plan_of(c, k, &p);
  if (why) return rg_opaque_fail(c, err, why);
  int32_t dims[RG_MAX_RANK];
  for (int d = 0; d < p.rank; d++) dims[d] = (int32_t)p.out[d];
  out[0] = (rg_tinfo){c->in[0].elem, rg_shape_make(p.rank, dims), true};
  return RG_OK;
}

/* Output position j of axis d in the input's coordinates (onnxruntime's float32 arithmetic). */
static float original_coord(const resize_plan *p, int d, int64_t j) {
  float x = (float)j, s = p->scale[d], lr = (float)p->out[d], lo = (float)p->in[d];
  float a = p->roi_lo[d], b = p->roi_hi[d];
  switch (p->coord) {
  case CT_ASYMMETRIC: return x / s;
  case CT_PYTORCH: return lr > 1 ? (x + 0.5f) / s - 0.5f : 0.0f;
  case CT_TF_NN: return (x + 0.5f) / s;
  case CT_ALIGN: return lr == 1 ? 0.0f : x * (lo - 1) / (lr - 1);
  case CT_CROP: return lr > 1 ? a * (lo - 1) + x * (b - a) * (lo - 1) / (lr - 1) : 0.5f * (a + b) * (lo - 1);
  case CT_SYMMETRIC: return lo / 2 * (1 - lr / (s * lo)) + (x + 0.5f) / s - 0.5f;
  default: return (x + 0.5f) / s - 0.5f;
  }
}

static int64_t nearest_index(int mode, float x, bool down) {
  switch (mode) {
  case NM_SIMPLE: return down ? (int64_t)ceilf(x) : (int64_t)x;
  case NM_CEIL_HALF: return (int64_t)roundf(x);
  case NM_FLOOR: return (int64_t)floorf(x);
  case NM_CEIL: return (int64_t)ceilf(x);
  default: return x == (float)(int64_t)x + 0.5f ? (int64_t)floorf(x) : (int64_t)roundf(x);
  }
}

static int64_t clamp_index(int64_t i, int64_t len) { return i < 0 ? 0 : i >= len ? len - 1 : i; }

/* The input cells output position j of axis d reads, with their weights: their count (1, 2 or
 * 4), or 0 where it takes the extrapolation value (tf_crop_and_resize outside the input). */
static int resize_taps(const resize_plan *p, int d, int64_t j, int64_t *idx, double *w) {
  float x = original_coord(p, d, j);
  int64_t len = p->in[d];
  if (p->coord == CT_CROP && (x < 0 || x > (float)(len - 1))) return 0;
  if (p->mode == RS_NEAREST) {
    idx[0] = clamp_index(nearest_index(p->nearest, x, p->scale[d] < 1), len), w[0] = 1;
    return 1;
  }
  if (p->mode == RS_LINEAR) {
    float xc = x < 0 ? 0 : x > (float)(len - 1) ? (float)(len - 1) : x;
    idx[0] = (int64_t)xc, idx[1] = clamp_index(idx[0] + 1, len);
    w[1] = xc - (float)idx[0], w[0] = 1 - w[1];
    return 2;
  }
  double x0 = floor(x), t = x - x0, a = p->cubic_a, sum = 0;
  double dist[4] = {t + 1, t, 1 - t, 2 - t};
  for (int q = 0; q < 4; q++) {
    double s = dist[q];
    w[q] = s <= 1 ? ((a + 2) * s - (a + 3)) * s * s + 1 : ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
    int64_t i = (int64_t)x0 - 1 + q;
    if (p->exclude_outside && (i < 0 || i >= len)) w[q] = 0;
    idx[q] = clamp_index(i, len), sum += w[q];
  }
  for (int q = 0; p->exclude_outside && sum != 0 && q < 4; q++) w[q] /= sum;
  return 4;
}

/* src (dims) resampled along axis d into dst (dims[d] becomes p->out[d]). */
static void resample_axis(const resize_plan *p, int d, const int64_t *dims, const double *src, double *dst) {
  int64_t outer = 1, inner = 1, lin = dims[d], lout = p->out[d], idx[4];
  double w[4];
  for (int a = 0; a < d; a++) outer *= dims[a];
  for (int a = d + 1; a < p->rank; a++) inner *= dims[a];
  for (int64_t j = 0; j < lout; j++) {
    int taps = resize_taps(p, d, j, idx, w);
    for (int64_t o = 0; o < outer; o++)
      for (int64_t i = 0; i < inner; i++) {
        double acc = taps ? 0 : p->extrapolation;
        for (int q = 0; q < taps; q++) acc += w[q] * src[(o * lin + idx[q]) * inner + i];
        dst[(o * lout + j) * inner + i] = acc;
      }
  }
}

static rg_status eval_resize(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                             rg_err *err) {
  resize_plan p;
  resize_plan_of(c, v, &p); /* typing checked it */
  int64_t dims[RG_MAX_RANK], n = rg_shape_numel(&c->in[0].shape);
  const double *cur = v[0];
  double *owned = NULL;
  for (int d = 0; d < p.rank; d++) dims[d] = p.in[d];
  for (int d = 0; d < p.rank; d++) {
    if (p.out[d] == p.in[d] && p.scale[d] == 1 && p.coord != CT_CROP) continue;
    n = n / dims[d] * p.out[d];
    double *next = malloc(sizeof *next * (size_t)(n + 1));
    if (!next) {
      free(owned);
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    }
    resample_axis(&p, d, dims, cur, next);
    free(owned);
    cur = owned = next, dims[d] = p.out[d];
  }
  memcpy(out[0], cur, sizeof(double) * (size_t)rg_shape_numel(&t[0].shape));
  free(owned);
  return RG_OK;
}

const rg_opaque_row rg_opaque_nn_rows[] = {
    {"MaxPool", 1, type_pool, eval_pool},
    {"AveragePool", 1, type_pool, eval_pool},
    {"GlobalAveragePool", 1, type_global_pool, eval_global_pool},
    {"GlobalMaxPool", 1, type_global_pool, eval_global_pool},
    {"Conv", 2, type_conv, eval_conv},
    {"Gemm", 2, type_gemm, eval_gemm},
    {"Pad", 1, type_pad, eval_pad},
    {"Resize", 1, type_resize, eval_resize},
    {"Upsample", 1, type_resize, eval_resize},
};
const int rg_opaque_nn_count = (int)(sizeof rg_opaque_nn_rows / sizeof *rg_opaque_nn_rows);
