/* fingerprint/kernels.c: direct-access Z_p and float64 kernels (see kernels.h for how they are
 * checked). Arithmetic kernels take the domain and follow the interpreter's summation order, so
 * float64 results are the interpreter's to the last bit; data movement is domain-blind.
 *
 * What these kernels share with ir/interp_kernels.inc, and why the rest is written twice (the
 * one place that says so): the activations are one definition (ir/interp.h: rg_act_f64,
 * rg_act_zp), and so are the window geometry (rg_window_geometry), the keyed functions and the
 * Z_p arithmetic (ir/zp.h). The loops cannot be one: the interpreter is an element function
 * over a fetch callback, generic over NUM (float64, Z_p, Z_q) so that single elements can be
 * evaluated through memoised reads; these kernels read whole arrays, hoist the taps that fall
 * inside the input out of the loops, run rows and convolution planes tap by tap (float64 then
 * vectorizes), and in Z_p add 122-bit products lazily in 128-bit accumulators folded every 32
 * terms (the interpreter reduces after every step). The values are the same; the number
 * representation inside a sum and the loop order are not, which is what makes these fast.
 */
#include "kernels.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* Multiply-adds past which a product or convolution is shared among threads: a whole model's
 * layers (graphopt), never the enumerator's small tensors. */
#define BIG_KERNEL (1 << 22)

/* Whether a kernel of n multiply-adds runs in the thread that asks. Also inside any parallel
 * region, even one of one thread: a loop over rules on the -j threads asked for
 * (`rulegen recheck -j 1`'s team of one is inactive, so a region of its own here would have
 * been active and taken every core: 1.5x the CPU of the same recheck with OMP_NUM_THREADS=1). */
static bool kernel_alone(int64_t n) { return n < BIG_KERNEL || omp_get_level() > 0; }

/* Sums of products in Z_p are reduced lazily: products (< 2^122) add up in 128 bits, folded
 * (2^61 = 1 mod p) every 32 terms so the sum stays below 2^128; the residue is exact. */
typedef unsigned __int128 zp_acc;
static inline zp_acc fold(zp_acc a) { return (a & RG_ZP_P) + (a >> 61); }
static inline uint64_t zp_acc_done(zp_acc a) { return rg_zp_reduce((uint64_t)fold(fold(a))); }

static void unary_act(rg_domain dom, int a, const rg_eval_ctx *ctx, const rg_value *x, int64_t n,
                      rg_value *o) {
  if (dom == RG_DOM_F64)
    for (int64_t i = 0; i < n; i++) o[i].f = rg_act_f64(a, x[i].f);
  else
    for (int64_t i = 0; i < n; i++) o[i].z = rg_act_zp(ctx, a, x[i].z);
}

/* The operands' geometry of a matmul: batch of m x K times K x n. */
typedef struct {
  int64_t m, K, n, batch;
} mm_geom;

static mm_geom mm_geometry(const rg_shape *as, const rg_shape *bs) {
  int r = as->rank;
  mm_geom g = {as->dim[r - 2], as->dim[r - 1], bs->dim[r - 1], 1};
  for (int d = 0; d < r - 2; d++)
    g.batch *= as->dim[d];
  return g;
}

/* Output (t, i, j) of a matmul. */
static inline rg_value matmul_at(rg_domain dom, const mm_geom *g, const rg_value *a,
                                 const rg_value *b, int a_act, const rg_eval_ctx *ctx, int64_t t,
                                 int64_t i, int64_t j) {
  const rg_value *A = a + (t * g->m + i) * g->K, *B = b + t * g->K * g->n + j;
  rg_value o;
  if (dom == RG_DOM_F64) {
    double acc = 0.0;
    for (int64_t k = 0; k < g->K; k++)
      acc = acc + A[k].f * B[k * g->n].f;
    o.f = rg_act_f64(a_act, acc);
    return o;
  }
  zp_acc acc = 0;
  for (int64_t k = 0; k < g->K; k++) {
    acc += (zp_acc)A[k].z * B[k * g->n].z;
    if ((k & 31) == 31) acc = fold(acc);
  }
  o.z = rg_act_zp(ctx, a_act, zp_acc_done(acc));
  return o;
}

