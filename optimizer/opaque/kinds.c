/* optimizer/opaque/kinds.c: what a model's opaque nodes are, by operator (model.h's
 * rg_model_opaque_kinds), for graphopt info. */
#include <string.h>

#include "optimizer/model/model.h"
#include "onnx.pb-c.h"
#include "opaque.h"

int32_t rg_model_opaque_kinds(const rg_model *m, rg_opaque_kind *out) {
  int32_t n = 0;
  for (int32_t k = 0; k < m->n_op; k++) {
    const Onnx__NodeProto *nd = m->op[k].node;
    int32_t j = 0;
    while (j < n && strcmp(out[j].op_type, nd->op_type)) j++;
    if (j < n) {
      out[j].count++;
      continue;
    }
    out[n++] = (rg_opaque_kind){nd->op_type, 1,
                                rg_opaque_known(nd->op_type) &&
                                    (!nd->domain || !nd->domain[0] || !strcmp(nd->domain, "ai.onnx"))};
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
