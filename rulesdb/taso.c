/* rulesdb/taso.c: TASO's rule file (rules.proto, via protobuf-c) read into our rules; the
 * numbering is taso_pb.h's, export is taso_export.c.
 *
 * Import reads what TASO's loader takes and the pools it asserts on (TASO's generator wrote
 * them); a negative opId is TASO's input -opId by rulegen's name (taso_inputs.c) for 1 .. 20,
 * ?input_N beyond; an ENLARGE's reference must be one of TASO's 4-d inputs, whose kernel size
 * ours takes as parameters. A conv's groups are its GROUP parameter where the file has one (our
 * export writes it), else inferred from TASO's input shapes (rg_xchg_infer_groups).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "exchange_util.h"
#include "taso_pb.h"

const char *rg_taso_type_name(int t) {
  static const char *names[] = {
      "INPUT",        "WEIGHT",       "ANY",     "CONV2D",      "DROPOUT",      "LINEAR",
      "POOL2D_MAX",   "POOL2D_AVG",   "RELU",    "SIGMOID",     "TANH",         "BATCHNORM",
      "CONCAT",       "SPLIT",        "RESHAPE", "TRANSPOSE",   "EW_ADD",       "EW_MUL",
      "MATMUL",       "MUL",          "ENLARGE", "MERGE_GCONV", "CONSTANT_IMM", "CONSTANT_ICONV",
      "CONSTANT_ONE", "CONSTANT_POOL"};
  return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "unknown";
}

/* ---- import ---- */

typedef struct {
  GraphSubst__Operator **ops;
  size_t n;
  rg_strbuf *out;
  char why[200];
} side;

static int param(const GraphSubst__Operator *op, int key, int def, side *s) {
  for (size_t i = 0; i < op->n_para; i++)
    if (op->para[i]->key == key) return op->para[i]->value;
  if (def == RG_NODEF)
    snprintf(s->why, sizeof s->why, "%s lacks parameter %d", rg_taso_type_name(op->type), key);
  return def;
}

static int term(side *s, int op_id, int ts_id, int depth);

static int inputs(side *s, const GraphSubst__Operator *op, size_t n, int depth) {
  if (op->n_input != n)
    return snprintf(s->why, sizeof s->why, "%s with %zu inputs", rg_taso_type_name(op->type),
                    op->n_input),
           -1;
  for (size_t i = 0; i < n; i++) {
    rg_sb_puts(s->out, " ");
    if (term(s, op->input[i]->opid, op->input[i]->tsid, depth)) return -1;
  }
  return 0;
}

/* The operators without parameters: their head and how many inputs; NULL for the others. */
static const char *plain_op(int t, size_t *n) {
  switch (t) {
  case T_EWADD: return *n = 2, "(ewadd";
  case T_EWMUL: return *n = 2, "(ewmul";
  case T_MUL: return *n = 2, "(smul";
  case T_RELU: return *n = 1, "(relu";
  case T_SIGMOID: return *n = 1, "(sigmoid";
  case T_TANH: return *n = 1, "(tanh";
  default: return NULL;
  }
}

/* CONV2D and the pools: strides (and the pools' kernel), pad, activation, inputs. */
static int windowed(side *s, const GraphSubst__Operator *op, int d) {
  int t = op->type, conv = t == T_CONV2D;
  int v[4] = {0, 0, 0, 0}; /* kernel (pools only) and strides, read in this order */
  static const int keys[4] = {K_KERNEL_H, K_KERNEL_W, K_STRIDE_H, K_STRIDE_W};
  for (int k = conv ? 2 : 0; k < 4; k++) v[k] = param(op, keys[k], RG_NODEF, s);
  int pad = param(op, K_PAD, RG_NODEF, s), act = param(op, K_ACTI, 0, s);
  if (s->why[0]) return -1;
  if (pad < 0 || pad > 1 || act < 0 || act > 3)
    return snprintf(s->why, sizeof s->why, "%s pad %d activation %d", conv ? "CONV2D" : "pool", pad, act), -1;
  int groups = conv ? param(op, K_GROUP, 1, s) : 1; /* ours (TASO infers groups from shapes) */
  if (conv && groups != 1)
    rg_sb_printf(s->out, "(conv2d %d %d %s %s 1 1 %d", v[2], v[3], rg_pad_name(pad), rg_act_name(act), groups);
  else if (conv)
    rg_sb_printf(s->out, "(conv2d %d %d %s %s", v[2], v[3], rg_pad_name(pad), rg_act_name(act));
  else
    rg_sb_printf(s->out, "(%s %d %d %d %d %s %s", t == T_POOLMAX ? "poolmax" : "poolavg", v[0], v[1], v[2], v[3],
                 rg_pad_name(pad), rg_act_name(act));
  return inputs(s, op, conv ? 2 : 1, d);
}

