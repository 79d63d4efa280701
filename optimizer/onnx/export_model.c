/* optimizer/onnx/export_model.c: the model message around the nodes and initializers export.c
 * writes (export_internal.h): what the written model carries over from the model read.
 *
 * Everything graphopt does not model is written as it was read: the model's fields (IR
 * version, opset imports, producer, domain, model_version, doc_string, metadata_props,
 * model-local functions, training info) and the graph's (name, doc_string, quantization
 * annotations), a declaration of every opaque input and output, and the value_info of every
 * tensor still written under its name. Typed inputs and outputs are declared with the shapes
 * graphopt knows; in a model with symbolic dimensions as the source declares them (dim_param
 * and all, not at the values imported). An initializer listed as an input (older
 * exporters) stays listed while it is written. A model built in memory has no source: it gets
 * graphopt's own frame.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

/* ---- names ---- */

/* The names graph g and the graphs in it define (a subgraph must not redefine a name of the
 * graph around it, so a new name must not be one of these); false when out of memory. Import
 * refused nesting deeper than it walks. */
static bool reserve_graph(rg_exporter *ex, const Onnx__GraphProto *g) {
  int added;
  bool ok = true;
  for (size_t i = 0; ok && i < g->n_input; i++) ok = !g->input[i]->name || rg_names_add(&ex->taken, g->input[i]->name, &added);
  for (size_t i = 0; ok && i < g->n_initializer; i++)
    ok = !g->initializer[i]->name || rg_names_add(&ex->taken, g->initializer[i]->name, &added);
  for (size_t k = 0; ok && k < g->n_node; k++) {
    const Onnx__NodeProto *n = g->node[k];
    for (size_t j = 0; ok && j < n->n_output; j++) ok = rg_names_add(&ex->taken, n->output[j], &added);
    for (size_t a = 0; ok && a < n->n_attribute; a++) {
      ok = !n->attribute[a]->g || reserve_graph(ex, n->attribute[a]->g);
      for (size_t i = 0; ok && i < n->attribute[a]->n_graphs; i++) ok = reserve_graph(ex, n->attribute[a]->graphs[i]);
    }
  }
  return ok;
}

rg_status rg_export_reserve(rg_exporter *ex, rg_err *err) {
  const rg_model *m = ex->m;
  const Onnx__GraphProto *g = m->source ? m->source->graph : NULL;
  int added;
  bool ok = true;
  for (int32_t v = 0; ok && v < m->n_var; v++) ok = rg_names_add(&ex->taken, rg_graph_tvar_name(m->g, v), &added);
  for (int32_t i = 0; ok && i < m->n_out; i++) ok = rg_names_add(&ex->taken, m->out_name[i], &added);
  for (int32_t k = 0; ok && k < m->n_op; k++)
    for (int j = (int)m->op[k].node->n_input; ok && j < m->op[k].n_in; j++)
      ok = rg_names_add(&ex->taken, m->op[k].implicit[j - (int)m->op[k].node->n_input], &added);
  /* every name of the model read, its subgraphs' too: a new name never meets a value_info
   * carried over, nor a name a subgraph defines */
  ok = ok && (!g || reserve_graph(ex, g));
  for (size_t i = 0; ok && g && i < g->n_value_info; i++)
    ok = !g->value_info[i]->name || rg_names_add(&ex->taken, g->value_info[i]->name, &added);
  return ok ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

/* ---- declarations ---- */

static Onnx__ValueInfoProto *value_info_dims(const char *name, int32_t elem, const int64_t *dims, size_t rank) {
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
  sp->dim = calloc(rank + 1, sizeof *sp->dim);
  bool ok = vi->name && sp->dim;
  for (size_t d = 0; ok && d < rank; d++) {
    Onnx__TensorShapeProto__Dimension *dm = malloc(sizeof *dm);
    if (!(ok = dm != NULL)) break;
    onnx__tensor_shape_proto__dimension__init(dm);
    dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE, dm->dim_value = dims[d];
    sp->dim[sp->n_dim++] = dm;
  }
  if (!ok) {
    onnx__value_info_proto__free_unpacked(vi, NULL);
    return NULL;
  }
  return vi;
}

static Onnx__ValueInfoProto *value_info(const char *name, rg_elem elem, const rg_shape *s) {
  int64_t dims[RG_MAX_RANK];
  for (int d = 0; d < s->rank; d++) dims[d] = s->dim[d];
  return value_info_dims(name, (int32_t)elem, dims, (size_t)s->rank);
}

/* The element type of a value: a variable's, else float (every operator of the vocabulary). */
static rg_elem elem_of(const rg_model *m, rg_ref r) {
  int32_t v = rg_model_var_of(m, r);
  return v >= 0 ? m->var[v].elem : RG_ELEM_FLOAT;
}

static bool push_vi(Onnx__ValueInfoProto ***arr, size_t *n, Onnx__ValueInfoProto *vi) {
  if (!vi) return false;
  (*arr)[(*n)++] = vi;
  return true;
}

/* The graph's inputs: the source's in order (an opaque one as declared, a typed one at the
 * shape graphopt knows, or as declared where the model has symbolic dims, an initializer listed
 * as an input while it is written), else every input variable. */
static bool write_inputs(const rg_exporter *ex, Onnx__GraphProto *g, const rg_names *written) {
  const rg_model *m = ex->m;
  const Onnx__GraphProto *src = m->source ? m->source->graph : NULL;
  size_t n = src ? src->n_input : (size_t)m->n_var;
  bool ok = (g->input = calloc(n + 1, sizeof *g->input)) != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    const Onnx__ValueInfoProto *vi = src ? src->input[i] : NULL;
    int32_t v = vi ? rg_graph_find_tvar(m->g, vi->name) : (int32_t)i;
    if (v < 0) continue;
    const rg_mvar *x = &m->var[v];
    const char *name = rg_graph_tvar_name(m->g, v);
    if (x->kind == RG_MVAR_WEIGHT && vi && rg_names_find(written, name))
      ok = push_vi(&g->input, &g->n_input, rg_onnx_copy(&vi->base));
    else if (x->kind != RG_MVAR_INPUT) continue;
    else if ((!x->typed || m->n_dims) && vi) ok = push_vi(&g->input, &g->n_input, rg_onnx_copy(&vi->base));
    else ok = push_vi(&g->input, &g->n_input, value_info(name, x->elem, &x->shape));
  }
  return ok;
}

