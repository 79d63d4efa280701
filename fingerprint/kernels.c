/* fingerprint/kernels.c: direct-access Z_p and float64 kernels (see kernels.h for how they are
 * checked). Arithmetic kernels take the domain and follow the interpreter's summation order, so
 * float64 results are the interpreter's to the last bit; data movement is domain-blind. */
#include "kernels.h"

#include <math.h>
#include <string.h>

static inline uint64_t act(const rg_eval_ctx *ctx, int a, uint64_t x) {
  return a == RG_ACT_NONE ? x : rg_zp_keyed(ctx->act_key[a], x);
}

/* Real activations, as the interpreter's float64 semantics define them. */
static inline double act_f64(int a, double x) {
  switch (a) {
  case RG_ACT_RELU: return x > 0 ? x : 0;
  case RG_ACT_TANH: return tanh(x);
  case RG_ACT_SIGMOID: return 1 / (1 + exp(-x));
  default: return x;
  }
}

/* Sums of products in Z_p are reduced lazily: products (< 2^122) add up in 128 bits, folded
 * (2^61 = 1 mod p) every 32 terms so the sum stays below 2^128; the residue is exact. */
typedef unsigned __int128 zp_acc;
static inline zp_acc fold(zp_acc a) { return (a & RG_ZP_P) + (a >> 61); }
static inline uint64_t zp_acc_done(zp_acc a) { return rg_zp_reduce((uint64_t)fold(fold(a))); }

static void unary_act(rg_domain dom, int a, const rg_eval_ctx *ctx, const rg_value *x, int64_t n,
                      rg_value *o) {
  if (dom == RG_DOM_F64)
    for (int64_t i = 0; i < n; i++) o[i].f = act_f64(a, x[i].f);
  else
    for (int64_t i = 0; i < n; i++) o[i].z = rg_zp_keyed(ctx->act_key[a], x[i].z);
}

static void matmul(rg_domain dom, const rg_shape *as, const rg_shape *bs, const rg_value *a,
                   const rg_value *b, int a_act, const rg_eval_ctx *ctx, rg_value *o) {
  int r = as->rank;
  int64_t m = as->dim[r - 2], K = as->dim[r - 1], n = bs->dim[r - 1], batch = 1;
  for (int d = 0; d < r - 2; d++) batch *= as->dim[d];
  for (int64_t t = 0; t < batch; t++) {
    const rg_value *A = a + t * m * K, *B = b + t * K * n;
    rg_value *O = o + t * m * n;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        if (dom == RG_DOM_F64) {
          double acc = 0.0;
          for (int64_t k = 0; k < K; k++) acc = acc + A[i * K + k].f * B[k * n + j].f;
          O[i * n + j].f = act_f64(a_act, acc);
          continue;
        }
        zp_acc acc = 0;
        for (int64_t k = 0; k < K; k++) {
          acc += (zp_acc)A[i * K + k].z * B[k * n + j].z;
          if ((k & 31) == 31) acc = fold(acc);
        }
        O[i * n + j].z = act(ctx, a_act, zp_acc_done(acc));
      }
  }
}

/* Taps k in [*k0, *k1) of a window starting at base (dilation d, k < K) that fall inside
 * [0, size). */
static void taps(int32_t base, int32_t d, int32_t size, int32_t K, int32_t *k0, int32_t *k1) {
  *k0 = base < 0 ? (-base + d - 1) / d : 0;
  *k1 = size - 1 - base < 0 ? 0 : (size - 1 - base) / d + 1;
  if (*k1 > K) *k1 = K;
  if (*k0 > *k1) *k0 = *k1;
}

