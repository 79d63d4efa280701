/* optimizer/opaque/kinds.c: what a model's opaque nodes are, by operator (model.h's
 * rg_model_opaque_kinds), for graphopt info. */
#include <string.h>

#include "optimizer/model/model.h"
#include "onnx.pb-c.h"
#include "opaque.h"

int32_t rg_model_opaque_kinds(const rg_model *m, rg_opaque_kind *out) {
  int32_t n = 0;
  for (int32_t k = 0; k < m->n_op; k++) {
    const char *op = m->op[k].node->op_type ? m->op[k].node->op_type : "";
    int32_t j = 0;
    while (j < n && strcmp(out[j].op_type, op)) j++;
    if (j < n) {
      out[j].count++, out[j].evaluated = out[j].evaluated && !m->op[k].why;
      continue;
    }
    out[n++] = (rg_opaque_kind){op, 1, !m->op[k].why};
  }
  return n;
}

rg_status rg_model_count_roots(const rg_model *m, const rg_ref *roots, rg_model_counts *c, rg_err *err) {
  rg_model *v = rg_model_view(m, roots);
  if (!v) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_model_count(v, c);
  rg_model_view_free(v);
  return RG_OK;
}
