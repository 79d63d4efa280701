/* optimizer/onnx/import_internal.h: the importer's state, shared by import.c (the graph: names,
 * order, outputs, opaque nodes), import_values.c (initializers, inputs, declared types),
 * import_scope.c (what subgraphs read), import_ops.c (operators of the rule vocabulary) and
 * import_form.c (those nodes as read, for export).
 * Internal to optimizer/. */
#ifndef RG_OPTIMIZER_IMPORT_INTERNAL_H
#define RG_OPTIMIZER_IMPORT_INTERNAL_H

#include "import.h"
#include "optimizer/proto/proto.h"
#include "onnx.pb-c.h"
#include "optimizer/opaque/opaque.h"

/* What a node maps to when it is not an operator of the rule vocabulary here (a positive
 * status: not an error). */
#define RG_IMPORT_OPAQUE 1

/* A named tensor of the ONNX graph. */
typedef struct {
  rg_ref ref;
  rg_elem elem; /* float or int64 where typed; RG_ELEM_UNDEFINED for an opaque value (model.h) */
} rg_ival;

typedef struct {
  rg_model *m;
  const char *path;
  const Onnx__GraphProto *gr;
  int64_t opset;
  rg_names names; /* tensor name -> index into val */
  rg_ival *val;
  size_t n_val, cap_val;
  rg_names producer; /* tensor name -> the node that produces it */
  rg_names readers;  /* tensor name -> how many node operands and graph outputs read it */
  rg_names declared; /* tensor name -> its value_info i, or graph output n_value_info + i (made on first use) */
  int32_t *fold_into; /* [node]: the node planned to fold into it (a BatchNormalization into its
                       * Conv, a bias Add into its MatMul), or -1 */
  bool *folded;       /* [node]: folded into the node before it, which computes both */
  const Onnx__NodeProto *node; /* the node being imported, for messages */
  int node_k;
  const char *about; /* else the tensor being imported: messages name the first node that reads it */
  int32_t fresh; /* counter for the names of new weights */
  const char ***implicit; /* [node]: the names its subgraphs read from the graph (import_scope.c) */
  int32_t *n_implicit;    /* [node]: how many */
  rg_names known;  /* with symbolic dims: tensor name -> index into kval (plumbing kept as read) */
  double **kval;   /* its values at the dims imported (numel of its shape) */
  size_t n_known, cap_known;
} rg_importer;

/* An error about the node being imported: "PATH: node 'N' (OP): ...". */
rg_status rg_import_fail(rg_importer *im, rg_err *err, rg_status st, const char *fmt, ...) RG_PRINTF(4, 5);
/* The value called name, or NULL. */
const rg_ival *rg_import_get(const rg_importer *im, const char *name);
/* Names a value (a node's output); an error when the name is taken. */
rg_status rg_import_set(rg_importer *im, const char *name, rg_ref ref, rg_elem elem, rg_err *err) RG_MUST_CHECK;
/* Adds an IR node of the rule vocabulary (params: its slots, in order) over in[0..n_in). */
rg_status rg_import_node(rg_importer *im, rg_op op, const int32_t *params, const rg_ref *in, int n_in,
                         rg_ref *out, rg_err *err) RG_MUST_CHECK;
/* A new weight named after hint, with data (owned from here on, also on failure). */
rg_status rg_import_weight(rg_importer *im, const char *hint, rg_elem elem, const rg_shape *shape, void *data,
                           rg_ref *out, rg_err *err) RG_MUST_CHECK;
/* The data of a value that is a weight (float or int64_t by its element type), or NULL. */
const void *rg_import_const(const rg_importer *im, rg_ref r);

/* Maps node n onto the rule vocabulary, naming its outputs: RG_OK, RG_IMPORT_OPAQUE when it is
 * not (or not at these operands) one of its operators, or an error. */
rg_status rg_import_map(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) RG_MUST_CHECK;
/* Why node n, an operator of the rule vocabulary that only rg_import_map types (Relu, Tanh,
 * Sigmoid, Split, Transpose), did not map (in buf, or a constant string); NULL when it is none
 * of those or nothing is known to be wrong. For messages. */
const char *rg_import_why_unmapped(const rg_importer *im, const Onnx__NodeProto *n, char *buf, size_t len);
/* Decides which nodes may fold into the node before them (fills fold_into and folded): a
 * BatchNormalization into its Conv, and the Add of a bias along the last axis into a MatMul of
 * rank > 2, whose product import flattens to 2-D (the bias goes on the 2-D product, where the
 * merge rules see a Gemm's bias). Before any node is imported; the fold happens when the first
 * node's operands allow it. */
