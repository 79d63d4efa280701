/* ir/plan.c: resolving parameter variables and inferring shapes node by node. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "zp.h"

void rg_plan_free(rg_plan *p) {
  if (!p) return;
  free(p->typed);
  free(p->params);
  free(p->shape);
  free(p->zp_scale);
  free(p);
}

/* Whether value v is allowed for a parameter of spec ps (shape parameters are checked by
 * shape inference). */
static bool param_ok(const rg_param_spec *ps, int32_t v) {
  int perm[RG_MAX_RANK];
  switch (ps->kind) {
  case RG_PK_INT:
  case RG_PK_TVAR: return v >= ps->lo && v <= ps->hi;
  case RG_PK_AXIS: return v >= 0 && v < RG_MAX_RANK;
  case RG_PK_PAD: return v == RG_PAD_SAME || v == RG_PAD_VALID;
  case RG_PK_ACT: return v >= 0 && v < RG_ACT_COUNT;
  case RG_PK_PERM: return rg_perm_unpack(v, perm) >= 0;
  case RG_PK_SHAPE:
  case RG_PK_NONE: break;
  }
  return true;
}

/* The message for a value param_ok refused. */
static rg_status param_error(const char *op, const rg_param_spec *ps, int32_t v, rg_err *err) {
  switch (ps->kind) {
  case RG_PK_AXIS: return rg_err_set(err, RG_ERR_SHAPE, "%s: axis %d is outside 0..%d", op, v, RG_MAX_RANK - 1);
  case RG_PK_PAD:
    return rg_err_set(err, RG_ERR_SHAPE, "%s: padding %d is neither same (0) nor valid (1)", op, v);
  case RG_PK_ACT:
    return rg_err_set(err, RG_ERR_SHAPE, "%s: activation %d is outside 0..%d", op, v, RG_ACT_COUNT - 1);
  case RG_PK_PERM: return rg_err_set(err, RG_ERR_SHAPE, "%s: parameter %s is not a permutation", op, ps->name);
  default:
    return rg_err_set(err, RG_ERR_SHAPE, "%s: parameter %s = %d is outside %d..%d", op, ps->name, v, ps->lo,
                      ps->hi);
  }
}

rg_status rg_params_check(rg_op op, const int32_t *slots, unsigned var_mask, rg_err *err) {
  const rg_op_info *info = rg_op_get(op);
  for (int k = 0; k < info->n_params; k++) {
    const rg_param_spec *ps = &info->params[k];
    int slot = rg_op_param_slot(op, k);
    if (var_mask >> slot & 1) continue; /* checked once the variable has a value */
    if (!param_ok(ps, slots[slot])) return param_error(info->name, ps, slots[slot], err);
  }
  return RG_OK;
}

/* Fills slots with nd's parameters, variables replaced by their values, and checks them (only
 * the replaced ones when fixed_checked: the node's own values were checked when it was made). */
static rg_status resolve(const rg_graph *g, const rg_node *nd, const int32_t *pvar_values,
                         const uint8_t *pvar_bound, bool fixed_checked, int32_t *slots,
                         rg_err *err) {
  memcpy(slots, nd->params, sizeof nd->params);
  for (int k = 0; k < RG_MAX_PARAMS; k++) {
    if (!(nd->var_mask >> k & 1)) continue;
    int32_t v = nd->params[k];
    if (!pvar_bound || !pvar_bound[v])
      return rg_err_set(err, RG_ERR_UNBOUND, "%s: parameter variable ?%s has no value (bind it with --param %s=N)",
                        rg_op_get((rg_op)nd->op)->name, rg_graph_pvar_name(g, v),
                        rg_graph_pvar_name(g, v));
    slots[k] = pvar_values[v];
  }
  if (fixed_checked && !nd->var_mask) return RG_OK;
  return rg_params_check((rg_op)nd->op, slots, fixed_checked ? ~nd->var_mask : 0, err);
}

