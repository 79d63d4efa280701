/* verify/solver_z3.c: the z3 backend: its C API in a forked child (one-shot, or a worker that
 * answers query after query), a fresh context per query (reusing one changes quantifier
 * instantiation and loses proofs), z3's own timeout set. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <z3.h>

#include "solver_impl.h"

rg_status rg_z3_init(rg_solver *s, rg_err *err) {
  (void)err;
  unsigned maj, min, build, rev;
  Z3_get_version(&maj, &min, &build, &rev);
  snprintf(s->name, sizeof s->name, "z3");
  snprintf(s->version, sizeof s->version, "%u.%u.%u", maj, min, build);
  return RG_OK;
}

#define UNSAT_CORE_OPTION "(set-option :produce-unsat-cores true)"

typedef struct {
  char *text; /* the parent's buffer; the forked child writes only to its own copy */
  int timeout_ms;
} z3_job;

static void write_all(int fd, const void *buf, size_t n) {
  const char *s = buf;
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

/* Runs in a forked child (one-shot or worker): a fresh context for this one script, returned
 * for the caller to delete once the answer is sent (deleting the context of a hard query takes
 * time that is no part of the answer; a one-shot child just exits). Global parameters set here
 * touch only this process. text is the child's own copy (it is edited). The answer goes into
 * out: z3's output, or the error it reported. */
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

/* One-shot: the whole process is this one query. */
static int z3_child(void *arg, int out_fd) {
  const z3_job *job = arg;
  rg_strbuf out;
  rg_sb_init(&out);
  (void)z3_eval(job->text, job->timeout_ms, &out);
  write_all(out_fd, out.s ? out.s : "", out.len);
  rg_sb_free(&out);
  return 0; /* the process ends here; the context dies with it */
}

rg_status rg_z3_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                      rg_solver_answer *ans, rg_err *err) {
  (void)s;
  (void)len;
  z3_job job = {(char *)text, timeout_ms};
  rg_child_result res;
  rg_status st = rg_child_run(NULL, z3_child, &job, NULL, 0, timeout_ms + RG_SOLVER_GRACE_MS, &res, err);
  if (!st) rg_solver_answer_from_child(&res, timeout_ms, "z3", ans);
  rg_child_result_free(&res);
  return st;
}

/* The worker protocol: a request is {u32 length, i32 timeout_ms, script}, a reply
 * {u32 length, answer}, in this machine's byte order (both ends are this program). */
static bool read_all(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= (size_t)r;
  }
  return true;
}

/* The worker's loop, in a forked child; it ends when its stdin does (the pool closed it, or
 * rulegen died). */
static int z3_worker_main(void *arg, int out_fd) {
  (void)arg;
  rg_strbuf out;
  rg_sb_init(&out);
  uint32_t hdr[2];
  while (read_all(0, hdr, sizeof hdr)) {
    char *text = malloc((size_t)hdr[0] + 1);
    if (!text || !read_all(0, text, hdr[0])) {
      free(text);
      break;
    }
    text[hdr[0]] = 0;
    rg_sb_clear(&out);
    Z3_context c = z3_eval(text, (int)hdr[1], &out);
    free(text);
    if (out.failed) break; /* out of memory: ending is a crash answer, the next query restarts */
    uint32_t n = (uint32_t)out.len;
    write_all(out_fd, &n, sizeof n);
    write_all(out_fd, out.s ? out.s : "", n);
    Z3_del_context(c); /* the next query gets a fresh one, as a fresh process would */
  }
  rg_sb_free(&out);
  return 0;
}

static rg_status z3_worker_start(const rg_solver *s, rg_child *c, rg_err *err) {
  (void)s;
  return rg_child_start(NULL, z3_worker_main, NULL, c, err);
}

static void z3_request(rg_strbuf *req, const char *text, size_t len, int timeout_ms, unsigned long seq) {
  (void)seq; /* one reply per request, in order: the length frames it */
  uint32_t hdr[2] = {(uint32_t)len, (uint32_t)timeout_ms};
  rg_sb_append(req, (const char *)hdr, sizeof hdr);
  rg_sb_append(req, text, len);
}

static bool z3_reply(const char *out, size_t len, unsigned long seq, size_t *off, size_t *n) {
  (void)seq;
  uint32_t m;
  if (len < sizeof m) return false;
  memcpy(&m, out, sizeof m);
  if (len < sizeof m + m) return false;
  *off = sizeof m;
  *n = m;
  return true;
}

const rg_worker_protocol rg_z3_worker = {z3_worker_start, z3_request, z3_reply, false};
