/* optimizer/onnx/import_ops.c: ONNX operators onto the rule vocabulary (import_internal.h).
 *
 * A node maps when its operands are float and its attributes fit the vocabulary's operators
 * and parameter ranges; otherwise it is RG_IMPORT_OPAQUE and import.c keeps it whole. Explicit
 * convolution padding that is neither SAME nor VALID becomes pad nodes before a VALID conv (the
 * exporter folds them back into the Conv). Each operator is read in its form at the model's opset
 * (7 to 21): Split's sizes, Pad's amounts and Slice's bounds are attributes or inputs by it;
 * Split takes num_outputs and Pad axes from 18. Before opset 7 only the operators export writes
 * back in that opset's form map (written_at_opset); the others stay opaque.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "optimizer/proto/proto.h"

/* ---- operands and results ---- */

/* Operand k of n, or NULL when it is omitted. */
static const rg_ival *operand(const rg_importer *im, const Onnx__NodeProto *n, size_t k) {
  return k < n->n_input && n->input[k][0] ? rg_import_get(im, n->input[k]) : NULL;
}

static const rg_shape *shape_of(const rg_importer *im, rg_ref r) { return rg_model_shape(im->m, r); }

/* Whether the first n_data operands (the data; the rest are int64 shapes, axes and amounts) are
 * float. */
static bool data_float(const rg_importer *im, const Onnx__NodeProto *n, size_t n_data) {
  for (size_t k = 0; k < n->n_input && k < n_data; k++) {
    const rg_ival *v = operand(im, n, k);
    if (v && v->elem != RG_ELEM_FLOAT) return false;
  }
  return true;
}

static rg_status result(rg_importer *im, const Onnx__NodeProto *n, rg_ref r, rg_err *err) {
  return rg_import_set(im, n->output[0], r, RG_ELEM_FLOAT, err);
}

/* Operand k as constant int64 values (at most max): their count, or -1. */
static int const_ints(const rg_importer *im, const Onnx__NodeProto *n, size_t k, int64_t *v, int max) {
  const rg_ival *o = operand(im, n, k);
  const int64_t *d = o && o->elem == RG_ELEM_INT64 ? rg_import_const(im, o->ref) : NULL;
  if (!d || shape_of(im, o->ref)->rank > 1) return -1;
  int64_t cnt = rg_shape_numel(shape_of(im, o->ref));
  if (cnt > max) return -1;
  memcpy(v, d, sizeof *v * (size_t)cnt);
  return (int)cnt;
}

/* Unary and shape-changing helpers over one value. */
static rg_status reshape_to(rg_importer *im, rg_ref x, const rg_shape *to, rg_ref *out, rg_err *err) {
  if (rg_shape_dims_eq(shape_of(im, x), to)) {
    *out = x;
    return RG_OK;
  }
  int32_t p[RG_SHAPE_SLOTS] = {to->rank};
  for (int d = 0; d < to->rank; d++) p[1 + d] = to->dim[d];
  return rg_import_node(im, RG_OP_RESHAPE, p, &x, 1, out, err);
}

static rg_status pad_axis(rg_importer *im, rg_ref *x, int axis, int64_t before, int64_t after, rg_err *err) {
  if (!before && !after) return RG_OK;
  int32_t p[3] = {axis, (int32_t)before, (int32_t)after};
  return rg_import_node(im, RG_OP_PAD, p, x, 1, x, err);
}

static rg_status slice_axis(rg_importer *im, rg_ref *x, int axis, int64_t begin, int64_t end, rg_err *err) {
  if (begin == 0 && end == shape_of(im, *x)->dim[axis]) return RG_OK;
  int32_t p[3] = {axis, (int32_t)begin, (int32_t)end};
  return rg_import_node(im, RG_OP_SLICE, p, x, 1, x, err);
}

static rg_status scalar_weight(rg_importer *im, const char *hint, double value, rg_ref *out, rg_err *err) {
  float *d = malloc(sizeof *d);
  if (!d) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *d = (float)value;
  rg_shape s = rg_shape_make(0, NULL);
  return rg_import_weight(im, hint, RG_ELEM_FLOAT, &s, d, out, err);
}

/* The axis of x along which b adds one value per position (b broadcasts onto x, and all of b's
 * dims but that one are 1), or -1. */
static int bias_axis(const rg_shape *x, const rg_shape *b) {
  if (b->rank > x->rank || rg_shape_numel(b) < 2) return -1;
  int axis = -1;
  for (int d = 0; d < b->rank; d++) {
    int xd = d + x->rank - b->rank;
    if (b->dim[d] == 1) continue;
    if (axis >= 0 || b->dim[d] != x->dim[xd]) return -1;
    axis = xd;
  }
  return axis;
}

static rg_status add_bias(rg_importer *im, rg_ref x, rg_ref b, int axis, rg_ref *out, rg_err *err) {
  rg_shape vec = rg_shape_make(1, &shape_of(im, x)->dim[axis]);
  rg_ref in[2] = {x, b};
  rg_status st = reshape_to(im, b, &vec, &in[1], err);
  int32_t p[1] = {axis};
  return st ? st : rg_import_node(im, RG_OP_BIAS, p, in, 2, out, err);
}

/* ---- windows: convolution and pooling ---- */

typedef enum { WIN_SAME = RG_PAD_SAME, WIN_VALID = RG_PAD_VALID, WIN_EXPLICIT } win_mode;

typedef struct {
  int32_t k[2], stride[2], dil[2];
  int64_t before[2], after[2];
  win_mode mode;
  bool same_too; /* VALID, and SAME pads nothing either: both name this window */
} window;

/* Reads kernel_shape (or the weight's), strides, dilations, auto_pad and pads; decides whether
 * the padding is the vocabulary's SAME, VALID (none), or neither. False for attributes out of
 * the vocabulary's ranges or not 2-D. In a model with symbolic dims (dynamic) x's size may be
 * another at run time, and SAME padding over a window wider than 1 at a stride past 1 pads by an
 * amount that depends on it: there auto_pad SAME_* is false (the node kept as read) and pads
 * that are SAME at the size imported stay explicit (a pad node: the same pads at every size). */
