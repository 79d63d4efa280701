/* optimizer/proto/onnx_external.c: tensors whose data is in a side file (ONNX's external data:
 * data_location EXTERNAL, external_data "location", "offset", "length", "checksum"), read into
 * their raw data as the model is loaded (onnx_io.h).
 *
 * Each tensor's bytes are read with pread straight into the one buffer that keeps them (the
 * model then takes it), so the weights are in memory once; the side file is neither mapped nor
 * read whole. A side file is a hostile input like the model: its location must be a relative
 * path that stays in the model's folder (no absolute path, no "..", no symbolic link leading
 * out), the bytes a tensor names must lie in the file, and their count must be the tensor's
 * size. The checksum is not verified (onnx's own loader does not either).
 */
#define _XOPEN_SOURCE 700 /* pread, realpath, strdup */
#include "onnx_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  const char *model; /* the model's path, for messages */
  char *dir;         /* the model's folder, resolved (realpath) */
  int fd;            /* the side file open now (location open_loc), or -1 */
  char *open_loc;
  int64_t size;
  rg_onnx_side_files *files;
  rg_err *err;
} loader;

int64_t rg_onnx_elem_bits(int32_t type) {
  static const int8_t bits[] = {0, 32, 8, 8, 16, 16, 32, 64, 0, 8, 16, 64, 32, 64, 64, 128, 16, 8, 8, 8, 8, 4, 4, 4};
  return type > 0 && type < (int32_t)sizeof bits ? bits[type] : 0;
}

/* The bytes t's data takes (ceil for 4-bit types), or -1 with why set: a string or unknown
 * element type, a negative size, a size past 2^62. */
static int64_t tensor_bytes(const Onnx__TensorProto *t, char *why, size_t len) {
  int64_t bits = rg_onnx_elem_bits(t->data_type), n;
  if (!bits)
    return snprintf(why, len, "has element type %s (%d), which has no fixed size to keep outside", rg_onnx_elem_name(t->data_type),
                    t->data_type), -1;
  if ((n = rg_onnx_tensor_numel(t, why, len)) < 0) return -1;
  if (n > ((int64_t)1 << 62) / bits) return snprintf(why, len, "has more than 2^62 elements"), -1;
  return (n * bits + 7) / 8;
}

/* A decimal byte count ("offset", "length"), or -1. */
static int64_t byte_count(const char *s) {
  if (!s || !*s) return -1;
  int64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10) return -1;
    v = v * 10 + (*s - '0');
  }
  return v;
}

/* Whether location climbs out of its folder: a ".." component. */
static bool climbs(const char *loc) {
  for (const char *p = loc; *p;) {
    size_t n = strcspn(p, "/");
    if (n == 2 && p[0] == '.' && p[1] == '.') return true;
    p += n;
    p += *p == '/';
  }
  return false;
}

static rg_status add_file(rg_onnx_side_files *f, const char *real) {
  for (int32_t i = 0; i < f->n; i++)
    if (!strcmp(f->path[i], real)) return RG_OK;
  char **p = realloc(f->path, sizeof *p * (size_t)(f->n + 1));
  if (!p) return RG_ERR_NOMEM;
  f->path = p;
  return (p[f->n] = strdup(real)) ? (f->n++, RG_OK) : RG_ERR_NOMEM;
}

