/* tests/regress/bad/cuda_module_fake.c: two shared objects that are not graphopt's CUDA module,
 * for tests/regress/cuda_module.sh (built by tests/optimizer.cmake): with FAKE_NO_TABLE one
 * without the table's symbol (RG_GPU_MODULE_SYMBOL), else one whose table is of another interface
 * version (RG_GPU_ABI + 1) and has no entry points. The loader must refuse both, naming the
 * file, before it calls anything of them. */
#include "optimizer/cuda/cuda.h"

#ifdef FAKE_NO_TABLE
int rg_gpu_module_fake = 1;
#else
const rg_gpu_module rg_gpu_module_table = {
    .abi = RG_GPU_ABI + 1, .table_size = sizeof(rg_gpu_module), .op_size = sizeof(rg_gpu_op)};
#endif
