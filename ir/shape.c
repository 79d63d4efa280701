/* ir/shape.c: shape and seam inference. Each operator's rule is next to its case below. */
#include "shape.h"

#include <stdio.h>
#include <string.h>

/* An error status, with its message formatted only when someone will read it: the shape solver
 * and the enumerator try many applications that do not type (err NULL), and formatting shapes
 * for each was a large share of their time. */
#define FAIL(err, status, ...) ((err) ? rg_err_set((err), (status), __VA_ARGS__) : (status))

int64_t rg_shape_numel(const rg_shape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) {
    if (s->dim[i] > 0 && n > INT64_MAX / s->dim[i]) return INT64_MAX; /* saturates: never wraps */
    n *= s->dim[i];
  }
  return n;
}

/* RG_ERR_LIMIT when s holds more than RG_MAX_NUMEL (2^40) elements. name then suffix ("shape",
 * or "OP" then ": result") name it, pasted only on failure: every inference checks its results,
 * and the test stage infers millions. */
_Static_assert(RG_MAX_NUMEL == INT64_C(1) << 40, "the message below says 2^40");
static rg_status check_numel(const rg_shape *s, rg_err *err, const char *name, const char *suffix) {
  int64_t n = rg_shape_numel(s);
  if (n <= RG_MAX_NUMEL) return RG_OK;
  char buf[96];
  return FAIL(err, RG_ERR_LIMIT, "%s%s %s has more than 2^40 elements, the most a tensor may hold",
              name, suffix, rg_shape_format(s, buf, sizeof buf));
}

bool rg_shape_dims_eq(const rg_shape *a, const rg_shape *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dim[i] != b->dim[i]) return false;
  return true;
}

static bool seams_eq(const rg_shape *a, int da, const rg_shape *b, int db) {
  if (a->nseam[da] != b->nseam[db]) return false;
  for (int k = 0; k < a->nseam[da]; k++)
    if (a->seam[da][k] != b->seam[db][k]) return false;
  return true;
}

bool rg_shape_type_eq(const rg_shape *a, const rg_shape *b) {
  if (!rg_shape_dims_eq(a, b)) return false;
  for (int i = 0; i < a->rank; i++)
    if (!seams_eq(a, i, b, i)) return false;
  return true;
}

rg_shape rg_shape_make(int rank, const int32_t *dims) {
  rg_shape s;
  memset(&s, 0, sizeof s);
  s.rank = (uint8_t)rank;
  for (int i = 0; i < rank; i++) s.dim[i] = dims[i];
  return s;
}

int64_t rg_shape_flat(const rg_shape *s, const int32_t *pos) {
  int64_t f = 0;
  for (int i = 0; i < s->rank; i++) f = f * s->dim[i] + pos[i];
  return f;
}

void rg_shape_unflat(const rg_shape *s, int64_t flat, int32_t *pos) {
  for (int i = s->rank - 1; i >= 0; i--) {
    pos[i] = (int32_t)(flat % s->dim[i]);
    flat /= s->dim[i];
  }
}

static char *format(const rg_shape *s, char *buf, int n, bool with_seams) {
  if (s->rank == 0) {
    snprintf(buf, (size_t)n, "scalar");
    return buf;
  }
  int used = 0;
  buf[0] = 0;
  for (int i = 0; i < s->rank && used < n; i++) {
    used += snprintf(buf + used, (size_t)(n - used), "%s%d", i ? "x" : "", s->dim[i]);
    if (with_seams && s->nseam[i] && used < n) {
      for (int k = 0; k < s->nseam[i] && used < n; k++)
        used += snprintf(buf + used, (size_t)(n - used), "%s%d", k ? "," : "[", s->seam[i][k]);
      if (used < n) used += snprintf(buf + used, (size_t)(n - used), "]");
    }
  }
  return buf;
}

char *rg_shape_format(const rg_shape *s, char *buf, int n) { return format(s, buf, n, false); }
char *rg_shape_format_seams(const rg_shape *s, char *buf, int n) {
  return format(s, buf, n, true);
}

/* Whether seams s[0..n) (positions within (lo, hi)) are in an order concats make: the last is the
 * outermost, those below it come before those above it, and each side is such an order. */
