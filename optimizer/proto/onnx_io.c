/* optimizer/proto/onnx_io.c: ONNX's protobuf messages (onnx_io.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "onnx_io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Onnx__ModelProto *rg_onnx_parse(const char *name, const uint8_t *data, size_t len, rg_err *err) {
  if (!len) {
    rg_err_set(err, RG_ERR_PARSE, "%s: empty file, not an ONNX model", name);
    return NULL;
  }
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, data);
  if (!m) {
    rg_err_set(err, RG_ERR_PARSE, "%s: not an ONNX model (it does not parse as a ModelProto: truncated, or another file)",
               name);
    return NULL;
  }
  if (!m->graph) {
    onnx__model_proto__free_unpacked(m, NULL);
    rg_err_set(err, RG_ERR_PARSE, "%s: not an ONNX model (it parses, but holds no graph)", name);
    return NULL;
  }
  return m;
}

Onnx__ModelProto *rg_onnx_read(const char *path, rg_err *err) {
  /* mapped rather than read: protobuf copies what it keeps anyway, and models are large */
  int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p != MAP_FAILED) {
      Onnx__ModelProto *m = rg_onnx_parse(path, p, (size_t)st.st_size, err);
      munmap(p, (size_t)st.st_size);
      return m;
    }
  } else if (fd >= 0) close(fd);
  rg_strbuf sb; /* not a regular file, or empty: read it (the error names the path) */
  if (rg_file_read(path, &rg_onnx_model_file, &sb, err)) {
    rg_sb_free(&sb);
    return NULL;
  }
  Onnx__ModelProto *m = rg_onnx_parse(path, (const uint8_t *)sb.s, sb.len, err);
  rg_sb_free(&sb);
  return m;
}

/* Little-endian bytes into host values (every machine this builds on is little-endian). */
static void from_le(void *dst, const uint8_t *src, size_t bytes) { memcpy(dst, src, bytes); }

/* rg_onnx_tensor, taking t's raw data instead of copying it when take is set (t is then
 * changed: its data is the caller's). */
static rg_status tensor_data(Onnx__TensorProto *t, bool take, rg_elem *elem, rg_shape *shape, void **data,
                             rg_err *err) {
  const char *name = t->name ? t->name : "(unnamed)";
  *data = NULL;
  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' keeps its data in an external file not read yet "
                      "(rg_onnx_load_external reads it: import the model from its file)", name);
  if (t->data_type != RG_ELEM_FLOAT && t->data_type != RG_ELEM_INT64)
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' has element type %s (%d): only float and int64 are supported",
                      name, rg_onnx_elem_name(t->data_type), t->data_type);
  if (t->n_dims > RG_MAX_RANK)
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' has rank %zu: at most %d is supported", name, t->n_dims, RG_MAX_RANK);
  int32_t dims[RG_MAX_RANK];
  for (size_t d = 0; d < t->n_dims; d++) {
    if (t->dims[d] == 0)
      return rg_err_set(err, RG_ERR_ARG, "tensor '%s' has size 0 on axis %zu: an empty tensor, which graphopt does not "
                        "handle yet", name, d);
    if (t->dims[d] < 1 || t->dims[d] > RG_MAX_DIM)
      return rg_err_set(err, RG_ERR_ARG, "tensor '%s' has size %lld on axis %zu: sizes 1 to %d are supported", name,
                        (long long)t->dims[d], d, RG_MAX_DIM);
    dims[d] = (int32_t)t->dims[d];
  }
  *shape = rg_shape_make((int)t->n_dims, dims);
  int64_t n = rg_shape_numel(shape);
  if (n > RG_MAX_NUMEL) return rg_err_set(err, RG_ERR_LIMIT, "tensor '%s' has more than 2^40 elements", name);
  *elem = (rg_elem)t->data_type;
  size_t esz = *elem == RG_ELEM_FLOAT ? 4 : 8;
  size_t have = t->has_raw_data ? t->raw_data.len / esz : *elem == RG_ELEM_FLOAT ? t->n_float_data : t->n_int64_data;
  if (have != (size_t)n || (t->has_raw_data && t->raw_data.len != (size_t)n * esz))
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' holds %zu values for a shape of %lld elements", name, have,
                      (long long)n);
  if (take && t->has_raw_data) { /* protobuf-c's own malloc'd copy: little-endian, as every host here */
    *data = t->raw_data.data;
    t->raw_data.data = NULL, t->raw_data.len = 0, t->has_raw_data = 0;
    return RG_OK;
  }
  void *d = malloc((size_t)n * esz + 1);
  if (!d) return rg_err_set(err, RG_ERR_NOMEM, "out of memory for tensor '%s'", name);
  if (t->has_raw_data) from_le(d, t->raw_data.data, (size_t)n * esz);
  else memcpy(d, *elem == RG_ELEM_FLOAT ? (const void *)t->float_data : (const void *)t->int64_data, (size_t)n * esz);
  *data = d;
  return RG_OK;
}

