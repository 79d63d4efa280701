/* optimizer/cuda/kernels.cu: the operators no library runs for us, as small kernels: ewadd,
 * ewmul, smul (times the rank-0 operand, read on the device), bias (the vector broadcast along
 * one axis), the activation after a matmul, and data movement: concat, split, pad and slice as
 * copies of blocks along one axis (a tensor seen as outer x axis x inner), transpose by index
 * arithmetic, reshape as a device copy (the runtime would alias it; a copy is what it costs when
 * it does not). Grid-stride loops over 64-bit indices, one thread per output element. */
#include "gpu_internal.h"

#define THREADS 256

static unsigned blocks(int64_t count) {
  int64_t b = (count + THREADS - 1) / THREADS;
  return (unsigned)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

#define FOR_EACH(i, count)                                                                         \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (count);                    \
       i += (int64_t)gridDim.x * blockDim.x)

__device__ static float act_f(int act, float x) {
  switch (act) {
  case RG_GPU_ACT_RELU: return x > 0.0f ? x : 0.0f;
  case RG_GPU_ACT_TANH: return tanhf(x);
  case RG_GPU_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
  default: return x;
  }
}

__global__ static void k_act(float *y, int64_t count, int act) {
  FOR_EACH(i, count) y[i] = act_f(act, y[i]);
}

__global__ static void k_fill(float *x, int64_t count) {
  FOR_EACH(i, count) x[i] = (float)(i % 97) * 0.01f - 0.4f;
}

__global__ static void k_binary(const float *a, const float *b, float *y, int64_t count, int mul) {
  FOR_EACH(i, count) y[i] = mul ? a[i] * b[i] : a[i] + b[i];
}

__global__ static void k_smul(const float *x, const float *s, float *y, int64_t count) {
  float v = *s;
  FOR_EACH(i, count) y[i] = x[i] * v;
}

/* out[i] = x[i] + b[(i / inner) % len] */
__global__ static void k_bias(const float *x, const float *b, float *y, int64_t count, int64_t len,
                              int64_t inner) {
  FOR_EACH(i, count) y[i] = x[i] + b[i / inner % len];
}

/* dst[o][dst_off + a][i] = src[o][src_off + a][i] for a < len: the src and dst axes have src_axis
 * and dst_axis positions */
__global__ static void k_copy_axis(const float *src, float *dst, int64_t outer, int64_t len,
                                   int64_t inner, int64_t src_axis, int64_t src_off,
                                   int64_t dst_axis, int64_t dst_off) {
  FOR_EACH(j, outer * len * inner) {
    int64_t i = j % inner, a = j / inner % len, o = j / inner / len;
    dst[(o * dst_axis + dst_off + a) * inner + i] = src[(o * src_axis + src_off + a) * inner + i];
  }
}

typedef struct {
  int rank;
  int64_t out_dim[RG_GPU_MAX_RANK];
  int64_t in_stride[RG_GPU_MAX_RANK]; /* x's stride of the dimension that is out's i-th */
} transpose_geom;

__global__ static void k_transpose(const float *x, float *y, int64_t count, transpose_geom t) {
  FOR_EACH(j, count) {
    int64_t rest = j, from = 0;
    for (int d = t.rank - 1; d >= 0; d--) {
      from += rest % t.out_dim[d] * t.in_stride[d];
      rest /= t.out_dim[d];
    }
    y[j] = x[from];
  }
}

rg_gpu_status gpu_act(rg_gpu *g, const rg_gpu_op *op, int act, float *y, int64_t count, char *msg,
                      size_t n) {
  k_act<<<blocks(count), THREADS, 0, g->stream>>>(y, count, act);
  GPU_LAUNCHED(k_act);
  return RG_GPU_OK;
}

rg_gpu_status gpu_fill(rg_gpu *g, const rg_gpu_op *op, float *x, int64_t count, char *msg,
                       size_t n) {
  k_fill<<<blocks(count), THREADS, 0, g->stream>>>(x, count);
  GPU_LAUNCHED(k_fill);
  return RG_GPU_OK;
}

/* s seen as outer x s.dim[axis] x inner */
static void around(const rg_gpu_shape *s, int axis, int64_t *outer, int64_t *inner) {
  *outer = *inner = 1;
  for (int i = 0; i < axis; i++)
    *outer *= s->dim[i];
  for (int i = axis + 1; i < s->rank; i++)
    *inner *= s->dim[i];
}

