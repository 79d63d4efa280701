/* optimizer/onnx_io.c: ONNX's protobuf messages (onnx_io.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "onnx_io.h"

#include <errno.h>
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
  rg_strbuf sb;
  if (rg_text_read_file(path, &sb, err)) {
    rg_sb_free(&sb);
    return NULL;
  }
  Onnx__ModelProto *m = rg_onnx_parse(path, (const uint8_t *)sb.s, sb.len, err);
  rg_sb_free(&sb);
  return m;
}

/* Little-endian bytes into host values (every machine this builds on is little-endian). */
static void from_le(void *dst, const uint8_t *src, size_t bytes) { memcpy(dst, src, bytes); }

rg_status rg_onnx_tensor(const Onnx__TensorProto *t, rg_elem *elem, rg_shape *shape, void **data,
                         rg_err *err) {
  const char *name = t->name ? t->name : "(unnamed)";
  *data = NULL;
  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' keeps its data in an external file: not supported (save the model "
                      "with its data inside)", name);
  if (t->data_type != RG_ELEM_FLOAT && t->data_type != RG_ELEM_INT64)
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' has element type %s (%d): only float and int64 are supported",
                      name, rg_onnx_elem_name(t->data_type), t->data_type);
  if (t->n_dims > RG_MAX_RANK)
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' has rank %zu: at most %d is supported", name, t->n_dims, RG_MAX_RANK);
  int32_t dims[RG_MAX_RANK];
  for (size_t d = 0; d < t->n_dims; d++) {
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
  void *d = malloc((size_t)n * esz + 1);
  if (!d) return rg_err_set(err, RG_ERR_NOMEM, "out of memory for tensor '%s'", name);
  size_t have = t->has_raw_data ? t->raw_data.len / esz : *elem == RG_ELEM_FLOAT ? t->n_float_data : t->n_int64_data;
  if (have != (size_t)n || (t->has_raw_data && t->raw_data.len != (size_t)n * esz)) {
    free(d);
    return rg_err_set(err, RG_ERR_ARG, "tensor '%s' holds %zu values for a shape of %lld elements", name, have,
                      (long long)n);
  }
  if (t->has_raw_data) from_le(d, t->raw_data.data, (size_t)n * esz);
  else memcpy(d, *elem == RG_ELEM_FLOAT ? (const void *)t->float_data : (const void *)t->int64_data, (size_t)n * esz);
  *data = d;
  return RG_OK;
}

const char *rg_onnx_elem_name(int32_t type) {
  static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64",
                                      "string", "bool", "float16", "double", "uint32", "uint64", "complex64",
                                      "complex128", "bfloat16"};
  return type >= 0 && type < (int32_t)(sizeof names / sizeof *names) ? names[type] : "unknown";
}

Onnx__TensorProto *rg_onnx_make_tensor(const char *name, rg_elem elem, const rg_shape *shape, const void *data) {
  Onnx__TensorProto *t = malloc(sizeof *t);
  if (!t) return NULL;
  onnx__tensor_proto__init(t);
  size_t esz = elem == RG_ELEM_FLOAT ? 4 : 8, n = (size_t)rg_shape_numel(shape);
  t->name = strdup(name);
  t->dims = malloc(sizeof *t->dims * (size_t)(shape->rank + 1));
  t->raw_data.data = malloc(n * esz + 1);
  if (!t->name || !t->dims || !t->raw_data.data) {
    onnx__tensor_proto__free_unpacked(t, NULL);
    return NULL;
  }
  t->n_dims = shape->rank;
  for (int d = 0; d < shape->rank; d++) t->dims[d] = shape->dim[d];
  t->has_data_type = 1, t->data_type = elem;
  t->has_raw_data = 1, t->raw_data.len = n * esz;
  memcpy(t->raw_data.data, data, n * esz);
  return t;
}

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
  if (n->name && n->name[0]) snprintf(buf, len, "node '%s' (%s)", n->name, n->op_type ? n->op_type : "?");
  else snprintf(buf, len, "node %d (%s)", k, n->op_type ? n->op_type : "?");
}