static bool read_window(const Onnx__NodeProto *n, const rg_shape *x, const int32_t *kernel, bool dynamic, window *w) {
  const int64_t *v;
  int cnt;
  for (int a = 0; a < 2; a++) w->k[a] = kernel ? kernel[a] : 0, w->stride[a] = 1, w->dil[a] = 1;
  if ((cnt = rg_onnx_attr_ints(n, "kernel_shape", &v)) >= 0) {
    if (cnt != 2) return false;
    for (int a = 0; a < 2; a++) {
      if (kernel && v[a] != kernel[a]) return false;
      if (v[a] < 1 || v[a] > 1 << 20) return false;
      w->k[a] = (int32_t)v[a];
    }
  }
  if (w->k[0] < 1) return false;
  if ((cnt = rg_onnx_attr_ints(n, "strides", &v)) >= 0) {
    if (cnt != 2 || v[0] < 1 || v[1] < 1 || v[0] > 16 || v[1] > 16) return false;
    w->stride[0] = (int32_t)v[0], w->stride[1] = (int32_t)v[1];
  }
  if ((cnt = rg_onnx_attr_ints(n, "dilations", &v)) >= 0) {
    if (cnt != 2 || v[0] < 1 || v[1] < 1 || v[0] > 16 || v[1] > 16) return false;
    w->dil[0] = (int32_t)v[0], w->dil[1] = (int32_t)v[1];
  }
  char buf[32];
  const char *ap = rg_onnx_attr_str(n, "auto_pad", buf, sizeof buf, "NOTSET");
  int64_t keff[2], same_before[2], same_after[2];
  for (int a = 0; a < 2; a++) {
    keff[a] = (int64_t)(w->k[a] - 1) * w->dil[a] + 1;
    int64_t in = x->dim[2 + a], out = (in + w->stride[a] - 1) / w->stride[a];
    int64_t total = (out - 1) * w->stride[a] + keff[a] - in;
    if (total < 0) total = 0;
    same_before[a] = total / 2, same_after[a] = total - total / 2;
    if (dynamic && w->stride[a] > 1 && keff[a] > 1) {
      if (!strncmp(ap, "SAME_", 5)) return false;
      same_before[a] = -1; /* no size-free SAME here */
    }
    if (!strcmp(ap, "SAME_UPPER")) w->before[a] = total / 2, w->after[a] = total - total / 2;
    else if (!strcmp(ap, "SAME_LOWER")) w->before[a] = total - total / 2, w->after[a] = total / 2;
    else if (!strcmp(ap, "VALID")) w->before[a] = w->after[a] = 0;
    else if (strcmp(ap, "NOTSET")) return false;
  }
  if (!strcmp(ap, "NOTSET")) {
    for (int a = 0; a < 2; a++) w->before[a] = w->after[a] = 0;
    if ((cnt = rg_onnx_attr_ints(n, "pads", &v)) >= 0) {
      if (cnt != 4) return false;
      for (int a = 0; a < 2; a++) {
        if (v[a] < 0 || v[a + 2] < 0 || v[a] > 1 << 20 || v[a + 2] > 1 << 20) return false;
        w->before[a] = v[a], w->after[a] = v[a + 2];
      }
    }
  }
  bool zero = true, same = true;
  for (int a = 0; a < 2; a++) {
    zero = zero && !w->before[a] && !w->after[a];
    same = same && w->before[a] == same_before[a] && w->after[a] == same_after[a];
    if (x->dim[2 + a] + w->before[a] + w->after[a] < keff[a]) return false;
  }
  w->mode = zero ? WIN_VALID : same ? WIN_SAME : WIN_EXPLICIT;
  w->same_too = zero && same;
  return true;
}

/* x padded as an EXPLICIT window says; the window is VALID from there on. */
static rg_status pad_window(rg_importer *im, rg_ref *x, window *w, rg_err *err) {
  if (w->mode != WIN_EXPLICIT) return RG_OK;
  rg_status st = RG_OK;
  for (int a = 0; !st && a < 2; a++) st = pad_axis(im, x, 2 + a, w->before[a], w->after[a], err);
  w->mode = WIN_VALID;
  return st;
}

/* BatchNormalization bn folded into the conv weights w and bias b (b may be NULL): new weights
 * into *w2, *b2; false (nothing made) when an operand is not a float constant. */
