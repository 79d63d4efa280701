/* optimizer/proto/onnx_file.c: ONNX files as ir/readfile.h reads them: their bounds, and the check
 * that lets a stream that is no protobuf message (/dev/zero, random bytes) be refused from its
 * first bytes rather than after 2 GiB. The check walks the message's top-level fields (tag,
 * then a varint, 8 or 4 bytes, or a length and that many bytes) as far as the bytes read go. */
#include "onnx_io.h"

/* One varint at d[*at, len): 1 read (*at past it), 0 not all read yet, -1 longer than 10 bytes. */
static int varint(const uint8_t *d, size_t len, size_t *at, uint64_t *v) {
  *v = 0;
  for (size_t i = 0; i < 10; i++) {
    if (*at + i >= len) return 0;
    *v |= (uint64_t)(d[*at + i] & 0x7f) << (7 * i);
    if (!(d[*at + i] & 0x80)) return *at += i + 1, 1;
  }
  return -1;
}

/* The field at d[*at, len): 1 stepped over (*at past it, perhaps past len), 0 not all read yet,
 * -1 not a protobuf field (field number 0, a group or no wire type, a length past RG_ONNX_MAX). */
static int field(const uint8_t *d, size_t len, size_t *at) {
  size_t p = *at;
  uint64_t tag, n = 0;
  int r = varint(d, len, &p, &tag);
  if (r <= 0) return r;
  int wire = (int)(tag & 7);
  if (tag >> 3 == 0 || (wire != 0 && wire != 1 && wire != 2 && wire != 5)) return -1;
  if (wire == 0 || wire == 2) r = varint(d, len, &p, &n);
  if (r <= 0) return r;
  if (wire == 2 && n > RG_ONNX_MAX - p) return -1;
  *at = p + (wire == 1 ? 8 : wire == 5 ? 4 : wire == 2 ? n : 0);
  return 1;
}

static rg_status check(const char *what, const char *path, const char *data, size_t len, size_t *done, rg_err *err) {
  int r = 1;
  while (*done < len && (r = field((const uint8_t *)data, len, done)) > 0) {}
  if (r >= 0) return RG_OK;
  return rg_err_set(err, RG_ERR_PARSE, "%s: not %s (byte %zu does not start a protobuf field)", path, what, *done);
}

static rg_status check_model(const char *path, const char *data, size_t len, size_t *done, rg_err *err) {
  return check("an ONNX model", path, data, len, done, err);
}

static rg_status check_tensor(const char *path, const char *data, size_t len, size_t *done, rg_err *err) {
  return check("an ONNX tensor", path, data, len, done, err);
}

/* A model that is a regular file is mapped (rg_onnx_read), whatever its size. */
const rg_file_kind rg_onnx_model_file = {"an ONNX model", SIZE_MAX, RG_ONNX_MAX, check_model};
const rg_file_kind rg_onnx_tensor_file = {"an ONNX tensor", RG_ONNX_MAX, RG_ONNX_MAX, check_tensor};
