/* optimizer/opaque/opaque.c: output types and float64 values of the ONNX operators graphopt keeps
 * opaque (opaque.h). Each operator is a row of one table: its name, its type rule and its
 * evaluation; the shared pieces (broadcasting, axes) come first. */
#include "opaque_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/proto/proto.h"

/* ---- shared pieces ---- */

rg_status rg_opaque_fail(const rg_opaque_call *c, rg_err *err, const char *what) {
  char label[160];
  rg_onnx_node_label(c->node, -1, label, sizeof label); /* import.c puts the node's index in */
  return rg_err_set(err, RG_ERR_SHAPE, "%s: %s", label, what);
}

/* An axis in [-rank, rank) as its index, or -1. */
static int norm_axis(int64_t a, int rank) {
  if (a < 0) a += rank;
  return a < 0 || a >= rank ? -1 : (int)a;
}

static rg_tinfo tinfo(rg_elem elem, const rg_shape *s) { return (rg_tinfo){elem, *s, true}; }

/* The one output: of operand 0's element type and shape s. */
static rg_status typed_shape(const rg_opaque_call *c, const rg_shape *s, rg_tinfo *out) {
  out[0] = tinfo(c->in[0].elem, s);
  return RG_OK;
}

/* The same with dims[0..r). */
static rg_status typed_like_in0(const rg_opaque_call *c, int r, const int32_t *dims, rg_tinfo *out) {
  rg_shape o = rg_shape_make(r, dims);
  return typed_shape(c, &o, out);
}