/* TRANSPOSE: PERM's base-NUMDIM digits become ours ("(transpose 10 x)" for [1, 0]). */
static int transpose_in(side *s, const GraphSubst__Operator *op, int d) {
  int nd = param(op, K_NUMDIM, RG_NODEF, s), idx = param(op, K_PERM, RG_NODEF, s);
  int shuffle = param(op, K_OUTSHUFFLE, RG_NODEF, s);
  if (s->why[0]) return -1;
  int perm[RG_MAX_RANK], seen = 0;
  if (nd < 1 || nd > RG_MAX_RANK || idx < 0 || shuffle != 1)
    return snprintf(s->why, sizeof s->why, "TRANSPOSE of %d dimensions, perm %d, shuffle %d", nd, idx, shuffle), -1;
  for (int i = nd - 1; i >= 0; i--) perm[i] = idx % nd, idx /= nd;
  for (int i = 0; i < nd; i++) seen |= 1 << perm[i];
  if (idx || seen != (1 << nd) - 1)
    return snprintf(s->why, sizeof s->why, "TRANSPOSE perm %d is not a permutation of %d dimensions",
                    param(op, K_PERM, 0, s), nd), -1;
  rg_sb_puts(s->out, "(transpose ");
  for (int i = 0; i < nd; i++) rg_sb_printf(s->out, "%d", perm[i]);
  return inputs(s, op, 1, d);
}

/* ENLARGE to a reference that is one of TASO's 4-d inputs: ours takes that input's kernel size. */
static int enlarge_in(side *s, const GraphSubst__Operator *op, int d) {
  rg_shape shp;
  if (op->n_input != 2) return snprintf(s->why, sizeof s->why, "ENLARGE with %zu inputs", op->n_input), -1;
  int ref = op->input[1]->opid, n = ref < 0 && ref >= -RG_TASO_INPUTS ? -ref : 0;
  if (!rg_taso_input_shape(n, &shp) || shp.rank != 4)
    return snprintf(s->why, sizeof s->why,
                    "ENLARGE to a reference that is not one of TASO's 4-d inputs (ours needs the kernel size)"),
           -1;
  rg_sb_printf(s->out, "(enlarge %d %d ", shp.dim[2], shp.dim[3]);
  return term(s, op->input[0]->opid, op->input[0]->tsid, d);
}

/* An operator with parameters: its head, parameters and inputs, or -1 with s->why. */
static int with_params(side *s, const GraphSubst__Operator *op, int ts_id, int d) {
  rg_strbuf *o = s->out;
  int t = op->type, act;
  switch (t) {
  case T_MATMUL:
    act = param(op, K_ACTI, 0, s);
    if (act < 0 || act > 3) return snprintf(s->why, sizeof s->why, "MATMUL activation %d", act), -1;
    rg_sb_printf(o, "(matmul %s", rg_act_name(act));
    return inputs(s, op, 2, d);
  case T_CONV2D:
  case T_POOLMAX:
  case T_POOLAVG: return windowed(s, op, d);
  case T_CONCAT:
    rg_sb_printf(o, "(concat %d", param(op, K_AXIS, RG_NODEF, s));
    return s->why[0] || inputs(s, op, op->n_input < 2 ? 2 : op->n_input, d) ? -1 : 0;
  case T_TRANSPOSE: return transpose_in(s, op, d);
  case T_ENLARGE: return enlarge_in(s, op, d);
  case T_SPLIT:
    if (param(op, K_NUM_OUTPUTS, 2, s) != 2)
      return snprintf(s->why, sizeof s->why, "SPLIT into other than 2 outputs"), -1;
    rg_sb_printf(o, "(split.%d %d", ts_id, param(op, K_AXIS, RG_NODEF, s));
    return s->why[0] || inputs(s, op, 1, d) ? -1 : 0;
  default:
    return snprintf(s->why, sizeof s->why, "operator %s (%d) has no counterpart of ours here", rg_taso_type_name(t), t),
           -1;
  }
}

