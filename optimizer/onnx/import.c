/* optimizer/onnx/import.c: ONNX models into model graphs (import.h): the graph's tensors by name,
 * the order nodes are imported in, inputs, weights, outputs, folding constants and opaque
 * nodes. Operators of the rule vocabulary are import_ops.c's. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "import_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/proto/proto.h"

/* ---- messages ---- */

/* The first node that reads tensor name, or NULL; *k its index. A scan of the whole graph: for
 * a message only (once per initializer, it made importing quadratic). */
static const Onnx__NodeProto *first_reader(const rg_importer *im, const char *name, int *k) {
  for (size_t i = 0; i < im->gr->n_node; i++)
    for (size_t j = 0; j < im->gr->node[i]->n_input; j++)
      if (!strcmp(im->gr->node[i]->input[j], name)) return *k = (int)i, im->gr->node[i];
  return NULL;
}

rg_status rg_import_fail(rg_importer *im, rg_err *err, rg_status st, const char *fmt, ...) {
  char what[400], label[160] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int k = im->node_k;
  const Onnx__NodeProto *node = im->node ? im->node : im->about ? first_reader(im, im->about, &k) : NULL;
  if (node) rg_onnx_node_label(node, k, label, sizeof label);
  return rg_err_set(err, st, "%s: %s%s%s", im->path, label, label[0] ? ": " : "", what);
}

/* ---- tensors by name ---- */

const rg_ival *rg_import_get(const rg_importer *im, const char *name) {
  const int64_t *i = rg_names_find(&im->names, name);
  return i ? &im->val[*i] : NULL;
}

rg_status rg_import_set(rg_importer *im, const char *name, rg_ref ref, rg_elem elem, rg_err *err) {
  if (!name[0]) return RG_OK; /* an output nobody may read */
  if (im->n_val == im->cap_val) {
    size_t cap = im->cap_val ? 2 * im->cap_val : 256;
    rg_ival *nv = realloc(im->val, sizeof *nv * cap);
    if (!nv) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    im->val = nv, im->cap_val = cap;
  }
  int added;
  int64_t *i = rg_names_add(&im->names, name, &added);
  if (!i) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!added)
    return rg_import_fail(im, err, RG_ERR_ARG, "tensor '%s' is produced twice (an ONNX graph names each tensor once)",
                          name);
  *i = (int64_t)im->n_val;
  im->val[im->n_val++] = (rg_ival){ref, elem};
  return RG_OK;
}

rg_status rg_import_node(rg_importer *im, rg_op op, const int32_t *params, const rg_ref *in, int n_in, rg_ref *out,
                         rg_err *err) {
  rg_node nd = rg_node_init(op);
  const rg_op_info *info = rg_op_get(op);
  if (params) memcpy(nd.params, params, sizeof(int32_t) * (size_t)info->n_slots);
  nd.n_in = (uint8_t)n_in;
  for (int k = 0; k < n_in; k++) nd.in[k] = in[k];
  rg_err e = {0};
  rg_status st = rg_model_add_node(im->m, &nd, 0, out, &e);
  if (st) return rg_import_fail(im, err, st, "%s", e.msg);
  return RG_OK;
}

