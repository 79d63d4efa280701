/* optimizer/onnx/export_internal.h: the exporter's state, shared by export.c (what is written and in
 * which order, names, constants, opaque nodes), export_model.c (the model message around them:
 * what it carries over from the model read), export_nodes.c (one IR node as ONNX nodes),
 * export_form.c (nodes written as read) and export_order.c (in the order read).
 * Internal to optimizer/. */
#ifndef RG_OPTIMIZER_EXPORT_INTERNAL_H
#define RG_OPTIMIZER_EXPORT_INTERNAL_H

#include "export.h"
#include "optimizer/proto/proto.h"
#include "onnx.pb-c.h"

enum {
  RG_FUSE_OPERAND = 1, /* a bias: its operand (a Conv or 2-D MatMul) takes it as bias */
  RG_FUSE_PADS = 2,    /* a Conv or average pool: the zero pads before it become its pads */
  RG_FUSE_MATMUL = 4,  /* a reshape back from a 2-D product of a flattened operand: one MatMul */
  RG_FUSE_TRANS_B = 8, /* a 2-D product (or the bias Gemm over it) reads its weight transposed: transB */
};

typedef struct {
  const rg_model *m;
  int32_t n;                      /* graph nodes */
  char *(*name)[RG_MAX_OUTPUTS];  /* [node][out]: the ONNX tensor holding the value, once written */
  uint8_t *is_const;              /* [node]: computed from weights alone (folded into an initializer) */
  int32_t *uses;                  /* [node]: readers among the nodes written */
  int32_t *absorbed;              /* [node]: readers that fold it into themselves */
  uint8_t *fuse;                  /* [node]: RG_FUSE_* it does to its operands */
  double *(*cval)[RG_MAX_OUTPUTS]; /* [node][out]: values of constant operator nodes */
  rg_names taken;                 /* every tensor name in use */
  int32_t fresh;
  Onnx__NodeProto **node;
  size_t n_node, cap_node;
  Onnx__TensorProto **init;
  size_t n_init, cap_init;
  Onnx__SparseTensorProto **sparse; /* sparse initializers, as read */
  size_t n_sparse, cap_sparse;
  bool borrow;              /* weights' initializers borrow the model's data (writing a file) */
  Onnx__TensorProto **view; /* those that do, to give it back before freeing */
  size_t n_view, cap_view;
  ProtobufCMessage **lent;  /* with borrow, opaque weights as read: messages sharing the source's */
  size_t n_lent, cap_lent;
  rg_names pinned;          /* names written by an Identity for what a subgraph reads */
  int32_t *formed;          /* [node]: 1 + the form (model.h) it is written as, or 0 */
  rg_names claimed;         /* names the outputs and subgraphs give values: name -> node * RG_MAX_OUTPUTS + out */
} rg_exporter;

/* A new tensor name from hint (unique in the model); NULL when out of memory. */
char *rg_export_fresh(rg_exporter *ex, const char *hint);
/* Appends a copy of node src reading in[0..src's inputs) and, where out is not NULL, naming
 * out[0..src's outputs) (names copied). */
rg_status rg_export_copy_node(rg_exporter *ex, const Onnx__NodeProto *src, const char *const *in,
                              const char *const *out, rg_err *err) RG_MUST_CHECK;
/* Appends a node op(in[0..n_in)) -> out[0..n_out) (names copied); the node, or NULL. */
Onnx__NodeProto *rg_export_node(rg_exporter *ex, const char *op, const char *const *in, int n_in,
                                const char *const *out, int n_out);
/* Attributes of a node just made; false when out of memory. */
bool rg_export_attr_int(Onnx__NodeProto *n, const char *name, int64_t v);
bool rg_export_attr_ints(Onnx__NodeProto *n, const char *name, const int64_t *v, int cnt);
/* An int64 initializer of the given values (rank 1); its name, or NULL. */
const char *rg_export_ints(rg_exporter *ex, const char *hint, const int64_t *v, int cnt);
/* An initializer of a value's data (float); its name, or NULL. */
const char *rg_export_init(rg_exporter *ex, const char *name, rg_elem elem, const rg_shape *s, const void *data);

