/* optimizer/onnx/export.h: model graphs out as ONNX models.
 *
 * The written model has the original's inputs and outputs (names, order, types), and carries
 * over what graphopt does not model as it was read: the model's fields (IR version, opset
 * imports, producer, domain, version, doc strings, metadata, functions), opaque values'
 * declarations and initializers, the value_info of tensors still written under their names.
 * Nodes of the rule vocabulary become ONNX operators (a bias after a Conv or a 2-D MatMul
 * becomes its bias operand, zero padding before a Conv its pads); values computed from weights
 * alone are folded into initializers; opaque nodes are written as they were read (subgraphs
 * too), reading the values they read, under the names their subgraphs read them by; node names
 * given twice are made unique. Only what the outputs need is written (an initializer nothing
 * reads is dropped, and with it its listing as an input).
 */
#ifndef RG_OPTIMIZER_EXPORT_H
#define RG_OPTIMIZER_EXPORT_H

#include "optimizer/model/model.h"

struct Onnx__ModelProto;

/* The model as an ONNX message (free with onnx__model_proto__free_unpacked), or NULL with err. */
struct Onnx__ModelProto *rg_model_to_onnx(const rg_model *m, rg_err *err);

/* Writes the model to path, whole or not at all (ir/atomic.h). */
rg_status rg_model_export(const rg_model *m, const char *path, rg_err *err) RG_MUST_CHECK;

#endif
