/* optimizer/cuda/gpu_blas.cu: matmul by cuBLAS. The IR's tensors are row-major and cuBLAS's
 * column-major: a row-major C = A B is the column-major C^T = B^T A^T, so B is passed first and
 * nothing is transposed. Batch dimensions (equal on both operands) are one strided batch;
 * a fused activation is a kernel of ours after it. Float32 (CUBLAS_DEFAULT_MATH: no TF32). */
#include <limits.h>

#include "gpu_internal.h"

rg_gpu_status gpu_matmul_launch(rg_gpu *g, const rg_gpu_op *op, float *const *in, float *const *out,
                                char *msg, size_t n) {
  const rg_gpu_shape *a = &op->in[0], *b = &op->in[1];
  int r = a->rank;
  int64_t batch = 1;
  for (int i = 0; i < r - 2; i++)
    batch *= a->dim[i];
  int64_t m = a->dim[r - 2], k = a->dim[r - 1], nn = b->dim[r - 1];
  if (m > INT_MAX || k > INT_MAX || nn > INT_MAX || batch > INT_MAX) return RG_GPU_UNSUPPORTED;
  const float one = 1.0f, zero = 0.0f;
  if (batch == 1)
    GPU_BLAS(cublasSgemm, (g->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)nn, (int)m, (int)k, &one, in[1],
                           (int)nn, in[0], (int)k, &zero, out[0], (int)nn));
  else
    GPU_BLAS(cublasSgemmStridedBatched,
             (g->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)nn, (int)m, (int)k, &one, in[1], (int)nn,
              k * nn, in[0], (int)k, m * k, &zero, out[0], (int)nn, m * nn, (int)batch));
  return op->act == RG_GPU_ACT_NONE ? RG_GPU_OK
                                    : gpu_act(g, op, op->act, out[0], batch * m * nn, msg, n);
}