/* Row i of batch t of a float64 product, k by k over the whole row: each output still sums
 * A[k] * B[k] from 0 in k's order (matmul_at's values, bit for bit), but B is read along its
 * rows and the inner loop vectorizes. */
static void matmul_row_f64(const mm_geom *g, const rg_value *a, const rg_value *b, int a_act, int64_t t,
                           int64_t i, double *o) {
  const rg_value *A = a + (t * g->m + i) * g->K, *B = b + t * g->K * g->n;
  for (int64_t j = 0; j < g->n; j++)
    o[j] = 0.0;
  for (int64_t k = 0; k < g->K; k++) {
    double x = A[k].f;
    const rg_value *Bk = B + k * g->n;
    for (int64_t j = 0; j < g->n; j++)
      o[j] = o[j] + x * Bk[j].f;
  }
  for (int64_t j = 0; j < g->n; j++)
    o[j] = rg_act_f64(a_act, o[j]);
}

/* Row r of a product (of every batch's rows in turn). */
static inline void matmul_row(rg_domain dom, const mm_geom *g, const rg_value *a, const rg_value *b, int a_act,
                              const rg_eval_ctx *ctx, int64_t r, rg_value *o) {
  if (dom == RG_DOM_F64) {
    matmul_row_f64(g, a, b, a_act, r / g->m, r % g->m, &o[r * g->n].f);
    return;
  }
  for (int64_t j = 0; j < g->n; j++) o[r * g->n + j] = matmul_at(dom, g, a, b, a_act, ctx, r / g->m, r % g->m, j);
}

static void matmul(rg_domain dom, const rg_shape *as, const rg_shape *bs, const rg_value *a,
                   const rg_value *b, int a_act, const rg_eval_ctx *ctx, rg_value *o) {
  mm_geom g = mm_geometry(as, bs);
  int64_t rows = g.batch * g.m;
  /* A model's products (graphopt's evaluator) over both cores; the enumerator's small ones stay
   * in the thread that asks, outside any parallel region: a region of one thread still costs
   * libgomp a team and its futex calls (about 6% of the depth-4 test stage's samples). Each
   * output is computed alone, so the values do not change. */
  if (kernel_alone(rows * g.n * g.K)) {
    for (int64_t r = 0; r < rows; r++) matmul_row(dom, &g, a, b, a_act, ctx, r, o);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; r++) matmul_row(dom, &g, a, b, a_act, ctx, r, o);
}

/* Taps k in [*k0, *k1) of a window starting at base (dilation d, k < K) that fall inside
 * [0, size). */
static void taps(int32_t base, int32_t d, int32_t size, int32_t K, int32_t *k0, int32_t *k1) {
  *k0 = base < 0 ? (-base + d - 1) / d : 0;
  *k1 = size - 1 - base < 0 ? 0 : (size - 1 - base) / d + 1;
  if (*k1 > K) *k1 = K;
  if (*k0 > *k1) *k0 = *k1;
}

typedef struct {
  int32_t C, H, W, O, I, KH, KW, OH, OW, ph, pw, sh, sw, dh, dw, per_group, act;
} conv_geom;

static conv_geom conv_geometry(const rg_shape *xs, const rg_shape *ws, const rg_shape *os,
                               const int32_t *p) {
  conv_geom g = {
      xs->dim[1], xs->dim[2],        xs->dim[3], ws->dim[0], ws->dim[1], ws->dim[2], ws->dim[3],
      os->dim[2], os->dim[3],        0,          0,          p[0],       p[1],       p[4],
      p[5],       ws->dim[0] / p[6], p[3]};
  int32_t oh, ow;
  rg_window_geometry(g.H, (g.KH - 1) * g.dh + 1, p[0], p[2], &oh, &g.ph);
  rg_window_geometry(g.W, (g.KW - 1) * g.dw + 1, p[1], p[2], &ow, &g.pw);
  return g;
}

