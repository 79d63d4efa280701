/* fingerprint/kernels.c: direct-access Z_p kernels (see kernels.h for how they are checked). */
#include "kernels.h"

#include <string.h>

static inline uint64_t act(const rg_eval_ctx *ctx, int a, uint64_t x) {
  return a == RG_ACT_NONE ? x : rg_zp_keyed(ctx->act_key[a], x);
}

static void unary_act(int a, const rg_eval_ctx *ctx, const rg_value *x, int64_t n, rg_value *o) {
  for (int64_t i = 0; i < n; i++) o[i].z = rg_zp_keyed(ctx->act_key[a], x[i].z);
}

static void matmul(const rg_shape *as, const rg_shape *bs, const rg_value *a, const rg_value *b,
                   int a_act, const rg_eval_ctx *ctx, rg_value *o) {
  int r = as->rank;
  int64_t m = as->dim[r - 2], K = as->dim[r - 1], n = bs->dim[r - 1], batch = 1;
  for (int d = 0; d < r - 2; d++) batch *= as->dim[d];
  for (int64_t t = 0; t < batch; t++) {
    const rg_value *A = a + t * m * K, *B = b + t * K * n;
    rg_value *O = o + t * m * n;
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) {
        uint64_t acc = 0;
        for (int64_t k = 0; k < K; k++) acc = rg_zp_add(acc, rg_zp_mul(A[i * K + k].z, B[k * n + j].z));
        O[i * n + j].z = act(ctx, a_act, acc);
      }
  }
}

static void conv(const rg_shape *xs, const rg_shape *ws, const rg_shape *os, const int32_t *p,
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
          uint64_t acc = 0;
          for (int32_t i = 0; i < I; i++)
            for (int32_t a = 0; a < KH; a++) {
              int32_t ih = y * p[0] - ph + a * dh;
              if (ih < 0 || ih >= H) continue;
              const rg_value *xr = x + (((int64_t)n * C + c0 + i) * H + ih) * W;
              const rg_value *wr = w + (((int64_t)oc * I + i) * KH + a) * KW;
              for (int32_t b = 0; b < KW; b++) {
                int32_t iw = xx * p[1] - pw + b * dw;
                if (iw < 0 || iw >= W) continue;
                acc = rg_zp_add(acc, rg_zp_mul(xr[iw].z, wr[b].z));
              }
            }
          (dst++)->z = act(ctx, p[3], acc);
        }
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

bool rg_fp_kernel_run(const rg_enum_variant *v, const rg_shape *const *in, const rg_shape *out_shape,
                      const rg_value *const *vals, const rg_eval_ctx *ctx, rg_value *out) {
  int64_t n = rg_shape_numel(out_shape);
  const rg_value *a = vals[0], *b = vals[1];
  switch ((rg_op)v->op) {
  case RG_OP_EWADD:
    for (int64_t i = 0; i < n; i++) out[i].z = rg_zp_add(a[i].z, b[i].z);
    return true;
  case RG_OP_EWMUL:
    for (int64_t i = 0; i < n; i++) out[i].z = rg_zp_mul(a[i].z, b[i].z);
    return true;
  case RG_OP_SMUL:
    for (int64_t i = 0; i < n; i++) out[i].z = rg_zp_mul(a[i].z, b[0].z);
    return true;
  case RG_OP_RELU: unary_act(RG_ACT_RELU, ctx, a, n, out); return true;
  case RG_OP_TANH: unary_act(RG_ACT_TANH, ctx, a, n, out); return true;
  case RG_OP_SIGMOID: unary_act(RG_ACT_SIGMOID, ctx, a, n, out); return true;
  case RG_OP_MATMUL: matmul(in[0], in[1], a, b, v->params[0], ctx, out); return true;
  case RG_OP_CONV2D: conv(in[0], in[1], out_shape, v->params, a, b, ctx, out); return true;
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