/* numpy broadcasting of a and b into *out; false when they do not broadcast. */
static bool broadcast(const rg_shape *a, const rg_shape *b, rg_shape *out) {
  int r = a->rank > b->rank ? a->rank : b->rank;
  int32_t dims[RG_MAX_RANK];
  for (int k = 0; k < r; k++) {
    int ia = k - (r - a->rank), ib = k - (r - b->rank);
    int32_t da = ia >= 0 ? a->dim[ia] : 1, db = ib >= 0 ? b->dim[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[k] = da > db ? da : db;
  }
  *out = rg_shape_make(r, dims);
  return true;
}

/* Strides of operand s read at positions of out (its rank at most out's): 0 on broadcast axes. */
static void bcast_strides(const rg_shape *s, const rg_shape *out, int64_t *st) {
  int64_t stride = 1;
  for (int k = out->rank - 1; k >= 0; k--) {
    int i = k - (out->rank - s->rank);
    if (i < 0 || s->dim[i] == 1) st[k] = 0;
    else st[k] = stride;
    if (i >= 0) stride *= s->dim[i];
  }
}

/* The operand's row-major index for each output position, walked in order. */
typedef struct {
  int64_t st[RG_MAX_RANK];
  int32_t pos[RG_MAX_RANK];
  int64_t at;
} walker;

static void walk_init(walker *w, const rg_shape *s, const rg_shape *out) {
  memset(w, 0, sizeof *w);
  bcast_strides(s, out, w->st);
}

static void walk_next(walker *w, const rg_shape *out) {
  for (int d = out->rank - 1; d >= 0; d--) {
    w->at += w->st[d];
    if (++w->pos[d] < out->dim[d]) return;
    w->at -= w->st[d] * out->dim[d];
    w->pos[d] = 0;
  }
}

/* ---- elementwise ---- */

/* One output of its first operand's type (Dropout's mask, a bool tensor, is not supported). */
static rg_status same_type(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  if (c->n_out > 1) return rg_opaque_fail(c, err, "more than one output: not supported");
  out[0] = c->in[0];
  return RG_OK;
}

/* Dropout in inference: its input. From opset 12 an input training_mode may ask for the random
 * mask instead; only a constant false is inference. */
static rg_status type_dropout(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  if (c->opset >= 12 && c->n_in > 2 && c->in[2].present && (!k[2] || k[2][0] != 0))
    return rg_opaque_fail(c, err, "a training_mode that is not a constant false: training (a random mask) is not "
                          "supported");
  return same_type(c, k, out, err);
}

/* The unary operators that are one function of libm's (Round: to even, as nearbyint rounds). */
static const struct {
  const char *op;
  double (*fn)(double);
} plain[] = {{"Sqrt", sqrt},  {"Erf", erf},   {"Exp", exp},     {"Log", log},     {"Abs", fabs},    {"Floor", floor},
             {"Ceil", ceil},  {"Sin", sin},   {"Cos", cos},     {"Tan", tan},     {"Asin", asin},   {"Acos", acos},
             {"Atan", atan},  {"Sinh", sinh}, {"Cosh", cosh},   {"Asinh", asinh}, {"Acosh", acosh}, {"Atanh", atanh},
             {"Round", nearbyint}};

/* The others, with their attributes' defaults. */
static double unary(const char *op, double x, const rg_opaque_call *c) {
  const Onnx__NodeProto *n = c->node;
  if (!strcmp(op, "Neg")) return -x;
  if (!strcmp(op, "Reciprocal")) return 1.0 / x;
  if (!strcmp(op, "Sign")) return x > 0 ? 1 : x < 0 ? -1 : 0;
  if (!strcmp(op, "Softplus")) return log1p(exp(x));
  if (!strcmp(op, "LeakyRelu")) return x >= 0 ? x : rg_onnx_attr_float(n, "alpha", 0.01f) * x;
  if (!strcmp(op, "ThresholdedRelu")) return x > rg_onnx_attr_float(n, "alpha", 1.0f) ? x : 0;
  if (!strcmp(op, "Elu")) return x >= 0 ? x : rg_onnx_attr_float(n, "alpha", 1.0f) * expm1(x);
  if (!strcmp(op, "Selu"))
    return rg_onnx_attr_float(n, "gamma", 1.05070102214813232421875f) *
           (x > 0 ? x : rg_onnx_attr_float(n, "alpha", 1.67326319217681884765625f) * expm1(x));
  if (!strcmp(op, "Celu")) {
    double a = rg_onnx_attr_float(n, "alpha", 1.0f);
    return fmax(0, x) + fmin(0, a * expm1(x / a));
  }
  if (!strcmp(op, "Shrink")) {
    double l = rg_onnx_attr_float(n, "lambd", 0.5f), b = rg_onnx_attr_float(n, "bias", 0.0f);
    return x < -l ? x + b : x > l ? x - b : 0;
  }
  if (!strcmp(op, "HardSwish")) return x * fmax(0, fmin(1, x / 6 + 0.5));
  if (!strcmp(op, "HardSigmoid")) {
    double v = rg_onnx_attr_float(n, "alpha", 0.2f) * x + rg_onnx_attr_float(n, "beta", 0.5f);
    return v < 0 ? 0 : v > 1 ? 1 : v;
  }
  return x; /* Identity, Dropout (inference) */
}

static rg_status eval_unary(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                            rg_err *err) {
  (void)err;
  int64_t n = rg_shape_numel(&t[0].shape);
  for (size_t k = 0; k < sizeof plain / sizeof *plain; k++)
    if (!strcmp(c->node->op_type, plain[k].op)) {
      for (int64_t i = 0; i < n; i++) out[0][i] = plain[k].fn(v[0][i]);
      return RG_OK;
    }
  for (int64_t i = 0; i < n; i++) out[0][i] = unary(c->node->op_type, v[0][i], c);
  return RG_OK;
}

static rg_status type_cast(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  int64_t to = rg_onnx_attr_int(c->node, "to", 0);
  if (to != RG_ELEM_FLOAT && to != RG_ELEM_INT64) return rg_opaque_fail(c, err, "casts to an element type other than float or int64");
  out[0] = tinfo((rg_elem)to, &c->in[0].shape);
  return RG_OK;
}

static rg_status eval_cast(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                           rg_err *err) {
  (void)c, (void)err;
  int64_t n = rg_shape_numel(&t[0].shape);
  for (int64_t i = 0; i < n; i++) out[0][i] = t[0].elem == RG_ELEM_INT64 ? trunc(v[0][i]) : (double)(float)v[0][i];
  return RG_OK;
}

/* Clip: bounds in the attributes min and max before opset 11, in inputs 1 and 2 from 11. */
static rg_status type_clip(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  if (c->opset < 11 && c->n_in > 1) return rg_opaque_fail(c, err, "bounds as inputs, which Clip takes from opset 11");
  if (c->opset >= 11 && (rg_onnx_attr(c->node, "min") || rg_onnx_attr(c->node, "max")))
    return rg_opaque_fail(c, err, "bounds as attributes, which Clip takes before opset 11 only");
  return same_type(c, k, out, err);
}

static rg_status eval_clip(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                           rg_err *err) {
  (void)err;
  double lo = rg_onnx_attr_float(c->node, "min", -INFINITY), hi = rg_onnx_attr_float(c->node, "max", INFINITY);
  if (c->opset >= 11) lo = c->n_in > 1 && v[1] ? v[1][0] : -INFINITY, hi = c->n_in > 2 && v[2] ? v[2][0] : INFINITY;
  int64_t n = rg_shape_numel(&t[0].shape);
  for (int64_t i = 0; i < n; i++) out[0][i] = v[0][i] < lo ? lo : v[0][i] > hi ? hi : v[0][i];
  return RG_OK;
}

/* Whether every operand is there: the operators that read all of theirs (variadic Sum, Max, Min,
 * Concat) have no optional one, and an omitted one would be read as values. */
static bool all_present(const rg_opaque_call *c) {
  for (int j = 0; j < c->n_in; j++)
    if (!c->in[j].present) return false;
  return true;
}

static rg_status type_binary(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  if (!all_present(c)) return rg_opaque_fail(c, err, "an omitted operand (none of its operands is optional)");
  rg_shape s = c->in[0].shape;
  for (int j = 1; j < c->n_in; j++)
    if (!broadcast(&s, &c->in[j].shape, &s)) return rg_opaque_fail(c, err, "operands that do not broadcast");
  return typed_shape(c, &s, out);
}

static double binary(const char *op, double a, double b, bool ints) {
  if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return a + b;
  if (!strcmp(op, "Sub")) return a - b;
  if (!strcmp(op, "Mul")) return a * b;
  if (!strcmp(op, "Div")) return ints ? trunc(a / b) : a / b;
  if (!strcmp(op, "Pow")) return b == 2 ? a * a : pow(a, b);
  if (!strcmp(op, "Max")) return a > b ? a : b;
  return a < b ? a : b; /* Min */
}

static rg_status eval_binary(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                             rg_err *err) {
  (void)err;
  const rg_shape *os = &t[0].shape;
  int64_t n = rg_shape_numel(os);
  walker w0;
  walk_init(&w0, &c->in[0].shape, os);
  for (int64_t i = 0; i < n; i++, walk_next(&w0, os)) out[0][i] = v[0][w0.at];
  for (int j = 1; j < c->n_in; j++) { /* variadic Sum, Max, Min fold left */
    walker w;
    walk_init(&w, &c->in[j].shape, os);
    for (int64_t i = 0; i < n; i++, walk_next(&w, os))
      out[0][i] = binary(c->node->op_type, out[0][i], v[j][w.at], t[0].elem == RG_ELEM_INT64);
  }
  return RG_OK;
}

/* ---- along an axis ---- */

/* Softmax, LogSoftmax: opset 13 on, along the axis (default -1); before, over the flattened
 * trailing axes from the axis (default 1) on. The block length and count it works over. */
static bool softmax_blocks(const rg_opaque_call *c, const rg_shape *s, int64_t *outer, int64_t *len, int64_t *inner) {
  int r = s->rank;
  int a = norm_axis(rg_onnx_attr_int(c->node, "axis", c->opset >= 13 ? -1 : 1), r);
  if (a < 0) return false;
  *outer = 1, *len = 1, *inner = 1;
  for (int k = 0; k < a; k++) *outer *= s->dim[k];
  if (c->opset >= 13) {
    *len = s->dim[a];
    for (int k = a + 1; k < r; k++) *inner *= s->dim[k];
  } else {
    for (int k = a; k < r; k++) *len *= s->dim[k];
  }
  return true;
}

static rg_status type_softmax(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  int64_t o, l, i;
  if (c->in[0].shape.rank == 0 || !softmax_blocks(c, &c->in[0].shape, &o, &l, &i))
    return rg_opaque_fail(c, err, "an axis outside its operand's rank");
  return same_type(c, k, out, err);
}

static rg_status eval_softmax(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                              rg_err *err) {
  (void)err;
  int64_t outer = 0, len = 0, inner = 0; /* typing checked the axis: softmax_blocks sets them */
  softmax_blocks(c, &t[0].shape, &outer, &len, &inner);
  bool log_ = !strcmp(c->node->op_type, "LogSoftmax");
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      const double *x = v[0] + o * len * inner + i;
      double *y = out[0] + o * len * inner + i, mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < len; k++) mx = x[k * inner] > mx ? x[k * inner] : mx;
      for (int64_t k = 0; k < len; k++) sum += exp(x[k * inner] - mx);
      for (int64_t k = 0; k < len; k++)
        y[k * inner] = log_ ? x[k * inner] - mx - log(sum) : exp(x[k * inner] - mx) / sum;
    }
  return RG_OK;
}

