/* optimizer/cuda/gpu_internal.h: what the .cu files of optimizer/cuda/ share: the open device
 * (handles, stream, events), a prepared operator (gpu_plan: cuDNN descriptors, the convolution
 * algorithm found and its workspace), and the checks that turn a failed call into a message
 * naming the call and the operator. C++ (nvcc); the C side sees only cuda.h. */
#ifndef RG_OPTIMIZER_CUDA_GPU_INTERNAL_H
#define RG_OPTIMIZER_CUDA_GPU_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "cuda.h"

struct rg_gpu {
  int device;
  cudaStream_t stream;
  cudaEvent_t start, stop;
  cudnnHandle_t dnn;
  cublasHandle_t blas;
  char name[512];
};

/* An operator made ready to launch on its buffers (in[k], out[k]: device float32). */
struct gpu_plan {
  const rg_gpu_op *op;
  cudnnTensorDescriptor_t x, y, b;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  cudnnActivationDescriptor_t act; /* the operator's (relu/tanh/sigmoid) or a fused one */
  cudnnPoolingDescriptor_t pool;
  cudnnConvolutionFwdAlgo_t algo;
  void *ws;
  size_t ws_size;
  float *bias; /* conv with relu: zeros, for cudnnConvolutionBiasActivationForward */
  bool fused;  /* conv: bias and relu inside the convolution */
  bool exact;  /* its outputs are op's out shapes (not so for an asymmetric SAME window) */
};

/* The most workspace a convolution algorithm may have (TASO bounded it too). */
#define GPU_CONV_WORKSPACE ((size_t)256 << 20)

/* Messages: "CALL failed: WHY (on OP)", into msg. */
rg_gpu_status gpu_fail(const char *call, const char *why, const rg_gpu_op *op, char *msg, size_t n);
rg_gpu_status gpu_cuda_fail(cudaError_t e, const char *call, const rg_gpu_op *op, char *msg,
                            size_t n);

#define GPU_CU(fn, args)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = fn args;                                                                      \
    if (e_ != cudaSuccess) return gpu_cuda_fail(e_, #fn, op, msg, n);                              \
  } while (0)
#define GPU_DNN(fn, args)                                                                          \
  do {                                                                                             \
    cudnnStatus_t s_ = fn args;                                                                    \
    if (s_ != CUDNN_STATUS_SUCCESS) return gpu_fail(#fn, cudnnGetErrorString(s_), op, msg, n);     \
  } while (0)
#define GPU_BLAS(fn, args)                                                                         \
  do {                                                                                             \
    cublasStatus_t s_ = fn args;                                                                   \
    if (s_ != CUBLAS_STATUS_SUCCESS) return gpu_fail(#fn, cublasGetStatusString(s_), op, msg, n);  \
  } while (0)
/* after a launch of our kernel name: a bad configuration fails there, a fault later */
#define GPU_LAUNCHED(name)                                                                         \
  do {                                                                                             \
    cudaError_t e_ = cudaGetLastError();                                                           \
    if (e_ != cudaSuccess) return gpu_cuda_fail(e_, "launching " #name, op, msg, n);               \
  } while (0)

/* cuDNN's operators (gpu_dnn.cu): conv2d, pooling, relu/tanh/sigmoid. Prepare looks the
 * convolution algorithm up on the very buffers it will run on. */
rg_gpu_status gpu_dnn_prepare(rg_gpu *g, gpu_plan *p, float *const *in, float *const *out,
                              char *msg, size_t n);
rg_gpu_status gpu_dnn_launch(rg_gpu *g, gpu_plan *p, float *const *in, float *const *out, char *msg,
                             size_t n);
void gpu_plan_free(gpu_plan *p);

/* cuBLAS's (gpu_blas.cu): matmul, batched, its activation by gpu_act. */
rg_gpu_status gpu_matmul_launch(rg_gpu *g, const rg_gpu_op *op, float *const *in, float *const *out,
                                char *msg, size_t n);

/* Ours (kernels.cu): the elementwise operators, bias, and data movement. */
rg_gpu_status gpu_kernel_launch(rg_gpu *g, const rg_gpu_op *op, float *const *in, float *const *out,
                                char *msg, size_t n);
/* y = act(y) in place (rg_gpu_act), count elements. */
rg_gpu_status gpu_act(rg_gpu *g, const rg_gpu_op *op, int act, float *y, int64_t count, char *msg,
                      size_t n);
/* Fills count floats with small normal numbers (denormals slow some kernels down). */
rg_gpu_status gpu_fill(rg_gpu *g, const rg_gpu_op *op, float *x, int64_t count, char *msg,
                       size_t n);

#endif
