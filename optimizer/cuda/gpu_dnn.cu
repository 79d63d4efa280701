/* optimizer/cuda/gpu_dnn.cu: the operators cuDNN runs, through its legacy (v8-style) API that
 * cuDNN 9 still has: conv2d with the fastest algorithm cudnnFindConvolutionForwardAlgorithmEx
 * finds within GPU_CONV_WORKSPACE, its relu fused as cudnnConvolutionBiasActivationForward with
 * a zero bias (the bias of the Conv a runtime runs; graphopt prices a fused bias at 0), tanh
 * and sigmoid as an activation after it; max and average pooling (average counting padded cells,
 * as the IR does); relu, tanh and sigmoid.
 *
 * Float32 as the IR defines it: CUDNN_FMA_MATH, so no TF32 on Ampere and later. cuDNN pads
 * symmetrically: a SAME window whose total padding is odd pads one less row or column after
 * (gpu_op.c gives the padding before), a workload within a row of the IR's; such a plan is not
 * exact and rg_gpu_run refuses it. */
#include <limits.h>
#include <string.h>

#include "gpu_internal.h"

static cudnnActivationMode_t act_mode(int act) {
  return act == RG_GPU_ACT_RELU   ? CUDNN_ACTIVATION_RELU
         : act == RG_GPU_ACT_TANH ? CUDNN_ACTIVATION_TANH
                                  : CUDNN_ACTIVATION_SIGMOID;
}

static bool fits_int(const rg_gpu_shape *s) {
  for (int i = 0; i < s->rank; i++)
    if (s->dim[i] > INT_MAX) return false;
  return rg_gpu_numel(s) <= INT_MAX;
}

void gpu_plan_free(gpu_plan *p) {
  if (p->x) cudnnDestroyTensorDescriptor(p->x);
  if (p->y) cudnnDestroyTensorDescriptor(p->y);
  if (p->b) cudnnDestroyTensorDescriptor(p->b);
  if (p->w) cudnnDestroyFilterDescriptor(p->w);
  if (p->conv) cudnnDestroyConvolutionDescriptor(p->conv);
  if (p->act) cudnnDestroyActivationDescriptor(p->act);
  if (p->pool) cudnnDestroyPoolingDescriptor(p->pool);
  if (p->ws) cudaFree(p->ws);
  if (p->bias) cudaFree(p->bias);
  memset(p, 0, sizeof *p);
}

static rg_gpu_status set_act(gpu_plan *p, int act, char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  GPU_DNN(cudnnCreateActivationDescriptor, (&p->act));
  GPU_DNN(cudnnSetActivationDescriptor, (p->act, act_mode(act), CUDNN_NOT_PROPAGATE_NAN, 0.0));
  return RG_GPU_OK;
}

/* x and y as 4-D NCHW descriptors of the operator's first input and of cuDNN's output (yd). */
static rg_gpu_status set_xy(gpu_plan *p, const int *yd, char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  const int64_t *x = op->in[0].dim;
  GPU_DNN(cudnnCreateTensorDescriptor, (&p->x));
  GPU_DNN(cudnnSetTensor4dDescriptor,
          (p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)x[0], (int)x[1], (int)x[2], (int)x[3]));
  GPU_DNN(cudnnCreateTensorDescriptor, (&p->y));
  GPU_DNN(cudnnSetTensor4dDescriptor,
          (p->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, yd[0], yd[1], yd[2], yd[3]));
  for (int i = 0; i < 4; i++)
    if (yd[i] != op->out[0].dim[i]) p->exact = false;
  /* cuDNN's output is never larger than the IR's (padding before <= after), so it fits */
  return (int64_t)yd[0] * yd[1] * yd[2] * yd[3] <= rg_gpu_numel(&op->out[0])
             ? RG_GPU_OK
             : gpu_fail("cudnnGetConvolution2dForwardOutputDim", "an output larger than the IR's",
                        op, msg, n);
}