static bool seam_tree(const int32_t *s, int n, int32_t lo, int32_t hi) {
  if (n == 0) return true;
  int32_t at = s[n - 1];
  if (at <= lo || at >= hi) return false;
  int below = 0;
  while (below < n - 1 && s[below] < at) below++;
  return seam_tree(s, below, lo, at) && seam_tree(s + below, n - 1 - below, at, hi);
}

/* One bracket group "[4]" or "[2,6,4]" at text[*i] ('['): positions 1.. without leading zeros,
 * separated by single commas, at most RG_MAX_SEAMS, into seams[0..*n); *i left on the ']'. */
static bool seam_group(const char *text, int len, int *i, int32_t *seams, int *n) {
  *n = 0;
  for (++*i; *i < len && text[*i] != ']'; ++*i) {
    int64_t v = 0;
    int start = *i;
    while (*i < len && text[*i] >= '0' && text[*i] <= '9' && v <= RG_MAX_DIM) v = v * 10 + (text[(*i)++] - '0');
    if (*i == start || text[start] == '0' || *n == RG_MAX_SEAMS || *i == len || (text[*i] != ',' && text[*i] != ']'))
      return false;
    seams[(*n)++] = (int32_t)v;
    if (text[*i] == ']') break;
    if (*i + 1 < len && text[*i + 1] == ']') return false; /* "[4,]" */
  }
  return *i < len && *n > 0;
}

rg_status rg_shape_parse_seams(const char *text, int len, rg_shape *out, rg_err *err) {
  char dims[256];
  int nd = 0, axis = 0;
  int32_t seams[RG_MAX_RANK][RG_MAX_SEAMS];
  int ns[RG_MAX_RANK] = {0};
  for (int i = 0; i < len; i++) {
    if (text[i] == 'x') axis++;
    if (text[i] != '[') {
      if (nd == (int)sizeof dims - 1) return FAIL(err, RG_ERR_PARSE, "shape '%.*s' is too long", len, text);
      dims[nd++] = text[i];
      continue;
    }
    /* one group per axis, right after its size, then 'x' or the end */
    bool after_size = i > 0 && text[i - 1] >= '0' && text[i - 1] <= '9';
    if (!after_size || axis >= RG_MAX_RANK || !seam_group(text, len, &i, seams[axis], &ns[axis]) ||
        (i + 1 < len && text[i + 1] != 'x'))
      return FAIL(err, RG_ERR_PARSE, "bad seams in shape '%.*s': want one group of positions after a "
                  "size, like 2x8[4] or 8[2,6,4] (at most %d, each from 1)", len, text, RG_MAX_SEAMS);
  }
  rg_status st = rg_shape_parse(dims, nd, out, err);
  for (int d = 0; !st && d < RG_MAX_RANK && d <= axis; d++) {
    if (ns[d] && !seam_tree(seams[d], ns[d], 0, out->dim[d]))
      return FAIL(err, RG_ERR_PARSE, "bad seams in shape '%.*s': on axis %d they must lie inside the "
                  "dimension, each once, in an order concats make (outermost last)", len, text, d);
    for (int k = 0; k < ns[d]; k++) out->seam[d][k] = seams[d][k];
    out->nseam[d] = (uint8_t)ns[d];
  }
  return st;
}

rg_status rg_shape_comma_error(const char *text, int len, rg_status code, rg_err *err) {
  char hint[128];
  int k = 0;
  for (; k < len && k < (int)sizeof hint - 1; k++) hint[k] = text[k] == ',' ? 'x' : text[k];
  hint[k] = 0;
  return FAIL(err, code, "bad shape '%.*s': dimensions are separated by 'x', not ',': did you mean %s?",
              len, text, hint);
}

rg_status rg_shape_comma_check(const char *arg, const char *tok, int tok_len, rg_err *err) {
  if (tok == arg || tok[-1] != ',' || tok_len == 0 || (int)strspn(tok, "0123456789") < tok_len) return RG_OK;
  const char *a = tok, *b = tok + tok_len;
  while (a > arg && a[-1] != ' ') a--;
  b += strcspn(b, " ");
  return rg_shape_comma_error(a, (int)(b - a), RG_ERR_ARG, err);
}