rg_status rg_onnx_tensor(const Onnx__TensorProto *t, rg_elem *elem, rg_shape *shape, void **data, rg_err *err) {
  return tensor_data((Onnx__TensorProto *)t, false, elem, shape, data, err); /* t is not changed */
}

rg_status rg_onnx_tensor_take(Onnx__TensorProto *t, rg_elem *elem, rg_shape *shape, void **data, rg_err *err) {
  return tensor_data(t, true, elem, shape, data, err);
}

bool rg_onnx_tensor_typed(const Onnx__TensorProto *t, char *why, size_t len) {
  int64_t n = 1;
  if (t->data_type != RG_ELEM_FLOAT && t->data_type != RG_ELEM_INT64)
    return snprintf(why, len, "element type %s", rg_onnx_elem_name(t->data_type)), false;
  if (t->n_dims > RG_MAX_RANK)
    return snprintf(why, len, "rank %zu (graphopt models ranks up to %d)", t->n_dims, RG_MAX_RANK), false;
  for (size_t d = 0; d < t->n_dims; d++) {
    if (t->dims[d] == 0) return snprintf(why, len, "size 0 on axis %zu (an empty tensor)", d), false;
    if (t->dims[d] < 0 || t->dims[d] > RG_MAX_DIM)
      return snprintf(why, len, "size %lld on axis %zu (graphopt models sizes 1 to %d)", (long long)t->dims[d], d,
                      RG_MAX_DIM), false;
    if (n > RG_MAX_NUMEL / t->dims[d]) return snprintf(why, len, "more than 2^40 elements"), false; /* before n overflows */
    n *= t->dims[d];
  }
  return true;
}

/* The count of t's typed values (not raw bytes) in the field its element type uses, and how many
 * of them an element takes (complex: 2), or -1 for a type without one. */
static int64_t typed_values(const Onnx__TensorProto *t, int *per) {
  *per = 1;
  switch (t->data_type) {
  case 1: return (int64_t)t->n_float_data;                                  /* float */
  case 14: return *per = 2, (int64_t)t->n_float_data;                       /* complex64 */
  case 7: return (int64_t)t->n_int64_data;                                  /* int64 */
  case 8: return (int64_t)t->n_string_data;                                 /* string */
  case 11: return (int64_t)t->n_double_data;                                /* double */
  case 15: return *per = 2, (int64_t)t->n_double_data;                      /* complex128 */
  case 12: case 13: return (int64_t)t->n_uint64_data;                       /* uint32, uint64 */
  case 2: case 3: case 4: case 5: case 6: case 9: case 10: case 16: case 17: case 18: case 19: case 20:
    return (int64_t)t->n_int32_data;                                        /* the narrow types */
  default: return -1;                                                       /* 4-bit and unknown */
  }
}

int64_t rg_onnx_tensor_numel(const Onnx__TensorProto *t, char *why, size_t len) {
  int64_t n = 1;
  for (size_t d = 0; d < t->n_dims; d++) {
    if (t->dims[d] < 0) return snprintf(why, len, "has size %lld on axis %zu", (long long)t->dims[d], d), -1;
    if (t->dims[d] && n > ((int64_t)1 << 62) / t->dims[d]) return snprintf(why, len, "has more than 2^62 elements"), -1;
    n *= t->dims[d];
  }
  return n;
}

bool rg_onnx_tensor_fills(const Onnx__TensorProto *t, char *why, size_t len) {
  int64_t n = rg_onnx_tensor_numel(t, why, len), bits = rg_onnx_elem_bits(t->data_type);
  if (n < 0) return false;
  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) return true;
  if (t->has_raw_data && bits) {
    if (n > ((int64_t)1 << 62) / bits || (int64_t)t->raw_data.len != (n * bits + 7) / 8)
      return snprintf(why, len, "holds %zu bytes for a shape of %lld elements of %s", t->raw_data.len, (long long)n,
                      rg_onnx_elem_name(t->data_type)), false;
    return true;
  }
  int per;
  int64_t have = typed_values(t, &per);
  if (have < 0 || t->has_raw_data) return true; /* 4-bit values, unknown types: onnxruntime's to judge */
  if (have != n * per)
    return snprintf(why, len, "holds %lld values for a shape of %lld elements", (long long)have, (long long)(n * per)),
           false;
  return true;
}

const char *rg_onnx_elem_name(int32_t type) {
  static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64",
                                      "string", "bool", "float16", "double", "uint32", "uint64", "complex64",
                                      "complex128", "bfloat16"};
  return type >= 0 && type < (int32_t)(sizeof names / sizeof *names) ? names[type] : "unknown";
}

