/* verify/solver_z3.c: the z3 backend: its C API in a forked child, a fresh context per query
 * (reusing one changes quantifier instantiation and loses proofs), z3's own timeout set. */
#include <stdio.h>
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

static void write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

/* Runs in the forked child: global parameters there touch only this process. */
static int z3_child(void *arg, int out_fd) {
  const z3_job *job = arg;
  char ms[32];
  snprintf(ms, sizeof ms, "%d", job->timeout_ms);
  Z3_global_param_set("timeout", ms);
  Z3_global_param_set("unsat_core", "true");
  Z3_config cfg = Z3_mk_config();
  Z3_set_param_value(cfg, "timeout", ms);
  Z3_context c = Z3_mk_context(cfg);
  Z3_del_config(cfg);
  Z3_set_error_handler(c, NULL); /* errors are read back below, never exit() in here */
  /* An API context is initialised before the script runs, so the script's own
   * (set-option :produce-unsat-cores true) is refused there; the global parameter above already set it.
   * Blank that line out (same length) in this child's copy of the text. */
  char *line = strstr(job->text, UNSAT_CORE_OPTION);
  if (line) memset(line, ' ', strlen(UNSAT_CORE_OPTION));
  const char *out = Z3_eval_smtlib2_string(c, job->text);
  /* The answer first (an error in (get-unsat-core) after unknown must not hide it), then any
   * error z3 reported, so a script it rejects still says why. */
  if (out && *out) {
    write_all(out_fd, out, strlen(out));
  } else if (Z3_get_error_code(c) != Z3_OK) {
    const char *msg = Z3_get_error_msg(c, Z3_get_error_code(c));
    write_all(out_fd, "(error \"", 8);
    write_all(out_fd, msg, strlen(msg));
    write_all(out_fd, "\")\n", 3);
  }
  /* The process ends here; the context dies with it. */
  return 0;
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
