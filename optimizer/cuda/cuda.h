/* optimizer/cuda/cuda.h: the GPU side of graphopt (optimizer/cuda/) as the C code sees it: one operator of the
 * rule vocabulary described in plain numbers (rg_gpu_op), timed on the GPU (cuDNN, cuBLAS or a
 * kernel of ours, warm-up then the median of CUDA-event timings) or run once on host data.
 *
 * This header includes no CUDA header and no other header of the tree, so that the C core
 * (cost/cost_cuda.c, the tests) and the .cu files (compiled as C++ by nvcc) share it as it is.
 * The C side turns a model node into an rg_gpu_op (cost/gpu_op.c); the CUDA side never sees a
 * model.
 *
 * The CUDA side is a loadable module (rulegen-cuda.so, the only thing linked with cudart, cuDNN
 * and cuBLAS), opened with dlopen the first time a device is asked for (rg_gpu_open: `--cost
 * cuda`), never at a program's start: the programs link none of the CUDA libraries. The module
 * exports one table (rg_gpu_module) under one symbol; the entry points below go through it.
 * The module is $RULEGEN_CUDA_MODULE when set; else, for programs of the build tree, the build's
 * own; else the installed one (PREFIX/lib/rulegen/rulegen-cuda.so, found from the running
 * program's folder as ir/datapath.h finds data). A missing module, a file that is not one, one
 * of another interface version and a build without CUDA are each RG_GPU_NODEV with a message
 * naming the file and what to do.
 *
 * The room optimizer/cuda/ (below cost/; it includes no other room):
 * gpu_load.c      the C side of the entry points: finds, opens and checks the module, once a
 *                 process (also what a build without CUDA says instead: RG_NO_CUDA_WHY)
 * gpu_describe.c  rg_gpu_op in words, element counts (plain C, in the programs and the module)
 * the module, rulegen-cuda.so (C++ by nvcc, where CMake found nvcc, cuDNN and cuBLAS):
 * gpu.cu          the device: opened, operators prepared, timed and run; the module's table
 * gpu_dnn.cu      cuDNN's operators;  gpu_blas.cu  cuBLAS's products;  kernels.cu  ours
 * gpu_internal.h  what the .cu files share, private here
 *
 * Errors are a code and a message written into the caller's buffer; every CUDA, cuDNN and
 * cuBLAS call is checked, and its failure names the call and the operator configuration. */
#ifndef RG_OPTIMIZER_CUDA_H
#define RG_OPTIMIZER_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RG_GPU_MAX_RANK 6
#define RG_GPU_MAX_IN 4
#define RG_GPU_MAX_OUT 2

typedef enum {
  RG_GPU_OK = 0,
  RG_GPU_UNSUPPORTED = 1, /* no GPU implementation of this configuration: not an error */
  RG_GPU_NODEV = -1,      /* no device, no usable module, or built without CUDA */
  RG_GPU_FAIL = -2,       /* a CUDA, cuDNN or cuBLAS call failed */
  RG_GPU_NOMEM = -3       /* device or host memory */
} rg_gpu_status;

/* The operators the GPU side knows. */
typedef enum {
  RG_GPU_CONV,
  RG_GPU_MATMUL,
  RG_GPU_POOLMAX,
  RG_GPU_POOLAVG,
  RG_GPU_RELU,
  RG_GPU_TANH,
  RG_GPU_SIGMOID, /* cuDNN activations */
  RG_GPU_SMUL,
  RG_GPU_EWADD,
  RG_GPU_EWMUL,
  RG_GPU_BIAS, /* kernels of ours from here */
  RG_GPU_CONCAT,
  RG_GPU_SPLIT,
  RG_GPU_TRANSPOSE,
  RG_GPU_PAD,
  RG_GPU_SLICE,
  RG_GPU_RESHAPE
} rg_gpu_kind;

/* Fused activations, numbered as ir/op.h's rg_act (gpu_op.c checks that they agree). */
typedef enum {
  RG_GPU_ACT_NONE = 0,
  RG_GPU_ACT_SIGMOID = 1,
  RG_GPU_ACT_RELU = 2,
  RG_GPU_ACT_TANH = 3
} rg_gpu_act;

typedef struct {
  int rank;
  int64_t dim[RG_GPU_MAX_RANK];
} rg_gpu_shape;

