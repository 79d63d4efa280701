/* optimizer/eval/tensor_io.c: single tensors in files (tensor_io.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "tensor_io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/atomic.h"
#include "optimizer/proto/proto.h"
#include "optimizer/opaque/opaque.h"

rg_status rg_tensor_file_read(const char *path, rg_elem *elem, rg_shape *shape, double **vals, char **name,
                              rg_err *err) {
  *vals = NULL, *name = NULL;
  rg_strbuf sb;
  if (rg_file_read(path, &rg_onnx_tensor_file, &sb, err)) {
    rg_sb_free(&sb);
    return err ? err->status : RG_ERR_IO;
  }
  Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, sb.len, (const uint8_t *)(sb.s ? sb.s : ""));
  rg_sb_free(&sb);
  if (!t) return rg_err_set(err, RG_ERR_PARSE, "%s: not a tensor (it does not parse as an ONNX TensorProto)", path);
  void *data = NULL;
  rg_err e = {0};
  rg_status st = rg_onnx_tensor(t, elem, shape, &data, &e);
  if (st) st = rg_err_set(err, st, "%s: %s", path, e.msg);
  int64_t n = st ? 0 : rg_shape_numel(shape);
  double *v = st ? NULL : malloc(sizeof *v * (size_t)(n + 1));
  char *nm = st ? NULL : strdup(t->name ? t->name : "");
  if (!st && (!v || !nm)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int64_t i = 0; !st && i < n; i++)
    v[i] = *elem == RG_ELEM_FLOAT ? ((const float *)data)[i] : (double)((const int64_t *)data)[i];
  free(data);
  onnx__tensor_proto__free_unpacked(t, NULL);
  if (st) {
    free(v), free(nm);
    return st;
  }
  *vals = v, *name = nm;
  return RG_OK;
}

rg_status rg_tensor_file_write(const char *path, const char *name, rg_elem elem, const rg_shape *shape,
                               const double *vals, rg_err *err) {
  int64_t n = rg_shape_numel(shape);
  void *data = malloc((size_t)(n + 1) * 8);
  for (int64_t i = 0; data && i < n; i++) {
    if (elem == RG_ELEM_FLOAT) ((float *)data)[i] = (float)vals[i];
    else ((int64_t *)data)[i] = rg_to_int(vals[i]);
  }
  Onnx__TensorProto *t = data ? rg_onnx_make_tensor(name, elem, shape, data) : NULL;
  free(data);
  if (!t) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  size_t len = onnx__tensor_proto__get_packed_size(t);
  uint8_t *buf = malloc(len + 1);
  if (buf) onnx__tensor_proto__pack(t, buf);
  onnx__tensor_proto__free_unpacked(t, NULL);
  if (!buf) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_atomic_file af;
  rg_status st = rg_atomic_open(&af, path, err);
  if (!st) {
    if (fwrite(buf, 1, len, af.f) != len) {
      rg_atomic_abort(&af);
      st = rg_err_set(err, RG_ERR_IO, "%s: cannot write", path);
    } else st = rg_atomic_commit(&af, err);
  }
  free(buf);
  return st;
}

double rg_values_rel_diff(const double *a, const double *b, int64_t n) {
  double scale = 0, diff = 0;
  for (int64_t i = 0; i < n; i++) {
    if (isnan(a[i]) != isnan(b[i])) return INFINITY;
    if (isnan(a[i])) continue;
    if (isinf(a[i]) || isinf(b[i])) {
      if (a[i] != b[i]) return INFINITY;
      continue;
    }
    scale = fmax(scale, fabs(b[i]));
    diff = fmax(diff, fabs(a[i] - b[i]));
  }
  return diff / (scale > 0 ? scale : 1);
}
