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

/* ---- outputs ---- */

static rg_status import_outputs(rg_importer *im, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  rg_model *m = im->m;
  if (!gr->n_output) return rg_import_fail(im, err, RG_ERR_ARG, "the graph has no outputs");
  m->out = calloc(gr->n_output, sizeof *m->out);
  m->out_name = calloc(gr->n_output, sizeof *m->out_name);
  if (!m->out || !m->out_name) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = RG_OK;
  /* an output listed twice is two outputs of one value, as onnxruntime runs it */
  for (size_t i = 0; !st && i < gr->n_output; i++) {
    const char *name = gr->output[i]->name ? gr->output[i]->name : "";
    const rg_ival *v = rg_import_get(im, name);
    if (!v) st = rg_import_fail(im, err, RG_ERR_ARG, "graph output '%s' is produced by no node, input or initializer", name);
    else if (!(m->out_name[i] = strdup(name))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else m->out[i] = v->ref, m->n_out = (int32_t)i + 1;
  }
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
    size_t n_in = nd ? rg_import_n_operands(im, k) : gr->n_output;
    im->node = nd, im->node_k = (int)k;
    for (size_t j = 0; j < n_in; j++) {
      const char *in = nd ? rg_import_operand(im, k, j) : gr->output[j]->name ? gr->output[j]->name : "";
      if (!in[0]) continue;
      if (!rg_names_find(&im->producer, in) && !rg_import_get(im, in))
        return rg_import_fail(im, err, RG_ERR_ARG, "%s tensor '%s', which no node, graph input or initializer "
                              "produces", !nd ? "the graph's output is" : j < nd->n_input ? "reads" : "its subgraphs read",
                              in);
      int64_t *r = rg_names_add(&im->readers, in, &added);
      if (!r) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      ++*r;
    }
  }
  im->node = NULL;
  return RG_OK;
}

/* Kahn's algorithm over the tensors nodes read (subgraphs' reads included), in the file's order
 * where it is already one: order[0..n) on success; a cycle is an error naming a node on it. */