/* Below IR version 4 every initializer is also a graph input (onnx.checker holds a model to it):
 * those graphopt writes anew (a folded weight, a constant it made) are listed after the source's. */
static bool list_initializers(const rg_exporter *ex, Onnx__GraphProto *g) {
  if (ex->m->ir_version >= 4 || !ex->n_init) return true;
  rg_names listed = {0};
  int added;
  Onnx__ValueInfoProto **in = realloc(g->input, sizeof *in * (g->n_input + ex->n_init + 1));
  bool ok = in != NULL;
  if (ok) g->input = in;
  for (size_t i = 0; ok && i < g->n_input; i++) ok = rg_names_add(&listed, g->input[i]->name, &added);
  for (size_t i = 0; ok && i < ex->n_init; i++) {
    const Onnx__TensorProto *t = ex->init[i];
    if (!(ok = rg_names_add(&listed, t->name, &added)) || !added) continue;
    ok = push_vi(&g->input, &g->n_input, value_info_dims(t->name, t->data_type, t->dims, t->n_dims));
  }
  rg_names_free(&listed);
  return ok;
}

/* Whether vi declares what a value of element type elem and shape s is: that type, and no shape,
 * or one of s's rank whose sizes are s's where they are given (a dim_param, or none, where not). */
static bool declares(const Onnx__ValueInfoProto *vi, rg_elem elem, const rg_shape *s) {
  const Onnx__TypeProto *t = vi->type;
  const Onnx__TypeProto__Tensor *tt = t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? t->tensor_type : NULL;
  if (!tt || !tt->has_elem_type || tt->elem_type != (int32_t)elem) return false;
  if (!tt->shape) return true;
  if (tt->shape->n_dim != (size_t)s->rank) return false;
  for (int d = 0; d < s->rank; d++) {
    const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[d];
    if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dm->dim_value != s->dim[d]) return false;
  }
  return true;
}

/* The graph's outputs: as the source declares them (a dim_param stays one) where that
 * declaration is the value's, or the value is opaque, or the model has symbolic dims; else a
 * typed one at its shape. */
static bool write_outputs(const rg_exporter *ex, Onnx__GraphProto *g) {
  const rg_model *m = ex->m;
  const Onnx__GraphProto *src = m->source ? m->source->graph : NULL;
  bool ok = (g->output = calloc((size_t)m->n_out + 1, sizeof *g->output)) != NULL;
  for (int32_t i = 0; ok && i < m->n_out; i++) {
    int32_t v = rg_model_var_of(m, m->out[i]);
    const Onnx__ValueInfoProto *vi = NULL;
    bool as_read = m->n_dims || (v >= 0 && !m->var[v].typed); /* symbolic dims stay symbolic */
    for (size_t j = 0; src && !vi && j < src->n_output; j++)
      if (src->output[j]->name && !strcmp(src->output[j]->name, m->out_name[i])) vi = src->output[j];
    if (vi && !as_read && !declares(vi, elem_of(m, m->out[i]), rg_model_shape(m, m->out[i]))) vi = NULL;
    ok = push_vi(&g->output, &g->n_output,
                 vi ? rg_onnx_copy(&vi->base) : value_info(m->out_name[i], elem_of(m, m->out[i]), rg_model_shape(m, m->out[i])));
  }
  return ok;
}

/* The source's value_info of the tensors written nodes make under the same name (graph inputs,
 * outputs and initializers have their own declarations). */
