/* rulesdb/taso_export.c: our rules written as TASO's rule file (rules.proto via protobuf-c,
 * numbering in taso_pb.h), each rule as TASO's loader reads it or skipped with the reason.
 *
 * Every variable is a negative opId of its own (exchange_util.h numbers them), which TASO's
 * loader makes a new input tensor; shapes are not in the file. What the loader asserts is
 * checked per rule here: only its operators, each required parameter written, concat
 * dimensions it can name (operand counts and transposes always fit: see the asserts below), every input first seen in the source, and outputs
 * mapped between operators. An enlarge takes a variable of the rule with its kernel sizes as
 * TASO's reference tensor. Each side's operators are its reachable nodes in id order, which is
 * topological.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "exchange_util.h"
#include "taso_pb.h"

/* Transposes of up to TASO's MAX_DIM (8) dimensions decode there, and it takes up to
 * MAX_NUM_INPUTS inputs of an operator: ours never have more. */
_Static_assert(RG_MAX_RANK <= 8, "a transpose TASO's loader cannot decode");
_Static_assert(RG_MAX_INPUTS <= TASO_MAX_INPUTS, "an operator of more inputs than TASO's loader takes");

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
  const rg_xchg_rule *x;
  int32_t *index; /* node -> operator index on the side being built, -1 if none */
  pool *p;
  char why[256];
} exporter;

static GraphSubst__Tensor *tensor(exporter *ex, rg_ref ref) {
  GraphSubst__Tensor *t = pool_alloc(ex->p, sizeof *t);
  if (!t) return NULL;
  graph_subst__tensor__init(t);
  const rg_node *nd = rg_graph_node(ex->x->r->g, ref.node);
  t->opid = nd->op == RG_OP_INPUT ? -ex->x->num[nd->params[0]] : ex->index[ref.node];
  t->tsid = ref.out;
  return t;
}

/* TASO's type of our operator, 0 with ex->why set when it has none. */
static int taso_type(exporter *ex, const rg_node *nd) {
  static const int types[RG_OP_COUNT] = {
      [RG_OP_EWADD] = T_EWADD,     [RG_OP_EWMUL] = T_EWMUL,     [RG_OP_SMUL] = T_MUL,
      [RG_OP_MATMUL] = T_MATMUL,   [RG_OP_CONV2D] = T_CONV2D,   [RG_OP_RELU] = T_RELU,
      [RG_OP_TANH] = T_TANH,       [RG_OP_SIGMOID] = T_SIGMOID, [RG_OP_TRANSPOSE] = T_TRANSPOSE,
      [RG_OP_CONCAT] = T_CONCAT,   [RG_OP_SPLIT] = T_SPLIT,     [RG_OP_ENLARGE] = T_ENLARGE};
  const rg_op_info *info = rg_op_get((rg_op)nd->op);
  if (types[nd->op]) return types[nd->op];
  snprintf(ex->why, sizeof ex->why, "no TASO counterpart for %s: %s", info->name,
           nd->op == RG_OP_POOLAVG || nd->op == RG_OP_POOLMAX ? "TASO's rule loader asserts on POOL2D operators"
           : nd->op == RG_OP_BIAS                             ? "TASO's operators have no channel bias"
           : info->n_inputs == 0                              ? "TASO's rule loader asserts on constants"
                                                              : "TASO's rule loader does not build it");
  return 0;
}

/* CONCAT's parameters, or -1 where TASO's loader would assert (ex->why says so). */
static int concat_params(exporter *ex, GraphSubst__Operator *op, const rg_node *nd) {
  int rank = rg_plan_shape(ex->x->plan, nd->in[0])->rank, axis = rg_xchg_param(nd, 0);
  for (int j = TASO_MAX_CONCAT_DIMS; j < rank; j++)
    if (j != axis)
      return snprintf(ex->why, sizeof ex->why,
                      "concat of rank %d: TASO's loader names dimensions 0-3 only (it asserts on dimension %d)",
                      rank, j), -1;
  add_param(ex->p, op, K_NUM_INPUTS, nd->n_in);
  add_param(ex->p, op, K_NUMDIM, rank);
  add_param(ex->p, op, K_AXIS, axis);
  return 0;
}