/* Output (n, oc, y, xx) of a conv2d: the taps inside the input, in the interpreter's order
 * (channel, row, column). */
static inline rg_value conv_at(rg_domain dom, const conv_geom *g, const rg_value *x,
                               const rg_value *w, const rg_eval_ctx *ctx, int32_t n, int32_t oc,
                               int32_t y, int32_t xx) {
  int32_t c0 = (oc / g->per_group) * g->I, a0, a1, b0, b1;
  double accf = 0.0;
  zp_acc acc = 0;
  taps(y * g->sh - g->ph, g->dh, g->H, g->KH, &a0, &a1);
  taps(xx * g->sw - g->pw, g->dw, g->W, g->KW, &b0, &b1);
  for (int32_t i = 0; i < g->I; i++)
    for (int32_t a = a0; a < a1; a++) {
      int32_t ih = y * g->sh - g->ph + a * g->dh;
      const rg_value *xr = x + (((int64_t)n * g->C + c0 + i) * g->H + ih) * g->W;
      int32_t iw0 = xx * g->sw - g->pw; /* column of tap 0, maybe outside */
      const rg_value *wr = w + (((int64_t)oc * g->I + i) * g->KH + a) * g->KW;
      if (dom == RG_DOM_F64) {
        for (int32_t b = b0; b < b1; b++)
          accf = accf + xr[iw0 + b * g->dw].f * wr[b].f;
        continue;
      }
      for (int32_t b = b0; b < b1;) { /* fold at least every 32 products */
        for (int32_t e = b1 - b > 32 ? b + 32 : b1; b < e; b++)
          acc += (zp_acc)xr[iw0 + b * g->dw].z * wr[b].z;
        acc = fold(acc);
      }
    }
  rg_value o;
  if (dom == RG_DOM_F64)
    o.f = rg_act_f64(g->act, accf);
  else
    o.z = rg_act_zp(ctx, g->act, zp_acc_done(acc));
  return o;
}

/* The outputs o (first index lo, last hi - 1) whose tap k of a window (start o * s - pad, dilation
 * d) falls inside [0, size). */
static void tap_outputs(int32_t k, int32_t s, int32_t pad, int32_t d, int32_t size, int32_t n_out,
                        int32_t *lo, int32_t *hi) {
  int32_t off = k * d - pad; /* input index of output 0's tap k */
  *lo = off >= 0 ? 0 : (-off + s - 1) / s;
  *hi = size - 1 - off < 0 ? 0 : (size - 1 - off) / s + 1;
  if (*hi > n_out) *hi = n_out;
  if (*lo > *hi) *lo = *hi;
}

/* Outputs of a Z_p convolution strip that add up at once: 16 KiB of accumulators. */
#define ZP_STRIP 1024

/* Output rows [ylo, yhi) of plane (n, oc) of a conv2d into o, tap by tap across the rows, so the
 * inner loop runs along a row (and vectorizes in float64). Each output still sums its taps in
 * conv_at's order (channel, row, column) from 0: the float64 values are the same bits; in Z_p a
 * sum has one residue in any order, and each output's products add up in 128 bits, every
 * accumulator folded after 32 taps (an output may skip a tap outside the input, never gain
 * one), (yhi - ylo) * OW <= ZP_STRIP. */
