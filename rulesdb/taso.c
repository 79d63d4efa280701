/* rulesdb/taso.c: TASO's rule file (rules.proto, via protobuf-c), both ways.
 *
 * TASO's numbering (anchors/README.md): op types CONV2D 3, POOL2D_MAX 6, POOL2D_AVG 7, RELU 8,
 * SIGMOID 9, TANH 10, CONCAT 12, SPLIT 13, EW_ADD 16, EW_MUL 17, MATMUL 18, MUL 19; parameter
 * keys NUM_INPUTS 1, NUM_OUTPUTS 2, KERNEL_H 4, KERNEL_W 5, STRIDE_H 6, STRIDE_W 7, PAD 8,
 * ACTI 9, NUMDIM 10, AXIS 11, PERM 12, OUTSHUFFLE 13. Pad and activation numbers are the same as
 * ours. TRANSPOSE's PERM is the permutation's digits in base NUMDIM, most significant first, with
 * TASO's convention out.dim[i] = in.dim[perm[i]] (ours too); TASO builds only OUTSHUFFLE 1.
 * TASO's rule loader (GraphXfer::create_operator_from_pb in TASO's src/core/substitution.cc)
 * asserts on POOL2D operators and on an input first seen in the target, so export skips pools;
 * import still reads them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "exchange_util.h"
#include "taso_rules.pb-c.h"

enum {
  T_CONV2D = 3,
  T_POOLMAX = 6,
  T_POOLAVG = 7,
  T_RELU = 8,
  T_SIGMOID = 9,
  T_TANH = 10,
  T_CONCAT = 12,
  T_SPLIT = 13,
  T_TRANSPOSE = 15,
  T_EWADD = 16,
  T_EWMUL = 17,
  T_MATMUL = 18,
  T_MUL = 19,
};
enum {
  K_NUM_INPUTS = 1,
  K_NUM_OUTPUTS = 2,
  K_KERNEL_H = 4,
  K_KERNEL_W = 5,
  K_STRIDE_H = 6,
  K_STRIDE_W = 7,
  K_PAD = 8,
  K_ACTI = 9,
  K_NUMDIM = 10,
  K_AXIS = 11,
  K_PERM = 12,
  K_OUTSHUFFLE = 13,
};

static const char *taso_type_name(int t) {
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
    snprintf(s->why, sizeof s->why, "%s lacks parameter %d", taso_type_name(op->type), key);
  return def;
}

static int term(side *s, int op_id, int ts_id, int depth);

static int inputs(side *s, const GraphSubst__Operator *op, size_t n, int depth) {
  if (op->n_input != n)
    return snprintf(s->why, sizeof s->why, "%s with %zu inputs", taso_type_name(op->type),
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
  if (conv)
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
  case T_SPLIT:
    if (param(op, K_NUM_OUTPUTS, 2, s) != 2)
      return snprintf(s->why, sizeof s->why, "SPLIT into other than 2 outputs"), -1;
    rg_sb_printf(o, "(split.%d %d", ts_id, param(op, K_AXIS, RG_NODEF, s));
    return s->why[0] || inputs(s, op, 1, d) ? -1 : 0;
  default:
    return snprintf(s->why, sizeof s->why, "operator %s (%d) has no counterpart of ours here", taso_type_name(t), t),
           -1;
  }
}

static int term(side *s, int op_id, int ts_id, int depth) {
  rg_strbuf *o = s->out;
  if (op_id < 0) { /* TASO's inputs by rulegen's names (taso_inputs.c); beyond 20 as TENSAT names */
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

/* ---- export ---- */

/* Every message of one rule, allocated here and freed after packing. */
typedef struct {
  void **v;
  size_t n, cap;
  int failed;
} pool;

static void *pool_alloc(pool *p, size_t size) {
  if (p->failed) return NULL;
  if (p->n == p->cap) {
    size_t nc = p->cap ? 2 * p->cap : 64;
    void **nv = realloc(p->v, nc * sizeof *nv);
    if (!nv) return p->failed = 1, NULL;
    p->v = nv, p->cap = nc;
  }
  void *m = calloc(1, size);
  if (!m) return p->failed = 1, NULL;
  return p->v[p->n++] = m;
}

static void pool_free(pool *p) {
  for (size_t i = 0; i < p->n; i++)
    free(p->v[i]);
  free(p->v);
  memset(p, 0, sizeof *p);
}

static void add_param(pool *p, GraphSubst__Operator *op, int key, int value) {
  GraphSubst__Parameter *m = pool_alloc(p, sizeof *m);
  if (!m) return;
  graph_subst__parameter__init(m);
  m->key = key, m->value = value;
  op->para[op->n_para++] = m;
}

typedef struct {
  const rg_rule *r;
  const rg_plan *plan;
  const int *num;
  int32_t *index; /* node -> operator index on the side being built, -1 if none */
  pool *p;
  char why[200];
} exporter;

