/* optimizer/opaque/opaque.h: the ONNX operators outside the rule vocabulary that graphopt still knows:
 * their output types (ONNX's shape rules) and their values in float64, for the operators the
 * model zoo uses (Softmax, the LayerNorm and GELU pieces, Gather, broadcasting arithmetic, shape
 * plumbing before it is folded) and a few more. An operator not listed here can be kept only
 * where its output types are declared (value_info); it cannot be evaluated.
 *
 * Values travel as float64 whatever their element type (int64 indices and shapes are exact up
 * to 2^53). Operands that are constants come with their values, so that shape plumbing (Shape,
 * Reshape targets, Unsqueeze axes as inputs) types and folds. Errors start with the node's
 * label, rg_onnx_node_label's without an index (the call does not know it).
 *
 * The room optimizer/opaque/ (above model/ and proto/):
 * opaque.c        the operator table; elementwise, reduction and shape operators
 * opaque_nn.c     windows and products the rule vocabulary does not cover (convolution and
 *                 pooling over 1 to 3 spatial axes, batched products)
 * kinds.c         a model's opaque nodes by operator, for graphopt info
 * legacy.c        the operators' forms at opsets 1 to 6: which read as at opset 7
 * opaque_internal.h: the table's rows and what they share, private here
 */
#ifndef RG_OPTIMIZER_OPAQUE_H
#define RG_OPTIMIZER_OPAQUE_H

#include "optimizer/model/model.h"
#include "onnx.pb-c.h"

typedef struct {
  rg_elem elem;
  rg_shape shape;
  bool present; /* an omitted optional operand is not */
} rg_tinfo;

/* A float64 value as an integer without undefined behaviour: NaN and values past +-2^62 become
 * -2^62, which every range check refuses (constants from a model are untrusted). */
static inline int64_t rg_to_int(double v) {
  return v == v && v > -4.6e18 && v < 4.6e18 ? (int64_t)v : INT64_MIN / 2;
}

/* Whether op_type (default domain) is one this file shapes and evaluates. */
bool rg_opaque_known(const char *op_type);

/* An opaque node as both functions see it: the node, the model's opset (Softmax and the
 * reductions changed meaning at 13), its operands' types. */
typedef struct {
  const Onnx__NodeProto *node;
  int64_t opset;
  int n_in, n_out;
  const rg_tinfo *in;
} rg_opaque_call;

/* Why node n (of the default domain) at opset (before 7) is not read as at opset 7, into buf
 * (len bytes), or NULL where its form there means what 7's does or is read as it is (Reshape's
 * shape attribute; legacy.c): Add's `broadcast`, BatchNormalization's training mode, ... are kept
 * as read. */
const char *rg_opaque_legacy_why(const Onnx__NodeProto *n, int64_t opset, char *buf, size_t len);

/* Where the model's opset reads an earlier version of n's operator than opset 7 does: the
 * version 7 reads (*ort_runs: whether onnxruntime's CPU provider runs the earlier ones; *defined:
 * false where ONNX has no such operator before it, Acos and the like); else 0. */
int64_t rg_opaque_legacy_since(const Onnx__NodeProto *n, int64_t opset, bool *ort_runs, bool *defined);

/* The types of the call's outputs into out[0..n_out) (in_const[k]: operand k's values when it
 * is a constant, else NULL). */
rg_status rg_opaque_infer(const rg_opaque_call *c, const double *const *in_const, rg_tinfo *out,
                          rg_err *err) RG_MUST_CHECK;

/* Evaluates the call: vals[k] the values of operand k (NULL when omitted), out[j] room for
 * output j's element count (types as rg_opaque_infer gave them, in out_types). */
rg_status rg_opaque_eval(const rg_opaque_call *c, const double *const *vals, const rg_tinfo *out_types, double **out,
                         rg_err *err) RG_MUST_CHECK;

/* One operator among a model's opaque nodes: its ONNX op_type (the model's string), how many
 * nodes have it, and whether graphopt evaluates every one of them (none has a why: model.h). */
typedef struct {
  const char *op_type;
  int32_t count;
  bool evaluated;
} rg_opaque_kind;
/* The kinds of m's opaque nodes in the order they first appear, into out (room for m->n_op;
 * kinds.c);
 * returns how many. */
int32_t rg_model_opaque_kinds(const rg_model *m, rg_opaque_kind *out);

#endif