static rg_gpu_status copy_axis(rg_gpu *g, const rg_gpu_op *op, const float *src,
                               const rg_gpu_shape *ss, int64_t src_off, float *dst,
                               const rg_gpu_shape *ds, int64_t dst_off, int64_t len, char *msg,
                               size_t n) {
  int64_t outer, inner, ax = op->axis;
  around(ss, op->axis, &outer, &inner);
  if (outer * len * inner == 0) return RG_GPU_OK;
  k_copy_axis<<<blocks(outer * len * inner), THREADS, 0, g->stream>>>(
      src, dst, outer, len, inner, ss->dim[ax], src_off, ds->dim[ax], dst_off);
  GPU_LAUNCHED(k_copy_axis);
  return RG_GPU_OK;
}

static rg_gpu_status transpose(rg_gpu *g, const rg_gpu_op *op, const float *x, float *y, char *msg,
                               size_t n) {
  const rg_gpu_shape *s = &op->in[0];
  int64_t stride[RG_GPU_MAX_RANK];
  transpose_geom t;
  t.rank = s->rank;
  int64_t acc = 1;
  for (int i = s->rank - 1; i >= 0; i--)
    stride[i] = acc, acc *= s->dim[i];
  for (int i = 0; i < s->rank; i++)
    t.out_dim[i] = op->out[0].dim[i], t.in_stride[i] = stride[op->perm[i]];
  int64_t count = rg_gpu_numel(&op->out[0]);
  if (!count) return RG_GPU_OK;
  k_transpose<<<blocks(count), THREADS, 0, g->stream>>>(x, y, count, t);
  GPU_LAUNCHED(k_transpose);
  return RG_GPU_OK;
}

rg_gpu_status gpu_kernel_launch(rg_gpu *g, const rg_gpu_op *op, float *const *in, float *const *out,
                                char *msg, size_t n) {
  int64_t count = rg_gpu_numel(&op->out[0]), outer, inner;
  switch (op->kind) {
  case RG_GPU_EWADD:
  case RG_GPU_EWMUL:
    k_binary<<<blocks(count), THREADS, 0, g->stream>>>(in[0], in[1], out[0], count,
                                                       op->kind == RG_GPU_EWMUL);
    GPU_LAUNCHED(k_binary);
    return RG_GPU_OK;
  case RG_GPU_SMUL:
    k_smul<<<blocks(count), THREADS, 0, g->stream>>>(in[0], in[1], out[0], count);
    GPU_LAUNCHED(k_smul);
    return RG_GPU_OK;
  case RG_GPU_BIAS:
    around(&op->in[0], op->axis, &outer, &inner);
    k_bias<<<blocks(count), THREADS, 0, g->stream>>>(in[0], in[1], out[0], count,
                                                     op->in[0].dim[op->axis], inner);
    GPU_LAUNCHED(k_bias);
    return RG_GPU_OK;
  case RG_GPU_CONCAT: {
    rg_gpu_status st = RG_GPU_OK;
    for (int64_t k = 0, at = 0; k < op->n_in && !st; at += op->in[k].dim[op->axis], k++)
      st = copy_axis(g, op, in[k], &op->in[k], 0, out[0], &op->out[0], at, op->in[k].dim[op->axis],
                     msg, n);
    return st;
  }
  case RG_GPU_SPLIT: {
    int64_t first = op->out[0].dim[op->axis];
    rg_gpu_status st =
        copy_axis(g, op, in[0], &op->in[0], 0, out[0], &op->out[0], 0, first, msg, n);
    return st ? st
              : copy_axis(g, op, in[0], &op->in[0], first, out[1], &op->out[1], 0,
                          op->out[1].dim[op->axis], msg, n);
  }
  case RG_GPU_PAD:
    GPU_CU(cudaMemsetAsync, (out[0], 0, (size_t)count * sizeof(float), g->stream));
    return copy_axis(g, op, in[0], &op->in[0], 0, out[0], &op->out[0], op->begin,
                     op->in[0].dim[op->axis], msg, n);
  case RG_GPU_SLICE:
    return copy_axis(g, op, in[0], &op->in[0], op->begin, out[0], &op->out[0], 0,
                     op->end - op->begin, msg, n);
  case RG_GPU_TRANSPOSE: return transpose(g, op, in[0], out[0], msg, n);
  case RG_GPU_RESHAPE:
    GPU_CU(cudaMemcpyAsync,
           (out[0], in[0], (size_t)count * sizeof(float), cudaMemcpyDeviceToDevice, g->stream));
    return RG_GPU_OK;
  default: return RG_GPU_UNSUPPORTED;
  }
}