rg_status rg_shape_parse(const char *text, int len, rg_shape *out, rg_err *err) {
  memset(out, 0, sizeof *out);
  if (len == 6 && memcmp(text, "scalar", 6) == 0) return RG_OK;
  const char *comma = memchr(text, ',', (size_t)len);
  if (comma && len < 64 && comma + 1 < text + len) /* 4,4: a comma typed for an 'x' */
    return rg_shape_comma_error(text, len, RG_ERR_PARSE, err);
  int i = 0;
  while (i < len) {
    if (out->rank == RG_MAX_RANK)
      return FAIL(err, RG_ERR_LIMIT, "shape '%.*s' has more than %d dimensions", len, text,
                        RG_MAX_RANK);
    int64_t d = 0;
    int start = i;
    while (i < len && text[i] >= '0' && text[i] <= '9' && d <= RG_MAX_DIM) d = d * 10 + (text[i++] - '0');
    if (i == start || d < 1 || d > RG_MAX_DIM)
      return FAIL(err, RG_ERR_PARSE,
                        "bad shape '%.*s': expected dimensions 1..%d separated by 'x' (e.g. 2x4x5x5)",
                        len, text, RG_MAX_DIM);
    out->dim[out->rank++] = (int32_t)d;
    if (i < len) {
      if (text[i] != 'x' || i + 1 == len)
        return FAIL(err, RG_ERR_PARSE,
                          "bad shape '%.*s': expected dimensions separated by 'x' (e.g. 2x4x5x5)",
                          len, text);
      i++;
    }
  }
  if (out->rank == 0)
    return FAIL(err, RG_ERR_PARSE, "empty shape: give dimensions like 2x4, or 'scalar'");
  return check_numel(out, err, "shape", "");
}

bool rg_window_geometry(int32_t in, int32_t k, int32_t stride, int pad, int32_t *out,
                        int32_t *pad_before) {
  if (stride < 1 || k < 1) return false; /* no window: parsers refuse these, internal callers must not divide */
  if (pad == RG_PAD_SAME) {
    *out = (in + stride - 1) / stride;
    int32_t total = (*out - 1) * stride + k - in;
    if (total < 0) total = 0;
    *pad_before = total / 2;
    return k <= in + total;
  }
  if (in < k) return false;
  *out = (in - k) / stride + 1;
  *pad_before = 0;
  return true;
}

/* --- seam helpers --- */

static void clear_seams(rg_shape *s, int d) { s->nseam[d] = 0; }

static void copy_seams(rg_shape *dst, int dd, const rg_shape *src, int sd) {
  dst->nseam[dd] = src->nseam[sd];
  memcpy(dst->seam[dd], src->seam[sd], sizeof dst->seam[dd]);
}

/* Two operands meeting elementwise keep a dimension's seams only when both carry the same ones.
 * This is symmetric and associative, so commuting or reassociating operands cannot change how a
 * later split cuts. */
static void meet_seams(rg_shape *dst, int dd, const rg_shape *b, int bd) {
  if (!seams_eq(dst, dd, b, bd)) clear_seams(dst, dd);
}

static rg_status mismatch(rg_err *err, rg_op op, const char *fmt, const rg_shape *a,
                          const rg_shape *b) {
  if (!err) return RG_ERR_SHAPE;
  char sa[96], sb[96];
  rg_shape_format(a, sa, sizeof sa);
  if (b) rg_shape_format(b, sb, sizeof sb);
  char what[256];
  snprintf(what, sizeof what, fmt, sa, b ? sb : "");
  return FAIL(err, RG_ERR_SHAPE, "%s: %s", rg_op_get(op)->name, what);
}

