/* optimizer/opaque/opaque_internal.h: the rows of opaque.h's operator table and what they share;
 * opaque.c holds the elementwise, reduction and shape operators, opaque_nn.c the windows and
 * products of neural networks. Internal to optimizer/. */
#ifndef RG_OPTIMIZER_OPAQUE_INTERNAL_H
#define RG_OPTIMIZER_OPAQUE_INTERNAL_H

#include "opaque.h"

/* An error about the call's node: "node 'N' (OP): what", or for a node without a name "the OP
 * node making 'T': what" (rg_onnx_node_label's, without an index: the call does not know it). */
rg_status rg_opaque_fail(const rg_opaque_call *c, rg_err *err, const char *what);

typedef rg_status (*rg_opaque_type_fn)(const rg_opaque_call *, const double *const *, rg_tinfo *, rg_err *);
typedef rg_status (*rg_opaque_eval_fn)(const rg_opaque_call *, const double *const *, const rg_tinfo *, double **,
                                       rg_err *);
typedef struct {
  const char *op;
  int min_in; /* operands that must be present */
  rg_opaque_type_fn type;
  rg_opaque_eval_fn eval;
} rg_opaque_row;

extern const rg_opaque_row rg_opaque_nn_rows[];
extern const int rg_opaque_nn_count;

#endif
