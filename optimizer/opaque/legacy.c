/* optimizer/opaque/legacy.c: the default domain's operators at opsets 1 to 6, in the forms they had
 * before opset 7 (opaque.h's rg_opaque_legacy_why). The table is ONNX's Changelog for every
 * operator with a version between 2 and 7 (onnx.defs' schemas): the version that opset 7 reads,
 * and what the earlier ones hold that it does not. A node at an earlier opset is read as at 7
 * only where its form there means the same; otherwise it is kept as read (its outputs typed by
 * the model's value_info, or opaque values), never read with 7's meaning. The table also says
 * whether onnxruntime's CPU provider runs the earlier versions: of these operators it runs only
 * Reshape's (probed with onnxruntime 1.30, one model per operator and version). */
#include <stdio.h>
#include <string.h>

#include "opaque.h"
#include "optimizer/proto/proto.h"

typedef enum {
  HINT,      /* only `consumed_inputs`, an in-place hint with no meaning: read as at 7 */
  BROADCAST, /* `broadcast` (B to A's shape from `axis`): read as at 7 without it, one shape */
  IS_TEST,   /* `is_test` (BatchNormalization, Dropout): read as at 7 in test mode, one output */
  SPLIT,     /* Split's sizes as a second input too: read as at 7 in the attribute form */
  CONCAT,    /* Concat's axis optional (default 1): read as at 7 where it is given */
  POOL,      /* AveragePool without count_include_pad: 7's default, 0, is its only meaning */
  OWN,       /* read in its own form (opaque.c: Reshape's shape as an attribute) */
  OTHER,     /* a form graphopt does not read (`what` says) */
  NONE,      /* no such operator before `since` */
} legacy_kind;

static const struct {
  const char *op;
  int64_t since; /* the version opset 7 reads */
  legacy_kind kind;
  const char *what; /* OTHER's form */
  bool ort_runs;    /* whether onnxruntime's CPU provider runs the earlier versions (probed) */
} rows[] = {
    {"Abs", 6, HINT, NULL, false},
    {"Ceil", 6, HINT, NULL, false},
    {"Elu", 6, HINT, NULL, false},
    {"Exp", 6, HINT, NULL, false},
    {"Floor", 6, HINT, NULL, false},
    {"HardSigmoid", 6, HINT, NULL, false},
    {"LeakyRelu", 6, HINT, NULL, false},
    {"Log", 6, HINT, NULL, false},
    {"Neg", 6, HINT, NULL, false},
    {"Reciprocal", 6, HINT, NULL, false},
    {"Relu", 6, HINT, NULL, false},
    {"Selu", 6, HINT, NULL, false},
    {"Sigmoid", 6, HINT, NULL, false},
    {"Sqrt", 6, HINT, NULL, false},
    {"Tanh", 6, HINT, NULL, false},
    {"Max", 6, HINT, NULL, false},
    {"Mean", 6, HINT, NULL, false},
    {"Min", 6, HINT, NULL, false},
    {"Sum", 6, HINT, NULL, false},
    {"Clip", 6, HINT, NULL, false},
    {"InstanceNormalization", 6, HINT, NULL, false},
    {"Add", 7, BROADCAST, NULL, false},
    {"Sub", 7, BROADCAST, NULL, false},
    {"Mul", 7, BROADCAST, NULL, false},
    {"Div", 7, BROADCAST, NULL, false},
    {"Pow", 7, BROADCAST, NULL, false},
    {"And", 7, BROADCAST, NULL, false},
    {"Or", 7, BROADCAST, NULL, false},
    {"Xor", 7, BROADCAST, NULL, false},
    {"Equal", 7, BROADCAST, NULL, false},
    {"Greater", 7, BROADCAST, NULL, false},
    {"Less", 7, BROADCAST, NULL, false},
    {"Gemm", 7, BROADCAST, NULL, false},
    {"BatchNormalization", 7, IS_TEST, NULL, false},
    {"Dropout", 7, IS_TEST, NULL, false},
    {"Split", 2, SPLIT, NULL, false},
    {"Concat", 4, CONCAT, NULL, false},
    {"AveragePool", 7, POOL, NULL, false},
    {"PRelu", 7, OTHER, "a slope of X's shape or of one value, not broadcast as from opset 7", false},
    {"Reshape", 5, OWN, NULL, true},
    {"Pad", 2, OTHER, "the amounts as the attribute paddings, pads from opset 2", false},
    {"Tile", 6, OTHER, "the inputs tiles and axis, repeats from opset 6", false},
    {"Cast", 6, OTHER, "the type `to` as a string, an integer from opset 6", false},
    {"LpPool", 2, OTHER, "p as a float attribute, an integer from opset 2", false},
    {"GlobalLpPool", 2, OTHER, "p as a float attribute, an integer from opset 2", false},
    {"Upsample", 7, OTHER, "the experimental form (width_scale, height_scale), scales from opset 7", false},
    {"GRU", 7, OTHER, "the attribute output_sequence, dropped at opset 7", false},
    {"LSTM", 7, OTHER, "the attribute output_sequence, dropped at opset 7", false},
    {"RNN", 7, OTHER, "the attribute output_sequence, dropped at opset 7", false},
    {"Acos", 7, NONE, NULL, false},
    {"Asin", 7, NONE, NULL, false},
    {"Atan", 7, NONE, NULL, false},
    {"Cos", 7, NONE, NULL, false},
    {"Sin", 7, NONE, NULL, false},
    {"Tan", 7, NONE, NULL, false},
    {"Multinomial", 7, NONE, NULL, false},
};