/* The fastest algorithm on these very buffers, within the workspace bound; its workspace. */
static rg_gpu_status find_algo(rg_gpu *g, gpu_plan *p, float *x, float *w, float *y, char *msg,
                               size_t n) {
  const rg_gpu_op *op = p->op;
  size_t free_b = 0, all_b = 0;
  GPU_CU(cudaMemGetInfo, (&free_b, &all_b));
  size_t limit = GPU_CONV_WORKSPACE < free_b / 4 ? GPU_CONV_WORKSPACE : free_b / 4;
  void *search = NULL;
  if (limit) GPU_CU(cudaMalloc, (&search, limit));
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int got = 0;
  cudnnStatus_t s = cudnnFindConvolutionForwardAlgorithmEx(g->dnn, p->x, x, p->w, w, p->conv, p->y,
                                                           y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                           &got, perf, search, limit);
  if (search) cudaFree(search);
  if (s != CUDNN_STATUS_SUCCESS)
    return gpu_fail("cudnnFindConvolutionForwardAlgorithmEx", cudnnGetErrorString(s), op, msg, n);
  for (int i = 0; i < got; i++) { /* sorted fastest first */
    if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].memory > limit) continue;
    p->algo = perf[i].algo;
    p->ws_size = perf[i].memory;
    if (p->ws_size) GPU_CU(cudaMalloc, (&p->ws, p->ws_size));
    return RG_GPU_OK;
  }
  return RG_GPU_UNSUPPORTED; /* no algorithm within the bound */
}

static rg_gpu_status conv_launch(rg_gpu *g, gpu_plan *p, float *const *in, float *const *out,
                                 char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  const float one = 1.0f, zero = 0.0f;
  if (p->fused) {
    GPU_DNN(cudnnConvolutionBiasActivationForward,
            (g->dnn, &one, p->x, in[0], p->w, in[1], p->conv, p->algo, p->ws, p->ws_size, &zero,
             p->y, out[0], p->b, p->bias, p->act, p->y, out[0]));
    return RG_GPU_OK;
  }
  GPU_DNN(cudnnConvolutionForward, (g->dnn, &one, p->x, in[0], p->w, in[1], p->conv, p->algo, p->ws,
                                    p->ws_size, &zero, p->y, out[0]));
  if (op->act != RG_GPU_ACT_NONE)
    GPU_DNN(cudnnActivationForward, (g->dnn, p->act, &one, p->y, out[0], &zero, p->y, out[0]));
  return RG_GPU_OK;
}

static rg_gpu_status conv_prepare(rg_gpu *g, gpu_plan *p, float *const *in, float *const *out,
                                  char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  const int64_t *w = op->in[1].dim;
  GPU_DNN(cudnnCreateFilterDescriptor, (&p->w));
  GPU_DNN(cudnnSetFilter4dDescriptor,
          (p->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, (int)w[0], (int)w[1], (int)w[2], (int)w[3]));
  GPU_DNN(cudnnCreateConvolutionDescriptor, (&p->conv));
  GPU_DNN(cudnnSetConvolution2dDescriptor, (p->conv, op->pad_h, op->pad_w, op->sh, op->sw, op->dh,
                                            op->dw, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  GPU_DNN(cudnnSetConvolutionGroupCount, (p->conv, op->groups));
  GPU_DNN(cudnnSetConvolutionMathType, (p->conv, CUDNN_FMA_MATH));
  GPU_DNN(cudnnCreateTensorDescriptor, (&p->x));
  const int64_t *x = op->in[0].dim;
  GPU_DNN(cudnnSetTensor4dDescriptor,
          (p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)x[0], (int)x[1], (int)x[2], (int)x[3]));
  int yd[4];
  GPU_DNN(cudnnGetConvolution2dForwardOutputDim,
          (p->conv, p->x, p->w, &yd[0], &yd[1], &yd[2], &yd[3]));
  cudnnDestroyTensorDescriptor(p->x), p->x = NULL;
  rg_gpu_status st = set_xy(p, yd, msg, n);
  if (!st) st = find_algo(g, p, in[0], in[1], out[0], msg, n);
  if (st || op->act == RG_GPU_ACT_NONE) return st;
  if ((st = set_act(p, op->act, msg, n))) return st;
  if (op->act != RG_GPU_ACT_RELU) return RG_GPU_OK; /* cuDNN fuses relu (and identity) only */
  GPU_DNN(cudnnCreateTensorDescriptor, (&p->b));
  GPU_DNN(cudnnSetTensor4dDescriptor, (p->b, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, yd[1], 1, 1));
  GPU_CU(cudaMalloc, ((void **)&p->bias, (size_t)yd[1] * sizeof(float)));
  GPU_CU(cudaMemsetAsync, (p->bias, 0, (size_t)yd[1] * sizeof(float), g->stream));
  /* the fused call may refuse an algorithm the search chose: then convolution, then relu */
  p->fused = true;
  char why[256];
  if (conv_launch(g, p, in, out, why, sizeof why)) p->fused = false;
  return RG_GPU_OK;
}

static rg_gpu_status pool_prepare(gpu_plan *p, char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  cudnnPoolingMode_t mode =
      op->kind == RG_GPU_POOLMAX ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING;
  GPU_DNN(cudnnCreatePoolingDescriptor, (&p->pool));
  GPU_DNN(cudnnSetPooling2dDescriptor, (p->pool, mode, CUDNN_NOT_PROPAGATE_NAN, op->kh, op->kw,
                                        op->pad_h, op->pad_w, op->sh, op->sw));
  GPU_DNN(cudnnCreateTensorDescriptor, (&p->x));
  const int64_t *x = op->in[0].dim;
  GPU_DNN(cudnnSetTensor4dDescriptor,
          (p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)x[0], (int)x[1], (int)x[2], (int)x[3]));
  int yd[4];
  GPU_DNN(cudnnGetPooling2dForwardOutputDim, (p->pool, p->x, &yd[0], &yd[1], &yd[2], &yd[3]));
  cudnnDestroyTensorDescriptor(p->x), p->x = NULL;
  rg_gpu_status st = set_xy(p, yd, msg, n);
  return !st && op->act != RG_GPU_ACT_NONE ? set_act(p, op->act, msg, n) : st;
}