static rg_status infer_window(rg_op op, const rg_shape *x, int32_t kh, int32_t kw, int32_t sh,
                              int32_t sw, int pad, rg_shape *o, rg_err *err) {
  if (x->rank != 4) return mismatch(err, op, "input %s is not 4-D (N, C, H, W)", x, NULL);
  int32_t oh, ow, ph, pw;
  if (!rg_window_geometry(x->dim[2], kh, sh, pad, &oh, &ph) ||
      !rg_window_geometry(x->dim[3], kw, sw, pad, &ow, &pw)) {
    char sx[96];
    return FAIL(err, RG_ERR_SHAPE, "%s: a %dx%d window does not fit input %s with %s padding",
                      rg_op_get(op)->name, kh, kw, rg_shape_format(x, sx, sizeof sx),
                      rg_pad_name(pad));
  }
  *o = *x;
  o->dim[2] = oh;
  o->dim[3] = ow;
  clear_seams(o, 2);
  clear_seams(o, 3);
  return RG_OK;
}

static rg_status infer_concat(const int32_t *params, int n_in, const rg_shape *const *in,
                              rg_shape *o, rg_err *err) {
  int axis = params[0];
  const rg_shape *a = in[0];
  if (axis >= a->rank)
    return mismatch(err, RG_OP_CONCAT, "axis is out of range for input %s%s", a, NULL);
  *o = *a;
  for (int i = 1; i < n_in; i++) {
    const rg_shape *b = in[i];
    bool ok = b->rank == a->rank;
    for (int d = 0; ok && d < a->rank; d++) ok = d == axis || a->dim[d] == b->dim[d];
    if (!ok) {
      char sa[96], sb[96];
      return FAIL(err, RG_ERR_SHAPE,
                        "concat: input %d (%s) does not match input 1 (%s) outside axis %d", i + 1,
                        rg_shape_format(b, sb, sizeof sb), rg_shape_format(a, sa, sizeof sa), axis);
    }
    for (int d = 0; d < a->rank; d++)
      if (d != axis) meet_seams(o, d, b, d);
    /* Along the axis: b's seams shifted past what came before, then the new outermost seam. */
    int need = o->nseam[axis] + b->nseam[axis] + 1;
    if (need > RG_MAX_SEAMS)
      return FAIL(err, RG_ERR_LIMIT, "concat: more than %d nested concatenations on axis %d",
                        RG_MAX_SEAMS, axis);
    int32_t offset = o->dim[axis];
    for (int k = 0; k < b->nseam[axis]; k++) o->seam[axis][o->nseam[axis]++] = offset + b->seam[axis][k];
    o->seam[axis][o->nseam[axis]++] = offset;
    int64_t sum = (int64_t)o->dim[axis] + b->dim[axis];
    if (sum > RG_MAX_DIM) return FAIL(err, RG_ERR_LIMIT, "concat: axis %d grows past %d", axis, RG_MAX_DIM);
    o->dim[axis] = (int32_t)sum;
  }
  return RG_OK;
}

/* split: cut at the outermost seam; seams below it stay with the left part, the ones above move
 * to the right part, shifted. */
static rg_status infer_split(const int32_t *params, const rg_shape *x, rg_shape *o, rg_err *err) {
  int axis = params[0];
  if (axis >= x->rank) return mismatch(err, RG_OP_SPLIT, "axis is out of range for input %s%s", x, NULL);
  if (x->nseam[axis] == 0) {
    char sx[96];
    return FAIL(err, RG_ERR_SHAPE,
                      "split: input %s was not produced by a concat on axis %d, so there is no "
                      "seam to split at",
                      rg_shape_format(x, sx, sizeof sx), axis);
  }
  int n = x->nseam[axis];
  int32_t mid = x->seam[axis][n - 1];
  if (mid <= 0 || mid >= x->dim[axis]) /* a seam outside its dimension: no concat made it */
    return mismatch(err, RG_OP_SPLIT, "input %s has a seam outside its dimension%s", x, NULL);
  o[0] = *x;
  o[1] = *x;
  o[0].dim[axis] = mid;
  o[1].dim[axis] = x->dim[axis] - mid;
  o[0].nseam[axis] = o[1].nseam[axis] = 0;
  for (int k = 0; k < n - 1; k++) {
    int32_t p = x->seam[axis][k];
    if (p < mid) o[0].seam[axis][o[0].nseam[axis]++] = p;
    else o[1].seam[axis][o[1].nseam[axis]++] = p - mid;
  }
  return RG_OK;
}

