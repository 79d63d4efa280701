/* optimizer/onnx/import.h: ONNX models into model graphs (model.h).
 *
 * Opsets 1 to 21 of the default domain, each operator read in its form at the model's opset
 * (before 7, only what onnxruntime runs; fewer operators become rule IR).
 * Operators of the rule vocabulary become IR nodes (Conv,
 * MatMul, Gemm, Relu/Tanh/Sigmoid, pooling, Add/Mul of equal shapes or along one axis, Concat,
 * Split, Transpose, Reshape/Flatten/Squeeze/Unsqueeze, Pad, Slice with constant arguments);
 * BatchNormalization after a Conv whose only reader it is folds into the Conv's weights and
 * bias; a node whose operands are all constants and that opaque.h evaluates is folded into a
 * weight (shape plumbing); every other node stays opaque, typed by opaque.h or by the model's
 * value_info. What graphopt does not model is kept as read, never refused: a value of another
 * element type, of a size 0 or a rank past RG_MAX_RANK, a sequence or map, a sparse initializer
 * is an opaque value (an initializer keeps its TensorProto); a node with subgraphs (If, Loop,
 * Scan: the values its bodies read from the graph are its operands), one that reads an opaque
 * value, one of another domain or whose types opaque.h cannot infer is an opaque node whose
 * outputs the model's declarations type, else opaque values; such nodes are not evaluated
 * (model.h: their why). What is an error names the file, the node and its operator: a file that
 * is not an ONNX model, a tensor nobody produces or two nodes produce, a cycle, a node naming no
 * output, data that does not fill its shape, a --dim name no graph input has, a vocabulary operator the model gets wrong (a MatMul's inner sizes, a Split's
 * sizes, a Transpose's perm).
 */
#ifndef RG_OPTIMIZER_IMPORT_H
#define RG_OPTIMIZER_IMPORT_H

#include "optimizer/model/model.h"

/* Symbolic dimensions (import_dims.c). A graph input's dimension without a value (a dim_param,
 * or neither value nor name) is imported at the value opts gives it (by name, or for one without
 * a name by its place), else at fallback (0: RG_IMPORT_DIM_DEFAULT), and recorded in the model (model.h's dims) so that export keeps it
 * symbolic. A name in opts that no graph input has is an error naming the names it has. In such
 * a model, shape plumbing that depends on the dimensions (Shape, and what is computed from it)
 * is not folded into weights: it stays as read, its values at these dimensions known to type
 * its readers; a Reshape, Flatten, Squeeze, Unsqueeze or Slice that becomes one IR node keeps
 * its ONNX form (model.h's form), and one that does nothing at these values stays as read. */
#define RG_IMPORT_DIM_DEFAULT 1
typedef struct {
  /* Values for named dimensions (dim_param) of the graph's inputs: "batch=1". */
  int n_dims;
  const char *const *dim_name;
  const int64_t *dim_value;
  int64_t fallback; /* the value of one no name gives (0: RG_IMPORT_DIM_DEFAULT) */
  /* Values of the dimensions without a name, in the order the graph's inputs declare them (each
   * its own unknown); those past n_unnamed take the fallback. */
  int n_unnamed;
  const int64_t *unnamed;
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
 * when NAME was given before, or when there are RG_IMPORT_MAX_DIMS already. */
rg_status rg_import_dims_add(rg_import_dims *d, const char *arg, rg_err *err) RG_MUST_CHECK;
/* The import options naming d's dimensions (d may be NULL: none). */
rg_import_opts rg_import_dims_opts(const rg_import_dims *d);

/* The model in the file at path (opts may be NULL); *out owned by the caller. Errors: RG_ERR_IO
 * (unreadable), RG_ERR_PARSE (not ONNX), RG_ERR_ARG (a construct not supported), RG_ERR_SHAPE
 * (operands that do not type), RG_ERR_LIMIT, RG_ERR_NOMEM; the message starts with the path.
 * Weights in side files (external data) are read from path's folder (rg_onnx_load_external); the
 * model lists those files (side_files), and export writes it with a side file too. */
rg_status rg_model_import(const char *path, const rg_import_opts *opts, rg_model **out,
                          rg_err *err) RG_MUST_CHECK;

/* The same for a model already in memory (name: for messages). */
rg_status rg_model_import_bytes(const char *name, const uint8_t *data, size_t len, const rg_import_opts *opts,
                                rg_model **out, rg_err *err) RG_MUST_CHECK;

#endif