/* ENLARGE's second input: a variable with the kernel sizes ours has as parameters. */
static int enlarge_ref(exporter *ex, GraphSubst__Operator *op, const rg_node *nd) {
  rg_err e;
  int32_t v = rg_xchg_enlarge_ref(ex->x, nd, "TASO", &e);
  if (v < 0) return snprintf(ex->why, sizeof ex->why, "%.250s", e.msg), -1;
  return (op->input[op->n_input++] = tensor(ex, (rg_ref){ex->x->var_node[v], 0})) ? 0 : -1;
}

/* The parameters TASO's loader requires of nd's type (and enlarge's reference); -1 if none fit. */
static int add_params(exporter *ex, GraphSubst__Operator *op, const rg_node *nd) {
  pool *p = ex->p;
  switch ((rg_op)nd->op) {
  case RG_OP_MATMUL: add_param(p, op, K_ACTI, rg_xchg_param(nd, 0)); return 0;
  case RG_OP_CONV2D: {
    if (!rg_xchg_conv_expressible(nd))
      return snprintf(ex->why, sizeof ex->why, "dilated conv2d: TASO's conv2d has no dilation"), -1;
    const rg_shape *w = rg_plan_shape(ex->x->plan, nd->in[1]); /* for our import: TASO's loader reads none */
    add_param(p, op, K_KERNEL_H, w->dim[2]), add_param(p, op, K_KERNEL_W, w->dim[3]);
    add_param(p, op, K_GROUP, rg_xchg_param(nd, 6));
    add_param(p, op, K_STRIDE_H, rg_xchg_param(nd, 0)), add_param(p, op, K_STRIDE_W, rg_xchg_param(nd, 1));
    add_param(p, op, K_PAD, rg_xchg_param(nd, 2)), add_param(p, op, K_ACTI, rg_xchg_param(nd, 3));
    return 0;
  }
  case RG_OP_CONCAT: return concat_params(ex, op, nd);
  case RG_OP_SPLIT: add_param(p, op, K_AXIS, rg_xchg_param(nd, 0)), add_param(p, op, K_NUM_OUTPUTS, 2); return 0;
  case RG_OP_TRANSPOSE: {
    int perm[RG_MAX_RANK], rank = rg_perm_unpack(rg_xchg_param(nd, 0), perm), idx = 0;
    for (int i = 0; i < rank; i++) idx = idx * rank + perm[i]; /* TASO's permutation_to_index */
    add_param(p, op, K_NUMDIM, rank), add_param(p, op, K_PERM, idx), add_param(p, op, K_OUTSHUFFLE, 1);
    return 0;
  }
  case RG_OP_ENLARGE: return enlarge_ref(ex, op, nd);
  default: return 0;
  }
}

static GraphSubst__Operator *operator(exporter *ex, const rg_node *nd) {
  int type = taso_type(ex, nd);
  if (!type) return NULL;
  GraphSubst__Operator *op = pool_alloc(ex->p, sizeof *op);
  GraphSubst__Tensor **in = pool_alloc(ex->p, sizeof *in * (RG_MAX_INPUTS + 1));
  GraphSubst__Parameter **para = pool_alloc(ex->p, sizeof *para * 8);
  if (!op || !in || !para) return NULL;
  graph_subst__operator__init(op);
  op->type = type, op->input = in, op->para = para;
  for (int i = 0; i < nd->n_in; i++)
    if (!(in[op->n_input++] = tensor(ex, nd->in[i]))) return NULL;
  if (add_params(ex, op, nd)) return NULL;
  return ex->p->failed ? NULL : op;
}