/* Whether a reduction takes its axes as input 1 (ReduceSum from opset 13, the others from 18),
 * else as an attribute. */
static bool reduce_axes_input(const rg_opaque_call *c) {
  return c->opset >= (strcmp(c->node->op_type, "ReduceSum") ? 18 : 13);
}

/* The axes a reduction works over, into a mask: all of them when none are given (unless
 * noop_with_empty_axes, of the input form). NULL, or why not. */
static const char *reduce_axes(const rg_opaque_call *c, const double *const *k, bool *mask, bool *noop) {
  int r = c->in[0].shape.rank, n;
  bool input = reduce_axes_input(c);
  int64_t ax[RG_MAX_RANK];
  memset(mask, 0, sizeof(bool) * RG_MAX_RANK);
  *noop = false;
  if (input && rg_onnx_attr(c->node, "axes")) return "axes as an attribute, which this opset takes as an input";
  if (!input && c->n_in > 1 && c->in[1].present) return "axes as an input, which this opset takes as an attribute";
  if (input) {
    n = c->n_in > 1 && c->in[1].present ? (int)rg_shape_numel(&c->in[1].shape) : 0;
    if (n && !k[1]) return "axes that are not constants";
    for (int i = 0; i < n && i < RG_MAX_RANK; i++) ax[i] = rg_to_int(k[1][i]);
  } else {
    const int64_t *a = NULL;
    n = rg_onnx_attr_ints(c->node, "axes", &a);
    for (int i = 0; i < n && i < RG_MAX_RANK; i++) ax[i] = a[i];
  }
  if (n > RG_MAX_RANK) return "more axes than its operand has";
  if (n <= 0) {
    *noop = input && rg_onnx_attr_int(c->node, "noop_with_empty_axes", 0) != 0;
    for (int a = 0; a < r; a++) mask[a] = !*noop;
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    int a = norm_axis(ax[i], r);
    if (a < 0) return "an axis outside its operand's rank";
    mask[a] = true;
  }
  return NULL;
}

static rg_status type_reduce(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  bool mask[RG_MAX_RANK], noop;
  const char *why = reduce_axes(c, k, mask, &noop);
  if (why) return rg_opaque_fail(c, err, why);
  bool keep = rg_onnx_attr_int(c->node, "keepdims", 1) != 0;
  const rg_shape *s = &c->in[0].shape;
  int32_t dims[RG_MAX_RANK];
  int r = 0;
  for (int a = 0; a < s->rank; a++)
    if (!mask[a]) dims[r++] = s->dim[a];
    else if (keep) dims[r++] = 1;
  return typed_like_in0(c, r, dims, out);
}

static rg_status eval_reduce(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                             rg_err *err) {
  (void)err;
  bool mask[RG_MAX_RANK], noop;
  reduce_axes(c, v, mask, &noop);
  const char *op = c->node->op_type;
  bool mean = !strcmp(op, "ReduceMean"), mx = !strcmp(op, "ReduceMax"), mn = !strcmp(op, "ReduceMin");
  const rg_shape *s = &c->in[0].shape;
  /* the output index of each input element: its position with the reduced axes at 0 */
  int64_t ostride[RG_MAX_RANK], stride = 1, count = 1;
  for (int a = s->rank - 1; a >= 0; a--) {
    ostride[a] = mask[a] ? 0 : stride;
    if (!mask[a]) stride *= s->dim[a];
    else count *= s->dim[a];
  }
  int64_t no = rg_shape_numel(&t[0].shape), ni = rg_shape_numel(s);
  for (int64_t i = 0; i < no; i++) out[0][i] = mx ? -INFINITY : mn ? INFINITY : 0;
  int32_t pos[RG_MAX_RANK] = {0};
  int64_t at = 0;
  for (int64_t i = 0; i < ni; i++) {
    double x = v[0][i], *y = &out[0][at];
    *y = mx ? (x > *y ? x : *y) : mn ? (x < *y ? x : *y) : *y + x;
    for (int d = s->rank - 1; d >= 0; d--) {
      at += ostride[d];
      if (++pos[d] < s->dim[d]) break;
      at -= ostride[d] * s->dim[d];
      pos[d] = 0;
    }
  }
  if (mean)
    for (int64_t i = 0; i < no; i++) out[0][i] /= (double)count;
  return RG_OK;
}

/* ---- indexing and shape plumbing ---- */

static rg_status type_gather(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  const rg_shape *d = &c->in[0].shape, *ix = &c->in[1].shape;
  int a = norm_axis(rg_onnx_attr_int(c->node, "axis", 0), d->rank);
  if (a < 0 || d->rank - 1 + ix->rank > RG_MAX_RANK) return rg_opaque_fail(c, err, "an axis outside the data's rank");
  int32_t dims[RG_MAX_RANK];
  int r = 0;
  for (int i = 0; i < a; i++) dims[r++] = d->dim[i];
  for (int i = 0; i < ix->rank; i++) dims[r++] = ix->dim[i];
  for (int i = a + 1; i < d->rank; i++) dims[r++] = d->dim[i];
  return typed_like_in0(c, r, dims, out);
}

static rg_status eval_gather(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                             rg_err *err) {
  (void)t;
  const rg_shape *d = &c->in[0].shape;
  int a = norm_axis(rg_onnx_attr_int(c->node, "axis", 0), d->rank);
  int64_t outer = 1, inner = 1, n_ix = rg_shape_numel(&c->in[1].shape);
  for (int i = 0; i < a; i++) outer *= d->dim[i];
  for (int i = a + 1; i < d->rank; i++) inner *= d->dim[i];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < n_ix; j++) {
      int64_t ix = rg_to_int(v[1][j]);
      if (ix < 0) ix += d->dim[a];
      if (ix < 0 || ix >= d->dim[a]) return rg_opaque_fail(c, err, "an index outside the data");
      memcpy(out[0] + (o * n_ix + j) * inner, v[0] + (o * d->dim[a] + ix) * inner, sizeof(double) * (size_t)inner);
    }
  return RG_OK;
}

