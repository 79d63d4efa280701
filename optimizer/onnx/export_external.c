/* optimizer/onnx/export_external.c: the model message into its file, with its large tensors in a
 * side file where export.h's options say so (ONNX's external data).
 *
 * The message is not changed: each tensor that goes outside is swapped, for the packing only,
 * for a copy of its fields that names the side file instead of holding the data, so the
 * weights the message borrows from the model are never copied. The side file is written
 * first, whole or not at all, then the model that names it; protobuf-c packs straight into
 * each file, so no buffer of the model's size is ever made.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "export_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/atomic.h"

/* Protobuf's limit on a message: what readers (onnxruntime, onnx) parse. */
#define PROTO_LIMIT ((size_t)INT32_MAX)

/* ---- packing into a file ---- */

typedef struct {
  ProtobufCBuffer base;
  FILE *f;
  bool failed;
  int why; /* errno of the first failed write (ENOSPC: the disk is full) */
} file_buffer;

static void file_append(ProtobufCBuffer *b, size_t len, const uint8_t *data) {
  file_buffer *fb = (file_buffer *)b;
  if (!len) return; /* an empty bytes field (a size-0 tensor's raw data) may come with no pointer */
  if (!fb->failed && fwrite(data, 1, len, fb->f) != len) fb->failed = true, fb->why = errno;
}

static rg_status write_error(const char *path, const char *what, int why, rg_err *err) {
  return rg_err_set(err, RG_ERR_IO, "%s: cannot write the %s: %s (nothing written)", path, what,
                    why ? strerror(why) : "write error");
}

/* mp packed into a started file af (not committed); on failure af is aborted. */
static rg_status pack_into(rg_atomic_file *af, const Onnx__ModelProto *mp, const char *path, rg_err *err) {
  file_buffer fb = {{file_append}, af->f, false, 0};
  onnx__model_proto__pack_to_buffer(mp, &fb.base);
  if (!fb.failed) return RG_OK;
  rg_atomic_abort(af); /* the target is left as it was */
  return write_error(path, "model", fb.why, err);
}

/* mp into path, whole. */
static rg_status write_inside(const Onnx__ModelProto *mp, const char *path, rg_err *err) {
  rg_atomic_file af;
  rg_status st = rg_atomic_open(&af, path, err);
  if (!st) st = pack_into(&af, mp, path, err);
  return st ? st : rg_atomic_commit(&af, err);
}

/* ---- the side file ---- */

/* A tensor written outside: where it sits in the message, and what stands in for it there. */
typedef struct {
  Onnx__TensorProto **slot;
  Onnx__TensorProto *orig, sub;
  Onnx__StringStringEntryProto entry[3], *entries[3];
  char off[24], len[24];
} swap;

static bool goes_out(const Onnx__TensorProto *t, size_t threshold) {
  return t && t->has_raw_data && t->raw_data.len >= threshold &&
         !(t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL);
}

/* The tensors of g that go outside, into s (NULL: only counted); their count. */
static size_t collect(Onnx__GraphProto *g, size_t threshold, swap *s) {
  size_t n = 0;
  for (size_t i = 0; i < g->n_initializer; i++)
    if (goes_out(g->initializer[i], threshold)) {
      if (s) s[n].slot = &g->initializer[i];
      n++;
    }
  for (size_t k = 0; k < g->n_node; k++)
    for (size_t a = 0; a < g->node[k]->n_attribute; a++)
      if (goes_out(g->node[k]->attribute[a]->t, threshold)) {
        if (s) s[n].slot = &g->node[k]->attribute[a]->t;
        n++;
      }
  return n;
}

