/* optimizer/onnx/export.c: model graphs out as ONNX models (export.h): what is written and in which
 * order, names, folded constants, opaque nodes and the model message. One IR node's ONNX nodes
 * are export_nodes.c's. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "export_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/eval/eval.h"
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

rg_status rg_export_copy_node(rg_exporter *ex, const Onnx__NodeProto *src, const char *const *in,
                              const char *const *out, rg_err *err) {
  Onnx__NodeProto *n = rg_onnx_copy(&src->base);
  bool ok = n != NULL;
  for (size_t k = 0; ok && k < n->n_input; k++) {
    char *s = strdup(in[k]);
    if (!(ok = s != NULL)) break;
    free(n->input[k]), n->input[k] = s;
  }
  for (size_t j = 0; ok && out && j < n->n_output; j++) {
    char *s = strdup(out[j]);
    if (!(ok = s != NULL)) break;
    free(n->output[j]), n->output[j] = s;
  }
  if (!ok || !push((void ***)&ex->node, &ex->n_node, &ex->cap_node, n)) {
    if (n) onnx__node_proto__free_unpacked(n, NULL);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
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

/* The nodes a node's value reads (rg_model_deps; a node written as read: what its inputs name);
 * none for other constants, which are written whole. */
static int deps(const rg_exporter *ex, int32_t id, rg_ref *out) {
  if (ex->formed[id]) return rg_export_form_deps(ex, id, out);
  return ex->is_const[id] ? 0 : rg_model_deps(ex->m, id, out);
}

