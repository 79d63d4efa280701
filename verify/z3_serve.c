/* verify/z3_serve.c: the z3 side of the z3 backend, run in the exec'd rulegen-z3 helper (see
 * z3_serve.h for why z3 never runs in a plain fork of rulegen). Global z3 parameters set here
 * touch only the helper process. */
#include "z3_serve.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <z3.h>

#include "ir/clock.h"
#include "serve.h"
#include "z3_options.h"

#define UNSAT_CORE_OPTION "(set-option :produce-unsat-cores true)"

void rg_z3_lib_version(char *buf, size_t size) {
  unsigned maj, min, build, rev;
  Z3_get_version(&maj, &min, &build, &rev);
  snprintf(buf, size, "%u.%u.%u", maj, min, build);
}

/* The context of the query being answered: fresh for each pass (serve.h: z3 answers in the
 * helper itself), deleted once the answer is sent (deleting the context of a hard query takes
 * time that is no part of the answer). */
static Z3_context current;

static void finish(void) {
  if (current) Z3_del_context(current);
  current = NULL;
}

/* One pass of the script in a fresh context, model-based quantifier instantiation on or off
 * (z3_options.h says why two), at most timeout_ms: z3's printed answer, or NULL with the
 * error it reported appended to out. */
static const char *run_pass(const char *text, int timeout_ms, bool mbqi, rg_strbuf *out) {
  char ms[32];
  snprintf(ms, sizeof ms, "%d", timeout_ms);
  Z3_global_param_set("timeout", ms);
  Z3_global_param_set("unsat_core", "true");
#define SET_OPTION(name, value) Z3_global_param_set(name, value);
  RG_Z3_OPTIONS(SET_OPTION)
#undef SET_OPTION
  Z3_global_param_set("smt.mbqi", mbqi ? "true" : "false");
  Z3_config cfg = Z3_mk_config();
  Z3_set_param_value(cfg, "timeout", ms);
  finish();
  Z3_context c = current = Z3_mk_context(cfg);
  Z3_del_config(cfg);
  Z3_set_error_handler(c, NULL); /* errors are read back below, never exit() in here */
  const char *res = Z3_eval_smtlib2_string(c, text);
  /* The answer first (an error in (get-unsat-core) after unknown must not hide it), then any
   * error z3 reported, so a script it rejects still says why. */
  if (res && *res) return res;
  if (Z3_get_error_code(c) != Z3_OK)
    rg_sb_printf(out, "(error \"%s\")\n", Z3_get_error_msg(c, Z3_get_error_code(c)));
  return NULL;
}

/* Runs the script (text is edited) and appends the answer to out: a pass without MBQI; where it
 * gives up early (unknown well before the limit: E-matching found nothing more to instantiate),
 * a pass with MBQI for at most rg_z3_mbqi_budget of the limit (z3_options.h). */
static void eval(char *text, int timeout_ms, rg_strbuf *out) {
  /* An API context is initialised before the script runs, so the script's own
   * (set-option :produce-unsat-cores true) is refused there; the global parameter already
   * set it. Blank that line out (same length). */
  char *line = strstr(text, UNSAT_CORE_OPTION);
  if (line) memset(line, ' ', strlen(UNSAT_CORE_OPTION));
  double t0 = rg_clock_ms();
  const char *res = run_pass(text, timeout_ms, false, out);
  int left = timeout_ms - (int)(rg_clock_ms() - t0), most = rg_z3_mbqi_budget(timeout_ms);
  int budget = left < most ? left : most; /* never 0: z3 reads a timeout of 0 as none */
  if (res && !strncmp(res, "unknown", 7) && left > timeout_ms / 10 && budget >= 1)
    res = run_pass(text, budget, true, out);
  if (res) rg_sb_puts(out, res);
}

int rg_z3_serve(int in_fd, int out_fd) {
  static const rg_serve_solver z3 = {"rulegen-z3", NULL, eval, finish};
  return rg_serve(in_fd, out_fd, &z3);
}