rg_status rg_import_weight(rg_importer *im, const char *hint, rg_elem elem, const rg_shape *shape, void *data,
                           rg_ref *out, rg_err *err) {
  char name[256];
  int32_t v;
  do snprintf(name, sizeof name, "%.200s__rg%d", hint, im->fresh++);
  while (rg_graph_find_tvar(im->m->g, name) >= 0 || rg_import_get(im, name));
  v = rg_model_add_var(im->m, name, RG_MVAR_WEIGHT, elem, shape, data);
  if (v < 0) {
    free(data);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  *out = rg_model_var_ref(im->m, v);
  return RG_OK;
}

const void *rg_import_const(const rg_importer *im, rg_ref r) {
  int32_t v = rg_model_var_of(im->m, r);
  return v >= 0 && im->m->var[v].kind == RG_MVAR_WEIGHT ? im->m->var[v].data : NULL;
}

/* ---- inputs, weights, outputs ---- */

static rg_status elem_of(rg_importer *im, int32_t type, const char *what, const char *name, rg_elem *e, rg_err *err) {
  if (type != RG_ELEM_FLOAT && type != RG_ELEM_INT64)
    return rg_import_fail(im, err, RG_ERR_ARG, "%s '%s' has element type %s (%d): only float and int64 are supported",
                          what, name, rg_onnx_elem_name(type), type);
  *e = (rg_elem)type;
  return RG_OK;
}

/* Why axis d of tensor name has no size graphopt takes: a dynamic dimension (param, or none
 * given), a size of 0 (an empty tensor), or one out of range. */
static rg_status bad_dim(rg_importer *im, const char *name, size_t d, const char *param, int value_case, int64_t v,
                         rg_err *err) {
  if (param && v < 0)
    return rg_import_fail(im, err, RG_ERR_ARG, "'%s' has a dynamic dimension '%s' (axis %zu) without a value: give it "
                          "one (graphopt --dim %s=N)", name, param, d, param);
  if (value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && !param)
    return rg_import_fail(im, err, RG_ERR_ARG, "'%s' has no size 1 to %d on axis %zu (a dynamic dimension): give it "
                          "one", name, RG_MAX_DIM, d);
  if (v == 0)
    return rg_import_fail(im, err, RG_ERR_ARG, "'%s' has size 0 on axis %zu%s%s%s: an empty tensor, which graphopt "
                          "does not handle yet", name, d, param ? " ('" : "", param ? param : "", param ? "')" : "");
  return rg_import_fail(im, err, RG_ERR_ARG, "'%s' has size %lld on axis %zu%s%s%s: graphopt takes sizes 1 to %d",
                        name, (long long)v, d, param ? " ('" : "", param ? param : "", param ? "')" : "", RG_MAX_DIM);
}

/* The shape a ValueInfoProto declares; dims named in opts take their values there. */
static rg_status declared_shape(rg_importer *im, const Onnx__ValueInfoProto *vi, const rg_import_opts *opts,
                                rg_elem *elem, rg_shape *s, rg_err *err) {
  const char *name = vi->name ? vi->name : "";
  const Onnx__TypeProto *t = vi->type;
  if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type)
    return rg_import_fail(im, err, RG_ERR_ARG, "'%s' is not a tensor (sequences, maps and optionals are not supported)",
                          name);
  rg_status st = elem_of(im, t->tensor_type->elem_type, "tensor", name, elem, err);
  if (st) return st;
  const Onnx__TensorShapeProto *sp = t->tensor_type->shape;
  if (!sp) return rg_import_fail(im, err, RG_ERR_ARG, "'%s' has no shape: give it one", name);
  if (sp->n_dim > RG_MAX_RANK)
    return rg_import_fail(im, err, RG_ERR_LIMIT, "'%s' has rank %zu: at most %d is supported", name, sp->n_dim,
                          RG_MAX_RANK);
  int32_t dims[RG_MAX_RANK];
  for (size_t d = 0; d < sp->n_dim; d++) {
    const Onnx__TensorShapeProto__Dimension *dm = sp->dim[d];
    int64_t v = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? dm->dim_value : -1;
    const char *param = dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM ? dm->dim_param : NULL;
    for (int k = 0; param && opts && k < opts->n_dims; k++)
      if (!strcmp(opts->dim_name[k], param)) v = opts->dim_value[k];
    if (v < 1 || v > RG_MAX_DIM) return bad_dim(im, name, d, param, dm->value_case, v, err);
    dims[d] = (int32_t)v;
  }
  *s = rg_shape_make((int)sp->n_dim, dims);
  if (rg_shape_numel(s) > RG_MAX_NUMEL) return rg_import_fail(im, err, RG_ERR_LIMIT, "'%s' has more than 2^40 elements", name);
  return RG_OK;
}

