/* rulesdb/exchange_rule.c: a rule made ready for TASO or TENSAT export (exchange_util.h): its
 * variables in order of first use and numbered, both sides typed, what neither format can take
 * refused with the reason; and the reference tensor an enlarge needs there. */
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "exchange_util.h"

/* Appends to x->order each variable the walk from refs reaches first, operands in order
 * (rg_graph_reach; seen and stamp shared between the sides, so the target adds only what the
 * source lacks). stack, reached: room for the graph's size. */
static void walk_first_use(rg_xchg_rule *x, int32_t *count, const rg_ref *refs, int n, uint32_t *seen,
                           int32_t *stack, int32_t *reached) {
  const rg_graph *g = x->r->g;
  int32_t m = rg_graph_reach(g, refs, n, seen, 1, stack, reached);
  for (int32_t k = 0; k < m; k++) {
    const rg_node *nd = rg_graph_node(g, reached[k]);
    if (nd->op != RG_OP_INPUT) continue;
    x->var_node[nd->params[0]] = reached[k];
    if (!x->num[nd->params[0]]) x->num[nd->params[0]] = -1, x->order[(*count)++] = nd->params[0];
  }
}

/* x->order, x->n_src and x->var_node; x->num left zero. *n_used: the variables either side uses. */
static rg_status order_vars(rg_xchg_rule *x, int32_t *n_used, rg_err *err) {
  int32_t size = rg_graph_size(x->r->g), nt = rg_graph_n_tvars(x->r->g), count = 0;
  uint32_t *seen = calloc((size_t)size + 1, sizeof *seen);
  int32_t *stack = malloc(sizeof *stack * 2 * ((size_t)size + 1)), *reached = stack ? stack + size + 1 : NULL;
  if (!seen || !stack) return free(seen), free(stack), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t v = 0; v < nt; v++) x->var_node[v] = -1;
  walk_first_use(x, &count, x->r->src, x->r->n_src, seen, stack, reached); /* num[v] = -1: v placed */
  x->n_src = count;
  walk_first_use(x, &count, x->r->tgt, x->r->n_tgt, seen, stack, reached);
  *n_used = count;
  for (int32_t v = 0; v < nt; v++)
    if (!x->num[v]) x->order[count++] = v; /* named but used nowhere: last */
  memset(x->num, 0, sizeof *x->num * (size_t)nt);
  free(seen), free(stack);
  return RG_OK;
}

/* x->num: TASO's input numbers by name, then 21, 22, ... in x->order for the rest. */
static void number_vars(rg_xchg_rule *x) {
  const rg_graph *g = x->r->g;
  int32_t nt = rg_graph_n_tvars(g);
  int next = RG_TASO_INPUTS + 1;
  for (int32_t i = 0; i < nt; i++) {
    int32_t v = x->order[i];
    int n = rg_taso_input_number(rg_graph_tvar_name(g, v));
    for (int32_t j = 0; j < i && n; j++)
      if (x->num[x->order[j]] == n) n = 0; /* ?x1 and ?input_1 in one rule: the second is numbered */
    x->num[v] = n;
  }
  for (int32_t i = 0; i < nt; i++) {
    int32_t v = x->order[i];
    if (x->num[v]) continue;
    for (int32_t j = 0; j < nt; j++) /* never a number a name took */
      if (x->num[j] == next) next++, j = -1;
    x->num[v] = next++;
  }
}

static int typed_at(const rg_rule *r, const rg_shape *const *shapes, rg_plan **plan) {
  rg_ref all[2 * RG_RULE_MAX_OUTPUTS];
  rg_err e;
  memcpy(all, r->src, sizeof(rg_ref) * (size_t)r->n_src);
  memcpy(all + r->n_src, r->tgt, sizeof(rg_ref) * (size_t)r->n_tgt);
  if (rg_plan_new(r->g, all, r->n_src + r->n_tgt, shapes, NULL, NULL, plan, &e) == RG_OK &&
      rg_rule_well_typed(r, &(rg_binding){shapes, NULL, NULL}))
    return 1;
  if (*plan) rg_plan_free(*plan), *plan = NULL;
  return 0;
}

