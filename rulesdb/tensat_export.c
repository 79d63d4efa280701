/* rulesdb/tensat_export.c: our rules as TENSAT's rule text (grammar in exchange.h), each as
 * TENSAT's parser reads it (egg's Pattern over TENSAT's Mdl language) or refused with the reason.
 *
 * Variables are ?input_N (exchange_util.h numbers them; any name, any count). Parameters that
 * TENSAT takes as names are written as its model.rs parses them: a transpose's permutation and a
 * reshape's shape as dimensions joined by '_' ("1_0"), which egg reads as a symbol; a one-digit
 * one would read as a number, so rank-1 transposes and reshapes are refused. An enlarge takes a
 * variable of the rule with its kernel sizes as TENSAT's reference tensor. Not expressible:
 * concat of more than two inputs (TENSAT's takes two), rules of more than two outputs, our
 * constants (they carry their shape), bias, pad, slice, dilated convs.
 */
#include <stdio.h>
#include <string.h>

#include "exchange.h"
#include "exchange_util.h"

typedef struct {
  const rg_xchg_rule *x;
  rg_strbuf *out;
  rg_err *err;
} exporter;

static rg_status unmappable(rg_err *err, const char *category, const char *why) {
  return rg_err_set(err, RG_ERR_SHAPE, "%s: %s", category, why);
}

static rg_status term(exporter *ex, rg_ref ref);

/* The operands of nd from the first, each after a space. */
static rg_status operands(exporter *ex, const rg_node *nd) {
  rg_status st = RG_OK;
  for (int k = 0; k < nd->n_in && !st; k++)
    rg_sb_puts(ex->out, " "), st = term(ex, nd->in[k]);
  return st;
}

/* Why an operator of ours that TENSAT lacks has no counterpart. */
static rg_status no_counterpart(exporter *ex, const rg_node *nd) {
  const rg_op_info *info = rg_op_get((rg_op)nd->op);
  char category[64];
  snprintf(category, sizeof category, "no TENSAT counterpart for %s", info->name);
  return unmappable(ex->err, category,
                    nd->op == RG_OP_BIAS   ? "TENSAT's operators have no channel bias"
                    : info->n_inputs == 0 ? "ours carries its shape, TENSAT's takes it from context"
                                          : "TENSAT's language has no such operator");
}

/* d0_d1_...: how TENSAT's model.rs reads a permutation or a shape by name. */
static void dims_name(rg_strbuf *o, const int32_t *d, int n) {
  for (int i = 0; i < n; i++) rg_sb_printf(o, "%s%d", i ? "_" : "", d[i]);
}

/* transpose, reshape and enlarge: (op x NAME [shuffle]) and (enlarge x ref). */
static rg_status named_param(exporter *ex, const rg_node *nd) {
  rg_strbuf *o = ex->out;
  int32_t d[RG_MAX_RANK];
  int n;
  if (nd->op == RG_OP_ENLARGE) {
    int32_t v = rg_xchg_enlarge_ref(ex->x, nd, "TENSAT", ex->err);
    if (v < 0) return RG_ERR_SHAPE;
    rg_sb_puts(o, "(enlarge ");
    rg_status st = term(ex, nd->in[0]);
    return st ? st : (rg_sb_printf(o, " ?input_%d", ex->x->num[v]), RG_OK);
  }
  if (nd->op == RG_OP_TRANSPOSE) {
    int perm[RG_MAX_RANK];
    n = rg_perm_unpack(rg_xchg_param(nd, 0), perm);
    for (int i = 0; i < n; i++) d[i] = perm[i];
  } else {
    int slot = rg_op_param_slot(RG_OP_RESHAPE, 0);
    n = nd->params[slot];
    memcpy(d, &nd->params[slot + 1], sizeof *d * (size_t)n);
  }
  if (n < 2) return unmappable(ex->err, "one-dimensional transpose or reshape", "TENSAT would read its parameter "
                               "as a number, not a name");
  rg_sb_printf(o, "(%s ", rg_op_get((rg_op)nd->op)->name);
  rg_status st = term(ex, nd->in[0]);
  if (!st) rg_sb_puts(o, " "), dims_name(o, d, n), rg_sb_puts(o, nd->op == RG_OP_TRANSPOSE ? " 1" : "");
  return st;
}

