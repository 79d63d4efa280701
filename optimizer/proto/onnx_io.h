/* optimizer/proto/onnx_io.h: ONNX's protobuf messages as the importer and exporter read them (internal
 * to optimizer/): the model file, tensors' data, nodes' attributes. protobuf-c's types over the
 * onnx.proto that libonnx-dev ships (C made from it at build time). */
#ifndef RG_OPTIMIZER_ONNX_IO_H
#define RG_OPTIMIZER_ONNX_IO_H

#include "ir/readfile.h"
#include "optimizer/model/model.h"
#include "onnx.pb-c.h"

/* Protobuf's limit on a message, so ONNX's on a model or tensor file: 2 GiB. */
#define RG_ONNX_MAX ((size_t)2 << 30)
/* Model and tensor files for rg_file_read: a stream is read up to RG_ONNX_MAX bytes and
 * refused at its first bytes that are no protobuf field; a tensor file holds at most that. */
extern const rg_file_kind rg_onnx_model_file, rg_onnx_tensor_file;

/* The model in the file at path, or NULL with RG_ERR_IO (cannot read it, a folder),
 * RG_ERR_LIMIT (a stream past RG_ONNX_MAX) or RG_ERR_PARSE (not an ONNX model: protobuf does
 * not parse it, or it has no graph). */
Onnx__ModelProto *rg_onnx_read(const char *path, rg_err *err);
/* The same for a model already in memory (name: for messages). */
Onnx__ModelProto *rg_onnx_parse(const char *name, const uint8_t *data, size_t len, rg_err *err);

/* The side files a model's external data was read from (real paths, malloc'ed). */
typedef struct {
  char **path;
  int32_t n;
} rg_onnx_side_files;
/* Reads every tensor of mp that keeps its data in a side file (ONNX's external data: the
 * graph's and subgraphs' initializers, sparse initializers, node attributes, functions' nodes)
 * into its raw data, as if the model held it inside; path is the model file's, whose folder
 * the locations are relative to. *files lists the side files read. Errors name the model, the
 * tensor and the side file: a location that is absolute, climbs out of the model's folder or
 * links out of it (RG_ERR_ARG), a side file missing or unreadable (RG_ERR_IO), an offset or
 * length past the file's end, a length other than the tensor's size, a string tensor
 * (RG_ERR_ARG). The weights are in memory once: each is read into the buffer that keeps it. */
rg_status rg_onnx_load_external(Onnx__ModelProto *mp, const char *path, rg_onnx_side_files *files,
                                rg_err *err) RG_MUST_CHECK;
void rg_onnx_side_files_free(rg_onnx_side_files *f);
/* The bits an element of ONNX element type number type takes (4 for int4), 0 for string and
 * unknown types. */
int64_t rg_onnx_elem_bits(int32_t type);

/* A tensor's element type, shape and data (a new malloc'd array of its element count; float or
 * int64_t). Errors (RG_ERR_ARG) name the tensor: another element type than float and int64,
 * external data not read in yet, a rank past RG_MAX_RANK, a size of 0, data that does not fill the shape. */
rg_status rg_onnx_tensor(const Onnx__TensorProto *t, rg_elem *elem, rg_shape *shape, void **data,
                         rg_err *err) RG_MUST_CHECK;
/* Whether rg_onnx_tensor reads t as a typed value (model.h: float or int64 of a shape rg_shape
 * holds); when not, why into why (len bytes: "element type int32", "size 0 on axis 1"). Data
 * inside t that does not fill its shape is not looked at: rg_onnx_tensor says so. */
bool rg_onnx_tensor_typed(const Onnx__TensorProto *t, char *why, size_t len);
/* Whether t's data, inside it, fills its shape exactly, whatever its element type (a tensor
 * kept as read is checked as onnxruntime would: a negative size, a shape past 2^62 elements,
 * raw bytes or typed values of another count are not); when not, why into why (len bytes:
 * "holds 12 values for a shape of 3298534883328 elements"). A string tensor's values are
 * counted, 4-bit types' packed bytes too. */
bool rg_onnx_tensor_fills(const Onnx__TensorProto *t, char *why, size_t len);
/* The elements t's shape holds, or -1 with why set: a negative size, more than 2^62. */
int64_t rg_onnx_tensor_numel(const Onnx__TensorProto *t, char *why, size_t len);
/* The name of an ONNX element type number ("double" for 11), or "unknown". */
const char *rg_onnx_elem_name(int32_t type);
/* The same, taking t's data rather than copying it where it can (t keeps its name and shape). */
rg_status rg_onnx_tensor_take(Onnx__TensorProto *t, rg_elem *elem, rg_shape *shape, void **data,
                              rg_err *err) RG_MUST_CHECK;
/* A TensorProto of elem, shape and data (copied), named name; NULL when out of memory. Free
 * with onnx__tensor_proto__free_unpacked. */
Onnx__TensorProto *rg_onnx_make_tensor(const char *name, rg_elem elem, const rg_shape *shape, const void *data);

/* Frees a tensor's data (what import copied out of it), keeping its name and shape. */
void rg_onnx_tensor_drop_data(Onnx__TensorProto *t);
/* A TensorProto over data it does not own (writing without a copy): call rg_onnx_tensor_unview
 * before freeing it. */
Onnx__TensorProto *rg_onnx_tensor_view(const char *name, rg_elem elem, const rg_shape *shape, const void *data);
void rg_onnx_tensor_unview(Onnx__TensorProto *t);

/* A deep copy of a message (protobuf's own pack and unpack; free it as its kind is freed), or
 * NULL when out of memory. */
void *rg_onnx_copy(const ProtobufCMessage *msg);
/* A message that shares every field of msg (writing without a copy): give it back with
 * rg_onnx_unlend, which empties it, before freeing it as its kind is freed. NULL when out of
 * memory. */
void *rg_onnx_lend(const ProtobufCMessage *msg);
void rg_onnx_unlend(ProtobufCMessage *lent);

/* Node attributes by name: the attribute, or NULL. */
const Onnx__AttributeProto *rg_onnx_attr(const Onnx__NodeProto *n, const char *name);
int64_t rg_onnx_attr_int(const Onnx__NodeProto *n, const char *name, int64_t def);
float rg_onnx_attr_float(const Onnx__NodeProto *n, const char *name, float def);
/* The ints of an attribute into *v (borrowed); their count, or -1 when it is absent. */
int rg_onnx_attr_ints(const Onnx__NodeProto *n, const char *name, const int64_t **v);
/* A string attribute (NUL-terminated into buf), or def when absent. */
const char *rg_onnx_attr_str(const Onnx__NodeProto *n, const char *name, char *buf, size_t len, const char *def);

/* "node 'NAME' (OP_TYPE)", else "node K (OP_TYPE)" for messages; with k < 0 (the caller does
 * not know the node's place in the graph), "the OP_TYPE node making 'OUTPUT'". */
void rg_onnx_node_label(const Onnx__NodeProto *n, int k, char *buf, size_t len);

#endif