static rg_status fold_batchnorm(rg_importer *im, const Onnx__NodeProto *bn, const rg_ival *w, const rg_ival *b,
                                rg_ref *w2, rg_ref *b2, bool *folded, rg_err *err) {
  *folded = false;
  const float *p[4], *wd = rg_import_const(im, w->ref), *bd = b ? rg_import_const(im, b->ref) : NULL;
  const rg_shape *ws = shape_of(im, w->ref);
  int32_t ch = ws->dim[0];
  for (int j = 0; j < 4; j++) {
    const rg_ival *o = operand(im, bn, (size_t)j + 1);
    p[j] = o && o->elem == RG_ELEM_FLOAT ? rg_import_const(im, o->ref) : NULL;
    if (!p[j] || shape_of(im, o->ref)->rank != 1 || shape_of(im, o->ref)->dim[0] != ch) return RG_OK;
  }
  if (!wd || (b && (!bd || shape_of(im, b->ref)->rank != 1))) return RG_OK;
  double eps = rg_onnx_attr_float(bn, "epsilon", 1e-5f);
  int64_t per = rg_shape_numel(ws) / ch;
  float *nw = malloc(sizeof *nw * (size_t)rg_shape_numel(ws)), *nb = malloc(sizeof *nb * (size_t)ch);
  if (!nw || !nb) {
    free(nw), free(nb);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (int32_t o = 0; o < ch; o++) {
    double s = p[0][o] / sqrt((double)p[3][o] + eps);
    for (int64_t i = 0; i < per; i++) nw[o * per + i] = (float)(wd[o * per + i] * s);
    nb[o] = (float)(((bd ? bd[o] : 0.0) - p[2][o]) * s + p[1][o]);
  }
  rg_shape bs = rg_shape_make(1, &ch);
  const char *wn = im->node->input[1];
  rg_status st = rg_import_weight(im, wn, RG_ELEM_FLOAT, ws, nw, w2, err);
  if (!st) st = rg_import_weight(im, wn, RG_ELEM_FLOAT, &bs, nb, b2, err);
  else free(nb);
  *folded = !st;
  return st;
}

static rg_status map_conv(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const rg_ival *x = operand(im, n, 0), *w = operand(im, n, 1), *b = operand(im, n, 2);
  if (!x || !w) return RG_IMPORT_OPAQUE;
  const rg_shape *xs = shape_of(im, x->ref), *ws = shape_of(im, w->ref);
  window win;
  if (xs->rank != 4 || ws->rank != 4 || !read_window(n, xs, &ws->dim[2], rg_import_dynamic(im), &win))
    return RG_IMPORT_OPAQUE;
  int64_t g = rg_onnx_attr_int(n, "group", 1);
  if (g < 1 || g > 1 << 16) return RG_IMPORT_OPAQUE;
  rg_ref in[2] = {x->ref, w->ref}, bias = {-1, 0}, r;
  if (b) bias = b->ref;
  int32_t bn = im->fold_into[im->node_k];
  rg_status st = RG_OK;
  if (bn >= 0) {
    bool folded;
    st = fold_batchnorm(im, im->gr->node[bn], w, b, &in[1], &bias, &folded, err);
    if (st) return st;
    im->folded[bn] = folded;
  }
  if ((st = pad_window(im, &in[0], &win, err))) return st;
  /* A window both VALID and SAME (every 1x1 conv) is written SAME, the mode rule sets state
   * convolutions in (rulegen's --conv-pad defaults to same): as VALID no conv rule matched it. */
  if (win.same_too) win.mode = WIN_SAME;
  int32_t p[7] = {win.stride[0], win.stride[1], (int32_t)win.mode, RG_ACT_NONE, win.dil[0], win.dil[1], (int32_t)g};
  if ((st = rg_import_node(im, RG_OP_CONV2D, p, in, 2, &r, err))) return st;
  if (bias.node >= 0 && (st = add_bias(im, r, bias, 1, &r, err))) return st;
  return result(im, n, r, err);
}

static rg_status map_pool(rg_importer *im, const Onnx__NodeProto *n, bool max, rg_err *err) {
  const rg_ival *x = operand(im, n, 0);
  const rg_shape *xs = shape_of(im, x->ref);
  window win;
  if (xs->rank != 4 || !read_window(n, xs, NULL, rg_import_dynamic(im), &win) || win.dil[0] != 1 || win.dil[1] != 1)
    return RG_IMPORT_OPAQUE;
  if (n->n_output > 1 && n->output[1][0]) return RG_IMPORT_OPAQUE; /* MaxPool's indices */
  if (win.k[0] > 16 || win.k[1] > 16) return RG_IMPORT_OPAQUE;
  if (rg_onnx_attr_int(n, "ceil_mode", 0) && win.mode != WIN_SAME)
    for (int a = 0; a < 2; a++) { /* ceil mode matters only where the last window starts in the padding */
      int64_t span = xs->dim[2 + a] + win.before[a] + win.after[a] - win.k[a];
      if (span % win.stride[a] || (rg_import_dynamic(im) && win.stride[a] > 1)) return RG_IMPORT_OPAQUE; /* or may */
    }
  /* max pooling ignores padded cells, average pooling here counts them as zeros */
  bool counts_pad = !max && rg_onnx_attr_int(n, "count_include_pad", 0);
  if (win.mode != WIN_VALID && !max && !counts_pad) return RG_IMPORT_OPAQUE;
  if (win.mode == WIN_EXPLICIT && max) return RG_IMPORT_OPAQUE;
  rg_ref r = x->ref;
  rg_status st = pad_window(im, &r, &win, err);
  int32_t p[6] = {win.k[0], win.k[1], win.stride[0], win.stride[1], (int32_t)win.mode, RG_ACT_NONE};
  if (!st) st = rg_import_node(im, max ? RG_OP_POOLMAX : RG_OP_POOLAVG, p, &r, 1, &r, err);
  return st ? st : result(im, n, r, err);
}

static rg_status map_global_pool(rg_importer *im, const Onnx__NodeProto *n, bool max, rg_err *err) {
  const rg_ival *x = operand(im, n, 0);
  const rg_shape *xs = shape_of(im, x->ref);
  if (xs->rank != 4 || xs->dim[2] > 16 || xs->dim[3] > 16) return RG_IMPORT_OPAQUE;
  int32_t p[6] = {xs->dim[2], xs->dim[3], 1, 1, RG_PAD_VALID, RG_ACT_NONE};
  rg_ref r;
  rg_status st = rg_import_node(im, max ? RG_OP_POOLMAX : RG_OP_POOLAVG, p, &x->ref, 1, &r, err);
  return st ? st : result(im, n, r, err);
}

/* ---- products ---- */

/* The shape of a (rank > 2) times matrix b: a's, its last dim b's columns. */
static rg_shape product_shape(const rg_shape *as, const rg_shape *bs) {
  int32_t dims[RG_MAX_RANK];
  memcpy(dims, as->dim, sizeof dims);
  dims[as->rank - 1] = bs->dim[1];
  return rg_shape_make(as->rank, dims);
}

/* a times b: equal ranks and batch sizes directly; a of rank > 2 against a matrix b as one 2-D
 * product over a's rows (how a transformer's linear layers read), plus bias (a vector along the
 * last axis, or a ref of node -1 for none) on that 2-D product, as a Gemm's. */
static rg_status matmul(rg_importer *im, rg_ref a, rg_ref b, rg_ref bias, rg_ref *out, rg_err *err) {
  const rg_shape *as = shape_of(im, a), *bs = shape_of(im, b);
  int32_t p[1] = {RG_ACT_NONE};
  if (as->rank >= 2 && as->rank == bs->rank && bias.node < 0) {
    for (int d = 0; d < as->rank - 2; d++)
      if (as->dim[d] != bs->dim[d]) return RG_IMPORT_OPAQUE;
    rg_ref in[2] = {a, b};
    return rg_import_node(im, RG_OP_MATMUL, p, in, 2, out, err);
  }
  if (as->rank <= 2 || bs->rank != 2) return RG_IMPORT_OPAQUE;
  int64_t rows = rg_shape_numel(as) / as->dim[as->rank - 1];
  if (rows > RG_MAX_DIM) return RG_IMPORT_OPAQUE;
  int32_t flat[2] = {(int32_t)rows, as->dim[as->rank - 1]};
  rg_shape fs = rg_shape_make(2, flat), os = product_shape(as, bs);
  rg_ref in[2] = {a, b}, r;
  rg_status st = reshape_to(im, a, &fs, &in[0], err);
  if (!st) st = rg_import_node(im, RG_OP_MATMUL, p, in, 2, &r, err);
  if (!st && bias.node >= 0) st = add_bias(im, r, bias, 1, &r, err);
  return st ? st : reshape_to(im, r, &os, out, err);
}

/* The bias of the Add planned to fold into MatMul n (rg_import_plan_folds): its other operand when
 * the product is one import flattens (a of rank > 2 by a matrix) and that operand is a float
 * vector along the product's last axis; else NULL. */
static const rg_ival *foldable_bias(const rg_importer *im, const Onnx__NodeProto *n) {
  int32_t k = im->fold_into[im->node_k];
  const Onnx__NodeProto *add = k >= 0 ? im->gr->node[k] : NULL;
  if (!add || strcmp(add->op_type, "Add")) return NULL;
  const rg_ival *b = rg_import_get(im, add->input[strcmp(add->input[0], n->output[0]) ? 0 : 1]);
  const rg_shape *as = shape_of(im, operand(im, n, 0)->ref), *ws = shape_of(im, operand(im, n, 1)->ref);
  if (!b || b->elem != RG_ELEM_FLOAT || as->rank <= 2 || ws->rank != 2) return NULL;
  rg_shape os = product_shape(as, ws);
  return bias_axis(&os, shape_of(im, b->ref)) == as->rank - 1 ? b : NULL;
}

/* MatMul; with the bias Add planned to fold into it, both: (reshape (bias 1 (matmul (reshape a)
 * w) b)), where the rules that merge products with their biases see a Gemm's bias. */
static rg_status map_matmul(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  rg_ref r;
  const rg_ival *b = foldable_bias(im, n);
  rg_status st = matmul(im, operand(im, n, 0)->ref, operand(im, n, 1)->ref, b ? b->ref : (rg_ref){-1, 0}, &r, err);
  if (!st && b) im->folded[im->fold_into[im->node_k]] = true;
  return st ? st : result(im, n, r, err);
}

static rg_status transposed(rg_importer *im, rg_ref x, rg_ref *out, rg_err *err) {
  int32_t p[1] = {rg_perm_pack((const int[]){1, 0}, 2)};
  return rg_import_node(im, RG_OP_TRANSPOSE, p, &x, 1, out, err);
}

/* Gemm: alpha * A' B' + beta * C, C added as a matrix or a bias along either axis. */
static rg_status map_gemm(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const rg_ival *a = operand(im, n, 0), *b = operand(im, n, 1), *c = operand(im, n, 2);
  if (shape_of(im, a->ref)->rank != 2 || shape_of(im, b->ref)->rank != 2) return RG_IMPORT_OPAQUE;
  double alpha = rg_onnx_attr_float(n, "alpha", 1.0f), beta = rg_onnx_attr_float(n, "beta", 1.0f);
  int axis = -1;
  if (c) {
    const rg_shape *as = shape_of(im, a->ref), *bs = shape_of(im, b->ref);
    int32_t mn[2] = {as->dim[rg_onnx_attr_int(n, "transA", 0) ? 1 : 0], bs->dim[rg_onnx_attr_int(n, "transB", 0) ? 0 : 1]};
    rg_shape os = rg_shape_make(2, mn);
    axis = bias_axis(&os, shape_of(im, c->ref));
    if (axis < 0 && !rg_shape_dims_eq(&os, shape_of(im, c->ref))) return RG_IMPORT_OPAQUE;
  }
  rg_ref x = a->ref, y = b->ref, r, s;
  rg_status st = RG_OK;
  if (rg_onnx_attr_int(n, "transA", 0)) st = transposed(im, x, &x, err);
  if (!st && rg_onnx_attr_int(n, "transB", 0)) st = transposed(im, y, &y, err);
  if (!st) st = matmul(im, x, y, (rg_ref){-1, 0}, &r, err);
  if (!st && alpha != 1) {
    st = scalar_weight(im, "alpha", alpha, &s, err);
    if (!st) st = rg_import_node(im, RG_OP_SMUL, NULL, (rg_ref[]){r, s}, 2, &r, err);
  }
  if (!st && c) {
    rg_ref cr = c->ref;
    if (beta != 1) {
      st = scalar_weight(im, "beta", beta, &s, err);
      if (!st) st = rg_import_node(im, RG_OP_SMUL, NULL, (rg_ref[]){cr, s}, 2, &cr, err);
    }
    if (!st) st = axis >= 0 ? add_bias(im, r, cr, axis, &r, err)
                            : rg_import_node(im, RG_OP_EWADD, NULL, (rg_ref[]){r, cr}, 2, &r, err);
  }
  return st ? st : result(im, n, r, err);
}

/* ---- elementwise ---- */

static rg_status map_unary(rg_importer *im, const Onnx__NodeProto *n, rg_op op, rg_err *err) {
  rg_ref r;
  rg_status st = rg_import_node(im, op, NULL, &operand(im, n, 0)->ref, 1, &r, err);
  return st ? st : result(im, n, r, err);
}

/* Add and Mul (and Sum): equal shapes; Add along one axis is a bias, Mul by one value a smul. */
static rg_status map_binary(rg_importer *im, const Onnx__NodeProto *n, bool add, rg_err *err) {
  const rg_ival *a = operand(im, n, 0);
  if (!a) return RG_IMPORT_OPAQUE;
  rg_ref r = a->ref;
  rg_status st = RG_OK;
  if (n->n_input == 1) return result(im, n, r, err);
  for (size_t k = 1; !st && k < n->n_input; k++) {
    const rg_ival *b = operand(im, n, k);
    if (!b) return RG_IMPORT_OPAQUE;
    const rg_shape *as = shape_of(im, r), *bs = shape_of(im, b->ref);
    if (rg_shape_dims_eq(as, bs)) {
      st = rg_import_node(im, add ? RG_OP_EWADD : RG_OP_EWMUL, NULL, (rg_ref[]){r, b->ref}, 2, &r, err);
      continue;
    }
    if (n->n_input > 2) return RG_IMPORT_OPAQUE;
    if (add) {
      int ax = bias_axis(as, bs), bx = ax < 0 ? bias_axis(bs, as) : -1;
      if (ax < 0 && bx < 0) return RG_IMPORT_OPAQUE;
      st = ax >= 0 ? add_bias(im, r, b->ref, ax, &r, err) : add_bias(im, b->ref, r, bx, &r, err);
    } else {
      bool scalar_b = rg_shape_numel(bs) == 1 && bs->rank <= as->rank;
      bool scalar_a = rg_shape_numel(as) == 1 && as->rank <= bs->rank;
      if (!scalar_a && !scalar_b) return RG_IMPORT_OPAQUE;
      rg_ref x = scalar_b ? r : b->ref, s = scalar_b ? b->ref : r;
      rg_shape rank0 = rg_shape_make(0, NULL);
      st = reshape_to(im, s, &rank0, &s, err);
      if (!st) st = rg_import_node(im, RG_OP_SMUL, NULL, (rg_ref[]){x, s}, 2, &r, err);
    }
  }
  return st ? st : result(im, n, r, err);
}

/* ---- data movement ---- */

static rg_status map_concat(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  if (!n->n_input) return RG_IMPORT_OPAQUE;
  const rg_ival *first = operand(im, n, 0);
  if (!first) return RG_IMPORT_OPAQUE;
  int rank = shape_of(im, first->ref)->rank;
  int64_t axis = rg_onnx_attr_int(n, "axis", INT64_MIN);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return RG_IMPORT_OPAQUE;
  rg_ref in[RG_MAX_INPUTS], r = first->ref;
  int32_t p[1] = {(int32_t)axis};
  /* more operands than one concat takes: concat the first ones, then go on from the result */
  for (size_t k = 1; k < n->n_input;) {
    int cnt = 1;
    in[0] = r;
    for (; cnt < RG_MAX_INPUTS && k < n->n_input; k++) {
      const rg_ival *v = operand(im, n, k);
      if (!v) return RG_IMPORT_OPAQUE;
      in[cnt++] = v->ref;
    }
    rg_node nd = rg_node_init(RG_OP_CONCAT);
    nd.params[0] = p[0], nd.n_in = (uint8_t)cnt;
    memcpy(nd.in, in, sizeof(rg_ref) * (size_t)cnt);
    rg_status st = rg_model_add_node(im->m, &nd, 0, &r, NULL);
    if (st == RG_ERR_LIMIT || st == RG_ERR_SHAPE) return RG_IMPORT_OPAQUE; /* too many seams: opaque.c concats */
    if (st) return rg_import_fail(im, err, st, "out of memory");
  }
  return result(im, n, r, err);
}

/* Split's axis and sizes, one per output (at most 64): NULL, or why (in buf) they do not cut
 * its input. */
static const char *split_sizes(const rg_importer *im, const Onnx__NodeProto *n, int64_t *axis, int64_t *sizes,
                               char *buf, size_t len) {
  const rg_shape *xs = shape_of(im, operand(im, n, 0)->ref);
  int cnt = (int)n->n_output, got = cnt;
  const int64_t *attr;
  if ((*axis = rg_onnx_attr_int(n, "axis", 0)) < 0) *axis += xs->rank;
  if (*axis < 0 || *axis >= xs->rank)
    return snprintf(buf, len, "axis %lld is outside its input's %d axes", (long long)rg_onnx_attr_int(n, "axis", 0),
                    xs->rank), buf;
  if (cnt > 64) return "more than 64 outputs: graphopt splits into at most 64";
  int64_t dim = xs->dim[*axis], at = 0, parts = im->opset >= 18 ? rg_onnx_attr_int(n, "num_outputs", 0) : 0;
  if (im->opset >= 13 && operand(im, n, 1)) { /* the sizes: an input from opset 13, an attribute before */
    if ((got = const_ints(im, n, 1, sizes, 64)) < 0) return "its sizes are not a constant (of at most 64 values)";
  } else if (im->opset < 13 && rg_onnx_attr(n, "split")) { /* absent: equal parts, below */
    if ((got = rg_onnx_attr_ints(n, "split", &attr)) == cnt) memcpy(sizes, attr, sizeof *sizes * (size_t)cnt);
  } else if (parts) { /* opset 18's num_outputs: parts of ceil(dim / parts), the last one smaller */
    if (parts != cnt) return snprintf(buf, len, "num_outputs is %lld for %d outputs", (long long)parts, cnt), buf;
    int64_t part = (dim + cnt - 1) / cnt;
    for (int j = 0; j < cnt; j++) sizes[j] = j < cnt - 1 ? part : dim - (cnt - 1) * part;
  } else if (dim % cnt) {
    return snprintf(buf, len, "axis %lld's size %lld does not split into %d equal parts", (long long)*axis,
                    (long long)dim, cnt), buf;
  } else {
    for (int j = 0; j < cnt; j++) sizes[j] = dim / cnt;
  }
  if (got != cnt) return snprintf(buf, len, "%d sizes for %d outputs", got, cnt), buf;
  for (int j = 0; j < cnt; j++) {
    if (sizes[j] < 0) return snprintf(buf, len, "Split sizes must be >= 0: size %d is %lld", j, (long long)sizes[j]), buf;
    if (!sizes[j]) return snprintf(buf, len, "size %d is 0: an empty tensor, which graphopt does not handle yet", j), buf;
    if (sizes[j] > dim - at) /* no sum past int64 */
      return snprintf(buf, len, "the sizes add up to more than axis %lld's size %lld", (long long)*axis,
                      (long long)dim), buf;
    at += sizes[j];
  }
  if (at != dim)
    return snprintf(buf, len, "the sizes add up to %lld, not to axis %lld's size %lld", (long long)at, (long long)*axis,
                    (long long)dim), buf;
  return NULL;
}

static rg_status map_split(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const rg_ival *x = operand(im, n, 0);
  int64_t axis, sizes[64], at = 0;
  int cnt = (int)n->n_output;
  char why[160];
  if (split_sizes(im, n, &axis, sizes, why, sizeof why)) return RG_IMPORT_OPAQUE; /* import.c asks why */
  for (int j = 0; j < cnt; j++) {
    rg_ref r = x->ref;
    rg_status st = slice_axis(im, &r, (int)axis, at, at + sizes[j], err);
    if (!st) st = rg_import_set(im, n->output[j], r, RG_ELEM_FLOAT, err);
    if (st) return st;
    at += sizes[j];
  }
  return RG_OK;
}

/* Transpose's permutation of its input's rank axes: NULL, or why it is none. */
static const char *transpose_perm(const Onnx__NodeProto *n, int rank, int *perm, char *buf, size_t len) {
  const int64_t *v;
  int cnt = rg_onnx_attr_ints(n, "perm", &v);
  bool seen[RG_MAX_RANK] = {0};
  if (cnt >= 0 && cnt != rank) return snprintf(buf, len, "perm has %d values for %d axes", cnt, rank), buf;
  for (int d = 0; d < rank; d++) {
    if (cnt >= 0 && (v[d] < 0 || v[d] >= rank || seen[v[d]]))
      return snprintf(buf, len, "perm is not a permutation of the axes 0 to %d: value %d is %lld", rank - 1, d,
                      (long long)v[d]), buf;
    perm[d] = cnt >= 0 ? (int)v[d] : rank - 1 - d;
    seen[perm[d]] = true;
  }
  return NULL;
}

static rg_status map_transpose(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const rg_ival *x = operand(im, n, 0);
  int rank = shape_of(im, x->ref)->rank, perm[RG_MAX_RANK];
  char why[160];
  bool identity = true;
  if (transpose_perm(n, rank, perm, why, sizeof why)) return RG_IMPORT_OPAQUE; /* import.c asks why */
  for (int d = 0; d < rank; d++) identity = identity && perm[d] == d;
  if (identity || rank < 2) return result(im, n, x->ref, err);
  int32_t p[1] = {rg_perm_pack(perm, rank)};
  rg_ref r;
  rg_status st = rg_import_node(im, RG_OP_TRANSPOSE, p, &x->ref, 1, &r, err);
  return st ? st : result(im, n, r, err);
}

/* Reshape, Flatten, Squeeze, Unsqueeze: the shape opaque.h gives them, as one reshape. */
static rg_status map_reshape(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  rg_tinfo in[4] = {0}, out[1];
  const double *k[4] = {0};
  double kd[4][RG_MAX_RANK] = {{0}};
  int n_in = n->n_input < 4 ? (int)n->n_input : 4;
  for (int j = 0; j < n_in; j++) {
    const rg_ival *v = operand(im, n, (size_t)j);
    if (!v) continue;
    in[j] = (rg_tinfo){v->elem, *shape_of(im, v->ref), true};
    int64_t ints[RG_MAX_RANK];
    int cnt = j ? const_ints(im, n, (size_t)j, ints, RG_MAX_RANK) : -1;
    if (j && cnt < 0) return RG_IMPORT_OPAQUE;
    for (int i = 0; i < cnt; i++) kd[j][i] = (double)ints[i];
    if (j) k[j] = kd[j];
  }
  rg_opaque_call c = {n, im->opset, n_in, 1, in};
  if (n->n_output != 1 || rg_opaque_infer(&c, k, out, NULL)) return RG_IMPORT_OPAQUE;
  rg_ref r;
  rg_status st = reshape_to(im, operand(im, n, 0)->ref, &out[0].shape, &r, err);
  if (!st && !rg_import_one_node(im, r, operand(im, n, 0)->ref)) return RG_IMPORT_OPAQUE; /* import_dims.c */
  return st ? st : result(im, n, r, err);
}

/* Pad's amounts as constants into pads[2 * rank] (all befores, then all afters) and whether it
 * pads with zeros: the attributes pads and value before opset 11; from 11 the inputs pads and
 * constant_value, from 18 also axes (the axes pads names, the others unpadded). False when they
 * are not constants or the value is not 0. */
static bool pad_zeros(const rg_importer *im, const Onnx__NodeProto *n, int rank, int64_t *pads) {
  const int64_t *attr;
  if (im->opset < 11) {
    if (n->n_input > 1 || rg_onnx_attr_ints(n, "pads", &attr) != 2 * rank) return false;
    memcpy(pads, attr, sizeof *pads * (size_t)(2 * rank));
    return rg_onnx_attr_float(n, "value", 0.0f) == 0;
  }
  const rg_ival *value = operand(im, n, 2);
  int64_t amounts[2 * RG_MAX_RANK], axes[RG_MAX_RANK];
  int cnt = const_ints(im, n, 1, amounts, 2 * RG_MAX_RANK), n_axes = rank;
  if (n->n_input > (im->opset >= 18 ? 4u : 3u) || cnt < 0 || cnt % 2) return false;
  if (im->opset >= 18 && operand(im, n, 3)) {
    if ((n_axes = const_ints(im, n, 3, axes, RG_MAX_RANK)) < 0) return false;
  } else for (int d = 0; d < rank; d++) axes[d] = d;
  if (cnt != 2 * n_axes) return false;
  bool seen[RG_MAX_RANK] = {0};
  memset(pads, 0, sizeof *pads * (size_t)(2 * rank));
  for (int i = 0; i < n_axes; i++) {
    int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (a < 0 || a >= rank || seen[a]) return false; /* outside, or named twice */
    seen[a] = true, pads[a] = amounts[i], pads[a + rank] = amounts[i + n_axes];
  }
  if (value) {
    const float *v = rg_import_const(im, value->ref);
    if (!v || rg_shape_numel(shape_of(im, value->ref)) != 1 || v[0] != 0) return false;
  }
  return true;
}

/* Pad with zeros; a negative amount is a slice. */
static rg_status map_pad(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const rg_ival *x = operand(im, n, 0);
  int rank = shape_of(im, x->ref)->rank;
  int64_t pads[2 * RG_MAX_RANK];
  char buf[16];
  if (strcmp(rg_onnx_attr_str(n, "mode", buf, sizeof buf, "constant"), "constant")) return RG_IMPORT_OPAQUE;
  if (!pad_zeros(im, n, rank, pads)) return RG_IMPORT_OPAQUE;
  rg_ref r = x->ref;
  rg_status st = RG_OK;
  for (int d = 0; !st && d < rank; d++) {
    int64_t dim = shape_of(im, r)->dim[d], b = pads[d], a = pads[d + rank];
    /* bounded first: the sum below must not overflow (fuzz_onnx found INT64_MIN pads) */
    if (b > 1 << 20 || a > 1 << 20 || b < -dim || a < -dim) return RG_IMPORT_OPAQUE;
    if (dim + (b < 0 ? b : 0) + (a < 0 ? a : 0) < 1) return RG_IMPORT_OPAQUE;
    st = slice_axis(im, &r, d, b < 0 ? -b : 0, dim - (a < 0 ? -a : 0), err);
    if (!st) st = pad_axis(im, &r, d, b > 0 ? b : 0, a > 0 ? a : 0, err);
  }
  return st ? st : result(im, n, r, err);
}

/* The attribute of a Slice before opset 10 (at most RG_MAX_RANK values) into v: their count, or -1. */
static int attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *v) {
  const int64_t *a;
  int cnt = rg_onnx_attr_ints(n, name, &a);
  if (cnt < 0 || cnt > RG_MAX_RANK) return -1;
  memcpy(v, a, sizeof *v * (size_t)cnt);
  return cnt;
}

