/* verify/z3_serve.c: the z3 side of the z3 backend, run in the exec'd rulegen-z3 helper (see
 * z3_serve.h for why z3 never runs in a plain fork of rulegen). Global z3 parameters set here
 * touch only the helper process. */
#include "z3_serve.h"

#include <stdio.h>
#include <string.h>
#include <z3.h>

#include "serve.h"

#define UNSAT_CORE_OPTION "(set-option :produce-unsat-cores true)"

void rg_z3_lib_version(char *buf, size_t size) {
  unsigned maj, min, build, rev;
  Z3_get_version(&maj, &min, &build, &rev);
  snprintf(buf, size, "%u.%u.%u", maj, min, build);
}

/* The context the next fork answers in: fresh (never used in the helper itself) and made for
 * its time limit, once per limit rather than once per query (making one was a tenth of an easy
 * query's time). Every fork gets its own copy, as if it had made the context itself. */
static Z3_context ready;
static int ready_ms = -1;

static void prepare(int timeout_ms) {
  if (ready && ready_ms == timeout_ms) return;
  if (ready) Z3_del_context(ready);
  char ms[32];
  snprintf(ms, sizeof ms, "%d", timeout_ms);
  Z3_global_param_set("timeout", ms);
  Z3_global_param_set("unsat_core", "true");
  Z3_config cfg = Z3_mk_config();
  Z3_set_param_value(cfg, "timeout", ms);
  ready = Z3_mk_context(cfg);
  ready_ms = timeout_ms;
  Z3_del_config(cfg);
  Z3_set_error_handler(ready, NULL); /* errors are read back below, never exit() in here */
}

/* Runs the script in the fork's copy of the ready context (serve.h: never deleted, the fork
 * ends). text is edited. The answer is appended to out: z3's output, or the error it
 * reported. */
static void eval(char *text, int timeout_ms, rg_strbuf *out) {
  (void)timeout_ms; /* the ready context was made for it */
  Z3_context c = ready;
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
}

int rg_z3_serve(int in_fd, int out_fd) {
  static const rg_serve_solver z3 = {"rulegen-z3", prepare, eval};
  return rg_serve(in_fd, out_fd, &z3);
}
