/* optimizer/onnx/import_values.c: what import makes of the graph's values (import_internal.h): its
 * initializers, sparse initializers and inputs, the types the model declares (value_info, graph
 * inputs and outputs), and why a value is not modelled.
 *
 * A value is typed (model.h) where it is float or int64 of a shape rg_shape holds; anything
 * else ONNX allows is an opaque value, kept as read: an initializer of another element type, of
 * a size 0 or a rank past RG_MAX_RANK keeps its TensorProto (data and all) in the model's
 * source, a sparse initializer its SparseTensorProto, an input its declaration. What remains an
 * error is what no ONNX runtime takes either (a nameless initializer or input, data that does
 * not fill its shape, a name defined twice). A graph input's dimension without a value takes
 * --dim's value, else a default (import_dims.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"

/* ---- declared types ---- */

static const char *kind_name(Onnx__TypeProto__ValueCase c) {
  switch (c) {
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE: return "type sequence";
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: return "type map";
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE: return "type optional";
  case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE: return "type sparse tensor";
  default: return "no type graphopt knows";
  }
}

/* The dims of shape sp into dims (an input's symbolic ones at the values import_dims.c gives
 * them): RG_OK, or RG_IMPORT_OPAQUE with why. */
static rg_status declared_dims(rg_importer *im, const char *name, const Onnx__TensorShapeProto *sp,
                               const rg_import_opts *opts, bool input, int32_t *dims, char *why, size_t len,
                               rg_err *err) {
  for (size_t d = 0; d < sp->n_dim; d++) {
    const Onnx__TensorShapeProto__Dimension *dm = sp->dim[d];
    bool has = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    int64_t v = has ? dm->dim_value : -1;
    const char *param = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ? dm->dim_param : NULL;
    if (!has && input) {
      rg_status st = rg_import_dim_value(im, opts, name, d, param, &v, err);
      if (st) return st;
      has = true;
    }
    if (!has) return snprintf(why, len, "a dynamic dimension (axis %zu)", d), RG_IMPORT_OPAQUE;
    if (v == 0) return snprintf(why, len, "size 0 on axis %zu (an empty tensor)", d), RG_IMPORT_OPAQUE;
    if (v < 1 || v > RG_MAX_DIM)
      return snprintf(why, len, "size %lld on axis %zu (graphopt models sizes 1 to %d)", (long long)v, d, RG_MAX_DIM),
             RG_IMPORT_OPAQUE;
    dims[d] = (int32_t)v;
  }
  return RG_OK;
}

rg_status rg_import_declared_type(rg_importer *im, const Onnx__ValueInfoProto *vi, const rg_import_opts *opts,
                                  bool input, rg_tinfo *t, char *why, size_t len, rg_err *err) {
  const char *name = vi->name ? vi->name : "";
  const Onnx__TypeProto *tp = vi->type;
  *t = (rg_tinfo){RG_ELEM_UNDEFINED, rg_shape_make(0, NULL), false};
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
    return snprintf(why, len, "%s", tp ? kind_name(tp->value_case) : "no declared type"), RG_IMPORT_OPAQUE;
  t->elem = (rg_elem)tp->tensor_type->elem_type;
  if (t->elem != RG_ELEM_FLOAT && t->elem != RG_ELEM_INT64)
    return snprintf(why, len, "element type %s", rg_onnx_elem_name(t->elem)), RG_IMPORT_OPAQUE;
  const Onnx__TensorShapeProto *sp = tp->tensor_type->shape;
  if (!sp) return snprintf(why, len, "no declared shape"), RG_IMPORT_OPAQUE;
  if (sp->n_dim > RG_MAX_RANK)
    return snprintf(why, len, "rank %zu (graphopt models ranks up to %d)", sp->n_dim, RG_MAX_RANK), RG_IMPORT_OPAQUE;
  int32_t dims[RG_MAX_RANK];
  rg_status st = declared_dims(im, name, sp, opts, input, dims, why, len, err);
  if (st) return st;
  rg_shape s = rg_shape_make((int)sp->n_dim, dims);
  if (rg_shape_numel(&s) > RG_MAX_NUMEL) return snprintf(why, len, "more than 2^40 elements"), RG_IMPORT_OPAQUE;
  t->shape = s, t->present = true;
  return RG_OK;
}