/* Slice's starts, ends and axes (axes[i] = i when none): attributes before opset 10 (no steps),
 * constant inputs from 10. Their count; -1 when they are none, or a step is not 1. */
static int slice_args(const rg_importer *im, const Onnx__NodeProto *n, int64_t *starts, int64_t *ends, int64_t *axes) {
  int64_t steps[RG_MAX_RANK];
  bool old = im->opset < 10, with_axes = old ? rg_onnx_attr(n, "axes") != NULL : operand(im, n, 3) != NULL;
  int cnt = old ? attr_ints(n, "starts", starts) : const_ints(im, n, 1, starts, RG_MAX_RANK);
  if (cnt < 1 || (old && n->n_input > 1)) return -1;
  if ((old ? attr_ints(n, "ends", ends) : const_ints(im, n, 2, ends, RG_MAX_RANK)) != cnt) return -1;
  if (with_axes && (old ? attr_ints(n, "axes", axes) : const_ints(im, n, 3, axes, RG_MAX_RANK)) != cnt) return -1;
  if (!old && operand(im, n, 4) && const_ints(im, n, 4, steps, RG_MAX_RANK) != cnt) return -1;
  for (int i = 0; i < cnt; i++) {
    if (!with_axes) axes[i] = i;
    if (!old && operand(im, n, 4) && steps[i] != 1) return -1;
  }
  return cnt;
}