/* A TensorProto of elem and shape without its data yet (raw_data.len set). */
static Onnx__TensorProto *new_tensor(const char *name, rg_elem elem, const rg_shape *shape) {
  Onnx__TensorProto *t = malloc(sizeof *t);
  if (!t) return NULL;
  onnx__tensor_proto__init(t);
  t->name = strdup(name);
  t->dims = malloc(sizeof *t->dims * (size_t)(shape->rank + 1));
  if (!t->name || !t->dims) {
    onnx__tensor_proto__free_unpacked(t, NULL);
    return NULL;
  }
  t->n_dims = shape->rank;
  for (int d = 0; d < shape->rank; d++) t->dims[d] = shape->dim[d];
  t->has_data_type = 1, t->data_type = elem;
  t->has_raw_data = 1, t->raw_data.len = (size_t)rg_shape_numel(shape) * (elem == RG_ELEM_FLOAT ? 4 : 8);
  return t;
}

Onnx__TensorProto *rg_onnx_make_tensor(const char *name, rg_elem elem, const rg_shape *shape, const void *data) {
  Onnx__TensorProto *t = new_tensor(name, elem, shape);
  if (t && !(t->raw_data.data = malloc(t->raw_data.len + 1))) {
    onnx__tensor_proto__free_unpacked(t, NULL);
    return NULL;
  }
  if (t) memcpy(t->raw_data.data, data, t->raw_data.len);
  return t;
}

void rg_onnx_tensor_drop_data(Onnx__TensorProto *t) {
  free(t->raw_data.data), free(t->float_data), free(t->int64_data);
  t->raw_data.data = NULL, t->raw_data.len = 0, t->has_raw_data = 0;
  t->float_data = NULL, t->n_float_data = 0, t->int64_data = NULL, t->n_int64_data = 0;
}

Onnx__TensorProto *rg_onnx_tensor_view(const char *name, rg_elem elem, const rg_shape *shape, const void *data) {
  Onnx__TensorProto *t = new_tensor(name, elem, shape);
  if (t) t->raw_data.data = (uint8_t *)data; /* borrowed: rg_onnx_tensor_unview before freeing t */
  return t;
}

void rg_onnx_tensor_unview(Onnx__TensorProto *t) { t->raw_data.data = NULL, t->raw_data.len = 0, t->has_raw_data = 0; }

void *rg_onnx_copy(const ProtobufCMessage *msg) {
  size_t len = protobuf_c_message_get_packed_size(msg);
  uint8_t *buf = malloc(len + 1);
  if (!buf) return NULL;
  protobuf_c_message_pack(msg, buf);
  ProtobufCMessage *c = protobuf_c_message_unpack(msg->descriptor, NULL, len, buf);
  free(buf);
  return c;
}

void *rg_onnx_lend(const ProtobufCMessage *msg) {
  void *c = malloc(msg->descriptor->sizeof_message);
  if (c) memcpy(c, msg, msg->descriptor->sizeof_message);
  return c;
}

void rg_onnx_unlend(ProtobufCMessage *lent) { protobuf_c_message_init(lent->descriptor, lent); }

const Onnx__AttributeProto *rg_onnx_attr(const Onnx__NodeProto *n, const char *name) {
  for (size_t i = 0; i < n->n_attribute; i++)
    if (n->attribute[i]->name && !strcmp(n->attribute[i]->name, name)) return n->attribute[i];
  return NULL;
}

int64_t rg_onnx_attr_int(const Onnx__NodeProto *n, const char *name, int64_t def) {
  const Onnx__AttributeProto *a = rg_onnx_attr(n, name);
  return a && a->has_i ? a->i : def;
}

float rg_onnx_attr_float(const Onnx__NodeProto *n, const char *name, float def) {
  const Onnx__AttributeProto *a = rg_onnx_attr(n, name);
  return a && a->has_f ? a->f : def;
}

int rg_onnx_attr_ints(const Onnx__NodeProto *n, const char *name, const int64_t **v) {
  const Onnx__AttributeProto *a = rg_onnx_attr(n, name);
  if (!a) return -1;
  *v = a->ints;
  return (int)a->n_ints;
}

const char *rg_onnx_attr_str(const Onnx__NodeProto *n, const char *name, char *buf, size_t len, const char *def) {
  const Onnx__AttributeProto *a = rg_onnx_attr(n, name);
  if (!a || !a->has_s) return def;
  snprintf(buf, len, "%.*s", (int)a->s.len, (const char *)a->s.data);
  return buf;
}

void rg_onnx_node_label(const Onnx__NodeProto *n, int k, char *buf, size_t len) {
  const char *op = n->op_type ? n->op_type : "?";
  if (n->name && n->name[0]) snprintf(buf, len, "node '%s' (%s)", n->name, op);
  else if (k >= 0) snprintf(buf, len, "node %d (%s)", k, op);
  else snprintf(buf, len, "the %s node making '%s'", op, n->n_output ? n->output[0] : "");
}
