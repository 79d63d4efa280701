/* ir/status.c: filling rg_err records. */
#include "status.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static rg_status vset(rg_err *err, rg_status status, int line, int col, const char *fmt,
                      va_list ap) {
  if (err) {
    err->status = status;
    err->line = line;
    err->col = col;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  }
  return status;
}

rg_status rg_err_set(rg_err *err, rg_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(err, status, 0, 0, fmt, ap);
  va_end(ap);
  return status;
}

rg_status rg_err_at(rg_err *err, rg_status status, int line, int col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(err, status, line, col, fmt, ap);
  va_end(ap);
  return status;
}

const char *rg_status_name(rg_status s) {
  /* indexed by -s: the statuses are 0, -1, -2, ... */
  static const char *const names[] = {"ok", "parse error", "shape error", "out of memory", "i/o error",
                                      "bad argument", "unbound variable", "limit exceeded"};
  return s <= 0 && -(int)s < (int)(sizeof names / sizeof *names) ? names[-(int)s] : "unknown status";
}

/* Whether msg starts by naming file ("FILE: ...", "FILE is ..."). */
static bool names_file(const char *msg, const char *file) {
  size_t n = strlen(file);
  return n && !strncmp(msg, file, n) && (msg[n] == ':' || msg[n] == ' ');
}

void rg_err_print(FILE *out, const char *prog, const char *file, const rg_err *err) {
  if (file && err->line)
    fprintf(out, "%s: %s:%d:%d: %s\n", prog, file, err->line, err->col, err->msg);
  else if (file && !names_file(err->msg, file))
    fprintf(out, "%s: %s: %s\n", prog, file, err->msg);
  else
    fprintf(out, "%s: %s\n", prog, err->msg);
}