static GraphSubst__Tensor *tensor(exporter *x, rg_ref ref) {
  GraphSubst__Tensor *t = pool_alloc(x->p, sizeof *t);
  if (!t) return NULL;
  graph_subst__tensor__init(t);
  const rg_node *nd = rg_graph_node(x->r->g, ref.node);
  t->opid = nd->op == RG_OP_INPUT ? -x->num[nd->params[0]] : x->index[ref.node];
  t->tsid = ref.out;
  return t;
}

static GraphSubst__Operator *operator(exporter *x, const rg_node *nd) {
  static const int types[RG_OP_COUNT] = {
      [RG_OP_EWADD] = T_EWADD,     [RG_OP_EWMUL] = T_EWMUL,     [RG_OP_SMUL] = T_MUL,
      [RG_OP_MATMUL] = T_MATMUL,   [RG_OP_CONV2D] = T_CONV2D,   [RG_OP_RELU] = T_RELU,
      [RG_OP_TANH] = T_TANH,       [RG_OP_SIGMOID] = T_SIGMOID, [RG_OP_TRANSPOSE] = T_TRANSPOSE,
      [RG_OP_CONCAT] = T_CONCAT,   [RG_OP_SPLIT] = T_SPLIT};
  if (!types[nd->op]) {
    snprintf(x->why, sizeof x->why, "no TASO counterpart for %s%s", rg_op_get((rg_op)nd->op)->name,
             nd->op == RG_OP_ENLARGE ? " (ours takes kernel sizes; TASO's a reference tensor, which its rule "
                                       "loader takes only where the source has it)"
             : nd->op == RG_OP_POOLAVG || nd->op == RG_OP_POOLMAX
                 ? " (TASO's rule loader asserts on POOL2D operators)"
             : nd->op == RG_OP_BIAS ? " (TASO's rule operators have no channel bias)"
                                    : "");
    return NULL;
  }
  GraphSubst__Operator *op = pool_alloc(x->p, sizeof *op);
  GraphSubst__Tensor **in = pool_alloc(x->p, sizeof *in * RG_MAX_INPUTS);
  GraphSubst__Parameter **para = pool_alloc(x->p, sizeof *para * 8);
  if (!op || !in || !para) return NULL;
  graph_subst__operator__init(op);
  op->type = types[nd->op], op->input = in, op->para = para;
  for (int i = 0; i < nd->n_in; i++)
    if (!(in[op->n_input++] = tensor(x, nd->in[i]))) return NULL;
  pool *p = x->p;
  switch ((rg_op)nd->op) {
  case RG_OP_MATMUL: add_param(p, op, K_ACTI, rg_xchg_param(nd, 0)); break;
  case RG_OP_CONV2D: {
    if (!rg_xchg_conv_expressible(nd)) {
      snprintf(x->why, sizeof x->why, "no TASO counterpart for a dilated conv2d");
      return NULL;
    }
    const rg_shape *w = rg_plan_shape(x->plan, nd->in[1]);
    add_param(p, op, K_KERNEL_H, w->dim[2]), add_param(p, op, K_KERNEL_W, w->dim[3]);
    add_param(p, op, K_STRIDE_H, rg_xchg_param(nd, 0)),
        add_param(p, op, K_STRIDE_W, rg_xchg_param(nd, 1));
    add_param(p, op, K_PAD, rg_xchg_param(nd, 2)), add_param(p, op, K_ACTI, rg_xchg_param(nd, 3));
    break;
  }
  case RG_OP_CONCAT:
    add_param(p, op, K_NUM_INPUTS, nd->n_in);
    add_param(p, op, K_NUMDIM, rg_plan_shape(x->plan, nd->in[0])->rank);
    add_param(p, op, K_AXIS, rg_xchg_param(nd, 0));
    break;
  case RG_OP_SPLIT:
    add_param(p, op, K_AXIS, rg_xchg_param(nd, 0)), add_param(p, op, K_NUM_OUTPUTS, 2);
    break;
  case RG_OP_TRANSPOSE: {
    int perm[RG_MAX_RANK], rank = rg_perm_unpack(rg_xchg_param(nd, 0), perm), idx = 0;
    for (int i = 0; i < rank; i++) idx = idx * rank + perm[i]; /* TASO's permutation_to_index */
    add_param(p, op, K_NUMDIM, rank), add_param(p, op, K_PERM, idx), add_param(p, op, K_OUTSHUFFLE, 1);
    break;
  }
  default: break;
  }
  return p->failed ? NULL : op;
}