static rg_status infer_matmul(const rg_shape *a, const rg_shape *b, rg_shape *o, rg_err *err) {
  if (a->rank < 2 || a->rank != b->rank)
    return mismatch(err, RG_OP_MATMUL, "operands %s and %s must both have the same rank >= 2", a, b);
  int r = a->rank;
  for (int d = 0; d < r - 2; d++)
    if (a->dim[d] != b->dim[d])
      return mismatch(err, RG_OP_MATMUL, "batch dimensions of %s and %s differ", a, b);
  if (a->dim[r - 1] != b->dim[r - 2]) {
    char sa[96], sb[96];
    return FAIL(err, RG_ERR_SHAPE,
                      "matmul: inner dimensions differ: %s has %d columns, %s has %d rows",
                      rg_shape_format(a, sa, sizeof sa), a->dim[r - 1],
                      rg_shape_format(b, sb, sizeof sb), b->dim[r - 2]);
  }
  *o = *a;
  for (int d = 0; d < r - 2; d++) meet_seams(o, d, b, d);
  o->dim[r - 1] = b->dim[r - 1];
  copy_seams(o, r - 1, b, r - 1);
  return RG_OK;
}

static rg_status infer_conv(const int32_t *params, const rg_shape *x, const rg_shape *w, rg_shape *o,
                            rg_err *err) {
  if (x->rank != 4 || w->rank != 4)
    return mismatch(err, RG_OP_CONV2D, "input %s and weight %s must both be 4-D", x, w);
  int32_t c = x->dim[1], cin_g = w->dim[1], cout = w->dim[0], groups = params[6];
  if (c % groups != 0 || cout % groups != 0 || cin_g != c / groups) {
    char sx[96], sw[96];
    return FAIL(err, RG_ERR_SHAPE,
                      "conv2d: with %d group%s, input %s (%d channels) needs a weight with %d input "
                      "channels and output channels a multiple of %d, but the weight is %s",
                      groups, groups == 1 ? "" : "s", rg_shape_format(x, sx, sizeof sx), c,
                      c % groups ? -1 : c / groups, groups, rg_shape_format(w, sw, sizeof sw));
  }
  /* a dilated kernel covers (K-1)*d+1 cells; everything else is as for a dense one */
  int64_t ekh = (int64_t)(w->dim[2] - 1) * params[4] + 1, ekw = (int64_t)(w->dim[3] - 1) * params[5] + 1;
  if (ekh > RG_MAX_DIM || ekw > RG_MAX_DIM)
    return mismatch(err, RG_OP_CONV2D, "dilated kernel of weight %s is too large%s", w, NULL);
  rg_shape win;
  rg_status st = infer_window(RG_OP_CONV2D, x, (int32_t)ekh, (int32_t)ekw, params[0], params[1],
                              params[2], &win, err);
  if (st) return st;
  *o = win;
  o->dim[1] = cout;
  copy_seams(o, 1, w, 0);
  /* With one group, cutting the weight's rows cuts the output channels exactly, so its seams
   * carry over. With several, they carry over only when every one falls on a group boundary:
   * a cut inside a group would mix outputs of one input group (this keeps concat-of-convs
   * rules honest: they type-check only where they hold). */
  for (int k = 0; groups > 1 && k < o->nseam[1]; k++)
    if (o->seam[1][k] % (cout / groups) != 0) clear_seams(o, 1);
  return RG_OK;
}

static rg_status infer_transpose(const int32_t *params, const rg_shape *x, rg_shape *o, rg_err *err) {
  int perm[RG_MAX_RANK];
  int r = rg_perm_unpack(params[0], perm);
  if (r != x->rank) {
    char sx[96];
    return FAIL(err, RG_ERR_SHAPE, "transpose: permutation has %d entries but input %s has rank %d",
                      r, rg_shape_format(x, sx, sizeof sx), x->rank);
  }
  o->rank = x->rank;
  for (int i = 0; i < r; i++) {
    o->dim[i] = x->dim[perm[i]];
    copy_seams(o, i, x, perm[i]);
  }
  return RG_OK;
}

