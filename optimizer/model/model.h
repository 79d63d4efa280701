/* optimizer/model/model.h: model graphs: the rule IR's graph over a model's values, and what rules do
 * not see: the data of its weights and its opaque nodes.
 *
 * Every tensor of a model is a value: an rg_ref into g. The tensor variables of g are the
 * model's inputs, its weights (initializers and constants, with their data) and the outputs of
 * its opaque nodes (ONNX operators outside the rule vocabulary, kept with their ONNX node to be
 * written back unchanged), so a rule sees an opaque node's output as a variable. Every value an
 * IR node reads is typed, its shape known: import infers them (ir/shape.h for the rule
 * vocabulary, opaque.h for the rest) or takes them from the model's declarations; what it cannot
 * type is an opaque value (rg_mvar), which only opaque nodes read. Values are used in dependency
 * order: an opaque node's inputs are values defined before it, and g's node ids are a
 * topological order of the rest.
 *
 * The room optimizer/model/ (the ground floor of the optimizer: every other room builds on it):
 * model.c         model graphs made, grown and freed, weights, counts
 * model_roots.c   a model seen from other roots: what a rewrite changes, counts from roots
 */
#ifndef RG_OPTIMIZER_MODEL_H
#define RG_OPTIMIZER_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "ir/ir.h"

/* Element types, as ONNX numbers them (TensorProto.DataType; a number past these is kept as
 * read too). Rules and the evaluator know two: float (activations and weights) and int64
 * (indices and shapes); a value of any other type is an opaque value (below). */
typedef enum {
  RG_ELEM_UNDEFINED = 0, /* not known: an output whose type graphopt cannot infer, a sequence or map */
  RG_ELEM_FLOAT = 1, RG_ELEM_UINT8 = 2, RG_ELEM_INT8 = 3, RG_ELEM_UINT16 = 4, RG_ELEM_INT16 = 5,
  RG_ELEM_INT32 = 6, RG_ELEM_INT64 = 7, RG_ELEM_STRING = 8, RG_ELEM_BOOL = 9, RG_ELEM_FLOAT16 = 10,
  RG_ELEM_DOUBLE = 11, RG_ELEM_UINT32 = 12, RG_ELEM_UINT64 = 13, RG_ELEM_COMPLEX64 = 14,
  RG_ELEM_COMPLEX128 = 15, RG_ELEM_BFLOAT16 = 16
} rg_elem;

typedef enum { RG_MVAR_INPUT, RG_MVAR_WEIGHT, RG_MVAR_OPAQUE } rg_mvar_kind;

struct Onnx__NodeProto;
struct Onnx__TensorProto;
struct Onnx__SparseTensorProto;

/* What a tensor variable of g is in the model (index: the variable's). A typed value is float
 * or int64 of a shape rg_shape holds: IR nodes may read it and the evaluator computes it. Any
 * other value is an opaque value, kept as read: of another element type (elem says which), of
 * a shape rg_shape cannot hold (a size 0, a rank past RG_MAX_RANK), or of a type graphopt does
 * not know (RG_ELEM_UNDEFINED: an output it cannot type, a sequence, a map). No IR node reads
 * one, only opaque nodes; its shape field is empty (rank 0: graphopt holds no shape for it, and
 * what reads shapes reads typed values only), and evaluating it is an error. */
typedef struct {
  rg_mvar_kind kind;
  rg_elem elem;
  rg_shape shape;
  void *data;          /* RG_MVAR_WEIGHT, typed: numel values (float or int64_t), owned */
  int32_t opaque, out; /* RG_MVAR_OPAQUE: the node that makes it, and which output */
  bool typed;
  char *why; /* an opaque input or weight: why graphopt does not model it (owned) */
  /* an opaque weight as read, in the model's source (which keeps its data): an initializer, or
   * a sparse initializer */
  const struct Onnx__TensorProto *tensor;
  const struct Onnx__SparseTensorProto *sparse;
} rg_mvar;