/* Builds one side's operator list (reachable nodes in id order, which is topological). */
static int build_side(exporter *ex, const rg_ref *outs, int n, GraphSubst__Operator ***ops, size_t *n_ops) {
  const rg_graph *g = ex->x->r->g;
  int32_t size = rg_graph_size(g);
  uint8_t *mark = pool_alloc(ex->p, (size_t)size);
  *ops = pool_alloc(ex->p, sizeof **ops * (size_t)(size + 1));
  if (!mark || !*ops) return -1;
  rg_graph_mark_reachable(g, outs, n, mark);
  *n_ops = 0;
  for (int32_t i = 0; i < size; i++) {
    ex->index[i] = -1;
    const rg_node *nd = rg_graph_node(g, i);
    if (!mark[i] || nd->op == RG_OP_INPUT) continue;
    GraphSubst__Operator *op = operator(ex, nd);
    if (!op) return -1;
    ex->index[i] = (int32_t)*n_ops;
    (*ops)[(*n_ops)++] = op;
  }
  return 0;
}

/* m's mapped outputs: each source output to its target, both operators' outputs. */
static int map_outputs(exporter *ex, GraphSubst__Rule *m, const int32_t *src_index, const int32_t *dst_index) {
  const rg_rule *r = ex->x->r;
  m->mappedoutput = pool_alloc(ex->p, sizeof *m->mappedoutput * RG_RULE_MAX_OUTPUTS);
  for (int i = 0; m->mappedoutput && i < r->n_src; i++) {
    rg_ref s = r->src[i], t = r->tgt[i];
    if (src_index[s.node] < 0 || dst_index[t.node] < 0) {
      const rg_node *nd = rg_graph_node(r->g, src_index[s.node] < 0 ? s.node : t.node);
      return snprintf(ex->why, sizeof ex->why, "bare output: output %d is the variable ?%s on the %s (TASO maps "
                      "outputs of operators)", i, rg_graph_tvar_name(r->g, nd->params[0]),
                      src_index[s.node] < 0 ? "source" : "target"), -1;
    }
    GraphSubst__MapOutput *mo = pool_alloc(ex->p, sizeof *mo);
    if (!mo) return -1;
    graph_subst__map_output__init(mo);
    mo->srcopid = src_index[s.node], mo->srctsid = s.out;
    mo->dstopid = dst_index[t.node], mo->dsttsid = t.out;
    m->mappedoutput[m->n_mappedoutput++] = mo;
  }
  return ex->p->failed ? -1 : 0;
}

static GraphSubst__Rule *export_rule(const rg_rule *r, const rg_enum_inputset *inputs, pool *p, char *why,
                                     size_t why_len) {
  rg_xchg_rule x;
  rg_err e;
  if (rg_xchg_rule_open(&x, r, inputs, "TASO", &e)) {
    snprintf(why, why_len, "%.300s", e.msg);
    rg_xchg_rule_close(&x);
    return NULL;
  }
  int32_t size = rg_graph_size(r->g);
  int32_t *src_index = pool_alloc(p, sizeof(int32_t) * (size_t)size);
  int32_t *dst_index = pool_alloc(p, sizeof(int32_t) * (size_t)size);
  GraphSubst__Rule *m = pool_alloc(p, sizeof *m);
  exporter ex = {&x, src_index, p, ""};
  int bad = !src_index || !dst_index || !m;
  if (!bad) graph_subst__rule__init(m), bad = build_side(&ex, r->src, r->n_src, &m->srcop, &m->n_srcop);
  ex.index = dst_index;
  if (!bad) bad = build_side(&ex, r->tgt, r->n_tgt, &m->dstop, &m->n_dstop);
  if (!bad) bad = map_outputs(&ex, m, src_index, dst_index);
  rg_xchg_rule_close(&x);
  if (bad) return snprintf(why, why_len, "%s", ex.why[0] ? ex.why : "out of memory"), NULL;
  return m;
}

rg_status rg_taso_export(const rg_rule *const *rules, const char *const *names, size_t n,
                         const rg_enum_inputset *inputs, uint8_t **buf, size_t *len, size_t *n_written,
                         rg_strbuf *skipped, rg_err *err) {
  *buf = NULL, *len = 0, *n_written = 0;
  pool p = {0};
  GraphSubst__RuleCollection rc = GRAPH_SUBST__RULE_COLLECTION__INIT;
  rc.rule = pool_alloc(&p, sizeof *rc.rule * (n + 1));
  for (size_t i = 0; rc.rule && i < n; i++) {
    char why[320];
    GraphSubst__Rule *m = export_rule(rules[i], inputs, &p, why, sizeof why);
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
