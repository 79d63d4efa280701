/* optimizer/proto/proto.h: the room of ONNX's protobuf messages (onnx.proto's C, made by protoc-c
 * at build time), below everything of the optimizer that reads or writes an ONNX file:
 *
 * onnx_io.h/.c  model files parsed and written, tensors' data (typed views, copies), nodes'
 *               attributes, element type names, node labels for messages
 * onnx_external.c  tensors whose data is in side files (ONNX's external data), read in as the
 *               model is loaded, with the side file checked as hostile input
 * onnx_file.c   ONNX files as ir/readfile.h reads them: their bounds, and the first-bytes check
 *               that refuses a stream that is no protobuf message
 * names.h/.c    a table from names to integers (an ONNX graph's tensors by name)
 */
#ifndef RG_OPTIMIZER_PROTO_H
#define RG_OPTIMIZER_PROTO_H

#include "names.h"
#include "onnx_io.h"

#endif
