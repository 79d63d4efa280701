/* enumerate/space.c: variant list of a search space; codes to graphs. */
#include "space.h"

#include <stdlib.h>
#include <string.h>

/* sp->sibling: each variant's other output, found once (the enumerator asks at every step). */
static bool find_siblings(rg_enum_space *sp) {
  sp->sibling = malloc(sizeof *sp->sibling * (size_t)sp->n_variants);
  if (!sp->sibling) return false;
  for (int v = 0; v < sp->n_variants; v++) {
    const rg_enum_variant *a = &sp->variants[v];
    sp->sibling[v] = -1;
    for (int u = 0; rg_op_get((rg_op)a->op)->n_outputs > 1 && u < sp->n_variants && sp->sibling[v] < 0;
         u++) {
      const rg_enum_variant *b = &sp->variants[u];
      if (a->op == b->op && a->out != b->out && !memcmp(a->params, b->params, sizeof a->params)) sp->sibling[v] = u;
    }
  }
  return true;
}

rg_status rg_enum_space_init(rg_enum_space *sp, const rg_enum_choices *c, const rg_enum_inputset *in,
                             int depth, rg_err *err) {
  memset(sp, 0, sizeof *sp);
  if (depth < 1 || depth > RG_ENUM_MAX_DEPTH)
    return rg_err_set(err, RG_ERR_ARG, "--depth %d is outside 1..%d (graphs of at most %d operators)",
                      depth, RG_ENUM_MAX_DEPTH, RG_ENUM_MAX_DEPTH);
  if (in->n < 1 || in->n > RG_ENUM_MAX_INPUTS)
    return rg_err_set(err, RG_ERR_ARG, "the input set must have 1..%d tensors", RG_ENUM_MAX_INPUTS);
  for (int i = 0; i < in->n; i++)
    if (rg_shape_numel(&in->in[i].shape) > RG_ENUM_MAX_INPUT_ELEMS) {
      char b[96];
      return rg_err_set(err, RG_ERR_LIMIT,
                        "input %s (%s) has more than %d elements: enumeration evaluates every graph "
                        "on its inputs, use small shapes (TASO's have at most 512)",
                        in->in[i].name, rg_shape_format(&in->in[i].shape, b, sizeof b),
                        RG_ENUM_MAX_INPUT_ELEMS);
    }
  sp->inputs = *in;
  sp->choices = *c;
  for (int i = 0; i < in->n; i++) {
    sp->prev_same[i] = -1;
    for (int j = i - 1; j >= 0 && sp->prev_same[i] < 0; j--)
      if (rg_shape_type_eq(&in->in[i].shape, &in->in[j].shape)) sp->prev_same[i] = (int8_t)j;
  }
  sp->depth = depth;
  sp->variants = malloc(sizeof *sp->variants * RG_OP_COUNT * RG_ENUM_MAX_OP_VARIANTS);
  if (!sp->variants) return rg_err_set(err, RG_ERR_NOMEM, "out of memory for the variant list");
  for (int op = 0; op < RG_OP_COUNT; op++)
    sp->n_variants += rg_enum_op_variants((rg_op)op, c, in, sp->variants + sp->n_variants,
                                          RG_ENUM_MAX_OP_VARIANTS);
  if (sp->n_variants == 0)
    return rg_err_set(err, RG_ERR_ARG, "no operator variant to enumerate (check --ops and the inputs)");
  if (!find_siblings(sp)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory for the variant list");
  return RG_OK;
}

void rg_enum_space_free(rg_enum_space *sp) {
  free(sp->variants);
  free(sp->sibling);
  sp->variants = NULL;
  sp->sibling = NULL;
  sp->n_variants = 0;
}

int rg_enum_code_len(const rg_enum_code *c) {
  int n = 0;
  while (n < RG_ENUM_MAX_DEPTH && c->op[n].variant < RG_ENUM_INPUT_GRAPH) n++;
  return n;
}

bool rg_enum_op_siblings(const rg_enum_space *sp, rg_enum_opcode a, rg_enum_opcode b) {
  return a.variant < sp->n_variants && sp->sibling[a.variant] == b.variant && !memcmp(a.in, b.in, sizeof a.in);
}

int rg_enum_code_weight(const rg_enum_space *sp, const rg_enum_code *c) {
  int n = rg_enum_code_len(c), w = 0;
  for (int k = 0; k < n; k++) {
    bool free_op = false;
    for (int j = 0; j < k; j++) free_op = free_op || rg_enum_op_siblings(sp, c->op[j], c->op[k]);
    w += !free_op;
  }
  return w;
}


rg_enum_code rg_enum_code_input(int i) {
  rg_enum_code c;
  for (int k = 0; k < RG_ENUM_MAX_DEPTH; k++) c.op[k] = (rg_enum_opcode){RG_ENUM_NO_OP, {0, 0}};
  c.op[0] = (rg_enum_opcode){RG_ENUM_INPUT_GRAPH, {(uint8_t)i, 0}};
  return c;
}

bool rg_enum_space_accepts(const rg_enum_space *sp, int v, const rg_shape *const *in, const rg_shape *out) {
  rg_op op = (rg_op)sp->variants[v].op;
  if ((op == RG_OP_ENLARGE || op == RG_OP_RESHAPE || op == RG_OP_SLICE) && rg_shape_type_eq(out, in[0]))
    return false; /* the identity: its tensor is its operand */
  if (op != RG_OP_CONV2D) return true;
  const rg_shape *w = in[1];
  for (int k = 0; k < sp->choices.n_kernels; k++)
    if (w->dim[2] == sp->choices.kernel[k][0] && w->dim[3] == sp->choices.kernel[k][1]) return true;
  return false;
}

rg_status rg_enum_graph_prepare(const rg_enum_space *sp, rg_graph *g, rg_err *err) {
  for (int i = 0; i < sp->inputs.n; i++) {
    const char *name = sp->inputs.in[i].name;
    int32_t v = rg_graph_tvar(g, name, (int)strlen(name));
    if (v < 0) return rg_err_set(err, (rg_status)v, "cannot add input %s to a graph", name);
    if (v != i) return rg_err_set(err, RG_ERR_ARG, "graph was not empty when prepared");
  }
  return RG_OK;
}

/* The input node of input i: its tensor variable is interned by name (a prepared graph already
 * has it, at index i). */
static int32_t input_node(const rg_enum_space *sp, rg_graph *g, int i) {
  const char *name = sp->inputs.in[i].name;
  int32_t tv = rg_graph_tvar(g, name, (int)strlen(name));
  return tv < 0 ? tv : rg_graph_input(g, tv);
}

int rg_enum_input_index(const rg_enum_space *sp, const char *name) {
  for (int i = 0; i < sp->inputs.n; i++)
    if (!strcmp(sp->inputs.in[i].name, name)) return i;
  return -1;
}

rg_status rg_enum_build(const rg_enum_space *sp, const rg_enum_code *c, rg_graph *g, rg_ref *outs,
                        int *n_outs, rg_err *err) {
  int n = rg_enum_code_len(c), ni = sp->inputs.n;
  *n_outs = 0;
  if (n == 0) {
    if (c->op[0].variant != RG_ENUM_INPUT_GRAPH || c->op[0].in[0] >= ni)
      return rg_err_set(err, RG_ERR_ARG, "malformed graph code");
    int32_t id = input_node(sp, g, c->op[0].in[0]);
    if (id < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory building a graph");
    outs[(*n_outs)++] = (rg_ref){id, 0};
    return RG_OK;
  }
  rg_ref pool[RG_ENUM_POOL];
  bool used[RG_ENUM_POOL] = {0};
  for (int k = 0; k < n; k++) {
    const rg_enum_opcode *oc = &c->op[k];
    if (oc->variant >= sp->n_variants) return rg_err_set(err, RG_ERR_ARG, "malformed graph code");
    const rg_enum_variant *v = &sp->variants[oc->variant];
    rg_node nd = rg_node_init((rg_op)v->op);
    memcpy(nd.params, v->params, sizeof nd.params);
    nd.n_in = v->n_in;
    for (int j = 0; j < v->n_in; j++) {
      int p = oc->in[j];
      if (p >= ni + k) return rg_err_set(err, RG_ERR_ARG, "malformed graph code");
      if (p < ni) {
        int32_t id = input_node(sp, g, p);
        if (id < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory building a graph");
        nd.in[j] = (rg_ref){id, 0};
      } else {
        nd.in[j] = pool[p];
        used[p] = true;
      }
    }
    int32_t id = rg_graph_add(g, &nd);
    if (id < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory building a graph");
    pool[ni + k] = (rg_ref){id, v->out};
  }
  for (int k = 0; k < n; k++)
    if (!used[ni + k]) {
      if (*n_outs == RG_RULE_MAX_OUTPUTS)
        return rg_err_set(err, RG_ERR_LIMIT, "graph has more than %d outputs", RG_RULE_MAX_OUTPUTS);
      outs[(*n_outs)++] = pool[ni + k];
    }
  return RG_OK;
}

rg_status rg_enum_code_out_types(const rg_enum_space *sp, const rg_enum_code *c, rg_shape *types, int *n_outs) {
  int n = rg_enum_code_len(c), ni = sp->inputs.n;
  *n_outs = 0;
  if (n == 0) {
    if (c->op[0].in[0] >= ni) return RG_ERR_ARG;
    types[(*n_outs)++] = sp->inputs.in[c->op[0].in[0]].shape;
    return RG_OK;
  }
  rg_shape pool[RG_ENUM_POOL];
  bool used[RG_ENUM_POOL] = {0};
  for (int i = 0; i < ni; i++) pool[i] = sp->inputs.in[i].shape;
  for (int k = 0; k < n; k++) {
    const rg_enum_opcode *oc = &c->op[k];
    if (oc->variant >= sp->n_variants) return RG_ERR_ARG;
    const rg_enum_variant *v = &sp->variants[oc->variant];
    const rg_shape *in[2] = {NULL, NULL};
    for (int j = 0; j < v->n_in; j++) {
      if (oc->in[j] >= ni + k) return RG_ERR_ARG;
      in[j] = &pool[oc->in[j]];
      used[oc->in[j]] = true;
    }
    rg_shape out[RG_MAX_OUTPUTS];
    rg_status st = rg_shape_infer((rg_op)v->op, v->params, v->n_in, in, out, NULL);
    if (st) return st;
    pool[ni + k] = out[v->out];
  }
  for (int k = 0; k < n; k++)
    if (!used[ni + k]) {
      if (*n_outs == RG_RULE_MAX_OUTPUTS) return RG_ERR_LIMIT;
      types[(*n_outs)++] = pool[ni + k];
    }
  return RG_OK;
}

rg_status rg_enum_code_print(const rg_enum_space *sp, const rg_enum_code *c, rg_strbuf *sb,
                             rg_err *err) {
  rg_graph *g = rg_graph_new();
  if (!g) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_ref outs[RG_RULE_MAX_OUTPUTS];
  int n = 0;
  rg_status st = rg_enum_graph_prepare(sp, g, err);
  if (!st) st = rg_enum_build(sp, c, g, outs, &n, err);
  for (int i = 0; i < n && !st; i++) {
    if (i) rg_sb_puts(sb, " ; ");
    rg_text_print_ref(g, outs[i], sb);
  }
  rg_graph_free(g);
  return st;
}
