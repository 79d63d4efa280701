/* optimizer/onnx/import_internal.h: the importer's state, shared by import.c (the graph: values,
 * order, inputs, outputs, opaque nodes) and import_ops.c (operators of the rule vocabulary).
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
  rg_elem elem;
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
  int32_t *fold_into; /* [node]: the BatchNormalization folded into this Conv, or -1 */
  bool *folded;       /* [node]: a BatchNormalization folded into its Conv */
  const Onnx__NodeProto *node; /* the node being imported, for messages */
  int node_k;
  const char *about; /* else the tensor being imported: messages name the first node that reads it */
  int32_t fresh; /* counter for the names of new weights */
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
/* Decides which BatchNormalization nodes fold into the Conv before them (fills fold_into and
 * folded); before any node is imported. */
void rg_import_plan_folds(rg_importer *im);

#endif