/* An operator rules do not know, or one graphopt does not model here (control flow, an
 * operator that reads an opaque value): kept as read, written back as read. */
typedef struct {
  struct Onnx__NodeProto *node; /* its ONNX node, owned: attributes (subgraphs too), op_type, domain */
  int n_in, n_out;
  rg_ref *in;      /* its operands ({-1, 0} for an omitted optional input), then from
                    * node->n_input on the values of the graph its subgraphs read */
  int32_t *out;    /* the tensor variables its outputs are */
  char **implicit; /* the names its subgraphs read in[node->n_input ..] by (owned; NULL: none) */
  char *why;       /* why graphopt does not evaluate it ("node 'N' (OP): ..."; owned), or NULL */
} rg_opaque;

/* A symbolic dimension of a graph input (a dim_param, or a dimension with neither value nor
 * name) and the value the model was imported at: --dim's, else RG_IMPORT_DIM_DEFAULT (given
 * false). The written model keeps it symbolic (export.h). */
typedef struct {
  char *name;  /* the dim_param; "" for an unnamed one (owned) */
  char *input; /* the graph input it is a dimension of (owned) */
  int axis;
  int64_t value;
  bool given;
} rg_model_dim;

/* A node of the rule vocabulary as import read it: the IR node id computes its outputs (ONNX
 * output j is id's output out[j], -1 for an unnamed one) from the values its inputs name
 * (in[k]; {-1, 0} for an omitted one). Export writes an untouched node as read (its name,
 * attributes, doc string, output names: what the model had, and what onnxruntime fuses the way
 * it did) wherever the graph still computes id; a rewrite that changes what id reads makes
 * another node, written from the IR. In a model with symbolic dimensions a reshape or slice is
 * also written in the form of one read over an operand of the same shape, so that what the
 * model computes at other values is what it read. Import makes none for what maps onto an
 * operand's value (an Identity); a Conv with a BatchNormalization folded into its IR, or a MatMul
 * with its bias Add, is one form of the two nodes (the first's inputs, then the second's but the
 * one the first makes). */
typedef struct {
  const struct Onnx__NodeProto *node; /* in the model's source (borrowed) */
  const struct Onnx__NodeProto *then; /* a node folded into node, reading it; or NULL */
  int32_t id;                         /* the IR node */
  int n_in, n_out;
  rg_ref *in;   /* owned */
  int8_t *out;  /* owned (then's outputs where there is one) */
} rg_model_form;

typedef struct {
  rg_graph *g;
  rg_shape (*shape)[RG_MAX_OUTPUTS]; /* [node]: the shape of each output, inferred when added */
  int32_t cap_shape;
  rg_mvar *var; /* [n_var], n_var == rg_graph_n_tvars(g) */
  int32_t n_var, cap_var;
  rg_opaque *op;
  int32_t n_op, cap_op;
  int32_t n_out;
  rg_ref *out;       /* the model's outputs, in order */
  char **out_name;   /* and their names */
  int64_t opset;     /* of the default domain */
  int64_t ir_version;
  struct Onnx__ModelProto *source; /* the model as read (opset imports, metadata), owned */
  char **side_files; /* the files its external data was read from (real paths, owned) */
  int32_t n_side_files;
  rg_model_dim *dims; /* its graph inputs' symbolic dimensions, at the values import gave them */
  int32_t n_dims;
  rg_model_form *form; /* the vocabulary nodes as read, in import order */
  int32_t n_form;
} rg_model;

/* A new empty model (NULL when out of memory); free with rg_model_free. */
rg_model *rg_model_new(void);
void rg_model_free(rg_model *m);

/* Adds a tensor variable called name with this kind, element type and shape (data: owned from
 * here on, for weights); its index, or a negative status (RG_ERR_ARG for a name taken). */
int32_t rg_model_add_var(rg_model *m, const char *name, rg_mvar_kind kind, rg_elem elem,
                         const rg_shape *shape, void *data);