/* Writes each tensor's data to f at aligned offsets and fills in what stands in for it. */
static bool write_side(FILE *f, swap *s, size_t n, const char *location, int *why) {
  static const uint8_t zeros[4096];
  uint64_t at = 0;
  for (size_t i = 0; i < n; i++) {
    swap *w = &s[i];
    const Onnx__TensorProto *t = w->orig = *w->slot;
    uint64_t align = t->raw_data.len >= 4096 ? 4096 : 64, pad = (align - at % align) % align;
    if ((pad && fwrite(zeros, 1, pad, f) != pad) || fwrite(t->raw_data.data, 1, t->raw_data.len, f) != t->raw_data.len)
      return *why = errno, false;
    at += pad;
    snprintf(w->off, sizeof w->off, "%llu", (unsigned long long)at);
    snprintf(w->len, sizeof w->len, "%zu", t->raw_data.len);
    at += t->raw_data.len;
    const char *key[3] = {"location", "offset", "length"}, *val[3] = {location, w->off, w->len};
    for (int e = 0; e < 3; e++) {
      onnx__string_string_entry_proto__init(&w->entry[e]);
      w->entry[e].key = (char *)key[e], w->entry[e].value = (char *)val[e]; /* packed only, never freed */
      w->entries[e] = &w->entry[e];
    }
    w->sub = *t; /* its name, type and dims; its data outside */
    w->sub.has_raw_data = 0, w->sub.raw_data = (ProtobufCBinaryData){0, NULL};
    w->sub.n_external_data = 3, w->sub.external_data = w->entries;
    w->sub.has_data_location = 1, w->sub.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  }
  return true;
}

/* The side file's name beside path (*location: loc, or path's name + ".data") and its path
 * (*side), both malloc'ed: beside path as given, as readers (onnx, onnxruntime, graphopt) look
 * for it. */
static rg_status side_name(const char *path, const char *loc, char **side, char **location, rg_err *err) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
  *location = loc ? strdup(loc) : rg_path_with_suffix(base, ".data");
  *side = *location ? malloc(dir + strlen(*location) + 1) : NULL;
  if (*side) memcpy(*side, path, dir), strcpy(*side + dir, *location);
  if (!*side) return free(*location), *location = NULL, rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return RG_OK;
}

/* The side file for output path: its path (*side) and the name the model gives it (*location),
 * both malloc'ed; or the reason it cannot be written. */
static rg_status side_path(const rg_model *m, const char *path, const rg_export_opts *o, char **side, char **location,
                           rg_err *err) {
  const char *loc = o->location;
  *side = *location = NULL;
  if (loc && (!*loc || strchr(loc, '/') || !strcmp(loc, ".") || !strcmp(loc, "..")))
    return rg_err_set(err, RG_ERR_ARG, "external data file '%s': give a file name without a folder (the side file goes "
                      "next to the model, which names it relative to its own folder)", loc);
  char *real;
  bool direct;
  rg_status st = rg_path_output_target(path, &real, &direct, err);
  if (st) return st;
  free(real);
  if (direct)
    return rg_err_set(err, RG_ERR_ARG, "%s: a device or FIFO, with no folder for the side file the weights would go "
                      "to: write the model to a file", path);
  if ((st = side_name(path, loc, side, location, err))) return st;
  struct stat sb;
  if (!lstat(*side, &sb) && S_ISLNK(sb.st_mode))
    st = rg_err_set(err, RG_ERR_IO, "%s: a symbolic link, which graphopt does not write a model's weights through "
                    "(remove it, or name another side file with --external-data=NAME)", *side);
  else if (rg_path_same_file(*side, path))
    st = rg_err_set(err, RG_ERR_ARG, "%s: the side file would be the model itself: name another with "
                    "--external-data=NAME", *side);
  for (int32_t i = 0; !st && m && !o->force && i < m->n_side_files; i++)
    if (rg_path_same_file(*side, m->side_files[i]))
      st = rg_err_set(err, RG_ERR_ARG, "%s: the input model keeps its weights there; replacing it would change that "
                      "model (name another side file with --external-data=NAME, or --force)", *side);
  for (int i = 0; !st && !o->force && i < o->n_reads; i++)
    if (o->reads[i] && rg_path_same_file(*side, o->reads[i]))
      st = rg_err_set(err, RG_ERR_ARG, "%s: the side file would replace %s, which this run reads (name another side "
                      "file with --external-data=NAME, or --force)", *side, o->reads[i]);
  if (!st) st = rg_path_check_writable(*side, err);
  if (st) free(*side), free(*location), *side = *location = NULL;
  return st;
}