/* Slice with constant bounds and steps of 1. */
static rg_status map_slice(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const rg_ival *x = operand(im, n, 0);
  const rg_shape xs_copy = *shape_of(im, x->ref), *xs = &xs_copy; /* nodes added below move the model's shapes */
  int64_t starts[RG_MAX_RANK], ends[RG_MAX_RANK], axes[RG_MAX_RANK];
  int cnt = slice_args(im, n, starts, ends, axes);
  if (cnt < 1) return RG_IMPORT_OPAQUE;
  rg_ref r = x->ref;
  bool seen[RG_MAX_RANK] = {0};
  for (int i = 0; i < cnt; i++) {
    int64_t a = axes[i];
    if (a < 0) a += xs->rank;
    if (a < 0 || a >= xs->rank || seen[a]) return RG_IMPORT_OPAQUE;
    seen[a] = true;
    int64_t dim = xs->dim[a], b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    b = b < 0 ? 0 : b > dim ? dim : b;
    e = e < 0 ? 0 : e > dim ? dim : e;
    if (e <= b) return RG_IMPORT_OPAQUE; /* empty: opaque.h says why */
    rg_status st = slice_axis(im, &r, (int)a, b, e, err);
    if (st) return st;
  }
  if (!rg_import_one_node(im, r, x->ref)) return RG_IMPORT_OPAQUE; /* import_dims.c */
  return result(im, n, r, err);
}

