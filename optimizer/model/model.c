/* optimizer/model/model.c: model graphs (model.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

rg_model *rg_model_new(void) {
  rg_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  if (!(m->g = rg_graph_new())) {
    free(m);
    return NULL;
  }
  return m;
}

void rg_model_free(rg_model *m) {
  if (!m) return;
  for (int32_t v = 0; v < m->n_var; v++) free(m->var[v].data), free(m->var[v].why);
  for (int32_t k = 0; k < m->n_op; k++) {
    rg_opaque *o = &m->op[k];
    for (int j = (int)o->node->n_input; o->implicit && j < o->n_in; j++) free(o->implicit[j - (int)o->node->n_input]);
    onnx__node_proto__free_unpacked(o->node, NULL);
    free(o->in), free(o->out), free(o->implicit), free(o->why);
  }
  for (int32_t k = 0; k < m->n_out; k++) free(m->out_name[k]);
  for (int32_t k = 0; k < m->n_dims; k++) free(m->dims[k].name), free(m->dims[k].input);
  for (int32_t k = 0; k < m->n_form; k++) free(m->form[k].in), free(m->form[k].out);
  free(m->dims), free(m->form);
  if (m->source) onnx__model_proto__free_unpacked(m->source, NULL);
  for (int32_t k = 0; k < m->n_side_files; k++) free(m->side_files[k]);
  free(m->side_files);
  free(m->out_name);
  free(m->out);
  free(m->op);
  free(m->var);
  free(m->shape);
  rg_graph_free(m->g);
  free(m);
}

/* Room for node shapes up to the graph's size. */
static bool grow_shapes(rg_model *m) {
  int32_t n = rg_graph_size(m->g);
  if (n <= m->cap_shape) return true;
  int32_t cap = m->cap_shape ? m->cap_shape : 256;
  while (cap < n) cap *= 2;
  rg_shape(*s)[RG_MAX_OUTPUTS] = realloc(m->shape, sizeof *s * (size_t)cap);
  if (!s) return false;
  m->shape = s, m->cap_shape = cap;
  return true;
}

int32_t rg_model_add_var(rg_model *m, const char *name, rg_mvar_kind kind, rg_elem elem,
                         const rg_shape *shape_in, void *data) {
  rg_shape shape_copy = *shape_in; /* shape_in may point into m->shape, which grows below */
  const rg_shape *shape = &shape_copy;
  if (rg_graph_find_tvar(m->g, name) >= 0) return RG_ERR_ARG;
  int32_t v = rg_graph_tvar(m->g, name, (int)strlen(name));
  if (v < 0) return v;
  if (v >= m->cap_var) {
    int32_t cap = m->cap_var ? 2 * m->cap_var : 256;
    rg_mvar *nv = realloc(m->var, sizeof *nv * (size_t)cap);
    if (!nv) return RG_ERR_NOMEM;
    m->var = nv, m->cap_var = cap;
  }
  m->var[v] = (rg_mvar){kind, elem, *shape, data, -1, 0, true, NULL, NULL, NULL};
  m->n_var = v + 1;
  int32_t id = rg_graph_input(m->g, v);
  if (id < 0 || !grow_shapes(m)) return RG_ERR_NOMEM;
  m->shape[id][0] = *shape;
  return v;
}

int32_t rg_model_add_opaque_var(rg_model *m, const char *name, rg_mvar_kind kind, rg_elem elem, const char *why) {
  char *w = why ? strdup(why) : NULL;
  if (why && !w) return RG_ERR_NOMEM;
  rg_shape unknown = rg_shape_make(0, NULL); /* no shape graphopt can hold (model.h's rg_mvar) */
  int32_t v = rg_model_add_var(m, name, kind, elem, &unknown, NULL);
  if (v < 0) return free(w), v;
  m->var[v].typed = false, m->var[v].why = w;
  return v;
}

rg_ref rg_model_var_ref(rg_model *m, int32_t v) { return (rg_ref){rg_graph_input(m->g, v), 0}; }

