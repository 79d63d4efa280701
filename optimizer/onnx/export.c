/* optimizer/onnx/export.c: model graphs out as ONNX models (export.h): what is written and in which
 * order, names, folded constants, opaque nodes and the model message. One IR node's ONNX nodes
 * are export_nodes.c's. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "export_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/eval/eval.h"
#include "ir/atomic.h"
#include "optimizer/proto/proto.h"

/* ---- building blocks ---- */

char *rg_export_fresh(rg_exporter *ex, const char *hint) {
  char buf[256];
  int added;
  snprintf(buf, sizeof buf, "%.200s", hint);
  while (rg_names_find(&ex->taken, buf)) snprintf(buf, sizeof buf, "%.200s_%d", hint, ex->fresh++);
  return rg_names_add(&ex->taken, buf, &added) ? strdup(buf) : NULL;
}

static bool push(void ***arr, size_t *n, size_t *cap, void *item) {
  if (!item) return false;
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 64;
    void **na = realloc(*arr, sizeof *na * c);
    if (!na) return false;
    *arr = na, *cap = c;
  }
  (*arr)[(*n)++] = item;
  return true;
}

static char **copy_strings(const char *const *s, int n) {
  char **c = calloc((size_t)n + 1, sizeof *c);
  for (int i = 0; c && i < n; i++)
    if (!(c[i] = strdup(s[i] ? s[i] : ""))) return NULL; /* freed with the node */
  return c;
}

Onnx__NodeProto *rg_export_node(rg_exporter *ex, const char *op, const char *const *in, int n_in,
                                const char *const *out, int n_out) {
  Onnx__NodeProto *n = malloc(sizeof *n);
  if (!n) return NULL;
  onnx__node_proto__init(n);
  n->op_type = strdup(op);
  n->name = strdup(out[0]);
  n->input = copy_strings(in, n_in), n->n_input = (size_t)n_in;
  n->output = copy_strings(out, n_out), n->n_output = (size_t)n_out;
  if (!push((void ***)&ex->node, &ex->n_node, &ex->cap_node, n) || !n->op_type || !n->name || !n->input || !n->output) {
    onnx__node_proto__free_unpacked(n, NULL);
    return NULL;
  }
  return n;
}

static Onnx__AttributeProto *new_attr(Onnx__NodeProto *n, const char *name, Onnx__AttributeProto__AttributeType t) {
  Onnx__AttributeProto *a = malloc(sizeof *a);
  if (!a) return NULL;
  onnx__attribute_proto__init(a);
  a->name = strdup(name);
  a->has_type = 1, a->type = t;
  size_t cnt = n->n_attribute;
  if (!push((void ***)&n->attribute, &n->n_attribute, &cnt, a) || !a->name) return NULL;
  return a;
}

bool rg_export_attr_int(Onnx__NodeProto *n, const char *name, int64_t v) {
  Onnx__AttributeProto *a = new_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
  if (!a) return false;
  a->has_i = 1, a->i = v;
  return true;
}

bool rg_export_attr_ints(Onnx__NodeProto *n, const char *name, const int64_t *v, int cnt) {
  Onnx__AttributeProto *a = new_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
  if (!a || !(a->ints = malloc(sizeof *a->ints * ((size_t)cnt + 1)))) return false;
  memcpy(a->ints, v, sizeof *v * (size_t)cnt);
  a->n_ints = (size_t)cnt;
  return true;
}

const char *rg_export_init(rg_exporter *ex, const char *name, rg_elem elem, const rg_shape *s, const void *data) {
  Onnx__TensorProto *t = rg_onnx_make_tensor(name, elem, s, data);
  if (!push((void ***)&ex->init, &ex->n_init, &ex->cap_init, t)) {
    if (t) onnx__tensor_proto__free_unpacked(t, NULL);
    return NULL;
  }
  return t->name;
}

