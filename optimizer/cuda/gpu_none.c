/* optimizer/cuda/gpu_none.c: the GPU side of a build without CUDA (CMake found no nvcc under
 * /usr/local/cuda, or no cuDNN or cuBLAS beside it, or was told RG_CUDA=OFF; RG_NO_CUDA_WHY
 * says which): every entry point says so, and nothing else. */
#include <stdio.h>

#include "cuda.h"

#ifndef RG_NO_CUDA_WHY
#define RG_NO_CUDA_WHY "no nvcc under /usr/local/cuda when it was configured"
#endif
#define WITHOUT "graphopt was built without CUDA (" RG_NO_CUDA_WHY ")"

rg_gpu_status rg_gpu_open(rg_gpu **out, char *msg, size_t n) {
  *out = NULL;
  snprintf(msg, n, "%s", WITHOUT);
  return RG_GPU_NODEV;
}

void rg_gpu_close(rg_gpu *g) { (void)g; }

const char *rg_gpu_device(const rg_gpu *g) { return (void)g, "none"; }

rg_gpu_status rg_gpu_time(rg_gpu *g, const rg_gpu_op *op, double *us, int64_t *repeats, char *msg,
                          size_t n) {
  (void)g, (void)op, (void)us, (void)repeats;
  snprintf(msg, n, "%s", WITHOUT);
  return RG_GPU_NODEV;
}

rg_gpu_status rg_gpu_run(rg_gpu *g, const rg_gpu_op *op, const float *const *in, float *const *out,
                         char *msg, size_t n) {
  (void)g, (void)op, (void)in, (void)out;
  snprintf(msg, n, "%s", WITHOUT);
  return RG_GPU_NODEV;
}
