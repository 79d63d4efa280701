/* optimizer/onnx/import_form.c: the vocabulary nodes as read (model.h's form): for each node that
 * became IR, the IR node that computes it and the values it reads, so that export writes an
 * untouched node back as the model had it (import_internal.h). */
#include <stdlib.h>

#include "import_internal.h"

/* Whether node k has the node after it folded into its IR (a Conv its BatchNormalization, a
 * MatMul its bias Add): that node makes the form of both. */
static bool folds_next(const rg_importer *im, int k) {
  int32_t next = im->fold_into[k];
  return next >= 0 && im->folded[next];
}

/* The name of operand k of form (first, then n): first's operands, then n's but the one
 * first makes (folded, its index in n). */
static const char *form_input(const Onnx__NodeProto *first, const Onnx__NodeProto *n, int folded, int k) {
  if (k < (int)first->n_input) return first->input[k];
  k -= (int)first->n_input;
  return n->input[k + (k >= folded)];
}

/* The IR node n's outputs are (all outputs of one node, each its own), into out; -1 when they are
 * not one node's or one is an input's value (Identity, a reshape that does nothing). */
static int32_t head_of(const rg_importer *im, const Onnx__NodeProto *n, int8_t *out) {
  int32_t id = -1;
  unsigned seen = 0;
  for (size_t j = 0; j < n->n_output; j++) {
    const rg_ival *v = n->output[j][0] ? rg_import_get(im, n->output[j]) : NULL;
    out[j] = -1;
    if (!n->output[j][0]) continue;
    if (!v || (id >= 0 && v->ref.node != id) || (seen >> v->ref.out & 1u)) return -1;
    id = v->ref.node, out[j] = (int8_t)v->ref.out, seen |= 1u << v->ref.out;
  }
  return id >= 0 && rg_graph_node(im->m->g, id)->op != RG_OP_INPUT ? id : -1;
}

rg_status rg_import_form(rg_importer *im, const Onnx__NodeProto *n, rg_err *err) {
  rg_model *m = im->m;
  int folded = rg_import_folded_operand(im, n);
  const int64_t *prev = folded >= 0 ? rg_names_find(&im->producer, n->input[folded]) : NULL;
  /* (outputs past the operator's are unnamed ones: a BatchNormalization's optional statistics) */
  if (folds_next(im, im->node_k) || (im->folded[im->node_k] && !prev) || !n->n_output) return RG_OK;
  const Onnx__NodeProto *first = prev ? im->gr->node[*prev] : n; /* the nodes written: first, then n */
  size_t n_in = first->n_input + (prev ? n->n_input - 1 : 0);
  rg_model_form f = {first, prev ? n : NULL, -1, (int)n_in, (int)n->n_output, calloc(n_in + 1, sizeof *f.in),
                     calloc(n->n_output, sizeof *f.out)};
  if (!f.in || !f.out) return free(f.in), free(f.out), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  f.id = head_of(im, n, f.out);
  bool ok = f.id >= 0;
  for (int k = 0; ok && k < f.n_in; k++) {
    const char *name = form_input(first, n, folded, k);
    const rg_ival *v = name[0] ? rg_import_get(im, name) : NULL;
    f.in[k] = v ? v->ref : (rg_ref){-1, 0};
    /* what the node computes is made of what it reads: a value at or past its IR node is not
     * one of its operands (a node whose IR is an operand's) */
    ok = name[0] ? v && v->ref.node < f.id : true;
  }
  rg_model_form *nf = ok ? realloc(m->form, sizeof *nf * ((size_t)m->n_form + 1)) : NULL;
  if (!nf) {
    free(f.in), free(f.out);
    return ok ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
  }
  m->form = nf;
  m->form[m->n_form++] = f;
  return RG_OK;
}