void rg_import_plan_folds(rg_importer *im);
/* Which operand of n (the node being imported) the node folded into it produced, or -1 when n is
 * not folded. */
int rg_import_folded_operand(const rg_importer *im, const Onnx__NodeProto *n);

/* ---- values (import_values.c) ---- */

/* The initializers (typed weights, or opaque ones kept as read), sparse initializers (opaque
 * weights) and the other graph inputs (dims named in opts take their values there). */
rg_status rg_import_inputs(rg_importer *im, const rg_import_opts *opts, rg_err *err) RG_MUST_CHECK;
/* A typed weight called name from tensor t (float or int64: rg_onnx_tensor_typed), its data
 * taken out of t where it can be. */
rg_status rg_import_add_weight(rg_importer *im, Onnx__TensorProto *t, const char *name, rg_err *err) RG_MUST_CHECK;
/* The type vi declares into *t: RG_OK and t->present where it is typed (dims named in opts
 * take their values there); RG_IMPORT_OPAQUE with why (len bytes: "element type int32") and
 * t->elem as far as declared where it is not; for a graph input (input), a named or unnamed
 * dimension without a value takes rg_import_dim_value's. */
rg_status rg_import_declared_type(rg_importer *im, const Onnx__ValueInfoProto *vi, const rg_import_opts *opts,
                                  bool input, rg_tinfo *t, char *why, size_t len, rg_err *err) RG_MUST_CHECK;
/* The type the model declares for tensor name (its value_info, else a graph output), as
 * rg_import_declared_type gives it (t->present: typed; not when none is declared). */
rg_status rg_import_declared(rg_importer *im, const char *name, rg_tinfo *t, rg_err *err) RG_MUST_CHECK;
/* An opaque value r called name, for messages: "'x', an input of element type int32". */
void rg_import_describe(const rg_importer *im, rg_ref r, const char *name, char *buf, size_t len);

/* ---- symbolic dimensions (import_dims.c) ---- */

/* The value of graph input `input`'s dimension on axis (param: its dim_param, or NULL): opts's
 * for param, else the fallback; recorded in the model's dims. */
rg_status rg_import_dim_value(rg_importer *im, const rg_import_opts *opts, const char *input, size_t axis,
                              const char *param, int64_t *value, rg_err *err) RG_MUST_CHECK;
/* Every name opts gives is a dimension of a graph input: else an error naming the model's. */
rg_status rg_import_dims_check(rg_importer *im, const rg_import_opts *opts, rg_err *err) RG_MUST_CHECK;
/* Whether the model has symbolic dimensions (import keeps what depends on them as read). */
bool rg_import_dynamic(const rg_importer *im);
/* The values of tensor name at the dims imported when it is plumbing kept as read, or NULL. */
const double *rg_import_known(const rg_importer *im, const char *name);
/* Records the values (taken) of tensor name, plumbing kept as read. */
rg_status rg_import_know(rg_importer *im, const char *name, double *values, rg_err *err) RG_MUST_CHECK;
void rg_import_known_free(rg_importer *im);
/* Whether a Reshape-like or Slice node that made r from x may stay IR in a model with symbolic
 * dims: r is one reshape or slice over x (always true without symbolic dims). */
bool rg_import_one_node(const rg_importer *im, rg_ref r, rg_ref x);

/* ---- nodes as read (import_form.c) ---- */

/* Node n, just mapped onto the rule vocabulary, recorded as read for export (model.h's form)
 * where its outputs are one IR node's that computes it from what it reads. */
rg_status rg_import_form(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) RG_MUST_CHECK;

/* ---- what onnxruntime does not run (import_runtime.c) ---- */

/* Why onnxruntime's CPU provider cannot run node n (its operands imported), into why (len bytes),
 * or NULL: import refuses such a model. */
const char *rg_import_runtime_refuses(const rg_importer *im, const Onnx__NodeProto *n, char *why, size_t len);

/* ---- subgraphs (import_scope.c) ---- */

/* Whether node n has an attribute that is a graph (*attr: its name). */
bool rg_import_has_subgraph(const Onnx__NodeProto *n, const char **attr);
/* For every node with subgraphs, the names they read from the graph (not defined inside
 * them), each once: im->implicit[k], im->n_implicit[k]; before the graph is indexed. */
rg_status rg_import_scopes(rg_importer *im, rg_err *err) RG_MUST_CHECK;
void rg_import_scopes_free(rg_importer *im);
/* The operands of node k: its inputs, then the names its subgraphs read; operand j's name. */
size_t rg_import_n_operands(const rg_importer *im, size_t k);
const char *rg_import_operand(const rg_importer *im, size_t k, size_t j);

#endif