int rg_export_option(rg_export_opts *o, const char *name, const char *arg, rg_err *err) {
  bool on = !strcmp(name, "external-data"), off = !strcmp(name, "no-external-data");
  if ((on && o->mode == RG_EXTERNAL_NEVER) || (off && o->mode == RG_EXTERNAL_ALWAYS))
    return rg_err_set(err, RG_ERR_ARG, "--external-data and --no-external-data contradict each other: give one"), -1;
  if (on || off) return o->mode = on ? RG_EXTERNAL_ALWAYS : RG_EXTERNAL_NEVER, o->location = on ? arg : NULL, 1;
  if (strcmp(name, "external-threshold")) return 0;
  char *end = NULL;
  errno = 0;
  unsigned long long v = arg && *arg >= '0' && *arg <= '9' ? strtoull(arg, &end, 10) : 0;
  static const char units[] = "KMG"; /* 2^10, 2^20, 2^30 */
  const char *u = !end || !*end || end[1] ? NULL : strchr(units, *end);
  int shift = !end ? -1 : !*end ? 0 : u ? 10 * (int)(u - units + 1) : -1;
  if (shift < 0 || errno || v > (1ULL << 50) >> shift)
    return rg_err_set(err, RG_ERR_ARG, "--external-threshold wants a size in bytes, such as 1024 or 1M (0: every "
                      "tensor that holds data), not '%s'", arg ? arg : ""), -1;
  /* 0 is onnx's size_threshold=0: every tensor outside (one of no bytes has nothing to put there) */
  return o->threshold = v ? (size_t)(v << shift) : 1, 1;
}

/* Whether path is a file in a folder (not a device or FIFO, which are written in place). */
static bool in_folder(const char *path) {
  char *real;
  bool direct;
  bool ok = !rg_path_output_target(path, &real, &direct, NULL) && !direct;
  free(real);
  return ok;
}

rg_status rg_export_check_side(const rg_model *m, const char *path, const rg_export_opts *o, rg_err *err) {
  static const rg_export_opts defaults = {0};
  if (!o) o = &defaults;
  bool outside = o->mode == RG_EXTERNAL_ALWAYS || (o->mode == RG_EXTERNAL_AUTO && m && m->n_side_files && in_folder(path));
  if (!outside) return RG_OK;
  char *side, *location;
  rg_status st = side_path(m, path, o, &side, &location, err);
  free(side), free(location);
  return st;
}

/* what (-o, --json) at path (NULL: none) is no file the input model m read its weights from,
 * unless force: as for the model itself, whose weights are all in memory before any write. */
static rg_status not_input_side(const rg_model *m, const char *what, const char *path, bool force, rg_err *err) {
  for (int32_t i = 0; path && m && !force && i < m->n_side_files; i++)
    if (rg_path_same_file(path, m->side_files[i]))
      return rg_err_set(err, RG_ERR_ARG, "%s %s names a file this run reads (%s, where the input model keeps its "
                        "weights): give another file, or --force to replace it", what, path, m->side_files[i]);
  return RG_OK;
}

