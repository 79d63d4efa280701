/* optimizer/cuda/gpu_none.c: the GPU side of a build without CUDA (CMake found no nvcc under
 * /usr/local/cuda when it was configured): every entry point says so, and nothing else. */
#include <stdio.h>

#include "gpu.h"

#define WITHOUT "graphopt was built without CUDA (no nvcc under /usr/local/cuda when it was configured)"

rg_gpu_status rg_gpu_open(rg_gpu **out, char *msg, size_t n) {
  *out = NULL;
  snprintf(msg, n, WITHOUT);
  return RG_GPU_NODEV;
}

void rg_gpu_close(rg_gpu *g) { (void)g; }

const char *rg_gpu_device(const rg_gpu *g) { return (void)g, "none"; }

rg_gpu_status rg_gpu_time(rg_gpu *g, const rg_gpu_op *op, double *us, int64_t *repeats, char *msg, size_t n) {
  (void)g, (void)op, (void)us, (void)repeats;
  snprintf(msg, n, WITHOUT);
  return RG_GPU_NODEV;
}

rg_gpu_status rg_gpu_run(rg_gpu *g, const rg_gpu_op *op, const float *const *in, float *const *out, char *msg,
                         size_t n) {
  (void)g, (void)op, (void)in, (void)out;
  snprintf(msg, n, WITHOUT);
  return RG_GPU_NODEV;
}