/* x->plan at the shapes rg_xchg_rule_open names, in its order. */
static rg_status type_rule(rg_xchg_rule *x, const rg_enum_inputset *inputs, rg_err *err) {
  const rg_graph *g = x->r->g;
  int32_t nt = rg_graph_n_tvars(g);
  rg_enum_inputset def;
  if (!inputs) rg_enum_inputs_default(&def), rg_enum_inputs_add_bias(&def), rg_enum_inputs_add_seamed(&def), inputs = &def;
  rg_shape *shp = calloc((size_t)nt + 1, sizeof *shp);
  const rg_shape **ptr = calloc((size_t)nt + 1, sizeof *ptr);
  if (!shp || !ptr) return free(shp), free(ptr), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int known = 1;
  for (int32_t v = 0; v < nt && known; v++) { /* ?input_4 without a shape in inputs: TASO's w1 */
    const rg_shape *s = rg_enum_inputs_shape(inputs, rg_graph_tvar_name(g, v));
    known = s ? (shp[v] = *s, 1) : rg_taso_input_shape(x->num[v], &shp[v]);
    ptr[v] = &shp[v];
  }
  int32_t conv_dims[4] = {4, 4, 3, 3};
  int ok = known && typed_at(x->r, ptr, &x->plan);
  for (int32_t v = 0; v < nt && known && !ok; v++) /* TASO's w1-w3 as 4-d tensors */
    if (x->num[v] >= 4 && x->num[v] <= 6) shp[v] = rg_shape_make(4, conv_dims);
  if (known && !ok) ok = typed_at(x->r, ptr, &x->plan);
  free(shp), free(ptr);
  if (ok) return RG_OK;
  rg_err e;
  if (rg_shapes_solve(x->r, NULL, 1, 1, &x->keep, &e))
    return rg_err_set(err, RG_ERR_SHAPE, "does not type-check: %s", e.msg);
  if (typed_at(x->r, x->keep.items[0].binding.tvar_shapes, &x->plan)) return RG_OK;
  return rg_err_set(err, RG_ERR_SHAPE, "does not type-check: not at the shapes the shape solver found");
}

rg_status rg_xchg_rule_open(rg_xchg_rule *x, const rg_rule *r, const rg_enum_inputset *inputs, const char *fmt,
                            rg_err *err) {
  memset(x, 0, sizeof *x);
  x->r = r;
  int32_t nt = rg_graph_n_tvars(r->g);
  if (r->n_tgt == 0) return rg_err_set(err, RG_ERR_SHAPE, "bare graph: no target");
  if (rg_graph_n_pvars(r->g))
    return rg_err_set(err, RG_ERR_SHAPE, "parameter variable: ?%s (%s's rules take literal parameters)",
                      rg_graph_pvar_name(r->g, 0), fmt);
  x->num = calloc((size_t)nt + 1, sizeof *x->num);
  x->order = calloc((size_t)nt + 1, sizeof *x->order);
  x->var_node = calloc((size_t)nt + 1, sizeof *x->var_node);
  if (!x->num || !x->order || !x->var_node) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int32_t n_used = 0;
  rg_status st = order_vars(x, &n_used, err);
  if (st) return st;
  if (x->n_src < n_used) /* TASO asserts on an input first seen in the target; egg refuses an unbound one */
    return rg_err_set(err, RG_ERR_SHAPE, "variable only in the target: ?%s (%s)", rg_graph_tvar_name(r->g, x->order[x->n_src]),
                      strcmp(fmt, "TASO") ? "TENSAT's rewrites bind variables by the source"
                                          : "TASO's rule loader asserts that every input appears in the source");
  number_vars(x);
  return type_rule(x, inputs, err);
}

void rg_xchg_rule_close(rg_xchg_rule *x) {
  if (x->plan) rg_plan_free(x->plan);
  rg_assignment_list_free(&x->keep);
  free(x->num), free(x->order), free(x->var_node);
  memset(x, 0, sizeof *x);
}

int32_t rg_xchg_enlarge_ref(const rg_xchg_rule *x, const rg_node *nd, const char *fmt, rg_err *err) {
  int32_t kh = rg_xchg_param(nd, 0), kw = rg_xchg_param(nd, 1);
  for (int32_t i = 0; i < x->n_src; i++) {
    int32_t v = x->order[i];
    if (x->var_node[v] < 0) continue;
    const rg_shape *s = rg_plan_shape(x->plan, (rg_ref){x->var_node[v], 0});
    if (s->rank == 4 && s->dim[2] == kh && s->dim[3] == kw) return v;
  }
  rg_err_set(err, RG_ERR_SHAPE, "enlarge without a reference: no variable of the source is 4-d with a %dx%d kernel "
             "(%s's enlarge copies a reference tensor's kernel size)", kh, kw, fmt);
  return -1;
}
