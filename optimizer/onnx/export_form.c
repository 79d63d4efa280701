/* optimizer/onnx/export_form.c: the vocabulary nodes written as read (model.h's form;
 * export_internal.h): an IR node import made of one ONNX node and no rewrite changed is written
 * as that node (its name, attributes, doc string, the names of its outputs), so that a model
 * comes back as it was where graphopt changed nothing, onnxruntime fusing it as before; and in
 * a model with symbolic dimensions a reshape or slice a rewrite rebuilt over an operand of the
 * same shape is written in the form read, not at the sizes imported. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

/* ---- which nodes ---- */

/* The IR nodes under form f's node down to what it reads (its interior: written by the form,
 * not as themselves), stopping at weights and inputs, into list (room for RG_FORM_INTERIOR);
 * their count, or -1 past that many (an IR node that is no one node's). mark: zeros, as it was
 * after. */
#define RG_FORM_INTERIOR 64
static int interior(const rg_exporter *ex, const rg_model_form *f, int32_t *list, uint8_t *mark) {
  const rg_model *m = ex->m;
  int n = 0;
  for (int k = 0; k < f->n_in; k++)
    if (f->in[k].node >= 0) mark[f->in[k].node] = 2; /* an operand: not interior */
  for (int i = -1; n >= 0 && i < n; i++) { /* breadth first from the node itself */
    const rg_node *nd = rg_graph_node(m->g, i < 0 ? f->id : list[i]);
    for (int k = 0; n >= 0 && k < nd->n_in; k++) {
      int32_t c = nd->in[k].node;
      if (mark[c] || rg_graph_node(m->g, c)->op == RG_OP_INPUT) continue;
      if (n == RG_FORM_INTERIOR) n = -1;
      else mark[c] = 1, list[n++] = c;
    }
  }
  for (int i = 0; i < (n < 0 ? RG_FORM_INTERIOR : n); i++) mark[list[i]] = 0;
  for (int k = 0; k < f->n_in; k++)
    if (f->in[k].node >= 0) mark[f->in[k].node] = 0;
  return n;
}

void rg_export_plan_forms(rg_exporter *ex) {
  const rg_model *m = ex->m;
  /* the first node read that an IR node computes; one computed from weights alone too (written as
   * read, onnxruntime folds it as it did, not graphopt in float64) */
  for (int32_t k = 0; k < m->n_form; k++) {
    const rg_model_form *f = &m->form[k];
    int named = 0; /* a rewrite may read an output the node read left unnamed: it needs a name */
    for (int j = 0; j < f->n_out; j++) named += f->out[j] >= 0;
    if (!ex->formed[f->id] && named == rg_op_get((rg_op)rg_graph_node(m->g, f->id)->op)->n_outputs)
      ex->formed[f->id] = k + 1;
  }
}

rg_status rg_export_drop_shared_forms(rg_exporter *ex, bool *dropped, rg_err *err) {
  const rg_model *m = ex->m;
  uint8_t *mark = calloc((size_t)ex->n + 1, 1);
  int32_t list[RG_FORM_INTERIOR];
  *dropped = false;
  if (!mark) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  /* a form whose interior another node written reads would compute that part twice: the IR
   * node is written as itself then, sharing it; not where that part is a node read itself (a
   * MatMul beside a Gemm of the same product), which the model read computed twice too */
  for (int32_t id = 0; id < ex->n; id++) {
    if (!ex->formed[id] || !ex->uses[id]) continue;
    int n = interior(ex, &m->form[ex->formed[id] - 1], list, mark);
    bool shared = n < 0;
    for (int i = 0; !shared && i < n; i++)
      shared = ex->uses[list[i]] && !ex->is_const[list[i]] && !ex->formed[list[i]];
    if (shared) ex->formed[id] = 0, *dropped = true;
  }
  free(mark);
  return RG_OK;
}

int rg_export_form_deps(const rg_exporter *ex, int32_t id, rg_ref *out) {
  const rg_model_form *f = &ex->m->form[ex->formed[id] - 1];
  int n = 0;
  for (int k = 0; k < f->n_in; k++)
    if (f->in[k].node >= 0) out[n++] = f->in[k];
  return n;
}

int rg_export_form_max_deps(const rg_model *m) {
  int most = 0;
  for (int32_t k = 0; k < m->n_form; k++) most = m->form[k].n_in > most ? m->form[k].n_in : most;
  return most;
}

/* ---- writing ---- */

/* The form a rewritten reshape or slice id of a model with symbolic dims is written in: one import
 * made of a node of the same operator and parameters over a value of the same shape, reading
 * only weights besides (the same reshape or slice of a rewritten operand); NULL when none. */