static int max_deps(const rg_model *m) {
  int a = rg_model_max_deps(m), b = rg_export_form_max_deps(m);
  return a > b ? a : b;
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
  rg_ref *d = malloc(sizeof *d * ((size_t)max_deps(m) + 1));
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

/* An opaque weight (var) as it was read: its initializer or sparse initializer, lent (writing
 * a file) or copied. */
static rg_status kept_weight(rg_exporter *ex, int32_t id, int32_t var, rg_err *err) {
  const rg_mvar *v = &ex->m->var[var];
  if (!v->sparse && !v->tensor) /* a model built in memory gives none: nothing to write it from */
    return rg_err_set(err, RG_ERR_ARG, "weight '%s' of a type graphopt does not model has no data",
                      rg_graph_tvar_name(ex->m->g, var));
  const ProtobufCMessage *src = v->sparse ? &v->sparse->base : &v->tensor->base;
  ProtobufCMessage *t = ex->borrow ? rg_onnx_lend(src) : rg_onnx_copy(src);
  bool ok = t && (!ex->borrow || push((void ***)&ex->lent, &ex->n_lent, &ex->cap_lent, t));
  if (ok) ok = v->sparse ? push((void ***)&ex->sparse, &ex->n_sparse, &ex->cap_sparse, t)
                         : push((void ***)&ex->init, &ex->n_init, &ex->cap_init, t);
  if (!ok && t) {
    if (ex->borrow && ex->n_lent && ex->lent[ex->n_lent - 1] == t) ex->n_lent--, rg_onnx_unlend(t);
    protobuf_c_message_free_unpacked(t, NULL);
  }
  ex->name[id][0] = ok ? strdup(rg_graph_tvar_name(ex->m->g, var)) : NULL;
  return ok && ex->name[id][0] ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

rg_status rg_export_constant(rg_exporter *ex, int32_t id, rg_err *err) {
  const rg_model *m = ex->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  if (ex->name[id][0]) return RG_OK; /* written for an earlier reader */
  if (nd->op == RG_OP_INPUT && !m->var[nd->params[0]].typed) return kept_weight(ex, id, nd->params[0], err);
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

/* The values o's subgraphs read, under the names they read them by: an Identity for each
 * written under another name (once per name). */
static bool pin_implicit(rg_exporter *ex, const rg_opaque *o) {
  int added;
  for (int k = (int)o->node->n_input; k < o->n_in; k++) {
    const char *want = o->implicit[k - (int)o->node->n_input], *have = ex->name[o->in[k].node][o->in[k].out];
    if (!strcmp(have, want) || rg_names_find(&ex->pinned, want)) continue;
    if (!rg_names_add(&ex->pinned, want, &added) || !rg_export_node(ex, "Identity", &have, 1, &want, 1)) return false;
  }
  return true;
}

/* An opaque node as it was read, now reading the names its operands were written under. */
static rg_status write_opaque(rg_exporter *ex, const rg_opaque *o, rg_err *err) {
  if (!pin_implicit(ex, o)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  const char **in = calloc(o->node->n_input + 1, sizeof *in);
  if (!in) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t k = 0; k < o->node->n_input; k++) {
    const char *src = o->in[k].node >= 0 ? ex->name[o->in[k].node][o->in[k].out] : "";
    in[k] = src ? src : "";
  }
  rg_status st = rg_export_copy_node(ex, o->node, in, NULL, err);
  free(in);
  return st;
}

static rg_status write_node(rg_exporter *ex, int32_t id, uint8_t *op_done, rg_err *err) {
  const rg_model *m = ex->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  if (fully_absorbed(ex, id)) return RG_OK; /* its readers compute it */
  if (ex->is_const[id] && !ex->formed[id]) return rg_export_constant(ex, id, err);
  if (nd->op == RG_OP_INPUT) {
    const rg_mvar *v = &m->var[nd->params[0]];
    if (!(ex->name[id][0] = strdup(rg_graph_tvar_name(m->g, nd->params[0]))))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (v->kind != RG_MVAR_OPAQUE || op_done[v->opaque]) return RG_OK;
    op_done[v->opaque] = 1;
    return write_opaque(ex, &m->op[v->opaque], err);
  }
  bool as_read; /* a node no rewrite changed: as the model had it */
  rg_status st = rg_export_as_read(ex, id, &as_read, err);
  if (st || as_read) return st;
  for (int o = 0; o < rg_op_get((rg_op)nd->op)->n_outputs; o++)
    if (!ex->name[id][o] && !(ex->name[id][o] = rg_export_fresh(ex, rg_op_get((rg_op)nd->op)->name)))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return rg_export_ir_node(ex, id, err);
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
  for (int32_t k = 0; ok && k < ex->m->n_op; k++) /* what subgraphs read by name */
    for (int j = (int)ex->m->op[k].node->n_input; ok && j < ex->m->op[k].n_in; j++)
      ok = rg_names_add(&used, ex->m->op[k].implicit[j - (int)ex->m->op[k].node->n_input], &added);
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
    for (size_t v = 0; v < ex->n_lent; v++)
      if (ex->lent[v] == &t->base) {
        rg_onnx_unlend(&t->base);
        ex->lent[v] = ex->lent[--ex->n_lent];
        break;
      }
    onnx__tensor_proto__free_unpacked(t, NULL);
  }
  if (ok) ex->n_init = kept;
  rg_names_free(&used);
  return ok ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

void rg_export_give_back(rg_exporter *ex) {
  for (size_t i = 0; i < ex->n_view; i++) rg_onnx_tensor_unview(ex->view[i]);
  for (size_t i = 0; i < ex->n_lent; i++) rg_onnx_unlend(ex->lent[i]);
  ex->n_view = ex->n_lent = 0;
}

/* Node names made unique where the model read names two nodes alike (onnxruntime refuses it):
 * the first keeps it, the later ones get a suffix that no node has (a node named so already
 * keeps its name); an empty name stays empty. */
static rg_status unique_node_names(rg_exporter *ex, rg_err *err) {
  rg_names seen = {0};
  int added;
  bool ok = true;
  for (size_t i = 0; ok && i < ex->n_node; i++) /* every name, counted */
    if (ex->node[i]->name && ex->node[i]->name[0]) {
      int64_t *c = rg_names_add(&seen, ex->node[i]->name, &added);
      if ((ok = c != NULL)) ++*c;
    }
  for (size_t i = 0; ok && i < ex->n_node; i++) {
    Onnx__NodeProto *n = ex->node[i];
    int64_t *count = n->name && n->name[0] ? rg_names_find(&seen, n->name) : NULL;
    if (!count || *count == 1) continue; /* unique, or a suffixed one made here (0) */
    if (*count > 1) { /* the first of those named so keeps it (-1: kept) */
      *count = -1;
      continue;
    }
    char buf[300];
    int k = 2;
    do snprintf(buf, sizeof buf, "%.250s_%d", n->name, k++);
    while (rg_names_find(&seen, buf));
    char *name = strdup(buf);
    ok = name && rg_names_add(&seen, buf, &added);
    if (name) free(n->name), n->name = name;
  }
  rg_names_free(&seen);
  return ok ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

/* What the written model borrows from the model (writing a file): given back after packing. */
typedef struct {
  Onnx__TensorProto **view;
  ProtobufCMessage **lent;
  size_t n_view, n_lent;
} loans;

/* Names operator result r (a value of the rule vocabulary, not constant) name, unless it has
 * one already; the name is r's (claimed) either way, by this node or an Identity. */
static rg_status name_result(rg_exporter *ex, rg_ref r, const char *name, rg_err *err) {
  int added;
  int64_t *owner = rg_names_add(&ex->claimed, name, &added);
  if (!owner) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (added) *owner = (int64_t)r.node * RG_MAX_OUTPUTS + r.out;
  if (rg_graph_node(ex->m->g, r.node)->op == RG_OP_INPUT || ex->is_const[r.node] || ex->name[r.node][r.out]) return RG_OK;
  return (ex->name[r.node][r.out] = strdup(name)) ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

/* Every node the outputs need, in order, into ex's lists: names, fusions, folded constants. */
static rg_status write_all(rg_exporter *ex, int32_t *order, uint8_t *op_done, rg_err *err) {
  const rg_model *m = ex->m;
  int32_t n_order = 0;
  rg_status st = rg_export_reserve(ex, err);
  bool again = !st;
  if (!st) mark_constants(ex), rg_export_plan_forms(ex);
  while (!st && again) { /* until no node written as read shares its inside with another */
    memset(ex->uses, 0, sizeof *ex->uses * ((size_t)ex->n + 1));
    st = order_nodes(ex, order, &n_order, err);
    if (!st) st = rg_export_drop_shared_forms(ex, &again, err);
  }
  if (!st) {
    rg_export_plan_fusions(ex, order, n_order);
    st = fold_constants(ex, order, n_order, err);
  }
  /* an operator's result that is an output, or that subgraphs read, is written under that name */
  for (int32_t i = 0; !st && i < m->n_out; i++) st = name_result(ex, m->out[i], m->out_name[i], err);
  for (int32_t k = 0; !st && k < m->n_op; k++)
    for (int j = (int)m->op[k].node->n_input; !st && j < m->op[k].n_in; j++)
      st = name_result(ex, m->op[k].in[j], m->op[k].implicit[j - (int)m->op[k].node->n_input], err);
  for (int32_t i = 0; !st && i < n_order; i++) st = write_node(ex, order[i], op_done, err);
  for (int32_t i = 0; !st && i < m->n_out; i++) { /* outputs that are variables, constants, or twice the same */
    const char *have = ex->name[m->out[i].node][m->out[i].out];
    bool listed_before = false; /* a name the graph lists twice is made once */
    for (int32_t j = 0; !listed_before && j < i; j++) listed_before = !strcmp(m->out_name[j], m->out_name[i]);
    if (!listed_before && strcmp(have, m->out_name[i]) && !rg_names_find(&ex->pinned, m->out_name[i]) &&
        !rg_export_node(ex, "Identity", &have, 1, (const char *const *)&m->out_name[i], 1))
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  if (!st) st = rg_export_source_order(ex, err);
  if (!st) st = rg_export_check_opset(ex, err);
  if (!st) st = unique_node_names(ex, err);
  return st ? st : drop_unused_initializers(ex, err);
}

/* The model message; with borrow, weights' initializers borrow the model's data and l lists
 * what they borrow (the caller gives it back with give_back before freeing). */
static Onnx__ModelProto *build(const rg_model *m, bool borrow, loans *l, rg_err *err) {
  rg_exporter ex = {.m = m, .n = rg_graph_size(m->g), .borrow = borrow};
  size_t n = (size_t)ex.n + 1;
  ex.name = calloc(n, sizeof *ex.name), ex.cval = calloc(n, sizeof *ex.cval);
  ex.is_const = calloc(n, 1), ex.fuse = calloc(n, 1);
  ex.uses = calloc(n, sizeof *ex.uses), ex.absorbed = calloc(n, sizeof *ex.absorbed);
  ex.formed = calloc(n, sizeof *ex.formed);
  int32_t *order = malloc(sizeof *order * n);
  uint8_t *op_done = calloc((size_t)m->n_op + 1, 1);
  rg_status st = ex.name && ex.cval && ex.is_const && ex.fuse && ex.uses && ex.absorbed && ex.formed && order && op_done
                     ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  Onnx__ModelProto *mp = NULL;
  if (!st) st = write_all(&ex, order, op_done, err);
  if (!st) st = rg_export_assemble(&ex, &mp, err);
  for (size_t i = 0; i < n && ex.name; i++)
    for (int o = 0; o < RG_MAX_OUTPUTS; o++) free(ex.name[i][o]), free(ex.cval ? ex.cval[i][o] : NULL);
  for (size_t i = 0; i < ex.n_node; i++) onnx__node_proto__free_unpacked(ex.node[i], NULL);
  if (st) rg_export_give_back(&ex); /* messages not handed to the model: what they borrow goes back first */
  for (size_t i = 0; i < ex.n_init; i++) onnx__tensor_proto__free_unpacked(ex.init[i], NULL);
  for (size_t i = 0; i < ex.n_sparse; i++) onnx__sparse_tensor_proto__free_unpacked(ex.sparse[i], NULL);
  if (!st && l) *l = (loans){ex.view, ex.lent, ex.n_view, ex.n_lent}, ex.view = NULL, ex.lent = NULL;
  free(ex.view), free(ex.lent), free(ex.sparse);
  free(ex.node), free(ex.init), free(ex.name), free(ex.cval), free(ex.is_const), free(ex.fuse), free(ex.uses);
  free(ex.absorbed), free(ex.formed), free(order), free(op_done);
  rg_names_free(&ex.taken), rg_names_free(&ex.pinned), rg_names_free(&ex.claimed);
  return st ? NULL : mp;
}

Onnx__ModelProto *rg_model_to_onnx(const rg_model *m, rg_err *err) { return build(m, false, NULL, err); }

rg_status rg_model_export(const rg_model *m, const char *path, rg_err *err) {
  return rg_model_export_with(m, path, NULL, err);
}

/* Gives back what build lent the message, then frees it. */
static void free_lent(Onnx__ModelProto *mp, loans *l) {
  for (size_t i = 0; i < l->n_view; i++) rg_onnx_tensor_unview(l->view[i]);
  for (size_t i = 0; i < l->n_lent; i++) rg_onnx_unlend(l->lent[i]);
  free(l->view), free(l->lent);
  onnx__model_proto__free_unpacked(mp, NULL);
}

rg_status rg_model_export_with(const rg_model *m, const char *path, const rg_export_opts *o, rg_err *err) {
  loans l = {0};
  Onnx__ModelProto *mp = build(m, true, &l, err); /* no copy of the weights */
  if (!mp) return err ? err->status : RG_ERR_NOMEM;
  rg_status st = rg_export_write(m, mp, path, o, err);
  free_lent(mp, &l);
  return st;
}

rg_status rg_model_to_bytes(const rg_model *m, const rg_ref *roots, uint8_t **buf, size_t *len, rg_err *err) {
  *buf = NULL, *len = 0;
  rg_model *v = roots ? rg_model_view(m, roots) : NULL;
  if (roots && !v) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  loans l = {0};
  Onnx__ModelProto *mp = build(v ? v : m, true, &l, err); /* the weights packed from where they lie */
  rg_status st = mp ? RG_OK : err->status;
  size_t n = mp ? onnx__model_proto__get_packed_size(mp) : 0;
  if (mp && !(*buf = malloc(n + 1))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (*buf) *len = onnx__model_proto__pack(mp, *buf);
  if (mp) free_lent(mp, &l);
  rg_model_view_free(v);
  return st;
}