/* Opens the side file at location loc (relative to the model's folder) for tensor name. */
static rg_status open_side(loader *L, const char *name, const char *loc) {
  if (L->open_loc && !strcmp(L->open_loc, loc)) return RG_OK;
  if (L->fd >= 0) close(L->fd), L->fd = -1;
  free(L->open_loc), L->open_loc = NULL;
  const char *m = L->model;
  if (loc[0] == '/')
    return rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s' keeps its data at the absolute path '%s': graphopt reads "
                      "external data only from the model's folder (save the model with a relative location)", m, name, loc);
  if (climbs(loc))
    return rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s' keeps its data in '%s', which climbs out of the model's "
                      "folder (..): graphopt reads external data only from the model's folder", m, name, loc);
  if (!L->dir) {
    char *copy = strdup(m), *slash = copy ? strrchr(copy, '/') : NULL;
    if (slash) slash[slash == copy] = '\0';
    L->dir = copy ? realpath(slash ? copy : ".", NULL) : NULL;
    int e = errno;
    free(copy);
    if (!L->dir) return rg_err_set(L->err, RG_ERR_IO, "%s: cannot resolve the model's folder: %s", m, strerror(e));
  }
  size_t dl = strlen(L->dir);
  char *full = malloc(dl + strlen(loc) + 2);
  if (!full) return rg_err_set(L->err, RG_ERR_NOMEM, "out of memory");
  sprintf(full, "%s/%s", L->dir, loc);
  char *real = realpath(full, NULL);
  int e = errno;
  free(full);
  if (!real)
    return rg_err_set(L->err, RG_ERR_IO, "%s: tensor '%s' keeps its data in '%s', which cannot be opened (%s): put the "
                      "side file the model was saved with next to it", m, name, loc, strerror(e));
  bool inside = !strncmp(real, L->dir, dl) && (real[dl] == '/' || (dl == 1 && real[0] == '/'));
  rg_status st = RG_OK;
  struct stat sb;
  if (!inside)
    st = rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s' keeps its data in '%s', a link that leads out of the model's "
                    "folder (to %s): graphopt reads external data only from the model's folder (copy the file there)",
                    m, name, loc, real);
  else if ((L->fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 || fstat(L->fd, &sb) || !S_ISREG(sb.st_mode))
    st = rg_err_set(L->err, RG_ERR_IO, "%s: tensor '%s' keeps its data in '%s', which is %s", m, name, loc,
                    L->fd < 0 ? strerror(errno) : "not a regular file");
  else if (add_file(L->files, real) || !(L->open_loc = strdup(loc)))
    st = rg_err_set(L->err, RG_ERR_NOMEM, "out of memory");
  else L->size = (int64_t)sb.st_size;
  free(real);
  if (st && L->fd >= 0) close(L->fd), L->fd = -1;
  return st;
}

/* Reads [off, off + n) of the open side file into buf (short reads and EINTR retried). */
static rg_status read_side(loader *L, const char *name, uint8_t *buf, int64_t off, int64_t n) {
  for (int64_t got = 0; got < n;) {
    ssize_t r = pread(L->fd, buf + got, (size_t)(n - got), (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      return rg_err_set(L->err, RG_ERR_IO, "%s: tensor '%s': cannot read '%s' at byte %lld: %s", L->model, name,
                        L->open_loc, (long long)(off + got), r ? strerror(errno) : "the file ended (it shrank?)");
    got += r;
  }
  return RG_OK;
}

/* Tensor t's external data read into its raw data (t then keeps its data inside). */
static rg_status load_tensor(loader *L, Onnx__TensorProto *t) {
  if (!t || !t->has_data_location || t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) return RG_OK;
  const char *name = t->name && t->name[0] ? t->name : "(unnamed)", *m = L->model, *loc = NULL;
  int64_t off = 0, length = -1;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const char *k = t->external_data[i]->key ? t->external_data[i]->key : "", *v = t->external_data[i]->value;
    bool is_off = !strcmp(k, "offset");
    if (!strcmp(k, "location")) loc = v;
    else if ((is_off || !strcmp(k, "length")) && (*(is_off ? &off : &length) = byte_count(v)) < 0)
      return rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s': external data %s '%s' is not a byte count", m, name, k,
                        v ? v : "");
  }
  if (!loc || !loc[0])
    return rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s' keeps its data outside the model but names no file (its "
                      "external_data has no 'location')", m, name);
  char why[160];
  int64_t bytes = tensor_bytes(t, why, sizeof why);
  if (bytes < 0) return rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s' keeps its data in '%s' but %s", m, name, loc, why);
  if (length >= 0 && length != bytes)
    return rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s': external data length %lld, but its type and shape make %lld "
                      "bytes (save the model and its data again)", m, name, (long long)length, (long long)bytes);
  rg_status st = open_side(L, name, loc);
  if (st) return st;
  if (off > L->size || bytes > L->size - off)
    return rg_err_set(L->err, RG_ERR_ARG, "%s: tensor '%s' reads bytes %lld to %lld of '%s', which has %lld bytes "
                      "(truncated, or another model's file: save the model and its data again)", m, name,
                      (long long)off, (long long)(off + bytes), loc, (long long)L->size);
  if ((uint64_t)bytes > SIZE_MAX - 1) return rg_err_set(L->err, RG_ERR_LIMIT, "%s: tensor '%s' is too large", m, name);
  uint8_t *buf = malloc((size_t)bytes + 1);
  if (!buf) return rg_err_set(L->err, RG_ERR_NOMEM, "out of memory for tensor '%s' (%lld bytes)", name, (long long)bytes);
  if ((st = read_side(L, name, buf, off, bytes))) return free(buf), st;
  free(t->raw_data.data);
  t->raw_data.data = buf, t->raw_data.len = (size_t)bytes, t->has_raw_data = 1;
  for (size_t i = 0; i < t->n_external_data; i++) onnx__string_string_entry_proto__free_unpacked(t->external_data[i], NULL);
  free(t->external_data), t->external_data = NULL, t->n_external_data = 0;
  t->has_data_location = 0, t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
  return RG_OK;
}