uint64_t rg_plan_window_scale(rg_op op, const int32_t *s) {
  if (op == RG_OP_POOLAVG) return rg_zp_inv((uint64_t)s[0] * (uint64_t)s[1]);
  if (op == RG_OP_CPOOL) return rg_zp_inv((uint64_t)s[1] * (uint64_t)s[2]);
  return 0;
}

/* Types the nodes of p->g reachable from outs into p's arrays (sized for p->n nodes, zeroed),
 * without the evaluation set-up: what rg_plan_new and rg_plan_types share. */
static rg_status infer(rg_plan *p, const rg_ref *outs, int n_outs,
                       const rg_shape *const *tvar_shapes, const int32_t *pvar_values,
                       const uint8_t *pvar_bound, bool fixed_checked, rg_err *err) {
  const rg_graph *g = p->g;
  rg_graph_mark_reachable(g, outs, n_outs, p->typed);
  for (int32_t id = 0; id < p->n; id++) {
    if (!p->typed[id]) continue;
    const rg_node *nd = rg_graph_node(g, id);
    rg_status st = resolve(g, nd, pvar_values, pvar_bound, fixed_checked, p->params[id], err);
    if (st == RG_OK && nd->op == RG_OP_INPUT) {
      int32_t tv = nd->params[0];
      if (!tvar_shapes || !tvar_shapes[tv])
        st = rg_err_set(err, RG_ERR_UNBOUND,
                        "tensor variable ?%s has no shape (give it with --shape %s=DIMS)",
                        rg_graph_tvar_name(g, tv), rg_graph_tvar_name(g, tv));
      else
        p->shape[id][0] = *tvar_shapes[tv];
    } else if (st == RG_OK) {
      const rg_shape *in[RG_MAX_INPUTS];
      for (int k = 0; k < nd->n_in; k++)
        in[k] = &p->shape[nd->in[k].node][nd->in[k].out];
      st = rg_shape_infer((rg_op)nd->op, p->params[id], nd->n_in, in, p->shape[id], err);
    }
    if (st != RG_OK) return st;
  }
  return RG_OK;
}

rg_status rg_plan_new(const rg_graph *g, const rg_ref *outs, int n_outs,
                      const rg_shape *const *tvar_shapes, const int32_t *pvar_values,
                      const uint8_t *pvar_bound, rg_plan **out, rg_err *err) {
  *out = NULL;
  int32_t n = rg_graph_size(g);
  rg_plan *p = calloc(1, sizeof *p);
  if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory planning a graph");
  p->g = g;
  p->n = n;
  size_t nn = n ? (size_t)n : 1;
  p->typed = calloc(nn, 1);
  p->params = calloc(nn, sizeof *p->params);
  p->shape = calloc(nn, sizeof *p->shape);
  p->zp_scale = calloc(nn, sizeof *p->zp_scale);
  if (!p->typed || !p->params || !p->shape || !p->zp_scale) {
    rg_plan_free(p);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory planning a graph");
  }
  rg_status st = infer(p, outs, n_outs, tvar_shapes, pvar_values, pvar_bound, false, err);
  if (st != RG_OK) {
    rg_plan_free(p);
    return st;
  }
  for (int32_t id = 0; id < n; id++)
    if (p->typed[id])
      p->zp_scale[id] = rg_plan_window_scale((rg_op)rg_graph_node(g, id)->op, p->params[id]);
  *out = p;
  return RG_OK;
}

rg_status rg_plan_types(const rg_graph *g, const rg_ref *outs, int n_outs,
                        const rg_shape *const *tvar_shapes, const int32_t *pvar_values,
                        const uint8_t *pvar_bound, rg_plan_types_buf *buf, rg_err *err) {
  int32_t n = rg_graph_size(g);
  if (n > RG_PLAN_TYPES_MAX)
    return rg_err_set(err, RG_ERR_LIMIT, "graph of %d nodes: more than %d to type on the stack", n,
                      RG_PLAN_TYPES_MAX);
  memset(buf->typed, 0, (size_t)n);
  buf->plan = (rg_plan){g, n, buf->typed, buf->params, buf->shape, NULL};
  return infer(&buf->plan, outs, n_outs, tvar_shapes, pvar_values, pvar_bound, true, err);
}