static void conv_strip(rg_domain dom, const conv_geom *g, const rg_value *x, const rg_value *w,
                       const rg_eval_ctx *ctx, int32_t n, int32_t oc, int32_t ylo, int32_t yhi,
                       rg_value *o) {
  zp_acc acc[ZP_STRIP];
  bool f64 = dom == RG_DOM_F64;
  int32_t c0 = (oc / g->per_group) * g->I, since_fold = 0;
  int64_t outs = (int64_t)(yhi - ylo) * g->OW;
  for (int64_t k = 0; k < outs; k++)
    f64 ? (void)(o[k].f = 0.0) : (void)(acc[k] = 0);
  for (int32_t i = 0; i < g->I; i++)
    for (int32_t a = 0; a < g->KH; a++) {
      int32_t y0, y1;
      tap_outputs(a, g->sh, g->ph, g->dh, g->H, g->OH, &y0, &y1);
      y0 = y0 < ylo ? ylo : y0, y1 = y1 > yhi ? yhi : y1;
      const rg_value *xc = x + ((int64_t)n * g->C + c0 + i) * g->H * g->W;
      const rg_value *wr = w + (((int64_t)oc * g->I + i) * g->KH + a) * g->KW;
      for (int32_t b = 0; b < g->KW; b++) {
        int32_t x0, x1;
        tap_outputs(b, g->sw, g->pw, g->dw, g->W, g->OW, &x0, &x1);
        for (int32_t y = y0; y < y1; y++) {
          const rg_value *xr =
              xc + (int64_t)(y * g->sh - g->ph + a * g->dh) * g->W + b * g->dw - g->pw;
          int64_t row = (int64_t)(y - ylo) * g->OW;
          if (f64)
            for (int32_t xx = x0; xx < x1; xx++)
              o[row + xx].f = o[row + xx].f + xr[xx * g->sw].f * wr[b].f;
          else
            for (int32_t xx = x0; xx < x1; xx++)
              acc[row + xx] += (zp_acc)xr[xx * g->sw].z * wr[b].z;
        }
        if (!f64 && ++since_fold == 32) {
          for (int64_t k = 0; k < outs; k++)
            acc[k] = fold(acc[k]);
          since_fold = 0;
        }
      }
    }
  for (int64_t k = 0; k < outs; k++)
    f64 ? (void)(o[k].f = rg_act_f64(g->act, o[k].f))
        : (void)(o[k].z = rg_act_zp(ctx, g->act, zp_acc_done(acc[k])));
}

/* Output plane q (batch q / O, channel q % O) of a convolution: in float64 as one strip, in Z_p
 * in strips of at most ZP_STRIP outputs (output by output where one row is longer). Each call
 * names its domain as a constant, so the compiler keeps a copy of conv_strip for each. */
static inline void conv_plane(rg_domain dom, const conv_geom *g, const rg_value *x, const rg_value *w,
                              const rg_eval_ctx *ctx, int64_t q, rg_value *o) {
  int64_t plane = (int64_t)g->OH * g->OW;
  int32_t n = (int32_t)(q / g->O), oc = (int32_t)(q % g->O);
  if (plane == 0) return;
  if (dom == RG_DOM_F64) {
    conv_strip(RG_DOM_F64, g, x, w, ctx, n, oc, 0, g->OH, &o[q * plane]);
    return;
  }
  if (g->OW > ZP_STRIP) {
    for (int32_t y = 0; y < g->OH; y++)
      for (int32_t xx = 0; xx < g->OW; xx++)
        o[q * plane + (int64_t)y * g->OW + xx] = conv_at(dom, g, x, w, ctx, n, oc, y, xx);
    return;
  }
  int32_t rows = ZP_STRIP / g->OW;
  for (int32_t y = 0; y < g->OH; y += rows)
    conv_strip(RG_DOM_ZP, g, x, w, ctx, n, oc, y, y + rows < g->OH ? y + rows : g->OH,
               &o[q * plane + (int64_t)y * g->OW]);
}

static void conv(rg_domain dom, const rg_shape *xs, const rg_shape *ws, const rg_shape *os, const int32_t *p,
                 const rg_value *x, const rg_value *w, const rg_eval_ctx *ctx, rg_value *o) {
  _Static_assert(sizeof(rg_value) == sizeof(double), "float64 planes are written in place");
  conv_geom g = conv_geometry(xs, ws, os, p);
  int64_t planes = (int64_t)xs->dim[0] * g.O, plane = (int64_t)g.OH * g.OW;
  if (kernel_alone(planes * plane * g.I * g.KH * g.KW)) { /* as in matmul */
    for (int64_t q = 0; q < planes; q++) conv_plane(dom, &g, x, w, ctx, q, o);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < planes; q++) conv_plane(dom, &g, x, w, ctx, q, o);
}