static rg_status load_graph(loader *L, Onnx__GraphProto *g, int depth);

static rg_status load_sparse(loader *L, Onnx__SparseTensorProto *s) {
  rg_status st = s ? load_tensor(L, s->values) : RG_OK;
  return st || !s ? st : load_tensor(L, s->indices);
}

/* The tensors of a node's attributes, its subgraphs' too. */
static rg_status load_attrs(loader *L, Onnx__NodeProto *n, int depth) {
  rg_status st = RG_OK;
  for (size_t a = 0; !st && a < n->n_attribute; a++) {
    Onnx__AttributeProto *at = n->attribute[a];
    st = load_tensor(L, at->t);
    for (size_t i = 0; !st && i < at->n_tensors; i++) st = load_tensor(L, at->tensors[i]);
    if (!st) st = load_sparse(L, at->sparse_tensor);
    for (size_t i = 0; !st && i < at->n_sparse_tensors; i++) st = load_sparse(L, at->sparse_tensors[i]);
    if (!st && at->g) st = load_graph(L, at->g, depth + 1);
    for (size_t i = 0; !st && i < at->n_graphs; i++) st = load_graph(L, at->graphs[i], depth + 1);
  }
  return st;
}

static rg_status load_graph(loader *L, Onnx__GraphProto *g, int depth) {
  if (depth > 64) /* protobuf-c itself nests messages at most about that deep */
    return rg_err_set(L->err, RG_ERR_LIMIT, "%s: subgraphs nested more than 64 deep", L->model);
  rg_status st = RG_OK;
  for (size_t i = 0; !st && i < g->n_initializer; i++) st = load_tensor(L, g->initializer[i]);
  for (size_t i = 0; !st && i < g->n_sparse_initializer; i++) st = load_sparse(L, g->sparse_initializer[i]);
  for (size_t k = 0; !st && k < g->n_node; k++) st = load_attrs(L, g->node[k], depth);
  return st;
}

rg_status rg_onnx_load_external(Onnx__ModelProto *mp, const char *path, rg_onnx_side_files *files, rg_err *err) {
  loader L = {.model = path, .fd = -1, .files = files, .err = err};
  *files = (rg_onnx_side_files){0};
  rg_status st = load_graph(&L, mp->graph, 0);
  for (size_t f = 0; !st && f < mp->n_functions; f++)
    for (size_t k = 0; !st && k < mp->functions[f]->n_node; k++) st = load_attrs(&L, mp->functions[f]->node[k], 0);
  if (L.fd >= 0) close(L.fd);
  free(L.dir), free(L.open_loc);
  if (st) rg_onnx_side_files_free(files);
  return st;
}

void rg_onnx_side_files_free(rg_onnx_side_files *f) {
  for (int32_t i = 0; i < f->n; i++) free(f->path[i]);
  free(f->path);
  *f = (rg_onnx_side_files){0};
}