/* One operator at concrete shapes, float32, row-major (NCHW images, OIHW kernels). */
typedef struct {
  rg_gpu_kind kind;
  int act;                    /* conv, matmul, pooling: rg_gpu_act */
  int axis;                   /* bias, concat, split, pad, slice */
  int64_t begin, end;         /* slice: [begin, end) on axis; pad: zeros before and after */
  int perm[RG_GPU_MAX_RANK];  /* transpose: out.dim[i] = in.dim[perm[i]] */
  int kh, kw, sh, sw, dh, dw; /* conv (kh, kw from the kernel), pooling: window */
  int pad_h, pad_w;           /* conv, pooling: padding before (cuDNN pads symmetrically) */
  int groups;                 /* conv */
  int n_in, n_out;
  rg_gpu_shape in[RG_GPU_MAX_IN], out[RG_GPU_MAX_OUT];
} rg_gpu_op;

typedef struct rg_gpu rg_gpu;

/* Loads the module (the first call of the process; thread-safe), then probes device 0
 * (cudaGetDeviceCount first: RG_GPU_NODEV with "no CUDA device: cudaGetDeviceCount returned ...
 * (N devices)" when it fails or finds none) and makes the cuDNN and cuBLAS handles. A module
 * that cannot be used is RG_GPU_NODEV too, its message naming the file and what to do. */
rg_gpu_status rg_gpu_open(rg_gpu **out, char *msg, size_t n);
void rg_gpu_close(rg_gpu *g); /* g from rg_gpu_open, or NULL */
/* What timings depend on: "NVIDIA H100 80GB HBM3; 132 SMs; sm_90; driver 13.0; runtime 13.0;
 * cuDNN 9.x.y; cuBLAS 13.x.y" (valid while g is open). */
const char *rg_gpu_device(const rg_gpu *g);

/* Times op on device buffers of small numbers: warm-up runs, then the median of timed batches
 * of runs by CUDA events, per run, in microseconds (*repeats: how many runs were timed).
 * RG_GPU_UNSUPPORTED when op has no GPU implementation here (the caller prices it otherwise). */
rg_gpu_status rg_gpu_time(rg_gpu *g, const rg_gpu_op *op, double *us, int64_t *repeats, char *msg,
                          size_t n);

/* Runs op once on host inputs in[0..n_in) (row-major float32 of the in shapes) into host
 * out[0..n_out): what the tests compare with the CPU interpreter. */
rg_gpu_status rg_gpu_run(rg_gpu *g, const rg_gpu_op *op, const float *const *in, float *const *out,
                         char *msg, size_t n);

/* The module's table: what rulegen-cuda.so exports under RG_GPU_MODULE_SYMBOL, and the C side
 * calls through (each entry point above, but for the two plain-C ones below). abi comes first
 * and stays first in every version, so that any module's can be read; the C side uses the table
 * only when abi is RG_GPU_ABI and the sizes are this header's. Bump RG_GPU_ABI whenever this
 * header's types, the table or what an entry point means change. */
#define RG_GPU_ABI 1
#define RG_GPU_MODULE_SYMBOL "rg_gpu_module_table"
typedef struct {
  uint32_t abi;        /* RG_GPU_ABI of the header the module was built with */
  uint32_t table_size; /* sizeof(rg_gpu_module) there */
  uint32_t op_size;    /* sizeof(rg_gpu_op) there */
  rg_gpu_status (*open)(rg_gpu **out, char *msg, size_t n);
  void (*close)(rg_gpu *g);
  const char *(*device)(const rg_gpu *g);
  rg_gpu_status (*time)(rg_gpu *g, const rg_gpu_op *op, double *us, int64_t *repeats, char *msg,
                        size_t n);
  rg_gpu_status (*run)(rg_gpu *g, const rg_gpu_op *op, const float *const *in, float *const *out,
                       char *msg, size_t n);
} rg_gpu_module;

/* Defined in the module only (gpu.cu), the one symbol it exports; the C side finds it with
 * dlsym(RG_GPU_MODULE_SYMBOL). */
extern __attribute__((visibility("default"))) const rg_gpu_module rg_gpu_module_table;

/* The element count of s. */
int64_t rg_gpu_numel(const rg_gpu_shape *s);
/* "conv2d act=2 ... : 1x64x56x56 64x64x3x3 -> 1x64x56x56": op in words, for messages. */
void rg_gpu_op_describe(const rg_gpu_op *op, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
