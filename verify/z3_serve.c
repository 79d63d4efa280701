/* verify/z3_serve.c: the z3 side of the z3 backend, run in the exec'd rulegen-z3 helper (see
 * z3_serve.h for why z3 never runs in a plain fork of rulegen). Global z3 parameters set here
 * touch only the helper process. */
#include "z3_serve.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <z3.h>

#include "ir/strbuf.h"

#define UNSAT_CORE_OPTION "(set-option :produce-unsat-cores true)"

void rg_z3_lib_version(char *buf, size_t size) {
  unsigned maj, min, build, rev;
  Z3_get_version(&maj, &min, &build, &rev);
  snprintf(buf, size, "%u.%u.%u", maj, min, build);
}

static bool write_all(int fd, const void *buf, size_t n) {
  const char *s = buf;
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w;
    n -= (size_t)w;
  }
  return true;
}

/* Reads exactly n bytes; *got says how many came before EOF or an error. */
static bool read_all(int fd, void *buf, size_t n, size_t *got) {
  char *p = buf;
  *got = 0;
  while (*got < n) {
    ssize_t r = read(fd, p + *got, n - *got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    *got += (size_t)r;
  }
  return true;
}

/* A fresh context for this one script, returned for the caller to delete once the answer is
 * sent (deleting the context of a hard query takes time that is no part of the answer). text
 * is edited. The answer is appended to out: z3's output, or the error it reported. */
static Z3_context z3_eval(char *text, int timeout_ms, rg_strbuf *out) {
  char ms[32];
  snprintf(ms, sizeof ms, "%d", timeout_ms);
  Z3_global_param_set("timeout", ms);
  Z3_global_param_set("unsat_core", "true");
  Z3_config cfg = Z3_mk_config();
  Z3_set_param_value(cfg, "timeout", ms);
  Z3_context c = Z3_mk_context(cfg);
  Z3_del_config(cfg);
  Z3_set_error_handler(c, NULL); /* errors are read back below, never exit() in here */
  /* An API context is initialised before the script runs, so the script's own
   * (set-option :produce-unsat-cores true) is refused there; the global parameter above already
   * set it. Blank that line out (same length). */
  char *line = strstr(text, UNSAT_CORE_OPTION);
  if (line) memset(line, ' ', strlen(UNSAT_CORE_OPTION));
  const char *res = Z3_eval_smtlib2_string(c, text);
  /* The answer first (an error in (get-unsat-core) after unknown must not hide it), then any
   * error z3 reported, so a script it rejects still says why. */
  if (res && *res)
    rg_sb_puts(out, res);
  else if (Z3_get_error_code(c) != Z3_OK)
    rg_sb_printf(out, "(error \"%s\")\n", Z3_get_error_msg(c, Z3_get_error_code(c)));
  return c;
}

int rg_z3_serve(int in_fd, int out_fd) {
  /* rulegen may run with SIGINT ignored, which exec passes on: the helper must still die on
   * Ctrl-C (rulegen itself stops between queries). */
  signal(SIGINT, SIG_DFL);
  rg_strbuf out;
  rg_sb_init(&out);
  int status = 0;
  uint32_t hdr[2];
  size_t got;
  while (read_all(in_fd, hdr, sizeof hdr, &got)) {
    char *text = malloc((size_t)hdr[0] + 1);
    if (!text || !read_all(in_fd, text, hdr[0], &got)) {
      fprintf(stderr, "rulegen-z3: %s\n", text ? "input ended inside a request" : "out of memory");
      free(text);
      status = 1;
      break;
    }
    text[hdr[0]] = 0;
    /* The frame is built whole and written at once, so a reply is never left half-written
     * between its length and its text by anything but a death mid-write. */
    rg_sb_clear(&out);
    rg_sb_append(&out, "\0\0\0\0", 4);
    Z3_context c = z3_eval(text, (int)hdr[1], &out);
    free(text);
    if (out.failed) { /* no answer is sent: the client sees a crash, the next query restarts */
      fprintf(stderr, "rulegen-z3: out of memory\n");
      Z3_del_context(c);
      status = 1;
      break;
    }
    uint32_t n = (uint32_t)(out.len - 4);
    memcpy(out.s, &n, sizeof n);
    bool sent = write_all(out_fd, out.s, out.len);
    Z3_del_context(c); /* the next query gets a fresh one, as a fresh process would */
    if (!sent) {       /* the client is gone */
      status = 1;
      break;
    }
  }
  if (!status && got != 0) {
    fprintf(stderr, "rulegen-z3: input ended inside a request\n");
    status = 1;
  }
  rg_sb_free(&out);
  return status;
}