rg_status rg_export_check_outputs(const rg_model *m, const char *path, const char *json, const rg_export_opts *o,
                                  rg_err *err) {
  static const rg_export_opts defaults = {0};
  if (!o) o = &defaults;
  rg_status st = not_input_side(m, "-o", path, o->force, err);
  if (!st) st = not_input_side(m, "--json", json, o->force, err);
  if (!st) st = rg_export_check_side(m, path, o, err);
  /* the side file's name, wherever one may be written (AUTO too: past 2 GiB, known only after
   * the search); --force does not let two outputs be one file */
  if (st || !json || o->mode == RG_EXTERNAL_NEVER || !in_folder(path)) return st;
  char *side, *location;
  if (!(st = side_name(path, o->location, &side, &location, err)) && rg_path_same_file(json, side))
    st = rg_err_set(err, RG_ERR_ARG, "--json %s names the side file the weights of -o %s go to (%s): give each its "
                    "own%s", json, path, side, o->location ? "" : ", or name the side file with --external-data=NAME");
  free(side), free(location);
  return st;
}

/* mp into path with its large tensors in the side file (side, named location in the model). */
static rg_status write_outside(Onnx__ModelProto *mp, const char *path, const char *side, const char *location,
                               size_t threshold, rg_err *err) {
  size_t n = collect(mp->graph, threshold, NULL);
  if (!n) return write_inside(mp, path, err); /* nothing that large: no side file */
  swap *s = calloc(n + 1, sizeof *s);
  if (!s) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  collect(mp->graph, threshold, s);
  rg_atomic_file sf, mf;
  int why = 0;
  rg_status st = rg_atomic_open(&sf, side, err);
  if (!st && !write_side(sf.f, s, n, location, &why)) rg_atomic_abort(&sf), st = write_error(side, "side file", why, err);
  for (size_t i = 0; !st && i < n; i++) *s[i].slot = &s[i].sub;
  size_t size = st ? 0 : protobuf_c_message_get_packed_size(&mp->base);
  if (!st && size > PROTO_LIMIT) {
    rg_atomic_abort(&sf);
    st = rg_err_set(err, RG_ERR_LIMIT, "%s: %zu bytes even with the tensors of %zu bytes or more outside, past "
                    "protobuf's 2 GiB: give a smaller --external-threshold", path, size, threshold);
  }
  if (!st && (st = rg_atomic_open(&mf, path, err))) rg_atomic_abort(&sf);
  if (!st && (st = pack_into(&mf, mp, path, err))) rg_atomic_abort(&sf);
  for (size_t i = 0; i < n; i++)
    if (s[i].orig) *s[i].slot = s[i].orig; /* the message as it was */
  free(s);
  if (!st && (st = rg_atomic_commit(&sf, err))) rg_atomic_abort(&mf); /* the data first: the model never names a cut file */
  return st ? st : rg_atomic_commit(&mf, err);
}

rg_status rg_export_write(const rg_model *m, Onnx__ModelProto *mp, const char *path, const rg_export_opts *o,
                          rg_err *err) {
  static const rg_export_opts defaults = {0};
  if (!o) o = &defaults;
  size_t threshold = o->threshold ? o->threshold : RG_EXPORT_THRESHOLD;
  size_t whole = o->mode == RG_EXTERNAL_ALWAYS ? 0 : protobuf_c_message_get_packed_size(&mp->base);
  bool big = whole > PROTO_LIMIT, outside = o->mode == RG_EXTERNAL_ALWAYS || (o->mode == RG_EXTERNAL_AUTO && big);
  if (o->mode == RG_EXTERNAL_NEVER && big)
    return rg_err_set(err, RG_ERR_LIMIT, "%s: the model is %zu bytes, past protobuf's 2 GiB: let graphopt write its "
                      "weights to a side file (no --no-external-data)", path, whole);
  if (o->mode == RG_EXTERNAL_AUTO && !big && m->n_side_files) outside = in_folder(path); /* as read, where it can */
  if (!outside) return write_inside(mp, path, err);
  char *side, *location;
  rg_status st = side_path(m, path, o, &side, &location, err);
  if (!st) st = write_outside(mp, path, side, location, threshold, err);
  free(side), free(location);
  return st;
}
