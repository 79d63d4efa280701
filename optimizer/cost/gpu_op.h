/* optimizer/cost/gpu_op.h: a node of the rule vocabulary as the GPU side describes an operator
 * (optimizer/cuda/cuda.h's rg_gpu_op): the bridge between the model graph and the CUDA code,
 * which never sees a model. */
#ifndef RG_OPTIMIZER_GPU_OP_H
#define RG_OPTIMIZER_GPU_OP_H

#include <stdbool.h>

#include "optimizer/cuda/cuda.h"
#include "optimizer/model/model.h"

/* op with resolved parameter slots params on operands of shapes in[0..n_in), its results of
 * shapes out[0..n_out), into *g; false for an operator the GPU side does not run (input,
 * enlarge, the constants: weight-only, folded by export) or shapes it cannot hold. */
bool rg_gpu_op_make(rg_op op, const int32_t *params, int n_in, const rg_shape *const *in, int n_out,
                    const rg_shape *out, rg_gpu_op *g);
/* Node id of m, at its operands' and results' shapes. */
bool rg_gpu_op_of_node(const rg_model *m, int32_t id, rg_gpu_op *g);

#endif