const char *rg_export_ints(rg_exporter *ex, const char *hint, const int64_t *v, int cnt) {
  char *name = rg_export_fresh(ex, hint);
  rg_shape s = rg_shape_make(1, (int32_t[]){cnt});
  const char *r = name ? rg_export_init(ex, name, RG_ELEM_INT64, &s, v) : NULL;
  free(name);
  return r;
}

float *rg_export_const_floats(const rg_exporter *ex, rg_ref r) {
  const rg_model *m = ex->m;
  int64_t n = rg_shape_numel(rg_model_shape(m, r));
  float *f = malloc(sizeof *f * (size_t)(n + 1));
  int32_t var = rg_model_var_of(m, r);
  if (!f) return NULL;
  if (var >= 0) memcpy(f, m->var[var].data, sizeof *f * (size_t)n);
  else
    for (int64_t i = 0; i < n; i++) f[i] = (float)ex->cval[r.node][r.out][i];
  return f;
}

/* ---- what is written, in which order ---- */

/* The nodes a node's value reads (rg_model_deps); none for constants, which are written whole. */
static int deps(const rg_exporter *ex, int32_t id, rg_ref *out) {
  return ex->is_const[id] ? 0 : rg_model_deps(ex->m, id, out);
}

static void mark_constants(rg_exporter *ex) {
  const rg_model *m = ex->m;
  for (int32_t id = 0; id < ex->n; id++) { /* operands come before their readers */
    const rg_node *nd = rg_graph_node(m->g, id);
    bool c = nd->op == RG_OP_INPUT ? m->var[nd->params[0]].kind == RG_MVAR_WEIGHT : true;
    for (int k = 0; c && k < nd->n_in; k++) c = ex->is_const[nd->in[k].node];
    ex->is_const[id] = c;
  }
}

