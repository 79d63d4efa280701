/* optimizer/cuda/gpu.cu: the device (probed first: no device is an error, never a crash),
 * device buffers for one operator, and timing as TASO did it: the operator prepared once (cuDNN's
 * algorithm search included), WARMUP runs, then the median of REPEATS samples, each a batch of
 * runs timed by a pair of CUDA events on one stream (time_plan says why batches). Its entry
 * points are static: the module exports them only through its table, rg_gpu_module_table (at
 * the end; cuda.h), which the C side (gpu_load.c) calls through. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

#define WARMUP 5
#define REPEATS 21

rg_gpu_status gpu_fail(const char *call, const char *why, const rg_gpu_op *op, char *msg,
                       size_t n) {
  char what[512] = "";
  if (op) rg_gpu_op_describe(op, what, sizeof what);
  snprintf(msg, n, "%s failed: %s%s%s%s", call, why, op ? " (on " : "", what, op ? ")" : "");
  return RG_GPU_FAIL;
}

rg_gpu_status gpu_cuda_fail(cudaError_t e, const char *call, const rg_gpu_op *op, char *msg,
                            size_t n) {
  gpu_fail(call, cudaGetErrorString(e), op, msg, n);
  return e == cudaErrorMemoryAllocation ? RG_GPU_NOMEM : RG_GPU_FAIL;
}

static void close_handles(rg_gpu *g) {
  if (g->blas) cublasDestroy(g->blas);
  if (g->dnn) cudnnDestroy(g->dnn);
  if (g->start) cudaEventDestroy(g->start);
  if (g->stop) cudaEventDestroy(g->stop);
  if (g->stream) cudaStreamDestroy(g->stream);
}

static void gpu_close(rg_gpu *g) {
  if (!g) return;
  close_handles(g);
  free(g);
}

static const char *gpu_device(const rg_gpu *g) { return g->name; }

static rg_gpu_status open_handles(rg_gpu *g, char *msg, size_t n) {
  const rg_gpu_op *op = NULL;
  GPU_CU(cudaSetDevice, (g->device));
  GPU_CU(cudaStreamCreateWithFlags, (&g->stream, cudaStreamNonBlocking));
  GPU_CU(cudaEventCreate, (&g->start));
  GPU_CU(cudaEventCreate, (&g->stop));
  GPU_DNN(cudnnCreate, (&g->dnn));
  GPU_DNN(cudnnSetStream, (g->dnn, g->stream));
  GPU_BLAS(cublasCreate, (&g->blas));
  GPU_BLAS(cublasSetStream, (g->blas, g->stream));
  /* float32 as the IR defines it: no TF32 (cuDNN's side is set per convolution, gpu_dnn.cu) */
  GPU_BLAS(cublasSetMathMode, (g->blas, CUBLAS_DEFAULT_MATH));
  cudaDeviceProp prop;
  GPU_CU(cudaGetDeviceProperties, (&prop, g->device));
  int driver = 0, runtime = 0, blas = 0;
  GPU_CU(cudaDriverGetVersion, (&driver));
  GPU_CU(cudaRuntimeGetVersion, (&runtime));
  GPU_BLAS(cublasGetVersion, (g->blas, &blas));
  size_t dnn = cudnnGetVersion(); /* 9.19.0 is 91900 */
  snprintf(g->name, sizeof g->name,
           "%s; %d SMs; sm_%d%d; driver %d.%d; runtime %d.%d; cuDNN %zu.%zu.%zu; cuBLAS %d.%d.%d",
           prop.name, prop.multiProcessorCount, prop.major, prop.minor, driver / 1000,
           driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10, dnn / 10000, dnn % 10000 / 100,
           dnn % 100, blas / 10000, blas / 100 % 100, blas % 100);
  return RG_GPU_OK;
}

static rg_gpu_status gpu_open(rg_gpu **out, char *msg, size_t n) {
  *out = NULL;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= 0) {
    snprintf(msg, n, "no CUDA device: cudaGetDeviceCount returned %s (%d devices)",
             cudaGetErrorString(e), e == cudaSuccess ? count : 0);
    return RG_GPU_NODEV;
  }
  rg_gpu *g = (rg_gpu *)calloc(1, sizeof *g);
  if (!g) return snprintf(msg, n, "out of memory"), RG_GPU_NOMEM;
  rg_gpu_status st = open_handles(g, msg, n);
  if (st) return gpu_close(g), st;
  *out = g;
  return RG_GPU_OK;
}