/* ---- folding: a BatchNormalization into its Conv, a bias Add into its MatMul ---- */

static bool onnx_op(const Onnx__NodeProto *n, const char *op) {
  bool onnx = !n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx");
  return onnx && n->op_type && !strcmp(n->op_type, op);
}

/* The node producing n's operand k when only n reads it (nothing else, no graph output), or -1. */
static int64_t sole_producer(const rg_importer *im, const Onnx__NodeProto *n, size_t k) {
  const int64_t *p = rg_names_find(&im->producer, n->input[k]), *readers = rg_names_find(&im->readers, n->input[k]);
  return p && readers && *readers == 1 ? *p : -1;
}

static void plan_batchnorm(rg_importer *im, size_t k) {
  const Onnx__NodeProto *bn = im->gr->node[k];
  if (!onnx_op(bn, "BatchNormalization") || bn->n_input != 5) return;
  if (rg_onnx_attr_int(bn, "training_mode", 0)) return;
  if (im->opset < 9 && !rg_onnx_attr_int(bn, "spatial", 1)) return; /* statistics per activation, not channel */
  for (size_t j = 1; j < bn->n_output; j++)
    if (bn->output[j][0]) return;
  int64_t p = sole_producer(im, bn, 0);
  if (p >= 0 && onnx_op(im->gr->node[p], "Conv") && im->gr->node[p]->n_output == 1) im->fold_into[p] = (int32_t)k;
}