/* Below opset 7: an error where a node written takes a version there that opset 7 superseded and
 * onnxruntime does not run (a rewrite made an Add, a Gemm, ...; export_nodes.c). */
rg_status rg_export_check_opset(const rg_exporter *ex, rg_err *err) RG_MUST_CHECK;
/* Writes IR node id (not an input, not constant) as ONNX nodes naming name[id][*]. */
rg_status rg_export_ir_node(rg_exporter *ex, int32_t id, rg_err *err) RG_MUST_CHECK;
/* Which nodes fold their operands into themselves (fuse, absorbed): a bias into the Conv or
 * Gemm before it, pads into a Conv or average pool, a weight's transpose into the Gemm
 * that reads it; once uses are counted, before constants are folded (an absorbed constant is
 * never computed) and anything is written. */
void rg_export_plan_fusions(rg_exporter *ex, const int32_t *order, int32_t n_order);
/* Writes constant node id (a weight or a folded value) as initializers, once. */
rg_status rg_export_constant(rg_exporter *ex, int32_t id, rg_err *err) RG_MUST_CHECK;
/* The float values of a constant value (a weight's, or a folded node's) into a new array. */
float *rg_export_const_floats(const rg_exporter *ex, rg_ref r);

/* ---- nodes as read (export_form.c) ---- */

/* Which nodes are written as read (formed): each IR node import made of an ONNX node (one made
 * of weights alone too: written as read, not folded); once constants are marked, before nodes
 * are ordered. */
void rg_export_plan_forms(rg_exporter *ex);
/* Once nodes are ordered and their readers counted: a node written as read whose IR another
 * node written reads inside it (a rewrite's, sharing the part) is written from its IR instead
 * (*dropped then: order again). */
rg_status rg_export_drop_shared_forms(rg_exporter *ex, bool *dropped, rg_err *err) RG_MUST_CHECK;
/* The operands of a node written as read: the values its inputs name (into out); their count. */
int rg_export_form_deps(const rg_exporter *ex, int32_t id, rg_ref *out);
/* The most operands a node written as read has. */
int rg_export_form_max_deps(const rg_model *m);
/* IR node id (not an input, not fused) written as the ONNX node import read it
 * from where it is formed; in a model with symbolic dims a reshape or slice a rewrite rebuilt
 * over an operand of the shape one read had, in that one's form (what the node read computes at
 * every value of the dims): *done then; else nothing written (the caller writes the IR node).
 * A node written as read names its outputs as read, where no output or subgraph's name is
 * another value's. */
rg_status rg_export_as_read(rg_exporter *ex, int32_t id, bool *done, rg_err *err) RG_MUST_CHECK;

/* ---- node order (export_order.c) ---- */

/* Puts the nodes written (in dependency order) in the order of the model read where that order
 * allows: each node of the model read at its place there, a new node just after the latest node
 * it reads; a node's subgraphs' reads count as its own. */
rg_status rg_export_source_order(rg_exporter *ex, rg_err *err) RG_MUST_CHECK;

/* ---- the model message (export_model.c) ---- */

/* Every name the written model must not give a new tensor (ex->taken): the model's variables
 * and outputs, the names opaque nodes' subgraphs read, every tensor name of the model read. */
rg_status rg_export_reserve(rg_exporter *ex, rg_err *err) RG_MUST_CHECK;
/* The model message around ex's nodes and initializers (moved into it), carrying over from the
 * model read what graphopt does not model; on failure, ex's loans are given back. */
rg_status rg_export_assemble(rg_exporter *ex, Onnx__ModelProto **out, rg_err *err) RG_MUST_CHECK;
/* Gives back what ex's messages borrow from the model (views' data, lent messages), wherever
 * those messages are now; they can be freed after. */
void rg_export_give_back(rg_exporter *ex);

/* ---- the file (export_external.c) ---- */

/* Writes mp, m's message, to path, its large tensors in a side file where o says so
 * (rg_model_export_with); mp is as it was after. */
rg_status rg_export_write(const rg_model *m, Onnx__ModelProto *mp, const char *path, const rg_export_opts *o,
                          rg_err *err) RG_MUST_CHECK;

#endif
