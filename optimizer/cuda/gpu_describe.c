/* optimizer/cuda/gpu_describe.c: rg_gpu_op in words, for messages, and element counts: plain C
 * shared by the CUDA build and the build without it. */
#include <stdio.h>

#include "cuda.h"

int64_t rg_gpu_numel(const rg_gpu_shape *s) {
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++)
    n *= s->dim[i];
  return n;
}

static const char *const kind_names[] = {
    "conv2d", "matmul", "poolmax", "poolavg", "relu",      "tanh", "sigmoid", "smul",   "ewadd",
    "ewmul",  "bias",   "concat",  "split",   "transpose", "pad",  "slice",   "reshape"};

static size_t put_shape(char *buf, size_t n, size_t at, const rg_gpu_shape *s) {
  for (int i = 0; i < s->rank && at < n; i++)
    at += (size_t)snprintf(buf + at, n - at, "%s%lld", i ? "x" : "", (long long)s->dim[i]);
  if (!s->rank && at < n) at += (size_t)snprintf(buf + at, n - at, "scalar");
  return at;
}

void rg_gpu_op_describe(const rg_gpu_op *op, char *buf, size_t n) {
  if (!n) return;
  unsigned k = (unsigned)op->kind;
  size_t at = (size_t)snprintf(buf, n, "%s",
                               k < sizeof kind_names / sizeof *kind_names ? kind_names[k] : "?");
  if (op->kind == RG_GPU_CONV && at < n)
    at += (size_t)snprintf(buf + at, n - at,
                           " stride %dx%d pad %dx%d dilation %dx%d groups %d act %d", op->sh,
                           op->sw, op->pad_h, op->pad_w, op->dh, op->dw, op->groups, op->act);
  if ((op->kind == RG_GPU_POOLMAX || op->kind == RG_GPU_POOLAVG) && at < n)
    at += (size_t)snprintf(buf + at, n - at, " window %dx%d stride %dx%d pad %dx%d act %d", op->kh,
                           op->kw, op->sh, op->sw, op->pad_h, op->pad_w, op->act);
  if (op->kind == RG_GPU_MATMUL && at < n)
    at += (size_t)snprintf(buf + at, n - at, " act %d", op->act);
  for (int i = 0; i < op->n_in && at < n; i++) {
    at += (size_t)snprintf(buf + at, n - at, i ? " " : " : ");
    at = put_shape(buf, n, at, &op->in[i]);
  }
  for (int i = 0; i < op->n_out && at < n; i++) {
    at += (size_t)snprintf(buf + at, n - at, i ? " " : " -> ");
    at = put_shape(buf, n, at, &op->out[i]);
  }
}