/* Post-order from the outputs (no recursion: models are deep), counting each node's readers. */
static rg_status order_nodes(rg_exporter *ex, int32_t *order, int32_t *n_order, rg_err *err) {
  const rg_model *m = ex->m;
  rg_ref *d = malloc(sizeof *d * (size_t)rg_model_max_deps(m));
  size_t edges = (size_t)m->n_out;
  for (int32_t id = 0; d && id < ex->n; id++) edges += (size_t)deps(ex, id, d);
  uint8_t *state = calloc((size_t)ex->n + 1, 1);
  int32_t *stack = malloc(sizeof *stack * (edges + 1)), top = 0;
  if (!d || !state || !stack) {
    free(d), free(state), free(stack);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  *n_order = 0;
  for (int32_t i = 0; i < m->n_out; i++) {
    ex->uses[m->out[i].node]++;
    if (!state[m->out[i].node]) stack[top++] = m->out[i].node;
    while (top) {
      int32_t id = stack[top - 1];
      if (state[id] == 0) {
        state[id] = 1;
        for (int k = 0, nd = deps(ex, id, d); k < nd; k++)
          if (!state[d[k].node]) stack[top++] = d[k].node;
        continue;
      }
      top--;
      if (state[id] == 2) continue;
      state[id] = 2;
      order[(*n_order)++] = id;
      for (int k = 0, nd = deps(ex, id, d); k < nd; k++) ex->uses[d[k].node]++;
    }
  }
  free(d), free(state), free(stack);
  return RG_OK;
}

/* Whether every reader of node id computes it itself (so it is neither folded nor written). */
static bool fully_absorbed(const rg_exporter *ex, int32_t id) {
  return ex->uses[id] && ex->absorbed[id] == ex->uses[id];
}

/* Values of the constant operator nodes written (one evaluation for all of them). */
static rg_status fold_constants(rg_exporter *ex, const int32_t *order, int32_t n_order, rg_err *err) {
  const rg_model *m = ex->m;
  rg_ref *refs = malloc(sizeof *refs * ((size_t)n_order * RG_MAX_OUTPUTS + 1));
  int n = 0;
  if (!refs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t i = 0; i < n_order; i++) {
    const rg_node *nd = rg_graph_node(m->g, order[i]);
    if (!ex->is_const[order[i]] || nd->op == RG_OP_INPUT || fully_absorbed(ex, order[i])) continue;
    for (int o = 0; o < rg_op_get((rg_op)nd->op)->n_outputs; o++) refs[n++] = (rg_ref){order[i], o};
  }
  double **vals = calloc((size_t)n + 1, sizeof *vals);
  rg_status st = vals ? rg_model_eval_refs(m, NULL, refs, n, vals, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < n; i++) ex->cval[refs[i].node][refs[i].out] = vals[i];
  free(vals), free(refs);
  return st;
}

/* ---- writing ---- */

rg_status rg_export_constant(rg_exporter *ex, int32_t id, rg_err *err) {
  const rg_model *m = ex->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  for (int o = 0; o < rg_op_get((rg_op)nd->op)->n_outputs; o++) {
    rg_ref r = {id, o};
    if (ex->name[id][o]) continue; /* written for an earlier reader */
    int32_t var = rg_model_var_of(m, r);
    char *name = var >= 0 ? strdup(rg_graph_tvar_name(m->g, var)) : rg_export_fresh(ex, "folded");
    float *f = var >= 0 ? NULL : rg_export_const_floats(ex, r);
    const void *data = var >= 0 ? m->var[var].data : f;
    rg_elem elem = var >= 0 ? m->var[var].elem : RG_ELEM_FLOAT;
    bool ok;
    if (var >= 0 && ex->borrow && name) {
      Onnx__TensorProto *t = rg_onnx_tensor_view(name, elem, rg_model_shape(m, r), data);
      ok = push((void ***)&ex->view, &ex->n_view, &ex->cap_view, t) &&
           push((void ***)&ex->init, &ex->n_init, &ex->cap_init, t);
      if (!ok && t) {
        if (ex->n_view && ex->view[ex->n_view - 1] == t) ex->n_view--;
        rg_onnx_tensor_unview(t);
        onnx__tensor_proto__free_unpacked(t, NULL);
      }
    } else ok = name && data && rg_export_init(ex, name, elem, rg_model_shape(m, r), data);
    free(f);
    ex->name[id][o] = name;
    if (!ok) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

/* An opaque node as it was read, now reading the names its operands were written under. */
static rg_status write_opaque(rg_exporter *ex, const rg_opaque *o, rg_err *err) {
  size_t len = onnx__node_proto__get_packed_size(o->node);
  uint8_t *buf = malloc(len + 1);
  if (!buf) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  onnx__node_proto__pack(o->node, buf);
  Onnx__NodeProto *n = onnx__node_proto__unpack(NULL, len, buf);
  free(buf);
  bool ok = n != NULL;
  for (int k = 0; ok && k < o->n_in && (size_t)k < n->n_input; k++) {
    const char *src = o->in[k].node >= 0 ? ex->name[o->in[k].node][o->in[k].out] : "";
    char *s = strdup(src ? src : "");
    if (!s) ok = false;
    else free(n->input[k]), n->input[k] = s;
  }
  if (!ok || !push((void ***)&ex->node, &ex->n_node, &ex->cap_node, n)) {
    if (n) onnx__node_proto__free_unpacked(n, NULL);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

static rg_status write_node(rg_exporter *ex, int32_t id, uint8_t *op_done, rg_err *err) {
  const rg_model *m = ex->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  if (fully_absorbed(ex, id)) return RG_OK; /* its readers compute it */
  if (ex->is_const[id]) return rg_export_constant(ex, id, err);
  if (nd->op == RG_OP_INPUT) {
    const rg_mvar *v = &m->var[nd->params[0]];
    if (!(ex->name[id][0] = strdup(rg_graph_tvar_name(m->g, nd->params[0]))))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (v->kind != RG_MVAR_OPAQUE || op_done[v->opaque]) return RG_OK;
    op_done[v->opaque] = 1;
    return write_opaque(ex, &m->op[v->opaque], err);
  }
  for (int o = 0; o < rg_op_get((rg_op)nd->op)->n_outputs; o++)
    if (!ex->name[id][o] && !(ex->name[id][o] = rg_export_fresh(ex, rg_op_get((rg_op)nd->op)->name)))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return rg_export_ir_node(ex, id, err);
}

static Onnx__ValueInfoProto *value_info(const char *name, rg_elem elem, const rg_shape *s) {
  Onnx__ValueInfoProto *vi = malloc(sizeof *vi);
  Onnx__TypeProto *t = malloc(sizeof *t);
  Onnx__TypeProto__Tensor *tt = malloc(sizeof *tt);
  Onnx__TensorShapeProto *sp = malloc(sizeof *sp);
  if (vi) onnx__value_info_proto__init(vi);
  if (!vi || !t || !tt || !sp) {
    free(t), free(tt), free(sp);
    if (vi) onnx__value_info_proto__free_unpacked(vi, NULL);
    return NULL;
  }
  onnx__type_proto__init(t), onnx__type_proto__tensor__init(tt), onnx__tensor_shape_proto__init(sp);
  vi->type = t, t->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE, t->tensor_type = tt;
  tt->has_elem_type = 1, tt->elem_type = elem, tt->shape = sp;
  vi->name = strdup(name);
  sp->dim = calloc((size_t)s->rank + 1, sizeof *sp->dim);
  bool ok = vi->name && sp->dim;
  for (int d = 0; ok && d < s->rank; d++) {
    Onnx__TensorShapeProto__Dimension *dm = malloc(sizeof *dm);
    if (!(ok = dm != NULL)) break;
    onnx__tensor_shape_proto__dimension__init(dm);
    dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE, dm->dim_value = s->dim[d];
    sp->dim[sp->n_dim++] = dm;
  }
  if (!ok) {
    onnx__value_info_proto__free_unpacked(vi, NULL);
    return NULL;
  }
  return vi;
}

/* The element type of a value: a variable's, else float (every operator of the vocabulary). */
static rg_elem elem_of(const rg_model *m, rg_ref r) {
  int32_t v = rg_model_var_of(m, r);
  return v >= 0 ? m->var[v].elem : RG_ELEM_FLOAT;
}

static rg_status assemble(rg_exporter *ex, Onnx__ModelProto **out, rg_err *err) {
  const rg_model *m = ex->m;
  const Onnx__ModelProto *src = m->source;
  Onnx__ModelProto *mp = malloc(sizeof *mp);
  Onnx__GraphProto *g = malloc(sizeof *g);
  if (mp) onnx__model_proto__init(mp);
  if (!mp || !g) {
    free(g), free(mp);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  onnx__graph_proto__init(g);
  mp->graph = g;
  mp->has_ir_version = 1, mp->ir_version = m->ir_version;
  mp->producer_name = strdup("rulegen graphopt");
  g->name = strdup(src && src->graph->name ? src->graph->name : "graphopt");
  bool ok = mp->producer_name && g->name;
  size_t n_opsets = src ? src->n_opset_import : 0;
  mp->opset_import = calloc(n_opsets + 1, sizeof *mp->opset_import);
  ok = ok && mp->opset_import;
  for (size_t i = 0; ok && i < n_opsets; i++) {
    Onnx__OperatorSetIdProto *os = malloc(sizeof *os);
    if (!(ok = os != NULL)) break;
    onnx__operator_set_id_proto__init(os);
    os->domain = strdup(src->opset_import[i]->domain ? src->opset_import[i]->domain : "");
    os->has_version = 1, os->version = src->opset_import[i]->version;
    mp->opset_import[mp->n_opset_import++] = os;
    ok = os->domain != NULL;
  }
  if (ok && !n_opsets) { /* a model built in memory: the default domain at its opset */
    Onnx__OperatorSetIdProto *os = malloc(sizeof *os);
    if ((ok = os != NULL)) {
      onnx__operator_set_id_proto__init(os);
      os->domain = strdup(""), os->has_version = 1, os->version = m->opset;
      mp->opset_import[mp->n_opset_import++] = os;
      ok = os->domain != NULL;
    }
  }
  g->input = calloc((size_t)m->n_var + 1, sizeof *g->input);
  g->output = calloc((size_t)m->n_out + 1, sizeof *g->output);
  ok = ok && g->input && g->output;
  for (int32_t v = 0; ok && v < m->n_var; v++) {
    if (m->var[v].kind != RG_MVAR_INPUT) continue;
    ok = (g->input[g->n_input] = value_info(rg_graph_tvar_name(m->g, v), m->var[v].elem, &m->var[v].shape)) != NULL;
    g->n_input += ok;
  }
  for (int32_t i = 0; ok && i < m->n_out; i++) {
    ok = (g->output[i] = value_info(m->out_name[i], elem_of(m, m->out[i]), rg_model_shape(m, m->out[i]))) != NULL;
    g->n_output += ok;
  }
  g->node = ex->node, g->n_node = ex->n_node, ex->node = NULL, ex->n_node = 0;
  g->initializer = ex->init, g->n_initializer = ex->n_init, ex->init = NULL, ex->n_init = 0;
  if (!ok) {
    onnx__model_proto__free_unpacked(mp, NULL);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  *out = mp;
  return RG_OK;
}

/* Drops the initializers no node reads and no output is: a constant written for a reader that
 * then wrote its own form of it (a bias along a leading axis, reshaped to broadcast) would
 * otherwise ride along unused. A dropped view gives its data back first. */
static rg_status drop_unused_initializers(rg_exporter *ex, rg_err *err) {
  rg_names used = {0};
  int added;
  bool ok = true;
  for (size_t i = 0; ok && i < ex->n_node; i++)
    for (size_t k = 0; ok && k < ex->node[i]->n_input; k++) ok = rg_names_add(&used, ex->node[i]->input[k], &added);
  for (int32_t i = 0; ok && i < ex->m->n_out; i++) ok = rg_names_add(&used, ex->m->out_name[i], &added);
  size_t kept = 0;
  for (size_t i = 0; ok && i < ex->n_init; i++) {
    Onnx__TensorProto *t = ex->init[i];
    if (rg_names_find(&used, t->name)) {
      ex->init[kept++] = t;
      continue;
    }
    for (size_t v = 0; v < ex->n_view; v++)
      if (ex->view[v] == t) {
        rg_onnx_tensor_unview(t);
        ex->view[v] = ex->view[--ex->n_view];
        break;
      }
    onnx__tensor_proto__free_unpacked(t, NULL);
  }
  if (ok) ex->n_init = kept;
  rg_names_free(&used);
  return ok ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

/* The model message; with borrow, weights' initializers borrow the model's data and *views
 * lists them (the caller gives it back with rg_onnx_tensor_unview before freeing). */
static Onnx__ModelProto *build(const rg_model *m, bool borrow, Onnx__TensorProto ***views, size_t *n_views,
                               rg_err *err) {
  rg_exporter ex = {.m = m, .n = rg_graph_size(m->g), .borrow = borrow};
  size_t n = (size_t)ex.n + 1;
  ex.name = calloc(n, sizeof *ex.name), ex.cval = calloc(n, sizeof *ex.cval);
  ex.is_const = calloc(n, 1), ex.fuse = calloc(n, 1);
  ex.uses = calloc(n, sizeof *ex.uses), ex.absorbed = calloc(n, sizeof *ex.absorbed);
  int32_t *order = malloc(sizeof *order * n), n_order = 0;
  uint8_t *op_done = calloc((size_t)m->n_op + 1, 1);
  rg_status st = ex.name && ex.cval && ex.is_const && ex.fuse && ex.uses && ex.absorbed && order && op_done
                     ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int added;
  for (int32_t v = 0; !st && v < m->n_var; v++)
    if (!rg_names_add(&ex.taken, rg_graph_tvar_name(m->g, v), &added)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t i = 0; !st && i < m->n_out; i++)
    if (!rg_names_add(&ex.taken, m->out_name[i], &added)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    mark_constants(&ex);
    st = order_nodes(&ex, order, &n_order, err);
  }
  if (!st) {
    rg_export_plan_fusions(&ex, order, n_order);
    st = fold_constants(&ex, order, n_order, err);
  }
  if (!st) {
    /* an operator's result that is an output is written under the output's name */
    for (int32_t i = 0; !st && i < m->n_out; i++) {
      rg_ref r = m->out[i];
      if (rg_graph_node(m->g, r.node)->op == RG_OP_INPUT || ex.is_const[r.node] || ex.name[r.node][r.out]) continue;
      if (!(ex.name[r.node][r.out] = strdup(m->out_name[i]))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    }
  }
  for (int32_t i = 0; !st && i < n_order; i++) st = write_node(&ex, order[i], op_done, err);
  for (int32_t i = 0; !st && i < m->n_out; i++) { /* outputs that are variables, constants, or twice the same */
    const char *have = ex.name[m->out[i].node][m->out[i].out];
    if (strcmp(have, m->out_name[i]) && !rg_export_node(&ex, "Identity", &have, 1, (const char *const *)&m->out_name[i], 1))
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  Onnx__ModelProto *mp = NULL;
  if (!st) st = drop_unused_initializers(&ex, err);
  if (!st) st = assemble(&ex, &mp, err);
  for (size_t i = 0; i < n && ex.name; i++)
    for (int o = 0; o < RG_MAX_OUTPUTS; o++) free(ex.name[i][o]), free(ex.cval ? ex.cval[i][o] : NULL);
  for (size_t i = 0; i < ex.n_node; i++) onnx__node_proto__free_unpacked(ex.node[i], NULL);
  if (st) /* initializers not handed to the model: the borrowed ones go back first */
    for (size_t i = 0; i < ex.n_view; i++) rg_onnx_tensor_unview(ex.view[i]);
  for (size_t i = 0; i < ex.n_init; i++) onnx__tensor_proto__free_unpacked(ex.init[i], NULL);
  if (!st && views) *views = ex.view, *n_views = ex.n_view, ex.view = NULL;
  free(ex.view);
  free(ex.node), free(ex.init), free(ex.name), free(ex.cval), free(ex.is_const), free(ex.fuse), free(ex.uses);
  free(ex.absorbed), free(order), free(op_done);
  rg_names_free(&ex.taken);
  return st ? NULL : mp;
}

Onnx__ModelProto *rg_model_to_onnx(const rg_model *m, rg_err *err) { return build(m, false, NULL, NULL, err); }

/* protobuf-c packing straight into a file. */
typedef struct {
  ProtobufCBuffer base;
  FILE *f;
  bool failed;
  int why; /* errno of the first failed write (ENOSPC: the disk is full) */
} file_buffer;

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data) {
  file_buffer *fb = (file_buffer *)b;
  if (!fb->failed && fwrite(data, 1, len, fb->f) != len) fb->failed = true, fb->why = errno;
}

rg_status rg_model_export(const rg_model *m, const char *path, rg_err *err) {
  Onnx__TensorProto **views = NULL;
  size_t n_views = 0;
  Onnx__ModelProto *mp = build(m, true, &views, &n_views, err); /* no copy of the weights */
  if (!mp) return err ? err->status : RG_ERR_NOMEM;
  rg_atomic_file af;
  rg_status st = rg_atomic_open(&af, path, err);
  if (!st) {
    file_buffer fb = {{file_append}, af.f, false, 0};
    onnx__model_proto__pack_to_buffer(mp, &fb.base);
    if (fb.failed) {
      rg_atomic_abort(&af); /* the target is left as it was */
      st = rg_err_set(err, RG_ERR_IO, "%s: cannot write the model: %s (nothing written)", path,
                      fb.why ? strerror(fb.why) : "write error");
    } else st = rg_atomic_commit(&af, err);
  }
  for (size_t i = 0; i < n_views; i++) rg_onnx_tensor_unview(views[i]);
  free(views);
  onnx__model_proto__free_unpacked(mp, NULL);
  return st;
}
