/* ir/readfile.c: whole files into memory, bounded (readfile.h). */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include "readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* n bytes as "256 MiB", "2 GiB" or "4096 bytes". */
static const char *bytes_text(size_t n, char *buf, size_t len) {
  if (n >= (1u << 30) && n % (1u << 30) == 0) snprintf(buf, len, "%zu GiB", n >> 30);
  else if (n >= (1u << 20)) snprintf(buf, len, "%zu MiB", n >> 20);
  else snprintf(buf, len, "%zu bytes", n);
  return buf;
}

static const char *type_name(mode_t m) {
  if (S_ISCHR(m)) return "character device";
  if (S_ISBLK(m)) return "block device";
  if (S_ISFIFO(m)) return "FIFO or pipe";
  if (S_ISSOCK(m)) return "socket";
  return "special file";
}

static rg_status too_large(const char *path, const rg_file_kind *k, const struct stat *st, rg_err *err) {
  char b[32];
  if (S_ISREG(st->st_mode))
    return rg_err_set(err, RG_ERR_LIMIT, "%s: %lld bytes, more than the %s that %s may hold", path,
                      (long long)st->st_size, bytes_text(k->max_file, b, sizeof b), k->what);
  return rg_err_set(err, RG_ERR_LIMIT, "%s: a %s that gave more than %s: %s from a device, FIFO or pipe may be at "
                    "most that (save it to a regular file)", path, type_name(st->st_mode),
                    bytes_text(k->max_stream, b, sizeof b), k->what);
}

/* Room for n bytes and a NUL in out, allocated once (a regular file's size). */
static rg_status reserve(rg_strbuf *out, size_t n, const char *path, rg_err *err) {
  if (!(out->s = malloc(n + 1)))
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory reading %s (%zu bytes)", path, n);
  out->cap = n + 1, out->s[0] = 0;
  return RG_OK;
}

/* The rest of f into out, at most max bytes. */
static rg_status read_all(FILE *f, const char *path, const rg_file_kind *k, const struct stat *st, rg_strbuf *out,
                          rg_err *err) {
  bool regular = S_ISREG(st->st_mode);
  size_t max = regular ? k->max_file : k->max_stream, done = 0, n;
  char chunk[65536];
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
    if (n > max - out->len) return too_large(path, k, st, err);
    rg_sb_append(out, chunk, n);
    if (out->failed)
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory reading %s (after %zu MiB)", path, out->len >> 20);
    rg_status s = !regular && k->check ? k->check(path, out->s, out->len, &done, err) : RG_OK;
    if (s) return s;
  }
  if (ferror(f)) return rg_err_set(err, RG_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  return RG_OK;
}

rg_status rg_file_read(const char *path, const rg_file_kind *kind, rg_strbuf *out, rg_err *err) {
  rg_sb_init(out);
  FILE *f = fopen(path, "rb");
  if (!f) return rg_err_set(err, RG_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  rg_status s = RG_OK;
  if (fstat(fileno(f), &st)) s = rg_err_set(err, RG_ERR_IO, "cannot read %s: %s", path, strerror(errno));
  else if (S_ISDIR(st.st_mode)) s = rg_err_set(err, RG_ERR_IO, "%s is a folder, not %s", path, kind->what);
  else if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > kind->max_file) s = too_large(path, kind, &st, err);
  else if (S_ISREG(st.st_mode)) s = reserve(out, (size_t)st.st_size, path, err);
  if (!s) s = read_all(f, path, kind, &st, out, err);
  fclose(f);
  return s;
}