/* bias: x's shape; b is a vector as long as x's axis. On the axis the two meet as ewadd's
 * operands do (b's one axis against x's axis), so a split of the result cuts only where both
 * were cut alike. */
static rg_status infer_bias(const int32_t *params, const rg_shape *x, const rg_shape *b, rg_shape *o,
                            rg_err *err) {
  int axis = params[0];
  if (axis >= x->rank) return mismatch(err, RG_OP_BIAS, "axis is out of range for input %s%s", x, NULL);
  if (b->rank != 1 || b->dim[0] != x->dim[axis]) {
    char sx[96], sb[96];
    return FAIL(err, RG_ERR_SHAPE, "bias: the bias %s must be a vector of the %d elements of axis %d of input %s",
                rg_shape_format(b, sb, sizeof sb), x->dim[axis], axis, rg_shape_format(x, sx, sizeof sx));
  }
  *o = *x;
  if (!seams_eq(x, axis, b, 0)) clear_seams(o, axis);
  return RG_OK;
}

static rg_status infer_shape_param(rg_op op, const int32_t *slots, rg_shape *o, rg_err *err) {
  int rank = slots[0];
  if (rank < 0 || rank > RG_MAX_RANK)
    return FAIL(err, RG_ERR_SHAPE, "%s: shape parameter has rank %d", rg_op_get(op)->name, rank);
  *o = rg_shape_make(rank, slots + 1);
  for (int i = 0; i < rank; i++)
    if (o->dim[i] < 1 || o->dim[i] > RG_MAX_DIM)
      return FAIL(err, RG_ERR_SHAPE, "%s: dimension %d of the shape parameter is %d",
                        rg_op_get(op)->name, i, o->dim[i]);
  return RG_OK;
}

/* enlarge: the kernel grows in H and W (seams there dropped); O, I unchanged. */
static rg_status infer_enlarge(const int32_t *p, const rg_shape *x, rg_shape *o, rg_err *err) {
  if (x->rank != 4 || x->dim[2] > p[0] || x->dim[3] > p[1]) {
    char sx[96];
    return FAIL(err, RG_ERR_SHAPE, "enlarge: kernel %s must be 4-D and no larger than %dx%d",
                rg_shape_format(x, sx, sizeof sx), p[0], p[1]);
  }
  *o = *x;
  o->dim[2] = p[0];
  o->dim[3] = p[1];
  clear_seams(o, 2);
  clear_seams(o, 3);
  return RG_OK;
}

/* reshape: the same element count; seams dropped. */
static rg_status infer_reshape(const int32_t *p, const rg_shape *x, rg_shape *o, rg_err *err) {
  rg_status st = infer_shape_param(RG_OP_RESHAPE, p, o, err);
  if (st) return st;
  if (rg_shape_numel(o) != rg_shape_numel(x))
    return mismatch(err, RG_OP_RESHAPE, "cannot reshape %s (%s) to a different number of elements", x, o);
  return RG_OK;
}

/* pad: the axis grows by before + after; its seams are dropped. */
static rg_status infer_pad(const int32_t *p, const rg_shape *x, rg_shape *o, rg_err *err) {
  if (p[0] >= x->rank) return mismatch(err, RG_OP_PAD, "axis is out of range for input %s%s", x, NULL);
  int64_t d = (int64_t)x->dim[p[0]] + p[1] + p[2];
  if (d > RG_MAX_DIM) return FAIL(err, RG_ERR_LIMIT, "pad: axis %d grows past %d", p[0], RG_MAX_DIM);
  *o = *x;
  o->dim[p[0]] = (int32_t)d;
  clear_seams(o, p[0]);
  return RG_OK;
}

/* slice: the axis keeps begin .. end-1; its seams are dropped. */
static rg_status infer_slice(const int32_t *p, const rg_shape *x, rg_shape *o, rg_err *err) {
  if (p[0] >= x->rank) return mismatch(err, RG_OP_SLICE, "axis is out of range for input %s%s", x, NULL);
  if (p[1] >= p[2] || p[2] > x->dim[p[0]]) {
    char sx[96];
    return FAIL(err, RG_ERR_SHAPE, "slice: range %d..%d is not inside axis %d of input %s (need begin < end <= %d)",
                p[1], p[2], p[0], rg_shape_format(x, sx, sizeof sx), x->dim[p[0]]);
  }
  *o = *x;
  o->dim[p[0]] = p[2] - p[1];
  clear_seams(o, p[0]);
  return RG_OK;
}