typedef struct {
  int32_t kh, kw, sh, sw, ph, pw, H, W, act;
  bool is_max;
  uint64_t scale_z;
  double scale_f;
} pool_geom;

static pool_geom pool_geometry(rg_domain dom, bool is_max, const rg_shape *xs, const int32_t *p) {
  pool_geom g = {p[0], p[1], p[2], p[3], 0, 0, xs->dim[2], xs->dim[3], p[5], is_max, 0, 0};
  int32_t oh, ow;
  rg_window_geometry(g.H, g.kh, g.sh, p[4], &oh, &g.ph);
  rg_window_geometry(g.W, g.kw, g.sw, p[4], &ow, &g.pw);
  g.scale_z = dom == RG_DOM_F64 || is_max ? 0 : rg_zp_inv((uint64_t)g.kh * (uint64_t)g.kw);
  g.scale_f = 1.0 / (double)(g.kh * g.kw);
  return g;
}

/* Output (plane, y, xx) of a pooling: average (padded cells count in the divisor, as in the
 * interpreter), real max in float64, ir/zp.h's keyed window function for max in Z_p. */
static inline rg_value pool_at(rg_domain dom, const pool_geom *g, const rg_value *x,
                               const rg_eval_ctx *ctx, int64_t plane, int32_t y, int32_t xx) {
  bool f = dom == RG_DOM_F64;
  double accf = g->is_max ? -INFINITY : 0.0;
  uint64_t accz = g->is_max ? ctx->poolmax_key : 0;
  for (int32_t i = 0; i < g->kh; i++) {
    int32_t ih = y * g->sh - g->ph + i;
    bool row_in = ih >= 0 && ih < g->H;
    const rg_value *row = row_in ? x + (plane * g->H + ih) * g->W : x;
    for (int32_t j = 0; j < g->kw; j++) {
      int32_t iw = xx * g->sw - g->pw + j;
      if (!row_in || iw < 0 || iw >= g->W) {
        if (!f && g->is_max) accz = rg_zp_poolmax_pad(accz);
        continue;
      }
      if (!f)
        accz = g->is_max ? rg_zp_poolmax_cell(accz, row[iw].z) : rg_zp_add(accz, row[iw].z);
      else if (!g->is_max)
        accf = accf + row[iw].f;
      else
        accf = row[iw].f > accf ? row[iw].f : accf;
    }
  }
  rg_value o;
  if (f)
    o.f = rg_act_f64(g->act, g->is_max ? accf : accf * g->scale_f);
  else if (g->is_max)
    o.z = rg_act_zp(ctx, g->act, rg_zp_keyed(ctx->poolmax_key, accz));
  else
    o.z = rg_act_zp(ctx, g->act, rg_zp_mul(accz, g->scale_z));
  return o;
}

