/* verify/solver_cvc5.c: the cvc5 backend: its binary over a pipe (Debian's cvc5 1.0.3 has only
 * a C++ API), one process per query, --enum-inst and a per-query limit (--tlimit-per answers
 * unknown; --tlimit would abort the process). */
#include <stdio.h>
#include <string.h>

#include "solver_impl.h"

rg_status rg_cvc5_init(rg_solver *s, const char *binary, rg_err *err) {
  snprintf(s->name, sizeof s->name, "cvc5");
  snprintf(s->path, sizeof s->path, "%s", binary && *binary ? binary : RG_CVC5_DEFAULT_PATH);
  char *argv[] = {s->path, "--version", NULL};
  rg_child_result res;
  rg_status st = rg_child_run(argv, NULL, NULL, NULL, 0, 10000, &res, err);
  if (st) return st;
  const char *v = res.output ? strstr(res.output, "cvc5 version ") : NULL;
  if (res.exit_code != 0 || !v) {
    st = rg_err_set(err, RG_ERR_IO,
                    "cannot run the cvc5 solver '%s' (%s): install it (scripts/setup.sh) or give "
                    "its path with --cvc5 PATH",
                    s->path, res.exit_code == 127 ? "not found" : "no version answer");
  } else {
    v += strlen("cvc5 version ");
    size_t n = strcspn(v, " \n");
    snprintf(s->version, sizeof s->version, "%.*s", (int)(n < 60 ? n : 60), v);
  }
  rg_child_result_free(&res);
  return st;
}

rg_status rg_cvc5_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                        rg_solver_answer *ans, rg_err *err) {
  char tl[48];
  snprintf(tl, sizeof tl, "--tlimit-per=%d", timeout_ms);
  char path[sizeof s->path];
  memcpy(path, s->path, sizeof path);
  char *argv[] = {path, "--lang=smt2", "--enum-inst", tl, NULL};
  rg_child_result res;
  rg_status st = rg_child_run(argv, NULL, NULL, text, len, timeout_ms + RG_SOLVER_GRACE_MS, &res, err);
  if (!st) rg_solver_answer_from_child(&res, timeout_ms, "cvc5", ans);
  rg_child_result_free(&res);
  return st;
}
