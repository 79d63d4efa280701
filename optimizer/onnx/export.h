/* optimizer/onnx/export.h: model graphs out as ONNX models.
 *
 * The written model has the original's inputs and outputs (names, order, types), opset imports
 * and IR version. Nodes of the rule vocabulary become ONNX operators (a bias after a Conv or a
 * 2-D MatMul becomes its bias operand, zero padding before a Conv its pads); values
 * computed from weights alone are folded into initializers; opaque nodes are written as they
 * were read, reading the values they read. Only what the outputs need is written.
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