static rg_status infer(rg_op op, const int32_t *p, int n_in, const rg_shape *const *in, rg_shape *out,
                       rg_err *err);

rg_status rg_shape_infer(rg_op op, const int32_t *p, int n_in, const rg_shape *const *in,
                         rg_shape *out, rg_err *err) {
  rg_status st = infer(op, p, n_in, in, out, err);
  for (int o = 0; !st && o < rg_op_get(op)->n_outputs; o++)
    st = check_numel(&out[o], err, rg_op_get(op)->name, ": result");
  return st;
}

static rg_status infer(rg_op op, const int32_t *p, int n_in, const rg_shape *const *in, rg_shape *out,
                       rg_err *err) {
  const rg_op_info *info = rg_op_get(op);
  if (n_in < rg_op_min_inputs(op) || n_in > rg_op_max_inputs(op))
    return FAIL(err, RG_ERR_SHAPE, "%s takes %d tensor inputs, got %d", info->name,
                      rg_op_min_inputs(op), n_in);
  rg_shape *o = out;
  memset(o, 0, sizeof *o * (size_t)info->n_outputs);
  switch (op) {
  case RG_OP_INPUT:
    return FAIL(err, RG_ERR_ARG, "input nodes take their shape from the variable binding");
  case RG_OP_EWADD:
  case RG_OP_EWMUL: /* same dims; seams meet */
    if (!rg_shape_dims_eq(in[0], in[1]))
      return mismatch(err, op, "operands %s and %s differ in shape", in[0], in[1]);
    *o = *in[0];
    for (int d = 0; d < o->rank; d++) meet_seams(o, d, in[1], d);
    return RG_OK;
  case RG_OP_SMUL: /* x's shape and seams; s must be a scalar */
    if (in[1]->rank != 0)
      return mismatch(err, op, "second operand %s must be a scalar (rank 0)%s", in[1], NULL);
    *o = *in[0];
    return RG_OK;
  case RG_OP_MATMUL: return infer_matmul(in[0], in[1], o, err);
  case RG_OP_CONV2D: return infer_conv(p, in[0], in[1], o, err);
  case RG_OP_RELU:
  case RG_OP_TANH:
  case RG_OP_SIGMOID: /* elementwise: unchanged */
    *o = *in[0];
    return RG_OK;
  case RG_OP_POOLAVG:
  case RG_OP_POOLMAX: /* N, C keep their seams; spatial seams are dropped */
    return infer_window(op, in[0], p[0], p[1], p[2], p[3], p[4], o, err);
  case RG_OP_TRANSPOSE: return infer_transpose(p, in[0], o, err);
  case RG_OP_ENLARGE: return infer_enlarge(p, in[0], o, err);
  case RG_OP_CONCAT: return infer_concat(p, n_in, in, o, err);
  case RG_OP_SPLIT: return infer_split(p, in[0], o, err);
  case RG_OP_RESHAPE: return infer_reshape(p, in[0], o, err);
  case RG_OP_PAD: return infer_pad(p, in[0], o, err);
  case RG_OP_SLICE: return infer_slice(p, in[0], o, err);
  case RG_OP_BIAS: return infer_bias(p, in[0], in[1], o, err);
  case RG_OP_IEWMUL: return infer_shape_param(op, p, o, err);
  case RG_OP_IMATMUL: {
    int32_t d[2] = {p[0], p[0]};
    *o = rg_shape_make(2, d);
    return RG_OK;
  }
  case RG_OP_ICONV:
  case RG_OP_CPOOL: { /* full (C, C, KH, KW) kernels, diagonal in the channels */
    int32_t d[4] = {p[0], p[0], p[1], p[2]};
    *o = rg_shape_make(4, d);
    return RG_OK;
  }
  case RG_OP_COUNT: break;
  }
  return FAIL(err, RG_ERR_ARG, "unknown operator %d", (int)op);
}