static void pool(rg_domain dom, bool is_max, const rg_shape *xs, const rg_shape *os, const int32_t *p,
                 const rg_value *x, const rg_eval_ctx *ctx, rg_value *o) {
  pool_geom g = pool_geometry(dom, is_max, xs, p);
  int64_t planes = (int64_t)xs->dim[0] * xs->dim[1];
  for (int64_t pl = 0; pl < planes; pl++)
    for (int32_t y = 0; y < os->dim[2]; y++)
      for (int32_t xx = 0; xx < os->dim[3]; xx++)
        *o++ = pool_at(dom, &g, x, ctx, pl, y, xx);
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

/* Sizes around an axis: the product of the dims before it and of those after it. */
static void around(const rg_shape *s, int axis, int64_t *outer, int64_t *inner) {
  *outer = *inner = 1;
  for (int d = 0; d < axis; d++)
    *outer *= s->dim[d];
  for (int d = axis + 1; d < s->rank; d++)
    *inner *= s->dim[d];
}

/* pad (zeros before `before` and after the input on axis) and slice (the input from `begin` on
 * axis): each output row of the axis is an input row or zeros. A zero is the same bits in
 * every domain. */
static void shift_axis(const rg_shape *xs, const rg_shape *os, int axis, int32_t in_of_out0,
                       const rg_value *x, rg_value *o) {
  int64_t outer, inner;
  around(os, axis, &outer, &inner);
  int32_t nin = xs->dim[axis], nout = os->dim[axis];
  for (int64_t t = 0; t < outer; t++)
    for (int32_t i = 0; i < nout; i++, o += inner) {
      int32_t j = i + in_of_out0;
      if (j < 0 || j >= nin)
        memset(o, 0, sizeof *o * (size_t)inner);
      else
        memcpy(o, x + (t * nin + j) * inner, sizeof *o * (size_t)inner);
    }
}

/* bias: x plus b[i] along axis, i the position on it; each row of the axis adds one b. */
static void bias(rg_domain dom, const rg_shape *xs, int axis, const rg_value *x, const rg_value *b,
                 rg_value *o) {
  int64_t outer, inner;
  around(xs, axis, &outer, &inner);
  int32_t n = xs->dim[axis];
  for (int64_t t = 0; t < outer; t++)
    for (int32_t i = 0; i < n; i++, x += inner, o += inner)
      for (int64_t j = 0; j < inner; j++) {
        if (dom == RG_DOM_F64) o[j].f = x[j].f + b[i].f;
        else o[j].z = rg_zp_add(x[j].z, b[i].z);
      }
}

/* The position on axis of element `flat` of a tensor of shape s. */
static int32_t axis_pos(const rg_shape *s, int axis, int64_t flat) {
  int64_t outer, inner;
  around(s, axis, &outer, &inner);
  return (int32_t)(flat / inner % s->dim[axis]);
}

/* enlarge: the kernel centred in a larger one (the interpreter's offsets), zeros around. */
static void enlarge(const rg_shape *xs, const rg_shape *os, const rg_value *x, rg_value *o) {
  int32_t kh = xs->dim[2], kw = xs->dim[3], KH = os->dim[2], KW = os->dim[3];
  int32_t oh = (KH - 1) / 2 - (kh - 1) / 2, ow = (KW - 1) / 2 - (kw - 1) / 2;
  int64_t planes = (int64_t)xs->dim[0] * xs->dim[1];
  memset(o, 0, sizeof *o * (size_t)(planes * KH * KW));
  for (int64_t pl = 0; pl < planes; pl++)
    for (int32_t i = 0; i < kh; i++)
      memcpy(o + (pl * KH + oh + i) * KW + ow, x + (pl * kh + i) * kw, sizeof *o * (size_t)kw);
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
  case RG_OP_BIAS: bias(dom, in[0], v->params[0], a, b, out); return true;
  case RG_OP_RELU: unary_act(dom, RG_ACT_RELU, ctx, a, n, out); return true;
  case RG_OP_TANH: unary_act(dom, RG_ACT_TANH, ctx, a, n, out); return true;
  case RG_OP_SIGMOID: unary_act(dom, RG_ACT_SIGMOID, ctx, a, n, out); return true;
  case RG_OP_MATMUL: matmul(dom, in[0], in[1], a, b, v->params[0], ctx, out); return true;
  case RG_OP_CONV2D: conv(dom, in[0], in[1], out_shape, v->params, a, b, ctx, out); return true;
  case RG_OP_POOLAVG: pool(dom, false, in[0], out_shape, v->params, a, ctx, out); return true;
  case RG_OP_POOLMAX: pool(dom, true, in[0], out_shape, v->params, a, ctx, out); return true;
  case RG_OP_TRANSPOSE: transpose(in[0], out_shape, v->params[0], a, out); return true;
  case RG_OP_CONCAT:
    if (v->n_in != 2) return false;
    concat2(in[0], in[1], v->params[0], a, b, out);
    return true;
  case RG_OP_SPLIT: split(in[0], out_shape, v->params[0], v->out, a, out); return true;
  case RG_OP_RESHAPE: memcpy(out, a, sizeof *out * (size_t)n); return true;
  case RG_OP_ENLARGE: enlarge(in[0], out_shape, a, out); return true;
  case RG_OP_PAD: shift_axis(in[0], out_shape, v->params[0], -v->params[1], a, out); return true;
  case RG_OP_SLICE: shift_axis(in[0], out_shape, v->params[0], v->params[1], a, out); return true;
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

/* The products, convolutions and poolings of rg_fp_kernel_sample, position by position. */
static bool sample_window(const rg_enum_variant *v, const rg_shape *const *in, const rg_shape *os,
                          const rg_value *a, const rg_value *b, const rg_eval_ctx *ctx, const int64_t *pos,
                          int count, rg_value *out) {
  const rg_domain zp = RG_DOM_ZP;
  if (v->op == RG_OP_MATMUL) {
    mm_geom g = mm_geometry(in[0], in[1]);
    for (int k = 0; k < count; k++)
      out[k] = matmul_at(zp, &g, a, b, v->params[0], ctx, pos[k] / (g.m * g.n), pos[k] / g.n % g.m,
                         pos[k] % g.n);
    return true;
  }
  if (v->op == RG_OP_CONV2D) {
    conv_geom g = conv_geometry(in[0], in[1], os, v->params);
    int64_t plane = (int64_t)g.OH * g.OW;
    for (int k = 0; k < count; k++) {
      int64_t q = pos[k] / plane, r = pos[k] % plane;
      out[k] = conv_at(zp, &g, a, b, ctx, (int32_t)(q / g.O), (int32_t)(q % g.O),
                       (int32_t)(r / g.OW), (int32_t)(r % g.OW));
    }
    return true;
  }
  pool_geom g = pool_geometry(zp, v->op == RG_OP_POOLMAX, in[0], v->params);
  int64_t plane = (int64_t)os->dim[2] * os->dim[3];
  for (int k = 0; k < count; k++) {
    int64_t r = pos[k] % plane;
    out[k] = pool_at(zp, &g, a, ctx, pos[k] / plane, (int32_t)(r / os->dim[3]), (int32_t)(r % os->dim[3]));
  }
  return true;
}

bool rg_fp_kernel_sample(const rg_enum_variant *v, const rg_shape *const *in, const rg_shape *os,
                         const rg_value *const *vals, const rg_eval_ctx *ctx, const int64_t *pos,
                         int count, rg_value *out) {
  const rg_value *a = vals[0], *b = vals[1];
  switch ((rg_op)v->op) {
  case RG_OP_EWADD:
    for (int k = 0; k < count; k++)
      out[k].z = rg_zp_add(a[pos[k]].z, b[pos[k]].z);
    return true;
  case RG_OP_EWMUL:
    for (int k = 0; k < count; k++)
      out[k].z = rg_zp_mul(a[pos[k]].z, b[pos[k]].z);
    return true;
  case RG_OP_SMUL:
    for (int k = 0; k < count; k++)
      out[k].z = rg_zp_mul(a[pos[k]].z, b[0].z);
    return true;
  case RG_OP_BIAS:
    for (int k = 0; k < count; k++)
      out[k].z = rg_zp_add(a[pos[k]].z, b[axis_pos(in[0], v->params[0], pos[k])].z);
    return true;
  case RG_OP_RELU:
  case RG_OP_TANH:
  case RG_OP_SIGMOID: {
    int f = v->op == RG_OP_RELU ? RG_ACT_RELU : v->op == RG_OP_TANH ? RG_ACT_TANH : RG_ACT_SIGMOID;
    for (int k = 0; k < count; k++)
      out[k].z = rg_act_zp(ctx, f, a[pos[k]].z);
    return true;
  }
  case RG_OP_MATMUL:
  case RG_OP_CONV2D:
  case RG_OP_POOLAVG:
  case RG_OP_POOLMAX: return sample_window(v, in, os, a, b, ctx, pos, count, out);
  default: return false;
  }
}