/* A weight from tensor t, its data taken out of t where it can be (the model keeps one copy). */
static rg_status add_weight(rg_importer *im, Onnx__TensorProto *t, const char *name, rg_err *err) {
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

static rg_status import_inputs(rg_importer *im, const rg_import_opts *opts, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  for (size_t i = 0; i < gr->n_initializer; i++) {
    const char *name = gr->initializer[i]->name;
    if (!name || !name[0]) return rg_import_fail(im, err, RG_ERR_ARG, "initializer %zu has no name", i);
    im->about = name;
    rg_status st = add_weight(im, gr->initializer[i], name, err);
    im->about = NULL;
    if (st) return st;
    rg_onnx_tensor_drop_data(gr->initializer[i]); /* what was not taken: the model keeps one copy */
  }
  if (gr->n_sparse_initializer)
    return rg_import_fail(im, err, RG_ERR_ARG, "the graph has sparse initializers: not supported");
  for (size_t i = 0; i < gr->n_input; i++) {
    const char *name = gr->input[i]->name;
    if (!name || !name[0]) return rg_import_fail(im, err, RG_ERR_ARG, "graph input %zu has no name", i);
    if (rg_import_get(im, name)) continue; /* an initializer listed as an input too (IR version < 4) */
    rg_elem elem = RG_ELEM_FLOAT; /* set by declared_shape on success */
    rg_shape s;
    im->about = name;
    rg_status st = declared_shape(im, gr->input[i], opts, &elem, &s, err);
    im->about = NULL;
    if (st) return st;
    int32_t v = rg_model_add_var(im->m, name, RG_MVAR_INPUT, elem, &s, NULL);
    if (v < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if ((st = rg_import_set(im, name, rg_model_var_ref(im->m, v), elem, err))) return st;
  }
  return RG_OK;
}

static rg_status import_outputs(rg_importer *im, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  rg_model *m = im->m;
  if (!gr->n_output) return rg_import_fail(im, err, RG_ERR_ARG, "the graph has no outputs");
  m->out = calloc(gr->n_output, sizeof *m->out);
  m->out_name = calloc(gr->n_output, sizeof *m->out_name);
  if (!m->out || !m->out_name) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_names seen = {0};
  rg_status st = RG_OK;
  for (size_t i = 0; !st && i < gr->n_output; i++) {
    const char *name = gr->output[i]->name ? gr->output[i]->name : "";
    const rg_ival *v = rg_import_get(im, name);
    int added = 0;
    if (!v) st = rg_import_fail(im, err, RG_ERR_ARG, "graph output '%s' is produced by no node, input or initializer", name);
    else if (!rg_names_add(&seen, name, &added)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else if (!added) st = rg_import_fail(im, err, RG_ERR_ARG, "graph output '%s' is listed twice", name);
    else if (!(m->out_name[i] = strdup(name))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else m->out[i] = v->ref, m->n_out = (int32_t)i + 1;
  }
  rg_names_free(&seen);
  return st;
}

/* ---- the order nodes are imported in ---- */

/* Which node produces each tensor and how many operands read it (im->producer, im->readers);
 * a tensor produced twice or read but never produced is an error naming the node. */
static rg_status index_tensors(rg_importer *im, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  int added;
  for (size_t k = 0; k < gr->n_node; k++) {
    const Onnx__NodeProto *nd = gr->node[k];
    im->node = nd, im->node_k = (int)k;
    for (size_t j = 0; j < nd->n_output; j++) {
      if (!nd->output[j][0]) continue;
      int64_t *p = rg_names_add(&im->producer, nd->output[j], &added);
      if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      if (!added || rg_import_get(im, nd->output[j]))
        return rg_import_fail(im, err, RG_ERR_ARG, "tensor '%s' is produced twice (an ONNX graph names each tensor "
                              "once)", nd->output[j]);
      *p = (int64_t)k;
    }
  }
  for (size_t k = 0; k <= gr->n_node; k++) {
    const Onnx__NodeProto *nd = k < gr->n_node ? gr->node[k] : NULL;
    size_t n_in = nd ? nd->n_input : gr->n_output;
    im->node = nd, im->node_k = (int)k;
    for (size_t j = 0; j < n_in; j++) {
      const char *in = nd ? nd->input[j] : gr->output[j]->name ? gr->output[j]->name : "";
      if (!in[0]) continue;
      if (!rg_names_find(&im->producer, in) && !rg_import_get(im, in))
        return rg_import_fail(im, err, RG_ERR_ARG, "%s tensor '%s', which no node, graph input or initializer "
                              "produces", nd ? "reads" : "the graph's output is", in);
      int64_t *r = rg_names_add(&im->readers, in, &added);
      if (!r) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      ++*r;
    }
  }
  im->node = NULL;
  return RG_OK;
}

/* Kahn's algorithm over the tensors nodes read, in the file's order where it is already one:
 * order[0..n) on success; a cycle is an error naming a node on it. */
static rg_status node_order(rg_importer *im, int32_t *order, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  size_t n = gr->n_node, n_edges = 0;
  /* edges producer -> reader: counted, then listed by producer (users[start[p] .. start[p+1])) */
  int32_t *pending = calloc(n + 1, sizeof *pending), *start = calloc(n + 2, sizeof *start);
  for (size_t k = 0; pending && start && k < n; k++)
    for (size_t j = 0; j < gr->node[k]->n_input; j++) {
      const int64_t *p = gr->node[k]->input[j][0] ? rg_names_find(&im->producer, gr->node[k]->input[j]) : NULL;
      if (p) start[*p + 1]++, pending[k]++, n_edges++;
    }
  int32_t *users = malloc(sizeof *users * (n_edges + 1)), *fill = malloc(sizeof *fill * (n + 1));
  rg_status st = pending && start && users && fill ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    for (size_t k = 0; k < n; k++) start[k + 1] += start[k], fill[k] = start[k];
    for (size_t k = 0; k < n; k++)
      for (size_t j = 0; j < gr->node[k]->n_input; j++) {
        const int64_t *p = gr->node[k]->input[j][0] ? rg_names_find(&im->producer, gr->node[k]->input[j]) : NULL;
        if (p) users[fill[*p]++] = (int32_t)k;
      }
    size_t head = 0, tail = 0;
    for (size_t k = 0; k < n; k++)
      if (!pending[k]) order[tail++] = (int32_t)k;
    while (head < tail) {
      int32_t k = order[head++];
      for (int32_t u = start[k]; u < start[k + 1]; u++)
        if (--pending[users[u]] == 0) order[tail++] = users[u];
    }
    if (tail < n) {
      size_t k = 0;
      while (!pending[k]) k++;
      im->node = gr->node[k], im->node_k = (int)k;
      st = rg_import_fail(im, err, RG_ERR_ARG, "is on a cycle: it needs, through other nodes, its own output");
      im->node = NULL;
    }
  }
  free(pending), free(start), free(users), free(fill);
  return st;
}

/* ---- opaque nodes and folded constants ---- */

/* A copy of node n the model owns (protobuf's own pack and unpack). */
static Onnx__NodeProto *copy_node(const Onnx__NodeProto *n) {
  size_t len = onnx__node_proto__get_packed_size(n);
  uint8_t *buf = malloc(len + 1);
  if (!buf) return NULL;
  onnx__node_proto__pack(n, buf);
  Onnx__NodeProto *c = onnx__node_proto__unpack(NULL, len, buf);
  free(buf);
  return c;
}

/* Operand values as float64 (constants), or NULL. */
static double *as_doubles(const rg_mvar *v) {
  int64_t n = rg_shape_numel(&v->shape);
  double *d = malloc(sizeof *d * (size_t)(n + 1));
  if (!d) return NULL;
  for (int64_t i = 0; i < n; i++)
    d[i] = v->elem == RG_ELEM_FLOAT ? ((const float *)v->data)[i] : (double)((const int64_t *)v->data)[i];
  return d;
}

static void *from_doubles(const double *d, int64_t n, rg_elem elem) {
  void *out = malloc((size_t)(n + 1) * (elem == RG_ELEM_FLOAT ? 4 : 8));
  for (int64_t i = 0; out && i < n; i++) {
    if (elem == RG_ELEM_FLOAT) ((float *)out)[i] = (float)d[i];
    else ((int64_t *)out)[i] = rg_to_int(d[i]);
  }
  return out;
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

/* The types a node without a type rule declares for its outputs (value_info, graph outputs). */
static rg_status declared_types(rg_importer *im, const Onnx__NodeProto *n, int n_out, rg_tinfo *out, rg_err *outer) {
  for (int j = 0; j < n_out; j++) {
    const Onnx__ValueInfoProto *vi = NULL;
    rg_status dst = declaration(im, n->output[j], &vi, outer);
    if (dst) return dst;
    const Onnx__TypeProto *t = vi ? vi->type : NULL;
    char buf[200];
    bool declared = t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && t->tensor_type && t->tensor_type->shape;
    const char *why = declared ? NULL : rg_import_why_unmapped(im, n, buf, sizeof buf);
    if (why) return rg_import_fail(im, outer, RG_ERR_ARG, "%s", why);
    if (!declared)
      return rg_import_fail(im, outer, RG_ERR_ARG, "graphopt does not know this operator's output shapes, and the model "
                            "does not declare the shape of its output '%s' (declare it in the graph's value_info)",
                            n->output[j]);
    rg_err e = {0};
    rg_status st = declared_shape(im, vi, NULL, &out[j].elem, &out[j].shape, &e);
    if (st) return rg_err_set(outer, st, "%s", e.msg);
    out[j].present = true;
  }
  return RG_OK;
}

/* What importing one opaque node holds: its operands' types, refs and (constant) values, its
 * outputs' types and (folded) values, the variables of its outputs. */
typedef struct {
  int n_in, n_out;
  rg_tinfo *in, *out;
  double **kv, **ov;
  rg_ref *refs;
  int32_t *outs;
  bool all_const; /* every operand a weight: the node folds */
} opaque_node;

/* The operands of n: types and refs, and the values of the constant ones: all of them to fold
 * the node, else the small ones (shapes, axes) its type may depend on, not a table of
 * embeddings. */
static rg_status opaque_operands(rg_importer *im, const Onnx__NodeProto *n, opaque_node *q, rg_err *err) {
  rg_model *m = im->m;
  q->all_const = true;
  for (int k = 0; k < q->n_in; k++) {
    q->refs[k] = (rg_ref){-1, 0};
    if (!n->input[k][0]) continue;
    const rg_ival *v = rg_import_get(im, n->input[k]); /* imported before n (import_node checks) */
    q->refs[k] = v->ref;
    q->in[k] = (rg_tinfo){v->elem, *rg_model_shape(m, v->ref), true};
    int32_t var = rg_model_var_of(m, v->ref);
    q->all_const = q->all_const && var >= 0 && m->var[var].kind == RG_MVAR_WEIGHT;
  }
  for (int k = 0; k < q->n_in; k++) {
    int32_t var = q->refs[k].node >= 0 ? rg_model_var_of(m, q->refs[k]) : -1;
    if (var < 0 || m->var[var].kind != RG_MVAR_WEIGHT || (!q->all_const && rg_shape_numel(&q->in[k].shape) > 4096))
      continue;
    if (!(q->kv[k] = as_doubles(&m->var[var]))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  /* Shape reads only its operand's shape, which import knows: a constant whatever the values */
  q->all_const = q->all_const || (n->op_type && !strcmp(n->op_type, "Shape") && (!n->domain || !n->domain[0]));
  return RG_OK;
}

/* An error of opaque.h about node n, as import says it: the file, then the node by name or by
 * its index (opaque.h's message starts with the node's label without one). */
static rg_status opaque_error(rg_importer *im, const Onnx__NodeProto *n, const rg_err *e, rg_err *err) {
  char label[160];
  rg_onnx_node_label(n, -1, label, sizeof label);
  size_t l = strlen(label);
  bool labelled = !strncmp(e->msg, label, l) && !strncmp(e->msg + l, ": ", 2);
  return rg_import_fail(im, err, e->status, "%s", e->msg + (labelled ? l + 2 : 0));
}

/* The node evaluated now: its outputs become weights. */
static rg_status opaque_fold(rg_importer *im, const Onnx__NodeProto *n, const rg_opaque_call *c, opaque_node *q,
                             rg_err *err) {
  rg_model *m = im->m;
  for (int j = 0; j < q->n_out; j++)
    if (!(q->ov[j] = malloc(sizeof(double) * (size_t)(rg_shape_numel(&q->out[j].shape) + 1))))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_err e = {0};
  rg_status st = rg_opaque_eval(c, (const double *const *)q->kv, q->out, q->ov, &e);
  if (st) return opaque_error(im, n, &e, err);
  for (int j = 0; !st && j < q->n_out; j++) {
    if (!n->output[j][0]) continue;
    void *data = from_doubles(q->ov[j], rg_shape_numel(&q->out[j].shape), q->out[j].elem);
    int32_t v = data ? rg_model_add_var(m, n->output[j], RG_MVAR_WEIGHT, q->out[j].elem, &q->out[j].shape, data) : -1;
    if (v < 0) {
      free(data);
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    } else st = rg_import_set(im, n->output[j], rg_model_var_ref(m, v), q->out[j].elem, err);
  }
  return st;
}

/* Variables for the outputs of the opaque node the model's next one will be. */
static rg_status opaque_outputs(rg_importer *im, const Onnx__NodeProto *n, opaque_node *q, rg_err *err) {
  rg_model *m = im->m;
  rg_status st = RG_OK;
  for (int j = 0; !st && j < q->n_out; j++) {
    char name[64];
    const char *nm = n->output[j];
    if (!nm[0]) { /* an omitted optional output still gets a variable */
      snprintf(name, sizeof name, "__rg_unused_%d_%d", m->n_op, j);
      nm = name;
    }
    int32_t v = rg_model_add_var(m, nm, RG_MVAR_OPAQUE, q->out[j].elem, &q->out[j].shape, NULL);
    if (v < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    m->var[v].opaque = m->n_op, m->var[v].out = j, q->outs[j] = v;
    st = rg_import_set(im, n->output[j], rg_model_var_ref(m, v), q->out[j].elem, err);
  }
  return st;
}

/* The node kept as an opaque node of the model (a copy of it), its refs and outputs moved in. */
static rg_status opaque_keep(rg_importer *im, const Onnx__NodeProto *n, opaque_node *q, rg_err *err) {
  rg_model *m = im->m;
  if (m->n_op == m->cap_op) {
    int32_t cap = m->cap_op ? 2 * m->cap_op : 64;
    rg_opaque *no = realloc(m->op, sizeof *no * (size_t)cap);
    if (!no) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    m->op = no, m->cap_op = cap;
  }
  Onnx__NodeProto *copy = copy_node(n);
  if (!copy) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = opaque_outputs(im, n, q, err);
  if (st) return onnx__node_proto__free_unpacked(copy, NULL), st;
  m->op[m->n_op++] = (rg_opaque){copy, q->n_in, q->n_out, q->refs, q->outs};
  q->refs = NULL, q->outs = NULL;
  return RG_OK;
}

/* Node n as an opaque node, or folded into weights when its operands are all constants. */
static rg_status import_opaque(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  opaque_node q = {.n_in = (int)n->n_input, .n_out = (int)n->n_output};
  while (q.n_out > 1 && !n->output[q.n_out - 1][0]) q.n_out--; /* optional outputs left out at the end */
  q.in = calloc((size_t)q.n_in + 1, sizeof *q.in), q.out = calloc((size_t)q.n_out + 1, sizeof *q.out);
  q.kv = calloc((size_t)q.n_in + 1, sizeof *q.kv), q.ov = calloc((size_t)q.n_out + 1, sizeof *q.ov);
  q.refs = calloc((size_t)q.n_in + 1, sizeof *q.refs), q.outs = calloc((size_t)q.n_out + 1, sizeof *q.outs);
  rg_status st = q.in && q.out && q.kv && q.ov && q.refs && q.outs ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = opaque_operands(im, n, &q, err);
  rg_opaque_call c = {n, im->opset, q.n_in, q.n_out, q.in};
  bool known = !st && n->op_type && rg_opaque_known(n->op_type) && !(n->domain && n->domain[0] && strcmp(n->domain, "ai.onnx"));
  if (!st) {
    rg_err e = {0};
    st = known ? rg_opaque_infer(&c, (const double *const *)q.kv, q.out, &e) : declared_types(im, n, q.n_out, q.out, err);
    if (st && known) st = opaque_error(im, n, &e, err);
  }
  if (!st) st = known && q.all_const ? opaque_fold(im, n, &c, &q, err) : opaque_keep(im, n, &q, err);
  for (int k = 0; q.kv && k < q.n_in; k++) free(q.kv[k]);
  for (int j = 0; q.ov && j < q.n_out; j++) free(q.ov[j]);
  free(q.in), free(q.out), free(q.kv), free(q.ov), free(q.refs), free(q.outs);
  return st;
}

/* The value a Constant node holds, as a weight. */
static rg_status import_constant(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  if (n->n_output != 1 || n->n_attribute != 1)
    return rg_import_fail(im, err, RG_ERR_ARG, "a Constant needs one output and one attribute");
  const Onnx__AttributeProto *a = n->attribute[0];
  const char *an = a->name ? a->name : "";
  if (a->t && !strcmp(an, "value")) return add_weight(im, a->t, n->output[0], err);
  /* the scalar and list forms, as the tensor they stand for */
  Onnx__TensorProto tmp = ONNX__TENSOR_PROTO__INIT;
  float f = a->f;
  int64_t i = a->i, len = 0;
  tmp.has_data_type = 1;
  if (!strcmp(an, "value_float")) tmp.data_type = RG_ELEM_FLOAT, tmp.n_float_data = 1, tmp.float_data = &f;
  else if (!strcmp(an, "value_int")) tmp.data_type = RG_ELEM_INT64, tmp.n_int64_data = 1, tmp.int64_data = &i;
  else if (!strcmp(an, "value_floats"))
    tmp.data_type = RG_ELEM_FLOAT, tmp.n_float_data = a->n_floats, tmp.float_data = a->floats, len = (int64_t)a->n_floats;
  else if (!strcmp(an, "value_ints"))
    tmp.data_type = RG_ELEM_INT64, tmp.n_int64_data = a->n_ints, tmp.int64_data = a->ints, len = (int64_t)a->n_ints;
  else return rg_import_fail(im, err, RG_ERR_ARG, "a Constant of attribute '%s' is not supported", an);
  if (!strcmp(an, "value_floats") || !strcmp(an, "value_ints")) tmp.n_dims = 1, tmp.dims = &len; /* else rank 0 */
  tmp.name = n->output[0];
  return add_weight(im, &tmp, n->output[0], err);
}

static bool is_control_flow(const char *op) {
  static const char *const names[] = {"If", "Loop", "Scan", "SequenceMap"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(op, names[i])) return true;
  return false;
}

/* Constructs import refuses before anything else: control flow, subgraphs, and nodes that name
 * no output (every ONNX operator makes one; the importers write the first). */
static rg_status check_static(rg_importer *im, rg_err *err) {
  for (size_t k = 0; k < im->gr->n_node; k++) {
    const Onnx__NodeProto *n = im->gr->node[k];
    im->node = n, im->node_k = (int)k;
    if (!n->n_output)
      return rg_import_fail(im, err, RG_ERR_ARG, "names no output: every operator makes at least one (remove the node "
                            "or name its output)");
    if (n->op_type && is_control_flow(n->op_type))
      return rg_import_fail(im, err, RG_ERR_ARG, "control flow (%s) is not supported: graphopt needs one static graph",
                            n->op_type);
    for (size_t a = 0; a < n->n_attribute; a++)
      if (n->attribute[a]->g || n->attribute[a]->n_graphs)
        return rg_import_fail(im, err, RG_ERR_ARG, "an operator with a subgraph is not supported");
  }
  im->node = NULL;
  return RG_OK;
}

/* Every output of n that a node reads has a value now: a node may name more outputs than its
 * operator makes (a Relu with two), and its readers would find none. */
static rg_status check_outputs(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  for (size_t j = 0; j < n->n_output; j++) {
    const int64_t *r = n->output[j][0] ? rg_names_find(&im->readers, n->output[j]) : NULL;
    if (r && *r > 0 && !rg_import_get(im, n->output[j]))
      return rg_import_fail(im, err, RG_ERR_ARG, "output %zu ('%s') is read, but the operator does not make it "
                            "(it names %zu outputs)", j, n->output[j], n->n_output);
  }
  return RG_OK;
}

static rg_status import_node(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  const char *op = n->op_type ? n->op_type : "";
  bool onnx_domain = !n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx");
  rg_status st = RG_IMPORT_OPAQUE;
  if (onnx_domain && !strcmp(op, "Constant")) st = import_constant(im, n, err);
  else if (onnx_domain) st = rg_import_map(im, n, err);
  if (st == RG_IMPORT_OPAQUE) st = import_opaque(im, n, err);
  return st ? st : check_outputs(im, n, err);
}

/* ---- the whole model ---- */

static rg_status import_model(Onnx__ModelProto *mp, const char *path, const rg_import_opts *opts, rg_model **out,
                              rg_err *err);

/* The default domain's opset, 7 to 21: import_ops.c and opaque.h read each operator in the form
 * of its version there. Before 7, Add and Mul broadcast by an attribute and BatchNormalization
 * and Dropout had is_test, meanings graphopt does not model; past 21 the forms are unknown. */
static rg_status check_opset(rg_importer *im, const Onnx__ModelProto *mp, rg_err *err) {
  im->opset = -1;
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const char *d = mp->opset_import[i]->domain;
    if (!d || !d[0] || !strcmp(d, "ai.onnx")) im->opset = mp->opset_import[i]->version;
  }
  if (im->opset < 0)
    return rg_import_fail(im, err, RG_ERR_ARG, "the model imports no opset of the default domain: graphopt reads "
                          "opsets 7 to 21 (give the model an opset_import)");
  if (im->opset < 7 || im->opset > 21)
    return rg_import_fail(im, err, RG_ERR_ARG, "opset %lld of the default domain: graphopt reads opsets 7 to 21 (convert "
                          "the model with onnx.version_converter)", (long long)im->opset);
  return RG_OK;
}

rg_status rg_model_import(const char *path, const rg_import_opts *opts, rg_model **out, rg_err *err) {
  *out = NULL;
  Onnx__ModelProto *mp = rg_onnx_read(path, err);
  return mp ? import_model(mp, path, opts, out, err) : err ? err->status : RG_ERR_PARSE;
}

rg_status rg_model_import_bytes(const char *name, const uint8_t *data, size_t len, const rg_import_opts *opts,
                                rg_model **out, rg_err *err) {
  *out = NULL;
  Onnx__ModelProto *mp = rg_onnx_parse(name, data, len, err);
  return mp ? import_model(mp, name, opts, out, err) : err ? err->status : RG_ERR_PARSE;
}

/* The model mp (owned from here on: the model keeps it, or it is freed). */
static rg_status import_model(Onnx__ModelProto *mp, const char *path, const rg_import_opts *opts, rg_model **out,
                              rg_err *err) {
  rg_importer im = {.path = path, .gr = mp->graph};
  rg_status st = check_opset(&im, mp, err);
  size_t n = mp->graph->n_node;
  int32_t *order = calloc(n + 1, sizeof *order);
  im.fold_into = malloc(sizeof *im.fold_into * (n + 1));
  im.folded = calloc(n + 1, sizeof *im.folded);
  if (!st && !(im.m = rg_model_new())) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st && (!order || !im.fold_into || !im.folded)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = check_static(&im, err);
  if (!st) {
    im.m->opset = im.opset;
    im.m->ir_version = mp->has_ir_version ? mp->ir_version : 8;
    st = import_inputs(&im, opts, err);
  }
  if (!st) st = index_tensors(&im, err);
  if (!st) st = node_order(&im, order, err);
  if (!st) rg_import_plan_folds(&im);
  for (size_t i = 0; !st && i < n; i++) {
    im.node = mp->graph->node[order[i]], im.node_k = order[i];
    st = import_node(&im, im.node, err);
  }
  im.node = NULL;
  if (!st) st = import_outputs(&im, err);
  rg_names_free(&im.names), rg_names_free(&im.producer), rg_names_free(&im.readers), rg_names_free(&im.declared);
  free(im.val), free(order), free(im.fold_into), free(im.folded);
  if (st) {
    rg_model_free(im.m);
    onnx__model_proto__free_unpacked(mp, NULL);
    return st;
  }
  im.m->source = mp;
  *out = im.m;
  return RG_OK;
}