/* An Add of two operands, one a MatMul's product only it reads (the bias is checked at the
 * MatMul, when shapes are known: foldable_bias). One MatMul at most: of a sum of two products,
 * the first (rg_import_folded_operand finds the folded one by its plan). */
static void plan_bias(rg_importer *im, size_t k) {
  const Onnx__NodeProto *add = im->gr->node[k];
  if (!onnx_op(add, "Add") || add->n_input != 2 || add->n_output != 1 || !strcmp(add->input[0], add->input[1]))
    return;
  for (size_t j = 0; j < 2; j++) {
    int64_t p = sole_producer(im, add, j);
    const Onnx__NodeProto *mm = p >= 0 ? im->gr->node[p] : NULL;
    if (mm && onnx_op(mm, "MatMul") && mm->n_output == 1 && im->fold_into[p] < 0) {
      im->fold_into[p] = (int32_t)k;
      return;
    }
  }
}

void rg_import_plan_folds(rg_importer *im) {
  const Onnx__GraphProto *gr = im->gr;
  for (size_t k = 0; k < gr->n_node; k++) im->fold_into[k] = -1, im->folded[k] = false;
  for (size_t k = 0; im->opset >= 7 && k < gr->n_node; k++) plan_batchnorm(im, k), plan_bias(im, k);
}