rg_status rg_model_add_node(rg_model *m, const rg_node *nd, int out_index, rg_ref *out, rg_err *err) {
  const rg_shape *in[RG_MAX_INPUTS];
  for (int k = 0; k < nd->n_in; k++) in[k] = &m->shape[nd->in[k].node][nd->in[k].out];
  rg_shape shapes[RG_MAX_OUTPUTS];
  rg_status st = rg_shape_infer((rg_op)nd->op, nd->params, nd->n_in, in, shapes, err);
  if (st) return st;
  int32_t id = rg_graph_add(m->g, nd);
  if (id < 0 || !grow_shapes(m)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memcpy(m->shape[id], shapes, sizeof shapes);
  *out = (rg_ref){id, out_index};
  return RG_OK;
}

const rg_shape *rg_model_shape(const rg_model *m, rg_ref r) { return &m->shape[r.node][r.out]; }

int32_t rg_model_var_of(const rg_model *m, rg_ref r) {
  const rg_node *nd = rg_graph_node(m->g, r.node);
  return nd->op == RG_OP_INPUT ? nd->params[0] : -1;
}

int rg_model_deps(const rg_model *m, int32_t id, rg_ref *out) {
  const rg_node *nd = rg_graph_node(m->g, id);
  if (nd->op != RG_OP_INPUT) {
    memcpy(out, nd->in, sizeof(rg_ref) * nd->n_in);
    return nd->n_in;
  }
  const rg_mvar *v = &m->var[nd->params[0]];
  if (v->kind != RG_MVAR_OPAQUE) return 0;
  const rg_opaque *o = &m->op[v->opaque];
  int n = 0;
  for (int k = 0; k < o->n_in; k++)
    if (o->in[k].node >= 0) out[n++] = o->in[k];
  return n;
}

int rg_model_max_deps(const rg_model *m) {
  int most = RG_MAX_INPUTS;
  for (int32_t k = 0; k < m->n_op; k++)
    if (m->op[k].n_in > most) most = m->op[k].n_in;
  return most;
}

/* Marks the nodes and opaque nodes the outputs need (node_mark, op_mark: zeroed by the caller):
 * a walk back from the outputs, through an opaque node's operands once one of its outputs is
 * needed, each node once (a sweep of the graph per opaque node made counting quadratic). False
 * when out of memory. */
static bool mark_needed(const rg_model *m, uint8_t *node_mark, uint8_t *op_mark) {
  int32_t *stack = malloc(sizeof *stack * ((size_t)rg_graph_size(m->g) + 1)), top = 0;
  if (!stack) return false;
  for (int32_t i = 0; i < m->n_out; i++) {
    int32_t id = m->out[i].node;
    if (id >= 0 && !node_mark[id]) node_mark[id] = 1, stack[top++] = id;
  }
  while (top) {
    const rg_node *nd = rg_graph_node(m->g, stack[--top]);
    const rg_ref *in = nd->in;
    int n_in = nd->op == RG_OP_INPUT ? 0 : nd->n_in;
    const rg_mvar *v = nd->op == RG_OP_INPUT ? &m->var[nd->params[0]] : NULL;
    if (v && v->kind == RG_MVAR_OPAQUE && !op_mark[v->opaque])
      op_mark[v->opaque] = 1, in = m->op[v->opaque].in, n_in = m->op[v->opaque].n_in;
    for (int k = 0; k < n_in; k++)
      if (in[k].node >= 0 && !node_mark[in[k].node]) node_mark[in[k].node] = 1, stack[top++] = in[k].node;
  }
  free(stack);
  return true;
}

void rg_model_weight_only(const rg_model *m, const int32_t *ids, int32_t n, uint8_t *weight_only) {
  for (int32_t i = 0; i < n; i++) { /* operands first */
    const rg_node *nd = rg_graph_node(m->g, ids[i]);
    bool w = nd->op == RG_OP_INPUT ? m->var[nd->params[0]].kind == RG_MVAR_WEIGHT : true;
    for (int k = 0; nd->op != RG_OP_INPUT && w && k < nd->n_in; k++) w = weight_only[nd->in[k].node];
    weight_only[ids[i]] = w;
  }
}

void rg_model_count(const rg_model *m, rg_model_counts *c) {
  memset(c, 0, sizeof *c);
  int32_t n = rg_graph_size(m->g);
  uint8_t *node_mark = calloc((size_t)n + 1, 1), *op_mark = calloc((size_t)m->n_op + 1, 1),
          *weight_only = calloc((size_t)n + 1, 1);
  int32_t *ids = calloc((size_t)n + 1, sizeof *ids), n_ids = 0;
  if (node_mark && op_mark && weight_only && ids && mark_needed(m, node_mark, op_mark)) {
    for (int32_t id = 0; id < n; id++)
      if (node_mark[id]) ids[n_ids++] = id;
    rg_model_weight_only(m, ids, n_ids, weight_only);
    for (int32_t id = 0; id < n; id++) {
      const rg_node *nd = rg_graph_node(m->g, id);
      if (!node_mark[id]) continue;
      const rg_mvar *v = nd->op == RG_OP_INPUT ? &m->var[nd->params[0]] : NULL;
      if (!v) c->by_op[nd->op] += !weight_only[id];
      else if (!v->typed) c->opaque_values++;
      else if (v->kind == RG_MVAR_WEIGHT) c->weights += rg_shape_numel(&v->shape);
    }
    for (int32_t k = 0; k < m->n_op; k++) c->opaque += op_mark[k], c->not_evaluated += op_mark[k] && m->op[k].why;
  }
  free(node_mark), free(op_mark), free(weight_only), free(ids);
}