/* An operator with integer parameters first: matmul, conv2d, concat, split; pools after x. */
static rg_status with_params(exporter *ex, rg_ref ref, const rg_node *nd) {
  rg_strbuf *o = ex->out;
  switch ((rg_op)nd->op) {
  case RG_OP_MATMUL: rg_sb_printf(o, "(matmul %d", rg_xchg_param(nd, 0)); return operands(ex, nd);
  case RG_OP_CONV2D:
    if (!rg_xchg_conv_expressible(nd)) return unmappable(ex->err, "dilated conv2d", "TENSAT's conv2d has no dilation");
    rg_sb_printf(o, "(conv2d %d %d %d %d", rg_xchg_param(nd, 0), rg_xchg_param(nd, 1), rg_xchg_param(nd, 2),
                 rg_xchg_param(nd, 3));
    return operands(ex, nd);
  case RG_OP_CONCAT:
    if (nd->n_in != 2) return unmappable(ex->err, "concat of more than two inputs", "TENSAT's concat takes two");
    rg_sb_printf(o, "(concat %d %d", rg_xchg_param(nd, 0), rg_plan_shape(ex->x->plan, nd->in[0])->rank);
    return operands(ex, nd);
  case RG_OP_SPLIT: {
    rg_sb_printf(o, "(split_%d (split %d ", ref.out, rg_xchg_param(nd, 0));
    rg_status st = term(ex, nd->in[0]);
    return st ? st : (rg_sb_puts(o, ")"), RG_OK);
  }
  default: { /* the pools */
    rg_sb_printf(o, "(%s ", rg_op_get((rg_op)nd->op)->name);
    rg_status st = term(ex, nd->in[0]);
    for (int k = 0; k < 6 && !st; k++) rg_sb_printf(o, " %d", rg_xchg_param(nd, k));
    return st;
  }
  }
}

static rg_status term(exporter *ex, rg_ref ref) {
  const rg_node *nd = rg_graph_node(ex->x->r->g, ref.node);
  rg_status st;
  switch ((rg_op)nd->op) {
  case RG_OP_INPUT: rg_sb_printf(ex->out, "?input_%d", ex->x->num[nd->params[0]]); return RG_OK;
  case RG_OP_EWADD:
  case RG_OP_EWMUL:
  case RG_OP_SMUL:
  case RG_OP_RELU:
  case RG_OP_TANH:
  case RG_OP_SIGMOID:
    rg_sb_printf(ex->out, "(%s", rg_op_get((rg_op)nd->op)->name);
    st = operands(ex, nd);
    break;
  case RG_OP_MATMUL:
  case RG_OP_CONV2D:
  case RG_OP_CONCAT:
  case RG_OP_SPLIT:
  case RG_OP_POOLAVG:
  case RG_OP_POOLMAX: st = with_params(ex, ref, nd); break;
  case RG_OP_TRANSPOSE:
  case RG_OP_RESHAPE:
  case RG_OP_ENLARGE: st = named_param(ex, nd); break;
  default: return no_counterpart(ex, nd);
  }
  if (!st) rg_sb_puts(ex->out, ")");
  return st;
}

rg_status rg_tensat_export_rule(const rg_rule *r, const rg_enum_inputset *inputs, rg_strbuf *out, rg_err *err) {
  if (r->n_src > 2) return unmappable(err, "more than two outputs", "TENSAT's rules have one or two");
  rg_xchg_rule x;
  rg_status st = rg_xchg_rule_open(&x, r, inputs, "TENSAT", err);
  exporter ex = {&x, out, err};
  size_t start = out->len;
  for (int i = 0; !st && i < r->n_src; i++) {
    if (i) rg_sb_puts(out, "\n");
    st = term(&ex, r->src[i]);
    if (!st) rg_sb_puts(out, "=>"), st = term(&ex, r->tgt[i]);
  }
  if (st && out->s && start <= out->len) out->s[out->len = start] = 0; /* no partial line */
  rg_xchg_rule_close(&x);
  return st;
}
