/* tests/taso_loader_check.c: reads a TASO rule file (rules.proto, GraphSubst.RuleCollection)
 * and walks it as TASO's rule loader does (GraphXfer::load_graph_xfer_from_pb_file and
 * create_operator_from_pb in TASO's src/core/substitution.cc), failing wherever TASO would
 * assert or index out of bounds. Written from TASO's source, not from our exporter: the numbers
 * below are TASO's OpType and PMParameter, its MAX_NUM_INPUTS and MAX_DIM.
 *
 * Usage: taso_loader_check FILE.pb
 * Prints "FILE: N rules load as TASO's loader reads them (...)" and exits 0; exits 1 after
 * naming each rule, side and operator where TASO would fail; 2 when FILE cannot be read or does
 * not decode (TASO asserts on ParseFromIstream).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taso_rules.pb-c.h"

enum { CONV2D = 3, RELU = 8, SIGMOID = 9, TANH = 10, CONCAT = 12, SPLIT = 13, TRANSPOSE = 15 };
enum { EW_ADD = 16, EW_MUL = 17, MATMUL = 18, MUL = 19, ENLARGE = 20 };
enum { PM_NUM_OUTPUTS = 2, PM_STRIDE_H = 6, PM_STRIDE_W = 7, PM_PAD = 8, PM_ACTI = 9 };
enum { PM_NUMDIM = 10, PM_AXIS = 11, PM_PERM = 12, PM_OUTSHUFFLE = 13 };
#define MAX_NUM_INPUTS 6
#define MAX_DIM 8
#define MAX_OPS 4096

/* One rule's walk: the operators made so far on each side (their output counts), the
 * negative opIds given a tensor, what went wrong. */
typedef struct {
  int outputs[2][MAX_OPS], n_ops[2];
  int inputs[MAX_OPS], n_inputs;
  char why[256];
} walk;

static int fail(walk *w, const char *what) {
  snprintf(w->why, sizeof w->why, "%s", what);
  return -1;
}

/* get_parameter_from_pb, which TASO asserts on for required parameters. */
static int param(const GraphSubst__Operator *op, int key, int *value) {
  for (size_t i = 0; i < op->n_para; i++)
    if (op->para[i]->key == key) return *value = op->para[i]->value, 1;
  return 0;
}

/* Step 1 of create_operator_from_pb: each input a known tensor. */
static int check_inputs(walk *w, const GraphSubst__Operator *op, int src) {
  char m[200];
  if (op->n_input > MAX_NUM_INPUTS) return fail(w, "more inputs than MAX_NUM_INPUTS (6)");
  for (size_t i = 0; i < op->n_input; i++) {
    int id = op->input[i]->opid, ts = op->input[i]->tsid, k = 0;
    if (id < 0) {
      while (k < w->n_inputs && w->inputs[k] != id) k++;
      if (k == w->n_inputs && !src) {
        snprintf(m, sizeof m, "input opId %d first seen in the target (assert(isSrcOp))", id);
        return fail(w, m);
      }
      if (k == w->n_inputs && k == MAX_OPS) return fail(w, "more inputs than this checker holds");
      if (k == w->n_inputs) w->inputs[w->n_inputs++] = id;
    } else if (id >= w->n_ops[!src] || ts < 0 || ts >= w->outputs[!src][id]) {
      snprintf(m, sizeof m, "input %zu is output %d of operator %d, of which there are %d: out of bounds", i, ts, id,
               w->n_ops[!src]);
      return fail(w, m);
    }
  }
  return 0;
}

static int need(walk *w, const GraphSubst__Operator *op, size_t n_in, const int *keys, int n_keys) {
  char m[120];
  int v;
  if (op->n_input != n_in) {
    snprintf(m, sizeof m, "type %d with %zu inputs: TASO asserts %zu", op->type, op->n_input, n_in);
    return fail(w, m);
  }
  for (int k = 0; k < n_keys; k++)
    if (!param(op, keys[k], &v)) {
      snprintf(m, sizeof m, "type %d lacks required parameter %d", op->type, keys[k]);
      return fail(w, m);
    }
  return 0;
}

/* create_concat: IN_i for i <= 5, DIM_j for j <= 3 other than the axis, or TASO asserts. */
static int check_concat(walk *w, const GraphSubst__Operator *op) {
  int axis, nd;
  if (!param(op, PM_AXIS, &axis) || !param(op, PM_NUMDIM, &nd)) return fail(w, "CONCAT lacks AXIS or NUMDIM");
  for (size_t i = 1; i < op->n_input; i++) {
    if (i > 5) return fail(w, "CONCAT input 6 or later: to_tn_parameter asserts");
    for (int j = 0; j < nd; j++)
      if (j != axis && j > 3) return fail(w, "CONCAT dimension past 3 other than the axis: to_dim_parameter asserts");
  }
  return 0;
}

/* TRANSPOSE: PERM decoded in base NUMDIM into perm[MAX_DIM], nothing left, no digit twice. */
static int check_transpose(walk *w, const GraphSubst__Operator *op) {
  static const int keys[] = {PM_NUMDIM, PM_PERM, PM_OUTSHUFFLE};
  int nd = 0, idx = 0, perm[MAX_DIM];
  if (need(w, op, 1, keys, 3)) return -1;
  param(op, PM_NUMDIM, &nd), param(op, PM_PERM, &idx);
  if (nd > MAX_DIM) return fail(w, "TRANSPOSE NUMDIM past MAX_DIM: perm[] overflows");
  for (int i = nd - 1; i >= 0; i--) perm[i] = idx % nd, idx /= nd;
  if (idx != 0) return fail(w, "TRANSPOSE PERM has digits left after NUMDIM of them: assert(permIdx == 0)");
  for (int i = 0; i < nd; i++)
    for (int j = i + 1; j < nd; j++)
      if (perm[i] == perm[j]) return fail(w, "TRANSPOSE PERM repeats a dimension: assert(perm[i] != perm[j])");
  return 0;
}