static rg_status type_shape(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k, (void)err;
  int r = c->in[0].shape.rank;
  int lo = norm_axis(rg_onnx_attr_int(c->node, "start", 0), r + 1), hi = (int)rg_onnx_attr_int(c->node, "end", r);
  if (hi < 0) hi += r;
  if (lo < 0) lo = 0;
  if (hi > r) hi = r;
  int32_t n = hi > lo ? hi - lo : 0;
  rg_shape o = rg_shape_make(1, (int32_t[]){n ? n : 1});
  if (!n) return rg_opaque_fail(c, err, "an empty shape slice");
  out[0] = tinfo(RG_ELEM_INT64, &o);
  return RG_OK;
}

static rg_status eval_shape(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                            rg_err *err) {
  (void)v, (void)err;
  int r = c->in[0].shape.rank, lo = norm_axis(rg_onnx_attr_int(c->node, "start", 0), r + 1);
  if (lo < 0) lo = 0;
  for (int64_t i = 0; i < rg_shape_numel(&t[0].shape); i++) out[0][i] = c->in[0].shape.dim[lo + i];
  return RG_OK;
}

/* The axes of Unsqueeze and Squeeze: the attribute before opset 13, input 1 from 13. Their
 * count; -1 when they are not constants, -2 past RG_MAX_RANK, -3 in the other opset's form. */
static int ud_axes(const rg_opaque_call *c, const double *const *k, int64_t *axes) {
  const int64_t *a = NULL;
  int n = rg_onnx_attr_ints(c->node, "axes", &a);
  bool input = c->n_in > 1 && c->in[1].present;
  if (c->opset < 13 ? input : n >= 0) return -3;
  if (c->opset < 13) {
    for (int i = 0; i < n && i < RG_MAX_RANK; i++) axes[i] = a[i];
    return n > RG_MAX_RANK ? -2 : n < 0 ? 0 : n;
  }
  if (!input) return 0;
  if (!k[1]) return -1;
  n = (int)rg_shape_numel(&c->in[1].shape);
  for (int i = 0; i < n && i < RG_MAX_RANK; i++) axes[i] = rg_to_int(k[1][i]);
  return n > RG_MAX_RANK ? -2 : n;
}

/* Why ud_axes found no axes (n < 0). */
static const char *ud_why(int n) {
  return n == -3 ? "axes in the form of another opset (an attribute before opset 13, an input from 13)"
                 : "axes that are not constants, or more than 6";
}

static rg_status type_unsqueeze(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  int64_t axes[RG_MAX_RANK];
  int n = ud_axes(c, k, axes);
  const rg_shape *s = &c->in[0].shape;
  int r = s->rank + n;
  if (n < 0) return rg_opaque_fail(c, err, ud_why(n));
  if (r > RG_MAX_RANK) return rg_opaque_fail(c, err, "a rank past 6");
  bool at[RG_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    int a = norm_axis(axes[i], r);
    if (a < 0 || at[a]) return rg_opaque_fail(c, err, "an axis outside the result's rank, or given twice");
    at[a] = true;
  }
  int32_t dims[RG_MAX_RANK];
  for (int d = 0, j = 0; d < r; d++) dims[d] = at[d] ? 1 : s->dim[j++];
  return typed_like_in0(c, r, dims, out);
}

static rg_status type_squeeze(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  int64_t axes[RG_MAX_RANK];
  int n = ud_axes(c, k, axes);
  const rg_shape *s = &c->in[0].shape;
  if (n < 0) return rg_opaque_fail(c, err, ud_why(n));
  bool drop[RG_MAX_RANK] = {0};
  for (int i = 0; i < n; i++) {
    int a = norm_axis(axes[i], s->rank);
    if (a < 0 || s->dim[a] != 1) return rg_opaque_fail(c, err, "an axis outside its operand's rank, or of a size other than 1");
    drop[a] = true;
  }
  int32_t dims[RG_MAX_RANK];
  int r = 0;
  for (int d = 0; d < s->rank; d++)
    if (!(n ? drop[d] : s->dim[d] == 1)) dims[r++] = s->dim[d];
  return typed_like_in0(c, r, dims, out);
}

/* Data movement that keeps the row-major order: Unsqueeze, Squeeze, Reshape, Flatten, Expand
 * with nothing to broadcast. */
static rg_status eval_copy(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                           rg_err *err) {
  (void)c, (void)err;
  memcpy(out[0], v[0], sizeof(double) * (size_t)rg_shape_numel(&t[0].shape));
  return RG_OK;
}

/* Reshape with a constant target: 0 copies the operand's size (unless allowzero), -1 takes the
 * rest. */
static rg_status type_reshape(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  const int64_t *attr = NULL; /* before opset 5 the target is the attribute shape */
  int r = c->opset < 5 ? rg_onnx_attr_ints(c->node, "shape", &attr) : -1;
  if (c->opset < 5 && (r < 0 || c->n_in > 1))
    return rg_opaque_fail(c, err, "a target that is not the attribute shape, Reshape's form before opset 5");
  if (c->opset >= 5 && (c->n_in < 2 || !k[1])) return rg_opaque_fail(c, err, "a target shape that is not a constant");
  const rg_shape *s = &c->in[0].shape;
  if (!attr) r = c->in[1].shape.rank != 1 ? RG_MAX_RANK + 1 : (int)rg_shape_numel(&c->in[1].shape);
  if (r > RG_MAX_RANK) return rg_opaque_fail(c, err, "a target of rank past 6");
  int32_t dims[RG_MAX_RANK];
  int64_t known = 1;
  int rest = -1;
  for (int d = 0; d < r; d++) {
    int64_t want = attr ? attr[d] : rg_to_int(k[1][d]);
    if (want == 0 && !rg_onnx_attr_int(c->node, "allowzero", 0) && d < s->rank) want = s->dim[d];
    if (want == -1 && rest < 0) {
      rest = d;
      continue;
    }
    if (want < 1 || want > RG_MAX_DIM) return rg_opaque_fail(c, err, "a target size that is not 1 to 2^24");
    dims[d] = (int32_t)want;
    known *= want;
  }
  int64_t n = rg_shape_numel(s);
  if (rest >= 0) {
    if (known == 0 || n % known) return rg_opaque_fail(c, err, "a -1 that no size fills");
    dims[rest] = (int32_t)(n / known);
    known *= dims[rest];
  }
  if (known != n) return rg_opaque_fail(c, err, "a target of another element count");
  return typed_like_in0(c, r, dims, out);
}

