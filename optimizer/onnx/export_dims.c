/* optimizer/onnx/export_dims.c: a model with symbolic dimensions written back with them
 * (export_internal.h): its reshapes and slices in the ONNX form they were read in (model.h's
 * form), not at the sizes of the values the model was imported at. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

/* The form IR node id is written in: the one import made of it, else one made of a node of the
 * same operator and parameters over a value of the same shape (the same reshape or slice of a
 * rewritten operand: what the node read computes at every value of the dims); NULL when none. */
static const rg_model_form *form_of(const rg_exporter *ex, int32_t id) {
  const rg_model *m = ex->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  const rg_model_form *like = NULL;
  for (int32_t k = 0; k < m->n_form; k++) {
    const rg_model_form *f = &m->form[k];
    if (f->id == id) return f;
    const rg_node *fn = rg_graph_node(m->g, f->id);
    if (!like && fn->op == nd->op && !memcmp(fn->params, nd->params, sizeof nd->params) &&
        rg_shape_dims_eq(rg_model_shape(m, fn->in[0]), rg_model_shape(m, nd->in[0])))
      like = f;
  }
  return like;
}

rg_status rg_export_form(rg_exporter *ex, int32_t id, bool *done, rg_err *err) {
  const rg_model *m = ex->m;
  const rg_node *nd = rg_graph_node(m->g, id);
  *done = false;
  if (!m->n_form || ex->fuse[id] || (nd->op != RG_OP_RESHAPE && nd->op != RG_OP_SLICE)) return RG_OK;
  const rg_model_form *f = form_of(ex, id);
  if (!f) return RG_OK; /* a reshape or slice a rewrite made: at these sizes (the check at other dims judges it) */
  const char *in[8];
  int n_in = 1 + f->n_in < 8 ? 1 + f->n_in : 8;
  in[0] = ex->name[nd->in[0].node][nd->in[0].out];
  for (int k = 1; k < n_in; k++) { /* the node's constant operands, written as read */
    rg_ref r = f->in[k - 1];
    rg_status st = r.node >= 0 ? rg_export_constant(ex, r.node, err) : RG_OK;
    if (st) return st;
    in[k] = r.node >= 0 ? ex->name[r.node][r.out] : "";
  }
  const char *out = ex->name[id][0];
  Onnx__NodeProto *n = rg_export_node(ex, f->node->op_type, in, n_in, &out, 1);
  Onnx__NodeProto *copy = n ? rg_onnx_copy(&f->node->base) : NULL;
  if (!copy) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  n->attribute = copy->attribute, n->n_attribute = copy->n_attribute; /* the attributes as read */
  copy->attribute = NULL, copy->n_attribute = 0;
  if (copy->name && copy->name[0]) free(n->name), n->name = copy->name, copy->name = NULL;
  onnx__node_proto__free_unpacked(copy, NULL);
  *done = true;
  return RG_OK;
}