int rg_import_folded_operand(const rg_importer *im, const Onnx__NodeProto *n) {
  for (size_t k = 0; im->folded[im->node_k] && k < n->n_input; k++) {
    const int64_t *p = n->input[k][0] ? rg_names_find(&im->producer, n->input[k]) : NULL;
    if (p && im->fold_into[*p] == im->node_k) return (int)k;
  }
  return -1;
}

/* A node folded into the one before it: that node computed both. */
static rg_status map_folded(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  int k = rg_import_folded_operand(im, n);
  return k < 0 ? RG_IMPORT_OPAQUE : result(im, n, operand(im, n, (size_t)k)->ref, err);
}

/* ---- dispatch ---- */

/* Whether op maps at the model's opset: before 7, only where export writes its IR back in the
 * form that opset has and onnxruntime runs (Add, Mul, Gemm, AveragePool, BatchNormalization
 * changed at 7; Sum is written as Add, GlobalAveragePool as AveragePool, a product of a
 * transposed weight as Gemm; Reshape, and the reshapes export writes for Flatten, Squeeze and
 * Unsqueeze, take the shape as an input from 5). */
static bool written_at_opset(const rg_importer *im, const char *op) {
  static const char *const early[] = {"Conv",    "MaxPool", "GlobalMaxPool", "Relu",      "Tanh",  "Sigmoid",
                                      "Concat",  "Split",   "Transpose",     "Pad",       "Slice", "Identity"};
  static const char *const from5[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"};
  if (im->opset >= 7) return true;
  for (size_t i = 0; i < sizeof early / sizeof *early; i++)
    if (!strcmp(op, early[i])) return true;
  for (size_t i = 0; im->opset >= 5 && i < sizeof from5 / sizeof *from5; i++)
    if (!strcmp(op, from5[i])) return true;
  return false;
}

rg_status rg_import_map(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const char *op = n->op_type ? n->op_type : "";
  /* operators whose operands after the first are int64 shapes, axes or amounts */
  static const char *const controlled[] = {"Reshape", "Squeeze", "Unsqueeze", "Pad", "Slice", "Split"};
  size_t n_data = n->n_input;
  for (size_t i = 0; i < sizeof controlled / sizeof *controlled; i++)
    if (!strcmp(op, controlled[i])) n_data = 1;
  if (!written_at_opset(im, op) || !n->n_input || !operand(im, n, 0) || !n->n_output || !data_float(im, n, n_data))
    return RG_IMPORT_OPAQUE;
  if (im->folded[im->node_k]) return map_folded(im, n, err);
  if (!strcmp(op, "Conv")) return map_conv(im, n, err);
  if (!strcmp(op, "MaxPool")) return map_pool(im, n, true, err);
  if (!strcmp(op, "AveragePool")) return map_pool(im, n, false, err);
  if (!strcmp(op, "GlobalAveragePool")) return map_global_pool(im, n, false, err);
  if (!strcmp(op, "GlobalMaxPool")) return map_global_pool(im, n, true, err);
  if (!strcmp(op, "MatMul") && n->n_input == 2 && operand(im, n, 1)) return map_matmul(im, n, err);
  if (!strcmp(op, "Gemm") && n->n_input >= 2 && operand(im, n, 1)) return map_gemm(im, n, err);
  if (!strcmp(op, "Relu")) return map_unary(im, n, RG_OP_RELU, err);
  if (!strcmp(op, "Tanh")) return map_unary(im, n, RG_OP_TANH, err);
  if (!strcmp(op, "Sigmoid")) return map_unary(im, n, RG_OP_SIGMOID, err);
  if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return map_binary(im, n, true, err);
  if (!strcmp(op, "Mul")) return map_binary(im, n, false, err);
  if (!strcmp(op, "Concat")) return map_concat(im, n, err);
  if (!strcmp(op, "Split")) return map_split(im, n, err);
  if (!strcmp(op, "Transpose")) return map_transpose(im, n, err);
  if (!strcmp(op, "Reshape") || !strcmp(op, "Flatten") || !strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze"))
    return map_reshape(im, n, err);
  if (!strcmp(op, "Pad")) return map_pad(im, n, err);
  if (!strcmp(op, "Slice")) return map_slice(im, n, err);
  /* Dropout in inference, without its mask and without opset 12's training_mode (opaque.h reads it) */
  bool inference = n->n_output < 2 || !n->output[1][0];
  if (!strcmp(op, "Identity") || (!strcmp(op, "Dropout") && inference && !operand(im, n, 2)))
    return result(im, n, operand(im, n, 0)->ref, err);
  return RG_IMPORT_OPAQUE;
}

const char *rg_import_why_unmapped(const rg_importer *im, const Onnx__NodeProto *n, char *buf, size_t len) {
  const char *op = n->op_type ? n->op_type : "";
  bool unary = !strcmp(op, "Relu") || !strcmp(op, "Tanh") || !strcmp(op, "Sigmoid");
  bool split = !strcmp(op, "Split"), transpose = !strcmp(op, "Transpose");
  const rg_ival *x = n->n_input ? operand(im, n, 0) : NULL;
  if ((n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx")) || !x || !(unary || split || transpose)) return NULL;
  if (rg_opaque_legacy_why(n, im->opset, buf, len)) return NULL; /* an older form (opset 1's Split): kept as read */
  int64_t axis, sizes[64];
  int perm[RG_MAX_RANK];
  if (x->elem != RG_ELEM_FLOAT)
    return snprintf(buf, len, "%s of an int64 tensor ('%s'): graphopt reads %s of float tensors only", op, n->input[0],
                    op), buf;
  if (split) return split_sizes(im, n, &axis, sizes, buf, len);
  return transpose ? transpose_perm(n, shape_of(im, x->ref)->rank, perm, buf, len) : NULL;
}
