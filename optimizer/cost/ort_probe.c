/* optimizer/cost/ort_probe.c: what --cost ort times (cost_internal.h): a node of a model, with the
 * bias and activation onnxruntime computes inside it, as a model of its own written by our
 * exporter (onnx/export.h), so that onnxruntime runs the node as it runs it in the model
 * graphopt writes: the same ONNX operators, the bias in the Conv or Gemm, weights as
 * initializers (onnxruntime prepacks them at load, as in the whole model), at the model's opset.
 * The weights' values are small numbers (no zeros or denormals to speed a kernel up); the
 * timings do not depend on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"
#include "optimizer/onnx/onnx.h"

/* Bound on the nodes under a value looked at to tell a weight from an activation: weight-only
 * values are small trees of kernels (concatenated, enlarged); a value that needs more is taken
 * for an activation. */
#define WEIGHT_WALK 256

/* Whether every leaf under r is a weight (or there is none: a constant), as export folds it. */
static bool weight_value(const rg_model *m, rg_ref r) {
  int32_t stack[WEIGHT_WALK];
  int n = 0, seen = 0;
  stack[n++] = r.node;
  while (n) {
    const rg_node *nd = rg_graph_node(m->g, stack[--n]);
    if (++seen > WEIGHT_WALK) return false;
    if (nd->op == RG_OP_INPUT) {
      const rg_mvar *v = &m->var[nd->params[0]];
      if (v->kind != RG_MVAR_WEIGHT || !v->typed) return false;
      continue;
    }
    for (int k = 0; k < nd->n_in; k++) {
      if (n == WEIGHT_WALK) return false;
      stack[n++] = nd->in[k].node;
    }
  }
  return true;
}

unsigned rg_ort_weight_mask(const rg_model *m, int32_t id) {
  const rg_node *nd = rg_graph_node(m->g, id);
  unsigned mask = 0;
  for (int k = 0; k < nd->n_in; k++)
    if (weight_value(m, nd->in[k])) mask |= 1u << k;
  return mask;
}

/* A variable of p for operand r of m: a weight of small numbers, or an input. */
static rg_status operand(rg_model *p, const rg_model *m, rg_ref r, bool weight, rg_ref *out, rg_err *err) {
  const rg_shape *s = rg_model_shape(m, r);
  float *data = NULL;
  if (weight) {
    int64_t n = rg_shape_numel(s);
    if (!(data = malloc(sizeof *data * (size_t)(n ? n : 1)))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) data[i] = (float)(i % 97) * 0.01f - 0.405f;
  }
  char name[16];
  snprintf(name, sizeof name, "x%d", p->n_var);
  int32_t v = rg_model_add_var(p, name, weight ? RG_MVAR_WEIGHT : RG_MVAR_INPUT, RG_ELEM_FLOAT, s, data);
  if (v < 0) return free(data), rg_err_set(err, v, "out of memory");
  *out = rg_model_var_ref(p, v);
  return RG_OK;
}

/* m's node id rebuilt in p over p's values: operands from below (the node before, in a chain)
 * where in[k] is it, else new variables (weights where mask says). */
static rg_status rebuild(rg_model *p, const rg_model *m, int32_t id, unsigned mask, rg_ref below_m, rg_ref below_p,
                         rg_ref *out, rg_err *err) {
  rg_node nd = *rg_graph_node(m->g, id);
  rg_ref made[RG_MAX_INPUTS];
  rg_status st = RG_OK;
  for (int k = 0; !st && k < nd.n_in; k++) {
    rg_ref r = nd.in[k];
    int same = -1; /* an operand read twice is one value, as in the model */
    for (int j = 0; j < k; j++)
      if (nd.in[j].node == r.node && nd.in[j].out == r.out) same = j;
    if (r.node == below_m.node && r.out == below_m.out) made[k] = below_p;
    else if (same >= 0) made[k] = made[same];
    else st = operand(p, m, r, mask >> k & 1, &made[k], err);
  }
  for (int k = 0; k < nd.n_in; k++) nd.in[k] = made[k];
  return st ? st : rg_model_add_node(p, &nd, 0, out, err);
}

/* p's outputs: every output of node r.node ("y0", "y1", ...). */
static rg_status outputs(rg_model *p, rg_ref r, rg_err *err) {
  int n = rg_op_get((rg_op)rg_graph_node(p->g, r.node)->op)->n_outputs;
  p->out = calloc((size_t)n, sizeof *p->out), p->out_name = calloc((size_t)n, sizeof *p->out_name);
  if (!p->out || !p->out_name) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int j = 0; j < n; j++) {
    char name[16];
    snprintf(name, sizeof name, "y%d", j);
    p->out[j] = (rg_ref){r.node, j};
    if (!(p->out_name[j] = malloc(strlen(name) + 1))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    memcpy(p->out_name[j], name, strlen(name) + 1), p->n_out = j + 1;
  }
  return RG_OK;
}

/* An empty model at m's opset (7 at least: onnxruntime runs no earlier form) and IR version. */
static rg_model *frame(const rg_model *m) {
  rg_model *p = rg_model_new();
  if (p) p->opset = m && m->opset >= 7 ? m->opset : 13, p->ir_version = m && m->ir_version ? m->ir_version : 8;
  return p;
}

rg_status rg_ort_probe(const rg_model *m, int32_t base, const int32_t *chain, int n_chain, uint8_t **buf, size_t *len,
                       rg_err *err) {
  *buf = NULL, *len = 0;
  rg_model *p = frame(m);
  if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_ref top;
  rg_status st = rebuild(p, m, base, rg_ort_weight_mask(m, base), (rg_ref){-1, 0}, (rg_ref){-1, 0}, &top, err);
  for (int i = 0; !st && i < n_chain; i++) { /* a bias's vector is a weight, as the Conv's or Gemm's bias */
    rg_ref below = rg_graph_node(m->g, chain[i])->in[0];
    st = rebuild(p, m, chain[i], ~1u, below, top, &top, err);
  }
  if (!st) st = outputs(p, top, err);
  if (!st) st = rg_model_to_bytes(p, NULL, buf, len, err);
  rg_model_free(p);
  return st;
}

rg_status rg_ort_relu_chain(int k, uint8_t **buf, size_t *len, rg_err *err) {
  *buf = NULL, *len = 0;
  rg_model *p = frame(NULL);
  if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_shape one = rg_shape_make(1, (int32_t[]){1});
  int32_t v = rg_model_add_var(p, "x0", RG_MVAR_INPUT, RG_ELEM_FLOAT, &one, NULL);
  rg_ref top = v >= 0 ? rg_model_var_ref(p, v) : (rg_ref){-1, 0};
  rg_status st = v >= 0 ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < k; i++) {
    rg_node nd = rg_node_init(RG_OP_RELU);
    nd.in[nd.n_in++] = top;
    st = rg_model_add_node(p, &nd, 0, &top, err);
  }
  if (!st) st = outputs(p, top, err);
  if (!st) st = rg_model_to_bytes(p, NULL, buf, len, err);
  rg_model_free(p);
  return st;
}