static int term(side *s, int op_id, int ts_id, int depth) {
  rg_strbuf *o = s->out;
  if (op_id < 0) { /* TASO's inputs by rulegen's names (taso_inputs.c); beyond 20 as TENSAT names */
    if (op_id < -9999) return snprintf(s->why, sizeof s->why, "input opId %d below -9999", op_id), -1;
    rg_taso_var_print(o, -op_id);
    return 0;
  }
  /* Operators are in topological order, so depth beyond the count means a cycle; and the
   * conversion recurses, so a chain deeper than any real rule is refused too. */
  if (depth > 256)
    return snprintf(s->why, sizeof s->why, "operators chained more than 256 deep"), -1;
  if ((size_t)op_id >= s->n || depth > (int)s->n)
    return snprintf(s->why, sizeof s->why, "input refers to operator %d of %zu (not topological)",
                    op_id, s->n),
           -1;
  const GraphSubst__Operator *op = s->ops[op_id];
  size_t n;
  const char *head = plain_op(op->type, &n);
  if (head) {
    rg_sb_puts(o, head);
    if (inputs(s, op, n, depth + 1)) return -1;
  } else if (with_params(s, op, ts_id, depth + 1)) {
    return -1;
  }
  rg_sb_puts(o, ")");
  return 0;
}

rg_status rg_taso_import(const uint8_t *buf, size_t len, rg_ruleset *out, rg_strbuf *skipped,
                         rg_err *err) {
  GraphSubst__RuleCollection *rc = graph_subst__rule_collection__unpack(NULL, len, buf);
  if (!rc)
    return rg_err_set(
        err, RG_ERR_PARSE,
        "not a TASO rule collection (protobuf GraphSubst.RuleCollection did not decode)");
  rg_status st = RG_OK;
  rg_strbuf text;
  rg_sb_init(&text);
  for (size_t k = 0; !st && k < rc->n_rule; k++) {
    const GraphSubst__Rule *r = rc->rule[k];
    side src = {r->srcop, r->n_srcop, &text, ""}, dst = {r->dstop, r->n_dstop, &text, ""};
    rg_sb_clear(&text);
    int bad = r->n_mappedoutput == 0 || r->n_mappedoutput > RG_RULE_MAX_OUTPUTS;
    if (bad) snprintf(src.why, sizeof src.why, "%zu mapped outputs", r->n_mappedoutput);
    for (size_t i = 0; !bad && i < r->n_mappedoutput; i++) {
      if (i) rg_sb_puts(&text, " ; ");
      bad = term(&src, r->mappedoutput[i]->srcopid, r->mappedoutput[i]->srctsid, 0) != 0;
    }
    rg_sb_puts(&text, " => ");
    for (size_t i = 0; !bad && i < r->n_mappedoutput; i++) {
      if (i) rg_sb_puts(&text, " ; ");
      bad = term(&dst, r->mappedoutput[i]->dstopid, r->mappedoutput[i]->dsttsid, 0) != 0;
    }
    if (bad) {
      rg_sb_printf(skipped, "rule %zu: %s\n", k, src.why[0] ? src.why : dst.why);
      continue;
    }
    char label[32];
    snprintf(label, sizeof label, "rule %zu", k);
    if ((st = rg_xchg_add_imported(rg_sb_str(&text), label, (int)k + 1, out, skipped, err))) break;
  }
  rg_sb_free(&text);
  graph_subst__rule_collection__free_unpacked(rc, NULL);
  return st;
}