/* relu, tanh, sigmoid over all the elements, as one 1x1x1xN tensor */
static rg_gpu_status act_prepare(gpu_plan *p, char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  int count = (int)rg_gpu_numel(&op->in[0]);
  int act = op->kind == RG_GPU_RELU   ? RG_GPU_ACT_RELU
            : op->kind == RG_GPU_TANH ? RG_GPU_ACT_TANH
                                      : RG_GPU_ACT_SIGMOID;
  GPU_DNN(cudnnCreateTensorDescriptor, (&p->x));
  GPU_DNN(cudnnSetTensor4dDescriptor, (p->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, count));
  return set_act(p, act, msg, n);
}

rg_gpu_status gpu_dnn_prepare(rg_gpu *g, gpu_plan *p, float *const *in, float *const *out,
                              char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  for (int k = 0; k < op->n_in; k++)
    if (!fits_int(&op->in[k])) return RG_GPU_UNSUPPORTED;
  if (!fits_int(&op->out[0])) return RG_GPU_UNSUPPORTED;
  switch (op->kind) {
  case RG_GPU_CONV:
    if (op->in[0].rank != 4 || op->in[1].rank != 4) return RG_GPU_UNSUPPORTED;
    return conv_prepare(g, p, in, out, msg, n);
  case RG_GPU_POOLMAX:
  case RG_GPU_POOLAVG: return op->in[0].rank == 4 ? pool_prepare(p, msg, n) : RG_GPU_UNSUPPORTED;
  default: return act_prepare(p, msg, n);
  }
}

rg_gpu_status gpu_dnn_launch(rg_gpu *g, gpu_plan *p, float *const *in, float *const *out, char *msg,
                             size_t n) {
  const rg_gpu_op *op = p->op;
  const float one = 1.0f, zero = 0.0f;
  switch (op->kind) {
  case RG_GPU_CONV: return conv_launch(g, p, in, out, msg, n);
  case RG_GPU_POOLMAX:
  case RG_GPU_POOLAVG:
    GPU_DNN(cudnnPoolingForward, (g->dnn, p->pool, &one, p->x, in[0], &zero, p->y, out[0]));
    if (op->act != RG_GPU_ACT_NONE)
      GPU_DNN(cudnnActivationForward, (g->dnn, p->act, &one, p->y, out[0], &zero, p->y, out[0]));
    return RG_GPU_OK;
  default:
    GPU_DNN(cudnnActivationForward, (g->dnn, p->act, &one, p->x, in[0], &zero, p->x, out[0]));
    return RG_GPU_OK;
  }
}