/* Step 2 of create_operator_from_pb: the operator made, or TASO asserts. Returns its outputs. */
static int check_type(walk *w, const GraphSubst__Operator *op) {
  static const int conv[] = {PM_STRIDE_H, PM_STRIDE_W, PM_PAD, PM_ACTI}, acti[] = {PM_ACTI};
  static const int split[] = {PM_AXIS, PM_NUM_OUTPUTS};
  char m[120];
  int n = 0;
  switch (op->type) {
  case CONV2D: return need(w, op, 2, conv, 4) ? -1 : 1;
  case CONCAT: return check_concat(w, op) ? -1 : 1;
  case EW_ADD:
  case EW_MUL:
  case MUL:
  case ENLARGE: return need(w, op, 2, NULL, 0) ? -1 : 1;
  case SPLIT: return need(w, op, 1, split, 2) ? -1 : (param(op, PM_NUM_OUTPUTS, &n), n < 0 ? 0 : n);
  case RELU:
  case SIGMOID:
  case TANH: return need(w, op, 1, NULL, 0) ? -1 : 1;
  case MATMUL: return need(w, op, 2, acti, 1) ? -1 : 1;
  case TRANSPOSE: return check_transpose(w, op) ? -1 : 1;
  default:
    snprintf(m, sizeof m, "type %d: TASO's loader asserts (pools, batchnorm, constants and others)", op->type);
    return fail(w, m);
  }
}

/* mappedOutput: both ends operators of their side, outputs they have. */
static int check_map(walk *w, const GraphSubst__MapOutput *mo) {
  if (mo->srcopid < 0 || mo->srcopid >= w->n_ops[0] || mo->dstopid < 0 || mo->dstopid >= w->n_ops[1])
    return fail(w, "mapped output names an operator a side does not have (assert(srcOpId < srcOps.size()))");
  if (mo->srctsid < 0 || mo->srctsid >= w->outputs[0][mo->srcopid] || mo->dsttsid < 0 ||
      mo->dsttsid >= w->outputs[1][mo->dstopid])
    return fail(w, "mapped output names an output its operator lacks (assert(srcTsId < outputs.size()))");
  return 0;
}

/* One rule as load_graph_xfer_from_pb_file takes it; 0, or -1 with w->why and *where set. */
static int check_rule(walk *w, const GraphSubst__Rule *r, char *where, size_t len) {
  for (int side = 0; side < 2; side++) {
    size_t n = side ? r->n_dstop : r->n_srcop;
    for (size_t k = 0; k < n; k++) {
      const GraphSubst__Operator *op = side ? r->dstop[k] : r->srcop[k];
      snprintf(where, len, "%s operator %zu", side ? "dstOp" : "srcOp", k);
      if (k >= MAX_OPS) return fail(w, "more operators than this checker holds");
      int outs = check_inputs(w, op, !side) ? -1 : check_type(w, op);
      if (outs < 0) return -1;
      w->outputs[side][w->n_ops[side]++] = outs;
    }
  }
  for (size_t k = 0; k < r->n_mappedoutput; k++) {
    snprintf(where, len, "mappedOutput %zu", k);
    if (check_map(w, r->mappedoutput[k])) return -1;
  }
  return 0;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16;
  uint8_t *b = malloc(cap);
  *len = 0;
  for (size_t got; b && (got = fread(b + *len, 1, cap - *len, f)) > 0;)
    if ((*len += got) == cap) b = realloc(b, cap *= 2);
  fclose(f);
  return b;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: taso_loader_check FILE.pb\n"), 2;
  size_t len;
  uint8_t *buf = slurp(argv[1], &len);
  GraphSubst__RuleCollection *rc = buf ? graph_subst__rule_collection__unpack(NULL, len, buf) : NULL;
  if (!rc) {
    fprintf(stderr, "%s: %s\n", argv[1], buf ? "not a GraphSubst.RuleCollection" : "cannot read");
    free(buf);
    return 2;
  }
  walk *w = malloc(sizeof *w);
  size_t bad = 0, ops = 0, beyond = 0;
  int most = 0;
  for (size_t i = 0; i < rc->n_rule; i++) {
    char where[64] = "";
    memset(w, 0, sizeof *w);
    if (check_rule(w, rc->rule[i], where, sizeof where))
      printf("%s: rule %zu: %s: %s\n", argv[1], i, where, w->why), bad++;
    ops += (size_t)(w->n_ops[0] + w->n_ops[1]);
    most = w->n_inputs > most ? w->n_inputs : most;
    for (int k = 0, past = 0; k < w->n_inputs && !past; k++)
      if (w->inputs[k] < -20) past = 1, beyond++;
  }
  if (!bad)
    printf("%s: %zu rules load as TASO's loader reads them (%zu operators; up to %d inputs a rule; %zu rules with "
           "inputs past TASO's 20)\n", argv[1], rc->n_rule, ops, most, beyond);
  graph_subst__rule_collection__free_unpacked(rc, NULL);
  free(buf), free(w);
  return bad ? 1 : 0;
}