/* The value_info, else the graph output, that declares tensor name (NULL: none); the table of
 * them is made on first use. */
static rg_status declaration(rg_importer *im, const char *name, const Onnx__ValueInfoProto **vi, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  size_t n = gr->n_value_info;
  for (size_t i = im->declared.n ? n + gr->n_output : 0; i < n + gr->n_output; i++) {
    const Onnx__ValueInfoProto *v = i < n ? gr->value_info[i] : gr->output[i - n];
    int added;
    int64_t *at = v->name ? rg_names_add(&im->declared, v->name, &added) : NULL;
    if (v->name && !at) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (at && added) *at = (int64_t)i;
  }
  const int64_t *at = rg_names_find(&im->declared, name);
  *vi = !at ? NULL : (size_t)*at < n ? gr->value_info[*at] : gr->output[(size_t)*at - n];
  return RG_OK;
}

rg_status rg_import_declared(rg_importer *im, const char *name, rg_tinfo *t, rg_err *err) {
  const Onnx__ValueInfoProto *vi = NULL;
  char why[200];
  *t = (rg_tinfo){RG_ELEM_UNDEFINED, rg_shape_make(0, NULL), false};
  rg_status st = name[0] ? declaration(im, name, &vi, err) : RG_OK;
  if (st || !vi) return st;
  st = rg_import_declared_type(im, vi, NULL, false, t, why, sizeof why, err);
  return st == RG_IMPORT_OPAQUE ? RG_OK : st;
}

/* ---- opaque values, described ---- */

void rg_import_describe(const rg_importer *im, rg_ref r, const char *name, char *buf, size_t len) {
  const rg_model *m = im->m;
  const rg_mvar *v = &m->var[rg_model_var_of(m, r)];
  char label[160];
  if (v->kind == RG_MVAR_OPAQUE) {
    rg_onnx_node_label(m->op[v->opaque].node, -1, label, sizeof label);
    snprintf(buf, len, "'%s', an output of %s whose type graphopt does not know", name, label);
  } else if (v->sparse) snprintf(buf, len, "'%s', a sparse initializer", name);
  else snprintf(buf, len, "'%s', %s of %s", name, v->kind == RG_MVAR_INPUT ? "an input" : "a weight", v->why);
}

/* ---- initializers and inputs ---- */