static rg_status node_order(rg_importer *im, int32_t *order, rg_err *err) {
  const Onnx__GraphProto *gr = im->gr;
  size_t n = gr->n_node, n_edges = 0;
  /* edges producer -> reader: counted, then listed by producer (users[start[p] .. start[p+1])) */
  int32_t *pending = calloc(n + 1, sizeof *pending), *start = calloc(n + 2, sizeof *start);
  for (size_t k = 0; pending && start && k < n; k++)
    for (size_t j = 0; j < rg_import_n_operands(im, k); j++) {
      const char *in = rg_import_operand(im, k, j);
      const int64_t *p = in[0] ? rg_names_find(&im->producer, in) : NULL;
      if (p) start[*p + 1]++, pending[k]++, n_edges++;
    }
  int32_t *users = malloc(sizeof *users * (n_edges + 1)), *fill = malloc(sizeof *fill * (n + 1));
  rg_status st = pending && start && users && fill ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    for (size_t k = 0; k < n; k++) start[k + 1] += start[k], fill[k] = start[k];
    for (size_t k = 0; k < n; k++)
      for (size_t j = 0; j < rg_import_n_operands(im, k); j++) {
        const char *in = rg_import_operand(im, k, j);
        const int64_t *p = in[0] ? rg_names_find(&im->producer, in) : NULL;
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
static Onnx__NodeProto *copy_node(const Onnx__NodeProto *n) { return rg_onnx_copy(&n->base); }

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

/* What importing one opaque node holds: its operands' types, refs and (constant) values (its
 * inputs, then what its subgraphs read), its outputs' types (present: typed) and (folded)
 * values, the variables of its outputs, and why graphopt does not evaluate it (empty: it does). */
typedef struct {
  int n_in, n_out;
  rg_tinfo *in, *out;
  double **kv, **ov;
  rg_ref *refs;
  int32_t *outs;
  bool all_const; /* every operand a weight (or plumbing kept as read): the node folds */
  bool depends;   /* its value depends on the model's symbolic dims: kept as read, not folded */
  char why[512];
} opaque_node;

/* The operands of n: refs and types, and the values of the constant ones: all of them to fold
 * the node, else the small ones (shapes, axes) its type may depend on, not a table of
 * embeddings. */
static rg_status opaque_operands(rg_importer *im, const Onnx__NodeProto *n, opaque_node *q, rg_err *err) {
  rg_model *m = im->m;
  q->all_const = true;
  for (int k = 0; k < q->n_in; k++) {
    const char *name = rg_import_operand(im, (size_t)im->node_k, (size_t)k);
    q->refs[k] = (rg_ref){-1, 0};
    if (!name[0]) continue;
    const rg_ival *v = rg_import_get(im, name); /* imported before n (import_node checks) */
    int32_t var = rg_model_var_of(m, v->ref);
    q->refs[k] = v->ref;
    q->in[k] = (rg_tinfo){v->elem, *rg_model_shape(m, v->ref), true};
    bool known = rg_import_known(im, name) != NULL;
    q->depends = q->depends || known;
    q->all_const = q->all_const && ((var >= 0 && m->var[var].kind == RG_MVAR_WEIGHT && m->var[var].typed) || known);
  }
  for (int k = 0; k < q->n_in; k++) {
    int32_t var = q->refs[k].node >= 0 ? rg_model_var_of(m, q->refs[k]) : -1;
    const double *kn = q->refs[k].node >= 0 ? rg_import_known(im, rg_import_operand(im, (size_t)im->node_k, (size_t)k)) : NULL;
    int64_t numel = rg_shape_numel(&q->in[k].shape);
    if (kn && (q->all_const || numel <= 4096)) { /* plumbing kept as read: its values type the node */
      if (!(q->kv[k] = malloc(sizeof(double) * (size_t)(numel + 1)))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      memcpy(q->kv[k], kn, sizeof(double) * (size_t)numel);
      continue;
    }
    if (var < 0 || m->var[var].kind != RG_MVAR_WEIGHT || !m->var[var].typed ||
        (!q->all_const && rg_shape_numel(&q->in[k].shape) > 4096))
      continue;
    if (!(q->kv[k] = as_doubles(&m->var[var]))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  /* Shape reads only its operand's shape, which import knows: a constant whatever the values
   * (of the symbolic dims too, where the operand is no weight) */
  bool shape = n->op_type && !strcmp(n->op_type, "Shape") && (!n->domain || !n->domain[0]);
  q->depends = q->depends || (shape && !q->all_const);
  q->all_const = q->all_const || shape;
  return RG_OK;
}

/* Why graphopt does not evaluate n, with its label: "node 'N' (OP): why". */
static void set_why(const rg_importer *im, const Onnx__NodeProto *n, opaque_node *q, const char *why) {
  char label[160];
  rg_onnx_node_label(n, im->node_k, label, sizeof label);
  /* the reason cut to the room left after the label (a longer one is cut, not a warning) */
  snprintf(q->why, sizeof q->why, "%s: %.*s", label, (int)(sizeof q->why - sizeof label - 2), why);
}

/* A message of opaque.h about node n without the label it starts with (the node's label
 * without an index). */
static const char *opaque_reason(const Onnx__NodeProto *n, const char *msg) {
  char label[160];
  rg_onnx_node_label(n, -1, label, sizeof label);
  size_t l = strlen(label);
  return !strncmp(msg, label, l) && !strncmp(msg + l, ": ", 2) ? msg + l + 2 : msg;
}

/* The types the model declares for n's outputs (present: typed; an output it does not declare,
 * or declares of a type graphopt does not model, is an opaque value); *all whether that types
 * every output n names. */
static rg_status declared_outputs(rg_importer *im, const Onnx__NodeProto *n, opaque_node *q, bool *all, rg_err *err) {
  *all = true;
  for (int j = 0; j < q->n_out; j++) {
    rg_status st = rg_import_declared(im, n->output[j], &q->out[j], err);
    if (st) return st;
    *all = *all && (q->out[j].present || !n->output[j][0]);
  }
  return RG_OK;
}

/* The types of n's outputs: opaque.h's for an operator it knows, else the model's
 * declarations, else none (opaque values); q->why where graphopt does not evaluate n. A rule
 * vocabulary's operator that did not map because the model gets it wrong (a Split's sizes, a
 * Transpose's perm) is an error where its outputs are not declared. */
static rg_status opaque_types(rg_importer *im, const Onnx__NodeProto *n, const rg_opaque_call *c, opaque_node *q,
                              rg_err *err) {
  bool onnx = !n->domain || !n->domain[0] || !strcmp(n->domain, "ai.onnx"), all;
  if (onnx && n->op_type && rg_opaque_known(n->op_type)) {
    rg_err e = {0};
    rg_status st = rg_opaque_infer(c, (const double *const *)q->kv, q->out, &e);
    if (st == RG_ERR_NOMEM) return rg_err_set(err, st, "out of memory");
    if (!st) return RG_OK;
    set_why(im, n, q, opaque_reason(n, e.msg)); /* kept as read, typed where the model says */
    return declared_outputs(im, n, q, &all, err);
  }
  rg_status st = declared_outputs(im, n, q, &all, err);
  char buf[200];
  const char *unmapped = !st && onnx ? rg_import_why_unmapped(im, n, buf, sizeof buf) : NULL;
  const rg_ival *x = n->n_input && n->input[0][0] ? rg_import_get(im, n->input[0]) : NULL;
  if (unmapped && !all && x && x->elem == RG_ELEM_FLOAT) return rg_import_fail(im, err, RG_ERR_ARG, "%s", unmapped);
  if (!st)
    set_why(im, n, q, unmapped ? unmapped : all ? "an operator graphopt does not evaluate (typed as the model declares)"
                                                : "an operator graphopt does not know, and the model does not declare its "
                                                  "outputs' types");
  return st;
}

/* The node evaluated now: its outputs become weights (*folded). Where opaque.h cannot evaluate
 * it, it is kept (q->why says why). */
static rg_status opaque_fold(rg_importer *im, const Onnx__NodeProto *n, const rg_opaque_call *c, opaque_node *q,
                             bool *folded, rg_err *err) {
  rg_model *m = im->m;
  for (int j = 0; j < q->n_out; j++)
    if (!(q->ov[j] = malloc(sizeof(double) * (size_t)(rg_shape_numel(&q->out[j].shape) + 1))))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_err e = {0};
  rg_status st = rg_opaque_eval(c, (const double *const *)q->kv, q->out, q->ov, &e);
  if (st == RG_ERR_NOMEM) return rg_err_set(err, st, "out of memory");
  if (st) return set_why(im, n, q, opaque_reason(n, e.msg)), RG_OK;
  if (q->depends && rg_import_dynamic(im)) { /* shape plumbing of symbolic dims: kept as read, its values known */
    for (int j = 0; !st && j < q->n_out; j++)
      if (n->output[j][0]) st = rg_import_know(im, n->output[j], q->ov[j], err), q->ov[j] = NULL;
    return st;
  }
  for (int j = 0; !st && j < q->n_out; j++) {
    if (!n->output[j][0]) continue;
    void *data = from_doubles(q->ov[j], rg_shape_numel(&q->out[j].shape), q->out[j].elem);
    int32_t v = data ? rg_model_add_var(m, n->output[j], RG_MVAR_WEIGHT, q->out[j].elem, &q->out[j].shape, data) : -1;
    if (v < 0) {
      free(data);
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    } else st = rg_import_set(im, n->output[j], rg_model_var_ref(m, v), q->out[j].elem, err);
  }
  *folded = !st;
  return st;
}

/* Variables for the outputs of the opaque node the model's next one will be. */
static rg_status opaque_outputs(rg_importer *im, const Onnx__NodeProto *n, opaque_node *q, rg_err *err) {
  rg_model *m = im->m;
  rg_status st = RG_OK;
  for (int j = 0; !st && j < q->n_out; j++) {
    char name[64];
    const char *nm = n->output[j];
    const rg_tinfo *t = &q->out[j];
    if (!nm[0]) { /* an omitted optional output still gets a variable */
      snprintf(name, sizeof name, "__rg_unused_%d_%d", m->n_op, j);
      nm = name;
    }
    int32_t v = t->present ? rg_model_add_var(m, nm, RG_MVAR_OPAQUE, t->elem, &t->shape, NULL)
                           : rg_model_add_opaque_var(m, nm, RG_MVAR_OPAQUE, t->elem, NULL);
    if (v < 0) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    m->var[v].opaque = m->n_op, m->var[v].out = j, q->outs[j] = v;
    st = rg_import_set(im, n->output[j], rg_model_var_ref(m, v), t->present ? t->elem : RG_ELEM_UNDEFINED, err);
  }
  return st;
}

/* The names n's subgraphs read its operands past its inputs by (copies), into *out; NULL when
 * there are none. False when out of memory. */
static bool implicit_names(const rg_importer *im, const Onnx__NodeProto *n, const opaque_node *q, char ***out) {
  int first = (int)n->n_input;
  *out = NULL;
  if (q->n_in == first) return true;
  char **names = calloc((size_t)(q->n_in - first), sizeof *names);
  bool ok = names != NULL;
  for (int k = first; ok && k < q->n_in; k++)
    ok = (names[k - first] = strdup(rg_import_operand(im, (size_t)im->node_k, (size_t)k))) != NULL;
  for (int k = first; !ok && names && k < q->n_in; k++) free(names[k - first]);
  if (!ok) free(names), names = NULL;
  *out = names;
  return ok;
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
  char **implicit = NULL, *why = q->why[0] ? strdup(q->why) : NULL;
  rg_status st = copy && (why || !q->why[0]) && implicit_names(im, n, q, &implicit)
                     ? opaque_outputs(im, n, q, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (st) {
    for (int k = (int)n->n_input; implicit && k < q->n_in; k++) free(implicit[k - (int)n->n_input]);
    if (copy) onnx__node_proto__free_unpacked(copy, NULL);
    return free(implicit), free(why), st;
  }
  m->op[m->n_op++] = (rg_opaque){copy, q->n_in, q->n_out, q->refs, q->outs, implicit, why};
  q->refs = NULL, q->outs = NULL;
  return RG_OK;
}

/* Node n as an opaque node, or folded into weights when its operands are all constants that
 * opaque.h evaluates. why: why it is not modelled (a subgraph, an opaque operand), or NULL. */
static rg_status import_opaque(rg_importer *im, const Onnx__NodeProto *n, const char *why, rg_err *err) {
  opaque_node q = {.n_in = (int)rg_import_n_operands(im, (size_t)im->node_k), .n_out = (int)n->n_output};
  while (q.n_out > 1 && !n->output[q.n_out - 1][0]) q.n_out--; /* optional outputs left out at the end */
  q.in = calloc((size_t)q.n_in + 1, sizeof *q.in), q.out = calloc((size_t)q.n_out + 1, sizeof *q.out);
  q.kv = calloc((size_t)q.n_in + 1, sizeof *q.kv), q.ov = calloc((size_t)q.n_out + 1, sizeof *q.ov);
  q.refs = calloc((size_t)q.n_in + 1, sizeof *q.refs), q.outs = calloc((size_t)q.n_out + 1, sizeof *q.outs);
  rg_status st = q.in && q.out && q.kv && q.ov && q.refs && q.outs ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = opaque_operands(im, n, &q, err);
  rg_opaque_call c = {n, im->opset, q.n_in, q.n_out, q.in};
  bool all, folded = false;
  if (!st && why) set_why(im, n, &q, why), st = declared_outputs(im, n, &q, &all, err);
  else if (!st) st = opaque_types(im, n, &c, &q, err);
  if (!st && !q.why[0] && q.all_const) st = opaque_fold(im, n, &c, &q, &folded, err);
  if (!st && !folded) st = opaque_keep(im, n, &q, err);
  for (int k = 0; q.kv && k < q.n_in; k++) free(q.kv[k]);
  for (int j = 0; q.ov && j < q.n_out; j++) free(q.ov[j]);
  free(q.in), free(q.out), free(q.kv), free(q.ov), free(q.refs), free(q.outs);
  return st;
}

/* The value a Constant node holds, as a weight; RG_IMPORT_OPAQUE with why (len bytes) for the
 * forms graphopt does not model (strings, a sparse tensor, an empty list). */
static rg_status import_constant(rg_importer *im, const Onnx__NodeProto *n, char *why, size_t len, rg_err *err) {
  if (n->n_output != 1 || n->n_attribute != 1)
    return rg_import_fail(im, err, RG_ERR_ARG, "a Constant needs one output and one attribute");
  const Onnx__AttributeProto *a = n->attribute[0];
  const char *an = a->name ? a->name : "";
  if (a->t && !strcmp(an, "value")) return rg_import_add_weight(im, a->t, n->output[0], err);
  /* the scalar and list forms, as the tensor they stand for */
  Onnx__TensorProto tmp = ONNX__TENSOR_PROTO__INIT;
  float f = a->f;
  int64_t i = a->i, cnt = 0;
  tmp.has_data_type = 1;
  if (!strcmp(an, "value_float")) tmp.data_type = RG_ELEM_FLOAT, tmp.n_float_data = 1, tmp.float_data = &f;
  else if (!strcmp(an, "value_int")) tmp.data_type = RG_ELEM_INT64, tmp.n_int64_data = 1, tmp.int64_data = &i;
  else if (!strcmp(an, "value_floats"))
    tmp.data_type = RG_ELEM_FLOAT, tmp.n_float_data = a->n_floats, tmp.float_data = a->floats, cnt = (int64_t)a->n_floats;
  else if (!strcmp(an, "value_ints"))
    tmp.data_type = RG_ELEM_INT64, tmp.n_int64_data = a->n_ints, tmp.int64_data = a->ints, cnt = (int64_t)a->n_ints;
  else return snprintf(why, len, "a Constant of attribute '%s'", an), RG_IMPORT_OPAQUE;
  if (!strcmp(an, "value_floats") || !strcmp(an, "value_ints")) tmp.n_dims = 1, tmp.dims = &cnt; /* else rank 0 */
  if (tmp.n_dims && !cnt) return snprintf(why, len, "an empty tensor ('%s' with no values)", an), RG_IMPORT_OPAQUE;
  tmp.name = n->output[0];
  return rg_import_add_weight(im, &tmp, n->output[0], err);
}

static bool is_control_flow(const char *op) {
  static const char *const names[] = {"If", "Loop", "Scan", "SequenceMap"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(op, names[i])) return true;
  return false;
}

/* Nodes import refuses before anything else: those that name no output (every ONNX operator
 * makes one; the importers write the first). */
static rg_status check_static(rg_importer *im, rg_err *err) {
  for (size_t k = 0; k < im->gr->n_node; k++) {
    const Onnx__NodeProto *n = im->gr->node[k];
    im->node = n, im->node_k = (int)k;
    if (!n->n_output)
      return rg_import_fail(im, err, RG_ERR_ARG, "names no output: every operator makes at least one (remove the node "
                            "or name its output)");
  }
  im->node = NULL;
  return RG_OK;
}

/* Why node n is kept as read, whatever its operator (into why, len bytes), or false: it has a
 * subgraph (control flow), it reads an opaque value, or an attribute of it is a tensor graphopt
 * does not model (a ConstantOfShape of bool, a Constant of int32). */
static bool unmodelled(const rg_importer *im, const Onnx__NodeProto *n, char *why, size_t len) {
  const char *attr = NULL, *op = n->op_type ? n->op_type : "";
  char w[300];
  if (rg_import_has_subgraph(n, &attr))
    return is_control_flow(op) ? snprintf(why, len, "control flow (%s): kept as read, its subgraphs not modelled", op)
                               : snprintf(why, len, "an operator with a subgraph ('%s'), kept as read", attr ? attr : ""),
           true;
  for (size_t j = 0; j < n->n_input; j++) {
    const rg_ival *v = n->input[j][0] ? rg_import_get(im, n->input[j]) : NULL;
    if (!v || v->elem != RG_ELEM_UNDEFINED) continue;
    rg_import_describe(im, v->ref, n->input[j], w, sizeof w);
    return snprintf(why, len, "reads %s", w), true;
  }
  for (size_t a = 0; a < n->n_attribute; a++) {
    const Onnx__AttributeProto *at = n->attribute[a];
    const char *an = at->name ? at->name : "";
    if (at->t && !rg_onnx_tensor_typed(at->t, w, sizeof w))
      return snprintf(why, len, "its attribute '%s' is a tensor of %s", an, w), true;
    if (at->sparse_tensor || at->n_sparse_tensors || at->n_tensors)
      return snprintf(why, len, "its attribute '%s' holds tensors graphopt does not model", an), true;
  }
  return false;
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
  char why[400] = "";
  rg_status st = RG_IMPORT_OPAQUE;
  if (rg_import_runtime_refuses(im, n, why, sizeof why))
    return rg_import_fail(im, err, RG_ERR_ARG, "%s", why);
  if (unmodelled(im, n, why, sizeof why)) st = RG_IMPORT_OPAQUE;
  else if (onnx_domain && !strcmp(op, "Constant")) st = import_constant(im, n, why, sizeof why, err);
  else if (onnx_domain && !(st = rg_import_map(im, n, err))) st = rg_import_form(im, n, err);
  if (st == RG_IMPORT_OPAQUE) st = import_opaque(im, n, why[0] ? why : NULL, err);
  return st ? st : check_outputs(im, n, err);
}

/* ---- the whole model ---- */

static rg_status import_model(Onnx__ModelProto *mp, const char *path, const rg_import_opts *opts, rg_model **out,
                              rg_err *err);

/* The default domain's opset, 1 to 21: import_ops.c and opaque.h read each operator in the form
 * of its version there. Before 7 (Add's `broadcast`, BatchNormalization's is_test, ...) only
 * the operators export writes in that opset's form become rule IR (import_ops.c), a node is typed
 * only where its form means what 7's does (opaque.h's rg_opaque_legacy_why), and the versions
 * onnxruntime does not run are refused (import_runtime.c); past 21 the forms are unknown. */
static rg_status check_opset(rg_importer *im, const Onnx__ModelProto *mp, rg_err *err) {
  im->opset = -1;
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const char *d = mp->opset_import[i]->domain;
    if (!d || !d[0] || !strcmp(d, "ai.onnx")) im->opset = mp->opset_import[i]->version;
  }
  if (im->opset < 0)
    return rg_import_fail(im, err, RG_ERR_ARG, "the model imports no opset of the default domain: graphopt reads "
                          "opsets 1 to 21 (give the model an opset_import)");
  if (im->opset < 1 || im->opset > 21)
    return rg_import_fail(im, err, RG_ERR_ARG, "opset %lld of the default domain: graphopt reads opsets 1 to 21 (convert "
                          "the model with onnx.version_converter)", (long long)im->opset);
  return RG_OK;
}

rg_status rg_model_import(const char *path, const rg_import_opts *opts, rg_model **out, rg_err *err) {
  *out = NULL;
  Onnx__ModelProto *mp = rg_onnx_read(path, err);
  if (!mp) return err ? err->status : RG_ERR_PARSE;
  rg_onnx_side_files side;
  rg_status st = rg_onnx_load_external(mp, path, &side, err); /* weights in side files, read in once */
  if (st) return onnx__model_proto__free_unpacked(mp, NULL), st;
  if ((st = import_model(mp, path, opts, out, err))) return rg_onnx_side_files_free(&side), st;
  (*out)->side_files = side.path, (*out)->n_side_files = side.n; /* export writes such a model's beside it */
  return RG_OK;
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
  if (!st) st = rg_import_scopes(&im, err);
  if (!st) {
    im.m->opset = im.opset;
    im.m->ir_version = mp->has_ir_version ? mp->ir_version : 8;
    st = rg_import_inputs(&im, opts, err);
  }
  if (!st) st = rg_import_dims_check(&im, opts, err);
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
  rg_import_scopes_free(&im), rg_import_known_free(&im);
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