static rg_status type_flatten(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  const rg_shape *s = &c->in[0].shape;
  int64_t a = rg_onnx_attr_int(c->node, "axis", 1); /* in [-rank, rank]: rank itself is allowed */
  if (a < 0) a += s->rank;
  if (a < 0 || a > s->rank) return rg_opaque_fail(c, err, "an axis outside its operand's rank");
  int64_t lo = 1, hi = 1;
  for (int d = 0; d < s->rank; d++) *(d < a ? &lo : &hi) *= s->dim[d];
  if (lo > RG_MAX_DIM || hi > RG_MAX_DIM) return rg_opaque_fail(c, err, "a result size past 2^24");
  rg_shape o = rg_shape_make(2, (int32_t[]){(int32_t)lo, (int32_t)hi});
  return typed_shape(c, &o, out);
}

static rg_status type_concat(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  if (!all_present(c)) return rg_opaque_fail(c, err, "an omitted operand (none of its operands is optional)");
  rg_shape s = c->in[0].shape;
  int a = norm_axis(rg_onnx_attr_int(c->node, "axis", 0), s.rank);
  if (a < 0) return rg_opaque_fail(c, err, "an axis outside its operands' rank");
  for (int j = 1; j < c->n_in; j++) {
    const rg_shape *t = &c->in[j].shape;
    if (t->rank != s.rank) return rg_opaque_fail(c, err, "operands of other ranks");
    for (int d = 0; d < s.rank; d++)
      if (d != a && t->dim[d] != s.dim[d]) return rg_opaque_fail(c, err, "operands of other sizes off its axis");
    s.dim[a] += t->dim[a];
  }
  if (s.dim[a] > RG_MAX_DIM) return rg_opaque_fail(c, err, "a result size past 2^24");
  return typed_shape(c, &s, out);
}

static rg_status eval_concat(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                             rg_err *err) {
  (void)err;
  const rg_shape *os = &t[0].shape;
  int a = norm_axis(rg_onnx_attr_int(c->node, "axis", 0), os->rank);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < a; d++) outer *= os->dim[d];
  for (int d = a + 1; d < os->rank; d++) inner *= os->dim[d];
  double *y = out[0];
  for (int64_t o = 0; o < outer; o++)
    for (int j = 0; j < c->n_in; j++) {
      int64_t len = c->in[j].shape.dim[a] * inner;
      memcpy(y, v[j] + o * len, sizeof(double) * (size_t)len);
      y += len;
    }
  return RG_OK;
}

/* Expand: the operand broadcast to (the broadcast of itself and) a constant shape. */
static rg_status type_expand(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  if (!k[1] || c->in[1].shape.rank != 1 || rg_shape_numel(&c->in[1].shape) > RG_MAX_RANK)
    return rg_opaque_fail(c, err, "a target shape that is not a constant");
  int r = (int)rg_shape_numel(&c->in[1].shape);
  int32_t dims[RG_MAX_RANK];
  for (int d = 0; d < r; d++) {
    int64_t want = rg_to_int(k[1][d]);
    if (want < 1 || want > RG_MAX_DIM) return rg_opaque_fail(c, err, "a target size that is not 1 to 2^24");
    dims[d] = (int32_t)want;
  }
  rg_shape want = rg_shape_make(r, dims), o;
  if (!broadcast(&c->in[0].shape, &want, &o)) return rg_opaque_fail(c, err, "a shape its operand does not broadcast to");
  return typed_shape(c, &o, out);
}

static rg_status eval_expand(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                             rg_err *err) {
  (void)err;
  const rg_shape *os = &t[0].shape;
  walker w;
  walk_init(&w, &c->in[0].shape, os);
  for (int64_t i = 0, n = rg_shape_numel(os); i < n; i++, walk_next(&w, os)) out[0][i] = v[0][w.at];
  return RG_OK;
}

static rg_status type_const_of_shape(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  if (!k[0] || c->in[0].shape.rank != 1) return rg_opaque_fail(c, err, "a shape that is not a constant");
  int r = (int)rg_shape_numel(&c->in[0].shape);
  int32_t dims[RG_MAX_RANK];
  if (r > RG_MAX_RANK) return rg_opaque_fail(c, err, "a rank past 6");
  for (int d = 0; d < r; d++) {
    int64_t want = rg_to_int(k[0][d]);
    if (want < 1 || want > RG_MAX_DIM) return rg_opaque_fail(c, err, "a size that is not 1 to 2^24");
    dims[d] = (int32_t)want;
  }
  const Onnx__AttributeProto *a = rg_onnx_attr(c->node, "value");
  rg_elem e = a && a->t && a->t->data_type == RG_ELEM_INT64 ? RG_ELEM_INT64 : RG_ELEM_FLOAT;
  rg_shape o = rg_shape_make(r, dims);
  out[0] = tinfo(e, &o);
  return RG_OK;
}

static rg_status eval_const_of_shape(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                                     rg_err *err) {
  (void)v;
  double x = 0;
  const Onnx__AttributeProto *a = rg_onnx_attr(c->node, "value");
  if (a && a->t) {
    rg_elem e;
    rg_shape s;
    void *d;
    rg_status st = rg_onnx_tensor(a->t, &e, &s, &d, err);
    if (st) return st;
    x = e == RG_ELEM_FLOAT ? ((float *)d)[0] : (double)((int64_t *)d)[0];
    free(d);
  }
  for (int64_t i = 0, n = rg_shape_numel(&t[0].shape); i < n; i++) out[0][i] = x;
  return RG_OK;
}

