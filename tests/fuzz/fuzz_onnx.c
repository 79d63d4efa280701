/* tests/fuzz/fuzz_onnx.c: ONNX models (optimizer/onnx/import.h): any bytes are imported or refused,
 * never crash; what imports exports to a model that imports again with the same outputs, and
 * a small one evaluates (eval.h) without crashing. */
#include "fuzz.h"
#include "onnx.pb-c.h"
#include "optimizer/eval/eval.h"
#include "optimizer/onnx/onnx.h"

/* Whether evaluating m is cheap: every node's output size times its operands' sizes, summed. */
static bool cheap(const rg_model *m) {
  double cost = 0;
  for (int32_t id = 0; id < rg_graph_size(m->g); id++) {
    const rg_node *nd = rg_graph_node(m->g, id);
    double in = 1;
    for (int k = 0; k < nd->n_in; k++) in += (double)rg_shape_numel(rg_model_shape(m, nd->in[k]));
    cost += (double)rg_shape_numel(&m->shape[id][0]) * in;
  }
  for (int32_t k = 0; k < m->n_op; k++)
    for (int j = 0; j < m->op[k].n_in; j++)
      if (m->op[k].in[j].node >= 0) cost += 64.0 * (double)rg_shape_numel(rg_model_shape(m, m->op[k].in[j]));
  return cost < 1e6;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rg_model *m, *again;
  rg_err err;
  if (rg_model_import_bytes("fuzz", data, size, NULL, &m, &err)) return 0;
  Onnx__ModelProto *mp = rg_model_to_onnx(m, &err);
  if (!mp) FUZZ_FAIL("an imported model does not export: %s", err.msg);
  size_t len = onnx__model_proto__get_packed_size(mp);
  uint8_t *buf = malloc(len + 1);
  onnx__model_proto__pack(mp, buf);
  onnx__model_proto__free_unpacked(mp, NULL);
  if (rg_model_import_bytes("exported", buf, len, NULL, &again, &err))
    FUZZ_FAIL("an exported model does not import: %s", err.msg);
  if (again->n_out != m->n_out) FUZZ_FAIL("the exported model has other outputs");
  for (int32_t i = 0; i < m->n_out; i++)
    if (!rg_shape_dims_eq(rg_model_shape(m, m->out[i]), rg_model_shape(again, again->out[i])))
      FUZZ_FAIL("output %d changed shape on the way out", i);
  if (cheap(m)) {
    double **in = rg_model_random_inputs(m, 1, 8);
    double **out = calloc((size_t)m->n_out + 1, sizeof *out);
    if (in && out && rg_model_eval(m, (const double *const *)in, out, &err) == RG_OK)
      for (int32_t i = 0; i < m->n_out; i++) free(out[i]);
    free(out);
    rg_model_inputs_free(m, in);
  }
  free(buf);
  rg_model_free(again);
  rg_model_free(m);
  return 0;
}
