/* enumerate/inputs.c: the default input set and the --inputs file format. */
#include "inputs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(rg_enum_inputset *s, const char *name, int rank, int32_t a, int32_t b, int32_t c,
                int32_t d) {
  int32_t dims[4] = {a, b, c, d};
  rg_enum_input *in = &s->in[s->n++];
  snprintf(in->name, sizeof in->name, "%s", name);
  in->shape = rg_shape_make(rank, dims);
}

void rg_enum_inputs_default(rg_enum_inputset *s) {
  static const char *const x[] = {"x1", "x2", "x3"}, *const w[] = {"w1", "w2", "w3"},
                           *const im[] = {"i1", "i2", "i3"};
  s->n = 0;
  for (int k = 0; k < 3; k++) add(s, x[k], 2, 2, 4, 0, 0);
  for (int k = 0; k < 3; k++) add(s, w[k], 2, 4, 4, 0, 0);
  for (int k = 0; k < 3; k++) add(s, im[k], 4, 2, 4, 5, 5);
  char name[16]; /* room for any int: GCC -O1 cannot see k <= 12 */
  for (int k = 4; k <= 12; k++) {
    snprintf(name, sizeof name, "w%d", k);
    int kh = k <= 6 ? 3 : k <= 9 ? 1 : 3, kw = k <= 6 ? 3 : k <= 9 ? 3 : 1;
    add(s, name, 4, 4, 4, kh, kw);
  }
  add(s, "w13", 4, 4, 1, 3, 3);
  add(s, "s0", 0, 0, 0, 0, 0);
}

void rg_enum_inputs_add_bias(rg_enum_inputset *s) {
  add(s, "b1", 1, 4, 0, 0, 0);
  add(s, "b2", 1, 4, 0, 0, 0);
}

void rg_enum_inputs_add_seamed(rg_enum_inputset *s) {
  if (s->n + 2 > RG_ENUM_MAX_INPUTS) return;
  add(s, "xs", 2, 2, 8, 0, 0);
  add(s, "is", 4, 2, 8, 5, 5);
  s->in[s->n - 2].shape.nseam[1] = s->in[s->n - 1].shape.nseam[1] = 1;
  s->in[s->n - 2].shape.seam[1][0] = s->in[s->n - 1].shape.seam[1][0] = 4;
}

static bool ident_char(int c, bool first) {
  return c == '_' || isalpha(c) || (!first && isdigit(c));
}

rg_status rg_enum_inputs_parse(const char *text, size_t len, rg_enum_inputset *s, rg_err *err) {
  s->n = 0;
  size_t i = 0;
  for (int line = 1; i < len; line++) {
    size_t end = i;
    while (end < len && text[end] != '\n') end++;
    size_t p = i, stop = end;
    for (size_t q = i; q < end; q++)
      if (text[q] == '#') {
        stop = q;
        break;
      }
    while (p < stop && isspace((unsigned char)text[p])) p++;
    if (p < stop) {
      size_t n0 = p;
      while (p < stop && !isspace((unsigned char)text[p])) p++;
      size_t n1 = p;
      while (p < stop && isspace((unsigned char)text[p])) p++;
      size_t d0 = p;
      while (p < stop && !isspace((unsigned char)text[p])) p++;
      size_t d1 = p;
      while (p < stop && isspace((unsigned char)text[p])) p++;
      if (d0 == d1 || p < stop)
        return rg_err_at(err, RG_ERR_PARSE, line, (int)(n0 - i) + 1,
                         "expected 'NAME DIMS' (e.g. 'x1 2x4', 'y1 2x8[4]' or 's0 scalar')");
      bool ok = n1 - n0 < RG_ENUM_MAX_NAME;
      for (size_t q = n0; q < n1 && ok; q++) ok = ident_char((unsigned char)text[q], q == n0);
      if (!ok)
        return rg_err_at(err, RG_ERR_PARSE, line, (int)(n0 - i) + 1,
                         "bad input name '%.*s': want a letter or '_' then letters, digits, '_' "
                         "(at most %d characters)",
                         (int)(n1 - n0), text + n0, RG_ENUM_MAX_NAME - 1);
      for (int k = 0; k < s->n; k++)
        if (strlen(s->in[k].name) == n1 - n0 && !memcmp(s->in[k].name, text + n0, n1 - n0))
          return rg_err_at(err, RG_ERR_PARSE, line, (int)(n0 - i) + 1,
                           "input '%.*s' is declared twice", (int)(n1 - n0), text + n0);
      if (s->n == RG_ENUM_MAX_INPUTS)
        return rg_err_at(err, RG_ERR_LIMIT, line, 1, "more than %d inputs", RG_ENUM_MAX_INPUTS);
      rg_enum_input *in = &s->in[s->n];
      rg_err e2;
      if (rg_shape_parse_seams(text + d0, (int)(d1 - d0), &in->shape, &e2) != RG_OK)
        return rg_err_at(err, RG_ERR_PARSE, line, (int)(d0 - i) + 1, "%s", e2.msg);
      snprintf(in->name, sizeof in->name, "%.*s", (int)(n1 - n0), text + n0);
      s->n++;
    }
    i = end + 1;
  }
  if (s->n == 0) return rg_err_set(err, RG_ERR_PARSE, "no inputs declared (want lines 'NAME DIMS')");
  return RG_OK;
}

const rg_shape *rg_enum_inputs_shape(const rg_enum_inputset *s, const char *name) {
  size_t len = strlen(name);
  const char *us = strrchr(name, '_');
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < s->n; i++)
      if (strlen(s->in[i].name) == len && !strncmp(s->in[i].name, name, len)) return &s->in[i].shape;
    if (!us || us == name || !us[1] || strspn(us + 1, "0123456789") != strlen(us + 1)) break;
    len = (size_t)(us - name); /* "<w>_<n>": the input <w> */
  }
  return NULL;
}

const rg_shape *rg_enum_inputs_shape_of(const void *ctx, const char *name) {
  return rg_enum_inputs_shape(ctx, name);
}

rg_status rg_enum_inputs_load(const char *path, rg_enum_inputset *s, rg_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return rg_err_set(err, RG_ERR_IO, "cannot open: %s", strerror(errno));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 > cap) {
      cap = cap ? 2 * cap : 8192;
      if (cap > (1u << 24)) {
        free(buf);
        fclose(f);
        return rg_err_set(err, RG_ERR_LIMIT, "file larger than 16 MB: not an input set");
      }
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return rg_err_set(err, RG_ERR_NOMEM, "out of memory reading the file");
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  bool bad = ferror(f);
  int e = errno;
  fclose(f);
  rg_status st = bad ? rg_err_set(err, RG_ERR_IO, "cannot read: %s", strerror(e)) : RG_OK;
  if (!st)
    for (size_t q = 0; q < len && !st; q++)
      if ((unsigned char)buf[q] >= 0x7f ||
          ((unsigned char)buf[q] < 0x20 && buf[q] != '\n' && buf[q] != '\t' && buf[q] != '\r'))
        st = rg_err_set(err, RG_ERR_PARSE, "unexpected byte 0x%02x at offset %zu: not a text file",
                        (unsigned char)buf[q], q);
  if (!st) st = rg_enum_inputs_parse(buf, len, s, err);
  free(buf);
  return st;
}