static rg_status type_range(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  if (!k[0] || !k[1] || !k[2]) return rg_opaque_fail(c, err, "bounds that are not constants");
  double n = ceil((k[1][0] - k[0][0]) / k[2][0]);
  if (!(n >= 1 && n <= RG_MAX_DIM)) return rg_opaque_fail(c, err, "a length that is not 1 to 2^24");
  rg_shape o = rg_shape_make(1, (int32_t[]){(int32_t)n});
  return typed_shape(c, &o, out);
}

static rg_status eval_range(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                            rg_err *err) {
  (void)c, (void)err;
  for (int64_t i = 0, n = rg_shape_numel(&t[0].shape); i < n; i++) out[0][i] = v[0][0] + (double)i * v[2][0];
  return RG_OK;
}

/* Slice with constant starts, ends, axes and steps (any step but 0). */
typedef struct {
  int64_t start[RG_MAX_RANK], step[RG_MAX_RANK];
} slice_plan;

/* Slice's argument j (1 starts, 2 ends, 3 axes, 4 steps) into v[0..n): the attribute before
 * opset 10 (there are no steps), a constant input from 10. False when it is none of n values; an
 * omitted argument (axes, steps) is its default. */
static bool slice_arg(const rg_opaque_call *c, const double *const *k, int j, int64_t n, int64_t *v) {
  static const char *const names[] = {NULL, "starts", "ends", "axes", "steps"};
  const int64_t *a;
  int cnt = c->opset < 10 && j < 4 ? rg_onnx_attr_ints(c->node, names[j], &a) : -1;
  bool given = c->opset < 10 ? cnt >= 0 : c->n_in > j && c->in[j].present;
  if (!given) {
    for (int64_t i = 0; i < n; i++) v[i] = j == 3 ? i : 1;
    return j >= 3;
  }
  if (c->opset >= 10 && (!k[j] || rg_shape_numel(&c->in[j].shape) != n)) return false;
  if (c->opset < 10 && cnt != n) return false;
  for (int64_t i = 0; i < n; i++) v[i] = c->opset < 10 ? a[i] : rg_to_int(k[j][i]);
  return true;
}

static bool plan_slice(const rg_opaque_call *c, const double *const *k, slice_plan *p, rg_shape *o) {
  const rg_shape *s = &c->in[0].shape;
  const int64_t *a;
  *o = *s;
  for (int d = 0; d < s->rank; d++) p->start[d] = 0, p->step[d] = 1;
  int64_t n = c->opset < 10 ? rg_onnx_attr_ints(c->node, "starts", &a)
              : c->n_in > 1 && c->in[1].present ? rg_shape_numel(&c->in[1].shape) : -1;
  int64_t starts[RG_MAX_RANK], ends[RG_MAX_RANK], axes[RG_MAX_RANK], steps[RG_MAX_RANK];
  bool seen[RG_MAX_RANK] = {0};
  if (n < 1 || n > s->rank || (c->opset < 10 && c->n_in > 1)) return false;
  for (int j = 1; j <= 4; j++)
    if (!slice_arg(c, k, j, n, j == 1 ? starts : j == 2 ? ends : j == 3 ? axes : steps)) return false;
  for (int64_t i = 0; i < n; i++) {
    int a = norm_axis(axes[i], s->rank);
    int64_t step = steps[i];
    if (a < 0 || seen[a] || step == 0) return false;
    seen[a] = true;
    int64_t dim = s->dim[a], b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      b = b < 0 ? 0 : b > dim ? dim : b;
      e = e < 0 ? 0 : e > dim ? dim : e;
    } else {
      b = b < 0 ? -1 : b > dim - 1 ? dim - 1 : b;
      e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
    }
    int64_t len = step > 0 ? (e - b + step - 1) / step : (b - e - step - 1) / -step;
    if (len < 1) return false;
    p->start[a] = b, p->step[a] = step, o->dim[a] = (int32_t)len;
  }
  for (int d = 0; d < o->rank; d++) o->nseam[d] = 0;
  return true;
}

static rg_status type_slice(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  slice_plan p;
  rg_shape o;
  if (!plan_slice(c, k, &p, &o))
    return rg_opaque_fail(c, err, "bounds that are not constants (attributes before opset 10, inputs from 10) of one "
                          "value per axis, or an empty result");
  return typed_shape(c, &o, out);
}

static rg_status eval_slice(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                            rg_err *err) {
  (void)err, (void)t;
  slice_plan p;
  rg_shape o;
  plan_slice(c, v, &p, &o);
  const rg_shape *s = &c->in[0].shape;
  int32_t pos[RG_MAX_RANK] = {0}, ip[RG_MAX_RANK];
  for (int64_t i = 0, n = rg_shape_numel(&o); i < n; i++) {
    for (int d = 0; d < o.rank; d++) ip[d] = (int32_t)(p.start[d] + pos[d] * p.step[d]);
    out[0][i] = v[0][rg_shape_flat(s, ip)];
    for (int d = o.rank - 1; d >= 0 && ++pos[d] == o.dim[d]; d--) pos[d] = 0;
  }
  return RG_OK;
}

/* ---- normalizations and products kept opaque ---- */

/* BatchNormalization in inference (x, scale, B, mean, var): per channel (axis 1); before opset
 * 9, spatial = 0 gives the statistics per activation instead (operands shaped as x without its
 * batch axis). */
static bool per_activation(const rg_opaque_call *c) {
  return c->opset < 9 && !rg_onnx_attr_int(c->node, "spatial", 1);
}

static rg_status type_batchnorm(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  const rg_shape *x = &c->in[0].shape;
  if (rg_onnx_attr_int(c->node, "training_mode", 0) || c->n_out > 1)
    return rg_opaque_fail(c, err, "training mode (running statistics as outputs): not supported");
  if (c->n_in < 5 || x->rank < 2) return rg_opaque_fail(c, err, "fewer than 5 operands, or an input of rank below 2");
  bool each = per_activation(c);
  rg_shape want = rg_shape_make(each ? x->rank - 1 : 1, &x->dim[1]);
  for (int j = 1; j < 5; j++)
    if (!rg_shape_dims_eq(&c->in[j].shape, &want))
      return rg_opaque_fail(c, err, each ? "a scale, bias, mean or variance that is not one value per activation "
                                           "(spatial = 0)"
                                         : "a scale, bias, mean or variance that is not one value per channel");
  out[0] = c->in[0];
  (void)k;
  return RG_OK;
}