static void conv(rg_domain dom, const rg_shape *xs, const rg_shape *ws, const rg_shape *os, const int32_t *p,
                 const rg_value *x, const rg_value *w, const rg_eval_ctx *ctx, rg_value *o) {
  int32_t N = xs->dim[0], C = xs->dim[1], H = xs->dim[2], W = xs->dim[3];
  int32_t O = ws->dim[0], I = ws->dim[1], KH = ws->dim[2], KW = ws->dim[3];
  int32_t OH = os->dim[2], OW = os->dim[3], oh, ow, ph, pw, dh = p[4], dw = p[5];
  rg_window_geometry(H, (KH - 1) * dh + 1, p[0], p[2], &oh, &ph);
  rg_window_geometry(W, (KW - 1) * dw + 1, p[1], p[2], &ow, &pw);
  int32_t per_group = O / p[6];
  rg_value *dst = o;
  for (int32_t n = 0; n < N; n++)
    for (int32_t oc = 0; oc < O; oc++) {
      int32_t c0 = (oc / per_group) * I;
      for (int32_t y = 0; y < OH; y++)
        for (int32_t xx = 0; xx < OW; xx++) {
          double accf = 0.0;
          zp_acc acc = 0;
          /* the taps inside the input, in the interpreter's order (channel, row, column) */
          int32_t a0, a1, b0, b1;
          taps(y * p[0] - ph, dh, H, KH, &a0, &a1);
          taps(xx * p[1] - pw, dw, W, KW, &b0, &b1);
          for (int32_t i = 0; i < I; i++)
            for (int32_t a = a0; a < a1; a++) {
              int32_t ih = y * p[0] - ph + a * dh;
              const rg_value *xr = x + (((int64_t)n * C + c0 + i) * H + ih) * W;
              int32_t iw0 = xx * p[1] - pw; /* column of tap 0, maybe outside */
              const rg_value *wr = w + (((int64_t)oc * I + i) * KH + a) * KW;
              if (dom == RG_DOM_F64) {
                for (int32_t b = b0; b < b1; b++) accf = accf + xr[iw0 + b * dw].f * wr[b].f;
                continue;
              }
              for (int32_t b = b0; b < b1;) { /* fold at least every 32 products */
                for (int32_t e = b1 - b > 32 ? b + 32 : b1; b < e; b++)
                  acc += (zp_acc)xr[iw0 + b * dw].z * wr[b].z;
                acc = fold(acc);
              }
            }
          if (dom == RG_DOM_F64) (dst++)->f = act_f64(p[3], accf);
          else (dst++)->z = act(ctx, p[3], zp_acc_done(acc));
        }
    }
}

/* Average pooling (both domains; padded cells count in the divisor, as in the interpreter) and
 * max pooling (float64 only: in Z_p it is the interpreter's keyed hash of the window). */
static void pool(rg_domain dom, bool is_max, const rg_shape *xs, const rg_shape *os, const int32_t *p,
                 const rg_value *x, const rg_eval_ctx *ctx, rg_value *o) {
  int32_t kh = p[0], kw = p[1], sh = p[2], sw = p[3], oh, ow, ph, pw;
  int32_t H = xs->dim[2], W = xs->dim[3];
  rg_window_geometry(H, kh, sh, p[4], &oh, &ph);
  rg_window_geometry(W, kw, sw, p[4], &ow, &pw);
  bool f = dom == RG_DOM_F64;
  uint64_t scale_z = f || is_max ? 0 : rg_zp_inv((uint64_t)kh * (uint64_t)kw);
  double scale_f = 1.0 / (double)(kh * kw);
  int64_t planes = (int64_t)xs->dim[0] * xs->dim[1];
  rg_value *dst = o;
  for (int64_t pl = 0; pl < planes; pl++)
    for (int32_t y = 0; y < os->dim[2]; y++)
      for (int32_t xx = 0; xx < os->dim[3]; xx++) {
        double accf = is_max ? -INFINITY : 0.0;
        uint64_t accz = 0;
        for (int32_t i = 0; i < kh; i++) {
          int32_t ih = y * sh - ph + i;
          if (ih < 0 || ih >= H) continue;
          const rg_value *row = x + (pl * H + ih) * W;
          for (int32_t j = 0; j < kw; j++) {
            int32_t iw = xx * sw - pw + j;
            if (iw < 0 || iw >= W) continue;
            if (!f) accz = rg_zp_add(accz, row[iw].z);
            else if (!is_max) accf = accf + row[iw].f;
            else accf = row[iw].f > accf ? row[iw].f : accf;
          }
        }
        if (f) (dst++)->f = act_f64(p[5], is_max ? accf : accf * scale_f);
        else (dst++)->z = act(ctx, p[5], rg_zp_mul(accz, scale_z));
      }
}

static void transpose(const rg_shape *xs, const rg_shape *os, int32_t packed, const rg_value *x,
                      rg_value *o) {
  int perm[RG_MAX_RANK];
  int r = rg_perm_unpack(packed, perm);
  int64_t in_stride[RG_MAX_RANK], st[RG_MAX_RANK];
  int64_t s = 1;
  for (int d = r - 1; d >= 0; d--) in_stride[d] = s, s *= xs->dim[d];
  for (int i = 0; i < r; i++) st[i] = in_stride[perm[i]]; /* out dim i walks input dim perm[i] */
  int32_t pos[RG_MAX_RANK] = {0};
  int64_t n = rg_shape_numel(os), src = 0;
  for (int64_t k = 0; k < n; k++) {
    o[k] = x[src];
    for (int d = r - 1; d >= 0; d--) {
      src += st[d];
      if (++pos[d] < os->dim[d]) break;
      src -= st[d] * os->dim[d];
      pos[d] = 0;
    }
  }
}