rg_status rg_import_add_weight(rg_importer *im, Onnx__TensorProto *t, const char *name, rg_err *err) {
  rg_elem elem;
  rg_shape s;
  void *data;
  rg_err e = {0};
  rg_status st = rg_onnx_tensor_take(t, &elem, &s, &data, &e);
  if (st) return rg_import_fail(im, err, st, "%s", e.msg);
  int32_t v = rg_model_add_var(im->m, name, RG_MVAR_WEIGHT, elem, &s, data);
  if (v == RG_ERR_ARG) {
    free(data);
    return rg_import_fail(im, err, RG_ERR_ARG, "tensor '%s' is defined twice", name);
  }
  if (v < 0) {
    free(data);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return rg_import_set(im, name, rg_model_var_ref(im->m, v), elem, err);
}

/* An opaque input or weight called name (why: for messages); *v its variable. */
static rg_status opaque_value(rg_importer *im, const char *name, rg_mvar_kind kind, rg_elem elem, const char *why,
                              int32_t *v, rg_err *err) {
  *v = rg_model_add_opaque_var(im->m, name, kind, elem, why);
  if (*v == RG_ERR_ARG) return rg_import_fail(im, err, RG_ERR_ARG, "tensor '%s' is defined twice", name);
  if (*v < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return rg_import_set(im, name, rg_model_var_ref(im->m, *v), RG_ELEM_UNDEFINED, err);
}

/* Initializer t: a typed weight (its data taken: the model keeps one copy), or an opaque one
 * whose TensorProto keeps its data. */
static rg_status import_initializer(rg_importer *im, Onnx__TensorProto *t, rg_err *err) {
  char why[200];
  int32_t v;
  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return rg_import_fail(im, err, RG_ERR_ARG, "tensor '%s' keeps its data in an external file, and the model was not "
                          "read from a file (no folder to find it in): import it from its file", t->name);
  if (!rg_onnx_tensor_typed(t, why, sizeof why)) {
    if (!rg_onnx_tensor_fills(t, why, sizeof why)) /* kept as read, but never a tensor no runtime loads */
      return rg_import_fail(im, err, RG_ERR_ARG, "initializer '%s' %s: the model is malformed", t->name, why);
    rg_status st = opaque_value(im, t->name, RG_MVAR_WEIGHT, (rg_elem)t->data_type, why, &v, err);
    if (!st) im->m->var[v].tensor = t;
    return st;
  }
  rg_status st = rg_import_add_weight(im, t, t->name, err);
  if (!st) rg_onnx_tensor_drop_data(t); /* what was not taken: the model keeps one copy */
  return st;
}

static rg_status import_sparse(rg_importer *im, const Onnx__SparseTensorProto *s, size_t i, rg_err *err) {
  const char *name = s->values ? s->values->name : NULL;
  int32_t v;
  if (!name || !name[0]) return rg_import_fail(im, err, RG_ERR_ARG, "sparse initializer %zu has no name", i);
  im->about = name;
  rg_status st = opaque_value(im, name, RG_MVAR_WEIGHT, (rg_elem)s->values->data_type,
                              "sparse layout (a sparse initializer)", &v, err);
  im->about = NULL;
  if (!st) im->m->var[v].sparse = s;
  return st;
}

static rg_status import_input(rg_importer *im, const Onnx__ValueInfoProto *vi, const rg_import_opts *opts,
                              rg_err *err) {
  rg_tinfo t;
  char why[200];
  int32_t v;
  im->about = vi->name;
  rg_status st = rg_import_declared_type(im, vi, opts, true, &t, why, sizeof why, err);
  if (st == RG_IMPORT_OPAQUE) st = opaque_value(im, vi->name, RG_MVAR_INPUT, t.elem, why, &v, err);
  else if (!st) {
    v = rg_model_add_var(im->m, vi->name, RG_MVAR_INPUT, t.elem, &t.shape, NULL);
    st = v < 0 ? rg_err_set(err, RG_ERR_NOMEM, "out of memory")
               : rg_import_set(im, vi->name, rg_model_var_ref(im->m, v), t.elem, err);
  }
  im->about = NULL;
  return st;
}

rg_status rg_import_inputs(rg_importer *im, const rg_import_opts *opts, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  rg_status st = RG_OK;
  for (size_t i = 0; !st && i < gr->n_initializer; i++) {
    const char *name = gr->initializer[i]->name;
    if (!name || !name[0]) return rg_import_fail(im, err, RG_ERR_ARG, "initializer %zu has no name", i);
    im->about = name;
    st = import_initializer(im, gr->initializer[i], err);
    im->about = NULL;
  }
  for (size_t i = 0; !st && i < gr->n_sparse_initializer; i++) st = import_sparse(im, gr->sparse_initializer[i], i, err);
  for (size_t i = 0; !st && i < gr->n_input; i++) {
    const char *name = gr->input[i]->name;
    if (!name || !name[0]) return rg_import_fail(im, err, RG_ERR_ARG, "graph input %zu has no name", i);
    if (rg_import_get(im, name)) continue; /* an initializer listed as an input too (older exporters) */
    st = import_input(im, gr->input[i], opts, err);
  }
  return st;
}