/* Whether attribute name is absent or holds the integer v. */
static bool int_absent_or(const Onnx__NodeProto *n, const char *name, int64_t v) {
  return !rg_onnx_attr(n, name) || rg_onnx_attr_int(n, name, v) == v;
}

static bool extra_outputs(const Onnx__NodeProto *n) {
  for (size_t j = 1; j < n->n_output; j++)
    if (n->output[j][0]) return true;
  return false;
}

/* The row of n's operator where the model's opset reads an earlier version of it than opset 7
 * does, or -1. */
static int older_row(const Onnx__NodeProto *n, int64_t opset) {
  bool onnx = !n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx");
  if (opset >= 7 || !onnx || !n->op_type) return -1;
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    if (!strcmp(n->op_type, rows[i].op) && opset < rows[i].since) return (int)i;
  return -1;
}

int64_t rg_opaque_legacy_since(const Onnx__NodeProto *n, int64_t opset, bool *ort_runs, bool *defined) {
  int i = older_row(n, opset);
  if (ort_runs) *ort_runs = i >= 0 && rows[i].ort_runs;
  if (defined) *defined = i < 0 || rows[i].kind != NONE;
  return i < 0 ? 0 : rows[i].since;
}

const char *rg_opaque_legacy_why(const Onnx__NodeProto *n, int64_t opset, char *buf, size_t len) {
  int i = older_row(n, opset);
  if (i < 0) return NULL;
  const char *what = rows[i].what;
  switch (rows[i].kind) {
  case HINT:
  case POOL:
  case OWN: return NULL;
  case BROADCAST:
    if (int_absent_or(n, "broadcast", 0)) return NULL;
    what = "`broadcast`: B broadcast to A's shape from `axis`, numpy's broadcasting from opset 7";
    break;
  case IS_TEST:
    if (rg_onnx_attr_int(n, "is_test", 0) == 1 && !extra_outputs(n)) return NULL;
    what = "training mode (is_test 0, or its statistics or mask as outputs), which opset 7 tells by its outputs";
    break;
  case SPLIT:
    if (n->n_input < 2 || !n->input[1][0]) return NULL;
    what = "the sizes as a second input, an attribute from opset 2";
    break;
  case CONCAT:
    if (rg_onnx_attr(n, "axis")) return NULL;
    what = "no axis (then 1), which opset 4 requires";
    break;
  case NONE:
    snprintf(buf, len, "an operator ONNX defines from opset %lld on, not at the model's opset %lld",
             (long long)rows[i].since, (long long)opset);
    return buf;
  case OTHER: break;
  }
  snprintf(buf, len, "its form at opset %lld, %s: kept as read, not evaluated", (long long)opset, what);
  return buf;
}