static rg_status eval_batchnorm(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                                rg_err *err) {
  (void)err;
  const rg_shape *x = &t[0].shape;
  double eps = rg_onnx_attr_float(c->node, "epsilon", 1e-5f);
  int64_t ch = x->dim[1], inner = 1, outer = x->dim[0], each = per_activation(c);
  for (int d = 2; d < x->rank; d++) inner *= x->dim[d];
  for (int64_t o = 0; o < outer; o++)
    for (int64_t k = 0; k < ch; k++)
      for (int64_t i = 0; i < inner; i++) {
        int64_t at = (o * ch + k) * inner + i, p = each ? k * inner + i : k;
        double a = v[1][p] / sqrt(v[4][p] + eps), b = v[2][p] - v[3][p] * a;
        out[0][at] = v[0][at] * a + b;
      }
  return RG_OK;
}

/* LayerNormalization (opset 17): over the axes from `axis` on, then scale and bias; its optional
 * outputs Mean and InvStdDev keep the leading axes and have size 1 on the others. */
static rg_status type_layernorm(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  const rg_shape *x = &c->in[0].shape;
  int a = norm_axis(rg_onnx_attr_int(c->node, "axis", -1), x->rank);
  if (a < 0 || c->n_out > 3) return rg_opaque_fail(c, err, "an axis outside its operand's rank");
  for (int j = 1; j < c->n_in && j < 3; j++) { /* scale and bias broadcast to x, not x to them */
    rg_shape b;
    if (c->in[j].present && (!broadcast(x, &c->in[j].shape, &b) || !rg_shape_dims_eq(&b, x)))
      return rg_opaque_fail(c, err, "a scale or bias that does not broadcast to the input");
  }
  rg_shape stat = *x;
  for (int d = a; d < x->rank; d++) stat.dim[d] = 1, stat.nseam[d] = 0;
  out[0] = c->in[0];
  for (int j = 1; j < c->n_out; j++) out[j] = tinfo(RG_ELEM_FLOAT, &stat);
  return RG_OK;
}

static rg_status eval_layernorm(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                                rg_err *err) {
  (void)err;
  const rg_shape *x = &t[0].shape;
  int a = norm_axis(rg_onnx_attr_int(c->node, "axis", -1), x->rank);
  double eps = rg_onnx_attr_float(c->node, "epsilon", 1e-5f);
  int64_t outer = 1, len = 1;
  for (int d = 0; d < x->rank; d++) *(d < a ? &outer : &len) *= x->dim[d];
  walker ws, wb;
  for (int64_t o = 0; o < outer; o++) {
    const double *xi = v[0] + o * len;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < len; i++) mean += xi[i];
    mean /= (double)len;
    for (int64_t i = 0; i < len; i++) var += (xi[i] - mean) * (xi[i] - mean);
    var /= (double)len;
    double inv = 1 / sqrt(var + eps);
    for (int64_t i = 0; i < len; i++) out[0][o * len + i] = (xi[i] - mean) * inv;
    if (c->n_out > 1 && out[1]) out[1][o] = mean;
    if (c->n_out > 2 && out[2]) out[2][o] = inv;
  }
  /* scale and bias broadcast against the whole result */
  walk_init(&ws, &c->in[1].shape, x);
  if (c->n_in > 2 && v[2]) walk_init(&wb, &c->in[2].shape, x);
  for (int64_t i = 0, n = rg_shape_numel(x); i < n; i++, walk_next(&ws, x)) {
    out[0][i] = out[0][i] * v[1][ws.at] + (c->n_in > 2 && v[2] ? v[2][wb.at] : 0);
    if (c->n_in > 2 && v[2]) walk_next(&wb, x);
  }
  return RG_OK;
}

/* MatMul with numpy broadcasting (what the rule vocabulary's matmul does not do: operands of
 * other ranks or batch sizes, 1-D operands). */
static rg_status type_matmul(const rg_opaque_call *c, const double *const *k, rg_tinfo *out, rg_err *err) {
  (void)k;
  rg_shape a = c->in[0].shape, b = c->in[1].shape;
  if (a.rank < 2 || b.rank < 2) return rg_opaque_fail(c, err, "a 1-D operand: not supported");
  if (a.dim[a.rank - 1] != b.dim[b.rank - 2]) return rg_opaque_fail(c, err, "inner sizes that differ");
  rg_shape ba = rg_shape_make(a.rank - 2, a.dim), bb = rg_shape_make(b.rank - 2, b.dim), o;
  if (!broadcast(&ba, &bb, &o) || o.rank + 2 > RG_MAX_RANK) return rg_opaque_fail(c, err, "batch sizes that do not broadcast");
  int32_t dims[RG_MAX_RANK];
  memcpy(dims, o.dim, sizeof(int32_t) * (size_t)o.rank);
  dims[o.rank] = a.dim[a.rank - 2], dims[o.rank + 1] = b.dim[b.rank - 1];
  o = rg_shape_make(o.rank + 2, dims);
  return typed_shape(c, &o, out);
}

static rg_status eval_matmul(const rg_opaque_call *c, const double *const *v, const rg_tinfo *t, double **out,
                             rg_err *err) {
  (void)err;
  const rg_shape *a = &c->in[0].shape, *b = &c->in[1].shape, *o = &t[0].shape;
  int64_t m = a->dim[a->rank - 2], kk = a->dim[a->rank - 1], n = b->dim[b->rank - 1];
  rg_shape ob = rg_shape_make(o->rank - 2, o->dim), ab = rg_shape_make(a->rank - 2, a->dim),
           bbs = rg_shape_make(b->rank - 2, b->dim);
  walker wa, wb;
  walk_init(&wa, &ab, &ob);
  walk_init(&wb, &bbs, &ob);
  for (int64_t batch = 0, nb = rg_shape_numel(&ob); batch < nb; batch++, walk_next(&wa, &ob), walk_next(&wb, &ob)) {
    const double *pa = v[0] + wa.at * m * kk, *pb = v[1] + wb.at * kk * n;
    double *po = out[0] + batch * m * n;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        double s = 0;
        for (int64_t q = 0; q < kk; q++) s += pa[i * kk + q] * pb[q * n + j];
        po[i * n + j] = s;
      }
  }
  return RG_OK;
}

/* ---- the table ---- */