static bool write_value_info(const rg_exporter *ex, Onnx__GraphProto *g, const rg_names *written) {
  const Onnx__GraphProto *src = ex->m->source ? ex->m->source->graph : NULL;
  if (!src || !src->n_value_info) return true;
  rg_names made = {0};
  int added;
  bool ok = (g->value_info = calloc(src->n_value_info + 1, sizeof *g->value_info)) != NULL;
  for (size_t k = 0; ok && k < ex->n_node; k++)
    for (size_t j = 0; ok && j < ex->node[k]->n_output; j++) ok = rg_names_add(&made, ex->node[k]->output[j], &added);
  for (int32_t i = 0; ok && i < ex->m->n_out; i++) { /* declared as outputs */
    int64_t *at = rg_names_find(&made, ex->m->out_name[i]);
    if (at) *at = 1;
  }
  for (size_t i = 0; ok && i < src->n_value_info; i++) {
    const Onnx__ValueInfoProto *vi = src->value_info[i];
    const int64_t *at = vi->name ? rg_names_find(&made, vi->name) : NULL;
    if (at && !*at && !rg_names_find(written, vi->name))
      ok = push_vi(&g->value_info, &g->n_value_info, rg_onnx_copy(&vi->base));
  }
  rg_names_free(&made);
  return ok;
}

/* ---- the frame ---- */

/* A copy of the source model with an empty graph of the source's name, doc string and the rest
 * (the lists of nodes and values are written anew). */
static Onnx__ModelProto *source_frame(const rg_model *m) {
  Onnx__ModelProto top = *m->source;
  Onnx__GraphProto gr = *m->source->graph;
  top.graph = NULL;
  gr.n_node = 0, gr.node = NULL, gr.n_initializer = 0, gr.initializer = NULL;
  gr.n_sparse_initializer = 0, gr.sparse_initializer = NULL, gr.n_input = 0, gr.input = NULL;
  gr.n_output = 0, gr.output = NULL, gr.n_value_info = 0, gr.value_info = NULL;
  Onnx__ModelProto *mp = rg_onnx_copy(&top.base);
  Onnx__GraphProto *g = mp ? rg_onnx_copy(&gr.base) : NULL;
  if (!g) {
    if (mp) onnx__model_proto__free_unpacked(mp, NULL);
    return NULL;
  }
  mp->graph = g;
  mp->has_ir_version = 1, mp->ir_version = m->ir_version;
  return mp;
}

/* graphopt's own frame for a model built in memory: the default domain at the model's opset. */
static Onnx__ModelProto *new_frame(const rg_model *m) {
  Onnx__ModelProto *mp = malloc(sizeof *mp);
  Onnx__GraphProto *g = malloc(sizeof *g);
  Onnx__OperatorSetIdProto *os = malloc(sizeof *os);
  if (mp) onnx__model_proto__init(mp);
  if (!mp || !g || !os) {
    free(g), free(os), free(mp);
    return NULL;
  }
  onnx__graph_proto__init(g), onnx__operator_set_id_proto__init(os);
  mp->graph = g;
  mp->has_ir_version = 1, mp->ir_version = m->ir_version;
  mp->producer_name = strdup("rulegen graphopt");
  g->name = strdup("graphopt");
  os->domain = strdup(""), os->has_version = 1, os->version = m->opset;
  mp->opset_import = malloc(sizeof *mp->opset_import);
  if (mp->opset_import) mp->opset_import[mp->n_opset_import++] = os;
  else onnx__operator_set_id_proto__free_unpacked(os, NULL);
  if (!mp->producer_name || !g->name || !mp->opset_import || !os->domain) {
    onnx__model_proto__free_unpacked(mp, NULL);
    return NULL;
  }
  return mp;
}

rg_status rg_export_assemble(rg_exporter *ex, Onnx__ModelProto **out, rg_err *err) {
  const rg_model *m = ex->m;
  Onnx__ModelProto *mp = m->source ? source_frame(m) : new_frame(m);
  if (!mp) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  Onnx__GraphProto *g = mp->graph;
  rg_names written = {0}; /* the initializers' names */
  int added;
  bool ok = true;
  for (size_t i = 0; ok && i < ex->n_init; i++) ok = rg_names_add(&written, ex->init[i]->name, &added);
  for (size_t i = 0; ok && i < ex->n_sparse; i++)
    ok = !ex->sparse[i]->values || rg_names_add(&written, ex->sparse[i]->values->name, &added);
  ok = ok && write_inputs(ex, g, &written) && list_initializers(ex, g) && write_outputs(ex, g) &&
       write_value_info(ex, g, &written);
  rg_names_free(&written);
  g->node = ex->node, g->n_node = ex->n_node, ex->node = NULL, ex->n_node = 0;
  g->initializer = ex->init, g->n_initializer = ex->n_init, ex->init = NULL, ex->n_init = 0;
  g->sparse_initializer = ex->sparse, g->n_sparse_initializer = ex->n_sparse, ex->sparse = NULL, ex->n_sparse = 0;
  if (!ok) {
    rg_export_give_back(ex);
    onnx__model_proto__free_unpacked(mp, NULL);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  *out = mp;
  return RG_OK;
}