/* Adds an opaque value (not typed) called name: elem as far as it is known, why it is not
 * modelled (copied; for inputs and weights; NULL for an opaque node's output, whose node says
 * why). Its index, or a negative status as rg_model_add_var's. */
int32_t rg_model_add_opaque_var(rg_model *m, const char *name, rg_mvar_kind kind, rg_elem elem, const char *why);
/* The value of tensor variable v (its input node). */
rg_ref rg_model_var_ref(rg_model *m, int32_t v);
/* Adds (or finds) a node of the rule vocabulary over values of m, its shapes inferred from its
 * operands'; *out is its output `out_index`. RG_ERR_SHAPE (the operator's message) when it does
 * not type, RG_ERR_NOMEM. */
rg_status rg_model_add_node(rg_model *m, const rg_node *nd, int out_index, rg_ref *out,
                            rg_err *err) RG_MUST_CHECK;

/* The shape of a value. */
const rg_shape *rg_model_shape(const rg_model *m, rg_ref r);

/* The tensor variable a value is, or -1 when it is an operator's result. */
int32_t rg_model_var_of(const rg_model *m, rg_ref r);

/* The values node id's value is computed from into out (room for rg_model_max_deps(m)): an
 * operator's operands, an opaque node's operands for the variables it makes, none for inputs and
 * weights; their count. */
int rg_model_deps(const rg_model *m, int32_t id, rg_ref *out);
int rg_model_max_deps(const rg_model *m);

/* A rewritten model is m's graph seen from other roots: the values its outputs are and the
 * values its opaque nodes read. Roots are laid out outputs first, then each opaque node's
 * operands in order ({-1, 0} for an omitted optional operand). */
int32_t rg_model_n_roots(const rg_model *m);
void rg_model_roots(const rg_model *m, rg_ref *roots);
/* A model that shares m's graph, shapes, weights and opaque nodes but has these roots, for
 * evaluating or exporting a rewritten model; NULL when out of memory. Free it with
 * rg_model_view_free (which frees only the view) before m's graph grows again. */
rg_model *rg_model_view(const rg_model *m, const rg_ref *roots);
void rg_model_view_free(rg_model *view);
/* first[k]: where opaque node k's operands start among the roots (rg_model_roots' layout). */
void rg_model_opaque_firsts(const rg_model *m, int32_t *first);
/* Whether the values m seen from roots needs form no cycle. A rewrite can make one through an
 * opaque node: a value its operands need computed from a value its outputs feed (the searches
 * see an opaque node's outputs as leaves). False too when out of memory. */
bool rg_model_acyclic(const rg_model *m, const rg_ref *roots);

/* weight_only[id] for every node of ids[0..n) (a set closed under operands in a topological
 * order, e.g. from rg_graph_reach): whether every leaf under it is a weight (or there is none,
 * as under Iconv), so export folds it into an initializer and it never runs. */
void rg_model_weight_only(const rg_model *m, const int32_t *ids, int32_t n, uint8_t *weight_only);

/* Counts of a model's operators: of the rule vocabulary (by op) reachable from its outputs and
 * not weight-only (the ones that run), and its opaque nodes. */
typedef struct {
  int32_t by_op[RG_OP_COUNT];
  int32_t opaque;
  int32_t not_evaluated; /* of those, the ones graphopt does not evaluate (rg_opaque's why) */
  int32_t opaque_values; /* values kept as read (not typed) among what the outputs need */
  int64_t weights;       /* typed weight elements */
} rg_model_counts;
void rg_model_count(const rg_model *m, rg_model_counts *c);

/* The same for m seen from roots (model_roots.c); RG_ERR_NOMEM when the view cannot be made. */
rg_status rg_model_count_roots(const rg_model *m, const rg_ref *roots, rg_model_counts *c, rg_err *err) RG_MUST_CHECK;

#endif
