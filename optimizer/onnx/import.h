/* optimizer/onnx/import.h: ONNX models into model graphs (model.h).
 *
 * Opsets 7 to 21 of the default domain, each operator read in its form at the model's opset.
 * Operators of the rule vocabulary become IR nodes (Conv,
 * MatMul, Gemm, Relu/Tanh/Sigmoid, pooling, Add/Mul of equal shapes or along one axis, Concat,
 * Split, Transpose, Reshape/Flatten/Squeeze/Unsqueeze, Pad, Slice with constant arguments);
 * BatchNormalization after a Conv whose only reader it is folds into the Conv's weights and
 * bias; a node whose operands are all constants and that opaque.h evaluates is folded into a
 * weight (shape plumbing); every other node stays opaque, typed by opaque.h or by the model's
 * value_info. Everything that cannot be imported is an error naming the file, the node and its
 * operator: a file that is not an ONNX model, a tensor nobody produces, a cycle, a dimension
 * without a value, control flow, a tensor of another element type than float and int64.
 */
#ifndef RG_OPTIMIZER_IMPORT_H
#define RG_OPTIMIZER_IMPORT_H

#include "optimizer/model/model.h"

typedef struct {
  /* Values for named dimensions (dim_param) of the graph's inputs: "batch=1". */
  int n_dims;
  const char *const *dim_name;
  const int64_t *dim_value;
} rg_import_opts;

/* Named dimensions as a command line gives them (--dim NAME=N, repeatable), kept for
 * rg_import_opts. */
#define RG_IMPORT_MAX_DIMS 16
typedef struct {
  int n;
  char name[RG_IMPORT_MAX_DIMS][64];
  const char *ptr[RG_IMPORT_MAX_DIMS];
  int64_t value[RG_IMPORT_MAX_DIMS];
} rg_import_dims;
/* Adds "NAME=N" (N from 1 to RG_MAX_DIM); RG_ERR_ARG saying what is wanted when it is not one,
 * or when there are RG_IMPORT_MAX_DIMS already. */
rg_status rg_import_dims_add(rg_import_dims *d, const char *arg, rg_err *err) RG_MUST_CHECK;
/* The import options naming d's dimensions (d may be NULL: none). */
rg_import_opts rg_import_dims_opts(const rg_import_dims *d);

/* The model in the file at path (opts may be NULL); *out owned by the caller. Errors: RG_ERR_IO
 * (unreadable), RG_ERR_PARSE (not ONNX), RG_ERR_ARG (a construct not supported), RG_ERR_SHAPE
 * (operands that do not type), RG_ERR_LIMIT, RG_ERR_NOMEM; the message starts with the path. */
rg_status rg_model_import(const char *path, const rg_import_opts *opts, rg_model **out,
                          rg_err *err) RG_MUST_CHECK;

/* The same for a model already in memory (name: for messages). */
rg_status rg_model_import_bytes(const char *name, const uint8_t *data, size_t len, const rg_import_opts *opts,
                                rg_model **out, rg_err *err) RG_MUST_CHECK;

#endif
