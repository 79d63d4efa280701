/* optimizer/onnx/onnx.h: the room of ONNX models in and out of model graphs (model/):
 *
 * import.h      ONNX models into model graphs: import.c (names, node order, outputs, opaque
 *               nodes, folded constants), import_values.c (initializers, inputs, declared types:
 *               typed or opaque values), import_scope.c (what subgraphs read from the graph),
 *               import_ops.c (operators onto the rule vocabulary), import_form.c (those nodes as
 *               read, for export), import_dims.c (symbolic input dimensions: --dim, the values
 *               imported at, plumbing kept as read), import_runtime.c (the nodes onnxruntime's
 *               CPU provider does not run: refused)
 * export.h      model graphs back into ONNX models: export.c (what is written, in which order,
 *               names, folded constants, opaque nodes), export_model.c (the model message: what
 *               it carries over from the model read), export_nodes.c (one vocabulary node as
 *               ONNX nodes, and the fusions made on the way out), export_external.c (the
 *               file, and its large tensors in a side file: ONNX's external data),
 *               export_form.c (the nodes no rewrite changed, written as read; where dims are
 *               symbolic, a rebuilt reshape or slice in the form read), export_order.c (the
 *               nodes in the order read)
 * import_internal.h, export_internal.h: the importer's and exporter's state, private here.
 *
 * Below it: proto/ (the messages), opaque/ (operators kept as they are), eval/ (export folds
 * weight-only values by evaluating them).
 */
#ifndef RG_OPTIMIZER_ONNX_H
#define RG_OPTIMIZER_ONNX_H

#include "export.h"
#include "import.h"

#endif