/* concat of two tensors on axis: per outer index, a's block then b's. */
static void concat2(const rg_shape *as, const rg_shape *bs, int axis, const rg_value *a,
                    const rg_value *b, rg_value *o) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; d++) outer *= as->dim[d];
  for (int d = axis + 1; d < as->rank; d++) inner *= as->dim[d];
  int64_t la = as->dim[axis] * inner, lb = bs->dim[axis] * inner;
  for (int64_t t = 0; t < outer; t++) {
    memcpy(o, a + t * la, sizeof *o * (size_t)la), o += la;
    memcpy(o, b + t * lb, sizeof *o * (size_t)lb), o += lb;
  }
}

static void split(const rg_shape *xs, const rg_shape *os, int axis, int half, const rg_value *x,
                  rg_value *o) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; d++) outer *= xs->dim[d];
  for (int d = axis + 1; d < xs->rank; d++) inner *= xs->dim[d];
  int64_t lx = xs->dim[axis] * inner, lo = os->dim[axis] * inner;
  int64_t off = half ? (xs->dim[axis] - os->dim[axis]) * inner : 0;
  for (int64_t t = 0; t < outer; t++) memcpy(o + t * lo, x + t * lx + off, sizeof *o * (size_t)lo);
}

/* Variant v in domain dom; false when there is no kernel for it. */
static bool run(rg_domain dom, const rg_enum_variant *v, const rg_shape *const *in,
                const rg_shape *out_shape, const rg_value *const *vals, const rg_eval_ctx *ctx,
                rg_value *out) {
  int64_t n = rg_shape_numel(out_shape);
  const rg_value *a = vals[0], *b = vals[1];
  bool f = dom == RG_DOM_F64;
  switch ((rg_op)v->op) {
  case RG_OP_EWADD:
    if (f)
      for (int64_t i = 0; i < n; i++) out[i].f = a[i].f + b[i].f;
    else
      for (int64_t i = 0; i < n; i++) out[i].z = rg_zp_add(a[i].z, b[i].z);
    return true;
  case RG_OP_EWMUL:
    if (f)
      for (int64_t i = 0; i < n; i++) out[i].f = a[i].f * b[i].f;
    else
      for (int64_t i = 0; i < n; i++) out[i].z = rg_zp_mul(a[i].z, b[i].z);
    return true;
  case RG_OP_SMUL:
    if (f)
      for (int64_t i = 0; i < n; i++) out[i].f = a[i].f * b[0].f;
    else
      for (int64_t i = 0; i < n; i++) out[i].z = rg_zp_mul(a[i].z, b[0].z);
    return true;
  case RG_OP_RELU: unary_act(dom, RG_ACT_RELU, ctx, a, n, out); return true;
  case RG_OP_TANH: unary_act(dom, RG_ACT_TANH, ctx, a, n, out); return true;
  case RG_OP_SIGMOID: unary_act(dom, RG_ACT_SIGMOID, ctx, a, n, out); return true;
  case RG_OP_MATMUL: matmul(dom, in[0], in[1], a, b, v->params[0], ctx, out); return true;
  case RG_OP_CONV2D: conv(dom, in[0], in[1], out_shape, v->params, a, b, ctx, out); return true;
  case RG_OP_POOLAVG: pool(dom, false, in[0], out_shape, v->params, a, ctx, out); return true;
  case RG_OP_POOLMAX:
    if (!f) return false;
    pool(dom, true, in[0], out_shape, v->params, a, ctx, out);
    return true;
  case RG_OP_TRANSPOSE: transpose(in[0], out_shape, v->params[0], a, out); return true;
  case RG_OP_CONCAT:
    if (v->n_in != 2) return false;
    concat2(in[0], in[1], v->params[0], a, b, out);
    return true;
  case RG_OP_SPLIT: split(in[0], out_shape, v->params[0], v->out, a, out); return true;
  case RG_OP_RESHAPE: memcpy(out, a, sizeof *out * (size_t)n); return true;
  default: return false;
  }
}

bool rg_fp_kernel_run(const rg_enum_variant *v, const rg_shape *const *in, const rg_shape *out_shape,
                      const rg_value *const *vals, const rg_eval_ctx *ctx, rg_value *out) {
  return run(RG_DOM_ZP, v, in, out_shape, vals, ctx, out);
}

bool rg_fp_node_kernel(rg_op op, const int32_t *params, int out, int n_in, const rg_shape *const *in,
                       const rg_shape *out_shape, rg_domain dom, const rg_eval_ctx *ctx,
                       const rg_value *const *vals, rg_value *dst) {
  rg_enum_variant v = {(uint16_t)op, (uint8_t)n_in, (uint8_t)out, {0}};
  memcpy(v.params, params, sizeof v.params);
  return run(dom, &v, in, out_shape, vals, ctx, dst);
}