/* ---- one operator's buffers ---- */

typedef struct {
  float *in[RG_GPU_MAX_IN], *out[RG_GPU_MAX_OUT];
} buffers;

static void buffers_free(buffers *b) {
  for (int k = 0; k < RG_GPU_MAX_IN; k++)
    if (b->in[k]) cudaFree(b->in[k]);
  for (int k = 0; k < RG_GPU_MAX_OUT; k++)
    if (b->out[k]) cudaFree(b->out[k]);
}

static rg_gpu_status buffers_alloc(rg_gpu *g, const rg_gpu_op *op, buffers *b, bool fill, char *msg,
                                   size_t n) {
  memset(b, 0, sizeof *b);
  size_t total = 0, free_b = 0, all_b = 0;
  for (int k = 0; k < op->n_in; k++)
    total += (size_t)rg_gpu_numel(&op->in[k]) * sizeof(float);
  for (int k = 0; k < op->n_out; k++)
    total += (size_t)rg_gpu_numel(&op->out[k]) * sizeof(float);
  GPU_CU(cudaMemGetInfo, (&free_b, &all_b));
  /* room for cuDNN's workspace besides: an operator that does not fit is not timed */
  if (total > free_b / 2) return RG_GPU_UNSUPPORTED;
  rg_gpu_status st = RG_GPU_OK;
  for (int k = 0; k < op->n_in && !st; k++) {
    int64_t c = rg_gpu_numel(&op->in[k]);
    cudaError_t e = cudaMalloc((void **)&b->in[k], (size_t)(c ? c : 1) * sizeof(float));
    if (e != cudaSuccess)
      st = gpu_cuda_fail(e, "cudaMalloc", op, msg, n);
    else if (fill)
      st = gpu_fill(g, op, b->in[k], c, msg, n);
  }
  for (int k = 0; k < op->n_out && !st; k++) {
    int64_t c = rg_gpu_numel(&op->out[k]);
    cudaError_t e = cudaMalloc((void **)&b->out[k], (size_t)(c ? c : 1) * sizeof(float));
    if (e != cudaSuccess) st = gpu_cuda_fail(e, "cudaMalloc", op, msg, n);
  }
  if (st) buffers_free(b);
  return st;
}

static bool dnn_kind(rg_gpu_kind k) {
  return k == RG_GPU_CONV || k == RG_GPU_POOLMAX || k == RG_GPU_POOLAVG || k == RG_GPU_RELU ||
         k == RG_GPU_TANH || k == RG_GPU_SIGMOID;
}

static rg_gpu_status prepare(rg_gpu *g, gpu_plan *p, const rg_gpu_op *op, buffers *b, char *msg,
                             size_t n) {
  memset(p, 0, sizeof *p);
  p->op = op;
  p->exact = true;
  return dnn_kind(op->kind) ? gpu_dnn_prepare(g, p, b->in, b->out, msg, n) : RG_GPU_OK;
}