/* Builds one side's operator list (reachable nodes in id order, which is topological). */
static int build_side(exporter *x, const rg_ref *outs, int n, GraphSubst__Operator ***ops,
                      size_t *n_ops) {
  int32_t size = rg_graph_size(x->r->g);
  uint8_t *mark = pool_alloc(x->p, (size_t)size);
  *ops = pool_alloc(x->p, sizeof **ops * (size_t)(size + 1));
  if (!mark || !*ops) return -1;
  rg_graph_mark_reachable(x->r->g, outs, n, mark);
  *n_ops = 0;
  for (int32_t i = 0; i < size; i++) {
    x->index[i] = -1;
    const rg_node *nd = rg_graph_node(x->r->g, i);
    if (!mark[i] || nd->op == RG_OP_INPUT) continue;
    GraphSubst__Operator *op = operator(x, nd);
    if (!op) return -1;
    x->index[i] = (int32_t)*n_ops;
    (*ops)[(*n_ops)++] = op;
  }
  return 0;
}

static GraphSubst__Rule *export_rule(const rg_rule *r, pool *p, char *why, size_t why_len) {
  int32_t nt = rg_graph_n_tvars(r->g), size = rg_graph_size(r->g);
  if (r->n_tgt == 0) return snprintf(why, why_len, "a bare graph (no target)"), NULL;
  if (rg_graph_n_pvars(r->g)) return snprintf(why, why_len, "parameter variables"), NULL;
  int *num = pool_alloc(p, sizeof(int) * (size_t)(nt + 1));
  int32_t *src_index = pool_alloc(p, sizeof(int32_t) * (size_t)size);
  int32_t *dst_index = pool_alloc(p, sizeof(int32_t) * (size_t)size);
  GraphSubst__Rule *m = pool_alloc(p, sizeof *m);
  GraphSubst__MapOutput **maps = pool_alloc(p, sizeof *maps * RG_RULE_MAX_OUTPUTS);
  if (!num || !src_index || !dst_index || !m || !maps)
    return snprintf(why, why_len, "out of memory"), NULL;
  int32_t other = rg_xchg_var_numbers(r->g, num);
  if (other >= 0)
    return snprintf(why, why_len, "variable ?%s is none of TASO's 20 inputs (x1-x3, w1-w13, i1-i3, s0)",
                    rg_graph_tvar_name(r->g, other)),
           NULL;
  rg_plan *plan;
  rg_assignment_list keep;
  rg_err e;
  if (rg_xchg_plan(r, num, 1, &plan, &keep, &e))
    return snprintf(why, why_len, "%.200s", e.msg), NULL;
  graph_subst__rule__init(m);
  exporter x = {r, plan, num, src_index, p, ""};
  int bad = build_side(&x, r->src, r->n_src, &m->srcop, &m->n_srcop);
  x.index = dst_index;
  if (!bad) bad = build_side(&x, r->tgt, r->n_tgt, &m->dstop, &m->n_dstop);
  for (int i = 0; !bad && i < r->n_src; i++) {
    if (src_index[r->src[i].node] < 0 || dst_index[r->tgt[i].node] < 0) {
      snprintf(x.why, sizeof x.why, "output %d is a bare input variable", i);
      bad = 1;
      break;
    }
    GraphSubst__MapOutput *mo = pool_alloc(p, sizeof *mo);
    if (!mo) {
      bad = 1;
      break;
    }
    graph_subst__map_output__init(mo);
    mo->srcopid = src_index[r->src[i].node], mo->srctsid = r->src[i].out;
    mo->dstopid = dst_index[r->tgt[i].node], mo->dsttsid = r->tgt[i].out;
    maps[i] = mo;
  }
  rg_plan_free(plan);
  rg_assignment_list_free(&keep);
  if (bad) return snprintf(why, why_len, "%s", x.why[0] ? x.why : "out of memory"), NULL;
  m->mappedoutput = maps, m->n_mappedoutput = (size_t)r->n_src;
  return m;
}

rg_status rg_taso_export(const rg_rule *const *rules, const char *const *names, size_t n,
                         uint8_t **buf, size_t *len, size_t *n_written, rg_strbuf *skipped,
                         rg_err *err) {
  *buf = NULL, *len = 0, *n_written = 0;
  pool p = {0};
  GraphSubst__RuleCollection rc = GRAPH_SUBST__RULE_COLLECTION__INIT;
  rc.rule = pool_alloc(&p, sizeof *rc.rule * (n + 1));
  for (size_t i = 0; rc.rule && i < n; i++) {
    char why[256];
    GraphSubst__Rule *m = export_rule(rules[i], &p, why, sizeof why);
    if (m)
      rc.rule[rc.n_rule++] = m;
    else if (names)
      rg_sb_printf(skipped, "rule %s: %s\n", names[i], why);
    else
      rg_sb_printf(skipped, "rule %zu: %s\n", i + 1, why);
  }
  if (p.failed) return pool_free(&p), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  size_t size = graph_subst__rule_collection__get_packed_size(&rc);
  *buf = malloc(size ? size : 1);
  if (!*buf) return pool_free(&p), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *len = graph_subst__rule_collection__pack(&rc, *buf);
  *n_written = rc.n_rule;
  pool_free(&p);
  return RG_OK;
}