/* An operator of one operand typed as it, evaluated elementwise (eval_unary). */
#define UNARY(op) {op, 1, same_type, eval_unary}

static const rg_opaque_row ops[] = {
    UNARY("Identity"), {"Dropout", 1, type_dropout, eval_unary}, UNARY("Sqrt"), UNARY("Erf"), UNARY("Exp"),
    UNARY("Log"), UNARY("Neg"), UNARY("Abs"), UNARY("Reciprocal"), UNARY("Floor"), UNARY("Ceil"), UNARY("Softplus"),
    UNARY("LeakyRelu"), UNARY("HardSigmoid"), UNARY("Sin"), UNARY("Cos"), UNARY("Tan"), UNARY("Asin"), UNARY("Acos"),
    UNARY("Atan"), UNARY("Sinh"), UNARY("Cosh"), UNARY("Asinh"), UNARY("Acosh"), UNARY("Atanh"), UNARY("Round"),
    UNARY("Sign"), UNARY("ThresholdedRelu"), UNARY("Elu"), UNARY("Selu"), UNARY("Celu"), UNARY("Shrink"),
    UNARY("HardSwish"),
    {"Clip", 1, type_clip, eval_clip},        {"Cast", 1, type_cast, eval_cast},
    {"Add", 2, type_binary, eval_binary},     {"Sub", 2, type_binary, eval_binary},
    {"Mul", 2, type_binary, eval_binary},     {"Div", 2, type_binary, eval_binary},
    {"Pow", 2, type_binary, eval_binary},     {"Max", 1, type_binary, eval_binary},
    {"Min", 1, type_binary, eval_binary},     {"Sum", 1, type_binary, eval_binary},
    {"Softmax", 1, type_softmax, eval_softmax}, {"LogSoftmax", 1, type_softmax, eval_softmax},
    {"ReduceMean", 1, type_reduce, eval_reduce}, {"ReduceSum", 1, type_reduce, eval_reduce},
    {"ReduceMax", 1, type_reduce, eval_reduce},  {"ReduceMin", 1, type_reduce, eval_reduce},
    {"Gather", 2, type_gather, eval_gather},  {"Shape", 1, type_shape, eval_shape},
    {"Unsqueeze", 1, type_unsqueeze, eval_copy}, {"Squeeze", 1, type_squeeze, eval_copy},
    {"Reshape", 1, type_reshape, eval_copy},  {"Flatten", 1, type_flatten, eval_copy},
    {"Concat", 1, type_concat, eval_concat},  {"Expand", 2, type_expand, eval_expand},
    {"ConstantOfShape", 1, type_const_of_shape, eval_const_of_shape},
    {"Range", 3, type_range, eval_range},     {"Slice", 1, type_slice, eval_slice},
    {"BatchNormalization", 5, type_batchnorm, eval_batchnorm},
    {"LayerNormalization", 2, type_layernorm, eval_layernorm},
    {"MatMul", 2, type_matmul, eval_matmul},
};

/* The row of op_type in either table, or NULL. */
static const rg_opaque_row *row_of(const char *op_type) {
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (!strcmp(op_type, ops[i].op)) return &ops[i];
  for (int i = 0; i < rg_opaque_nn_count; i++)
    if (!strcmp(op_type, rg_opaque_nn_rows[i].op)) return &rg_opaque_nn_rows[i];
  return NULL;
}

static const rg_opaque_row *find(const Onnx__NodeProto *n) {
  if (n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx")) return NULL;
  return n->op_type ? row_of(n->op_type) : NULL;
}

bool rg_opaque_known(const char *op_type) { return row_of(op_type) != NULL; }

/* The first opset of the operators here that ONNX defined after opset 7, else 1 (legacy.c has
 * those of 7): a node of one at an earlier opset names no operator there. (Upsample's last, 9,
 * and Resize's first, 10, are resize_attrs's.) */
static int64_t first_opset(const char *op_type) {
  static const struct {
    const char *op;
    int64_t since;
  } later[] = {{"Expand", 8},           {"Erf", 9},       {"ConstantOfShape", 9}, {"Sinh", 9},  {"Cosh", 9},
               {"Asinh", 9},            {"Acosh", 9},     {"Atanh", 9},           {"Sign", 9},  {"Shrink", 9},
               {"ThresholdedRelu", 10}, {"Range", 11},    {"Round", 11},          {"Celu", 12}, {"HardSwish", 14},
               {"LayerNormalization", 17}};
  for (size_t i = 0; i < sizeof later / sizeof *later; i++)
    if (!strcmp(op_type, later[i].op)) return later[i].since;
  return 1;
}

rg_status rg_opaque_infer(const rg_opaque_call *c, const double *const *in_const, rg_tinfo *out, rg_err *err) {
  const rg_opaque_row *r = find(c->node);
  char legacy[200];
  if (r && rg_opaque_legacy_why(c->node, c->opset, legacy, sizeof legacy)) return rg_opaque_fail(c, err, legacy);
  if (!r) return rg_opaque_fail(c, err, "an operator whose output shape graphopt does not know (give its outputs' shapes in "
                              "the model's value_info)");
  if (c->opset < first_opset(r->op)) {
    char what[120];
    snprintf(what, sizeof what, "an operator ONNX defines from opset %lld on, not at the model's opset %lld",
             (long long)first_opset(r->op), (long long)c->opset);
    return rg_opaque_fail(c, err, what);
  }
  if (c->n_in < r->min_in) return rg_opaque_fail(c, err, "too few operands");
  for (int k = 0; k < r->min_in; k++)
    if (!c->in[k].present) return rg_opaque_fail(c, err, "an omitted operand it needs");
  for (int j = 0; j < c->n_out; j++) out[j] = (rg_tinfo){0};
  rg_status st = r->type(c, in_const, out, err);
  for (int j = 0; !st && j < c->n_out; j++)
    if (rg_shape_numel(&out[j].shape) > RG_MAX_NUMEL) st = rg_opaque_fail(c, err, "a result of more than 2^40 elements");
  return st;
}

rg_status rg_opaque_eval(const rg_opaque_call *c, const double *const *vals, const rg_tinfo *out_types, double **out,
                         rg_err *err) {
  const rg_opaque_row *r = find(c->node);
  if (!r) return rg_opaque_fail(c, err, "an operator graphopt cannot evaluate");
  return r->eval(c, vals, out_types, out, err);
}