static rg_gpu_status launch(rg_gpu *g, gpu_plan *p, buffers *b, char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  if (dnn_kind(op->kind)) return gpu_dnn_launch(g, p, b->in, b->out, msg, n);
  if (op->kind == RG_GPU_MATMUL) return gpu_matmul_launch(g, op, b->in, b->out, msg, n);
  return gpu_kernel_launch(g, op, b->in, b->out, msg, n);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The time of `runs` launches back to back between two events, in milliseconds. */
static rg_gpu_status time_runs(rg_gpu *g, gpu_plan *p, buffers *b, int runs, float *ms, char *msg,
                               size_t n) {
  const rg_gpu_op *op = p->op;
  rg_gpu_status st = RG_GPU_OK;
  GPU_CU(cudaEventRecord, (g->start, g->stream));
  for (int k = 0; k < runs && !st; k++)
    st = launch(g, p, b, msg, n);
  if (st) return st;
  GPU_CU(cudaEventRecord, (g->stop, g->stream));
  GPU_CU(cudaEventSynchronize, (g->stop));
  GPU_CU(cudaEventElapsedTime, (ms, g->start, g->stop));
  return RG_GPU_OK;
}

/* Each of the REPEATS samples is a batch of launches back to back, as TASO timed (events are
 * read to about half a microsecond, and one launch alone between two events would time the
 * idle GPU waiting for it as well): enough for BATCH_US, at most MAX_BATCH. The cost is the
 * median sample over its batch. */
#define BATCH_US 100.0
#define MAX_BATCH 50
static rg_gpu_status time_plan(rg_gpu *g, gpu_plan *p, buffers *b, double *us, int64_t *runs,
                               char *msg, size_t n) {
  float ms[REPEATS], once;
  rg_gpu_status st = RG_GPU_OK;
  for (int w = 0; w < WARMUP && !st; w++) /* the first run loads kernels and warms caches */
    st = launch(g, p, b, msg, n);
  if (!st) st = time_runs(g, p, b, WARMUP, &once, msg, n); /* how long one run takes */
  if (st) return st;
  double each_us = once * 1e3 / WARMUP;
  int batch = each_us * MAX_BATCH < BATCH_US ? MAX_BATCH
              : each_us >= BATCH_US          ? 1
                                             : (int)(BATCH_US / each_us) + 1;
  for (int r = 0; r < REPEATS && !st; r++)
    st = time_runs(g, p, b, batch, &ms[r], msg, n);
  if (st) return st;
  qsort(ms, REPEATS, sizeof *ms, cmp_float);
  *us = ms[REPEATS / 2] * 1e3 / batch;
  if (*us < 1e-3) *us = 1e-3; /* a cost is positive */
  *runs = (int64_t)REPEATS * batch;
  return RG_GPU_OK;
}

static rg_gpu_status gpu_time(rg_gpu *g, const rg_gpu_op *op, double *us, int64_t *repeats,
                              char *msg, size_t n) {
  buffers b;
  gpu_plan p;
  rg_gpu_status st = buffers_alloc(g, op, &b, true, msg, n);
  if (st) return st;
  st = prepare(g, &p, op, &b, msg, n);
  int64_t runs = 0;
  if (!st) st = time_plan(g, &p, &b, us, &runs, msg, n);
  gpu_plan_free(&p);
  buffers_free(&b);
  /* a sticky error (a kernel that faulted) leaves the context unusable: say so now */
  cudaError_t e = cudaDeviceSynchronize();
  if (!st && e != cudaSuccess) st = gpu_cuda_fail(e, "cudaDeviceSynchronize", op, msg, n);
  if (!st) *repeats = runs;
  return st;
}

static rg_gpu_status run_plan(rg_gpu *g, gpu_plan *p, buffers *b, const float *const *in,
                              float *const *out, char *msg, size_t n) {
  const rg_gpu_op *op = p->op;
  if (!p->exact) return RG_GPU_UNSUPPORTED; /* cuDNN's output is not the IR's */
  for (int k = 0; k < op->n_in; k++)
    GPU_CU(cudaMemcpyAsync, (b->in[k], in[k], (size_t)rg_gpu_numel(&op->in[k]) * sizeof(float),
                             cudaMemcpyHostToDevice, g->stream));
  rg_gpu_status st = launch(g, p, b, msg, n);
  if (st) return st;
  for (int k = 0; k < op->n_out; k++)
    GPU_CU(cudaMemcpyAsync, (out[k], b->out[k], (size_t)rg_gpu_numel(&op->out[k]) * sizeof(float),
                             cudaMemcpyDeviceToHost, g->stream));
  GPU_CU(cudaStreamSynchronize, (g->stream));
  return RG_GPU_OK;
}

static rg_gpu_status gpu_run(rg_gpu *g, const rg_gpu_op *op, const float *const *in,
                             float *const *out, char *msg, size_t n) {
  buffers b;
  gpu_plan p;
  rg_gpu_status st = buffers_alloc(g, op, &b, true, msg, n);
  if (st) return st;
  st = prepare(g, &p, op, &b, msg, n);
  if (!st) st = run_plan(g, &p, &b, in, out, msg, n);
  gpu_plan_free(&p);
  buffers_free(&b);
  return st;
}

/* The module's one exported symbol (cuda.h): the C side checks abi and sizes before any call. */
extern "C" const rg_gpu_module rg_gpu_module_table = {
    RG_GPU_ABI, sizeof(rg_gpu_module), sizeof(rg_gpu_op), gpu_open, gpu_close, gpu_device, gpu_time,
    gpu_run};