static const rg_model_form *like_form(const rg_exporter *ex, int32_t id) {
  const rg_model *m = ex->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  if (!m->n_dims || ex->fuse[id] || (nd->op != RG_OP_RESHAPE && nd->op != RG_OP_SLICE)) return NULL;
  /* (a node written as read names one output; the reshape's is output 0) */
  for (int32_t k = 0; k < m->n_form; k++) {
    const rg_model_form *f = &m->form[k];
    const rg_node *fn = rg_graph_node(m->g, f->id);
    bool one = fn->op == nd->op && !f->then && f->n_out == 1 && f->out[0] == 0 && fn->n_in == 1 &&
               f->n_in >= 1 && f->in[0].node == fn->in[0].node && f->in[0].out == fn->in[0].out &&
               !memcmp(fn->params, nd->params, sizeof nd->params) &&
               rg_shape_dims_eq(rg_model_shape(m, fn->in[0]), rg_model_shape(m, nd->in[0]));
    for (int j = 1; one && j < f->n_in; j++) one = f->in[j].node < 0 || rg_model_var_of(m, f->in[j]) >= 0;
    if (one) return f;
  }
  return NULL;
}

/* Names node id's outputs as f's were read, where the name is free for it. */
static rg_status name_as_read(rg_exporter *ex, int32_t id, const rg_model_form *f, rg_err *err) {
  for (int j = 0; j < f->n_out; j++) {
    int o = f->out[j];
    if (o < 0 || ex->name[id][o]) continue;
    const char *want = (f->then ? f->then : f->node)->output[j];
    const int64_t *owner = rg_names_find(&ex->claimed, want);
    if (owner && *owner != (int64_t)id * RG_MAX_OUTPUTS + o) continue; /* another value's: a fresh one */
    if (!(ex->name[id][o] = strdup(want))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

/* Form f of two nodes, the second folded into the first (a Conv and its BatchNormalization, a
 * MatMul and its bias Add): both as read, the first's output under its name read (only the
 * second read it, nothing else names it) over in (the first's operands, then the second's but
 * the one reading the first), making out. */
static rg_status write_pair(rg_exporter *ex, const rg_model_form *f, const char **in, const char **out, rg_err *err) {
  const char *mid = f->node->output[0];
  const char **then_in = calloc(f->then->n_input + 1, sizeof *then_in);
  if (!then_in) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  size_t next = f->node->n_input;
  for (size_t k = 0; k < f->then->n_input; k++)
    then_in[k] = strcmp(f->then->input[k], mid) ? in[next++] : mid;
  rg_status st = rg_export_copy_node(ex, f->node, in, &mid, err);
  if (!st) st = rg_export_copy_node(ex, f->then, then_in, out, err);
  free(then_in);
  return st;
}

rg_status rg_export_as_read(rg_exporter *ex, int32_t id, bool *done, rg_err *err) {
  const rg_model *m = ex->m;
  bool formed = ex->formed[id] > 0;
  const rg_model_form *f = formed ? &m->form[ex->formed[id] - 1] : like_form(ex, id);
  *done = false;
  if (!f) return RG_OK;
  rg_status st = formed ? name_as_read(ex, id, f, err) : RG_OK;
  const char **in = calloc((size_t)f->n_in + 1, sizeof *in), **out = calloc((size_t)f->n_out + 1, sizeof *out);
  if (!st && (!in || !out)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int k = 0; !st && k < f->n_in; k++) {
    rg_ref r = formed || k ? f->in[k] : rg_graph_node(m->g, id)->in[0]; /* like one read: this node's data */
    if (r.node >= 0 && !formed && k) st = rg_export_constant(ex, r.node, err); /* its weights, as read */
    in[k] = r.node >= 0 ? ex->name[r.node][r.out] : "";
    if (!st && !in[k]) st = rg_err_set(err, RG_ERR_ARG, "internal: node %d written before its operand %d", id, k);
  }
  for (int j = 0; !st && j < f->n_out; j++) {
    int o = f->out[j];
    if (o >= 0 && !ex->name[id][o] && !(ex->name[id][o] = rg_export_fresh(ex, (f->then ? f->then : f->node)->output[j])))
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    out[j] = o >= 0 ? ex->name[id][o] : "";
  }
  if (!st) st = f->then ? write_pair(ex, f, in, out, err) : rg_export_copy_node(ex, f->node, in, out, err);
  free(in), free(out);
  *done = !st;
  return st;
}
