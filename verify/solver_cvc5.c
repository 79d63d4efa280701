/* verify/solver_cvc5.c: the cvc5 backend: its binary over a pipe (Debian's cvc5 1.0.3 has only
 * a C++ API), one process per query or one --interactive worker for many, --enum-inst and a
 * per-query limit (tlimit-per answers unknown; tlimit would abort the process).
 * A worker keeps its command-line options across (reset) (checked: (get-option :enum-inst) is
 * still true after it), and (set-option :tlimit-per N) after a (reset) sets the next query's
 * limit, so one worker serves any timeout. cvc5 prints (echo "m") as "m" with its quotes.
 * Options (depth-4 obligations, 1 thread, interleaved with the defaults: median 0.85x, the same
 * unsat answers): the worker reads a pipe non-interactively (--interactive builds a new ANTLR
 * input, a large zeroed token pool, for every command: 14% of all instructions), and cheaper
 * settings that prove the same: no incremental mode, no quantifier preprocessing beyond the
 * rewriter's, cores from the SAT proof, no conflict-based instantiation, max triggers. */
#include <stdio.h>
#include <string.h>

#include "solver_impl.h"

/* What both ways of running a query add: the same answers and cores either way. */
#define CVC5_TUNING                                                                                \
  "--no-incremental", "--no-var-elim-quant", "--cond-var-split-quant=off",                         \
      "--miniscope-quant=off", "--prenex-quant=none", "--unsat-cores-mode=sat-proof", "--no-cbqi", \
      "--trigger-sel=max"

rg_status rg_cvc5_init(rg_solver *s, const char *binary, rg_err *err) {
  snprintf(s->name, sizeof s->name, "cvc5");
  snprintf(s->path, sizeof s->path, "%s", binary && *binary ? binary : RG_CVC5_DEFAULT_PATH);
  char *argv[] = {s->path, "--version", NULL};
  rg_child_result res;
  rg_status st = rg_child_run(argv, NULL, 0, 10000, &res, err);
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
  char *argv[] = {path, "--lang=smt2", "--enum-inst", tl, CVC5_TUNING, NULL};
  rg_child_result res;
  rg_status st = rg_child_run(argv, text, len, timeout_ms + RG_SOLVER_GRACE_MS, &res, err);
  if (!st) rg_solver_answer_from_child(&res, timeout_ms, "cvc5", ans);
  rg_child_result_free(&res);
  return st;
}

/* The worker: the options of the one-shot above, the limit given per query. Not --interactive:
 * from a pipe cvc5 answers each command as it reads it all the same (no exit at the end of a
 * query), parsing the stream once. */
static rg_status cvc5_worker_start(const rg_solver *s, rg_child *c, rg_err *err) {
  char path[sizeof s->path];
  memcpy(path, s->path, sizeof path);
  char *argv[] = {path, "--lang=smt2", "--no-interactive", "--enum-inst", CVC5_TUNING, NULL};
  return rg_child_start(argv, c, err);
}

#define MARKER_FMT "\"rg-end-%lu\""

static void cvc5_request(rg_strbuf *req, const char *text, size_t len, int timeout_ms, unsigned long seq) {
  rg_sb_printf(req, "(set-option :tlimit-per %d)\n", timeout_ms);
  rg_sb_append(req, text, len);
  rg_sb_printf(req, "\n(echo " MARKER_FMT ")\n(reset)\n", seq);
}

/* The answer ends at the marker line of this query (after unsat, the core comes first; an
 * error answer is one "(error ...)" line and the script goes on). */
static bool cvc5_reply(const char *out, size_t len, unsigned long seq, size_t *off, size_t *n) {
  char marker[48];
  int m = snprintf(marker, sizeof marker, MARKER_FMT "\n", seq);
  if (len < (size_t)m || memcmp(out + len - (size_t)m, marker, (size_t)m)) return false;
  if (len > (size_t)m && out[len - (size_t)m - 1] != '\n') return false;
  *off = 0;
  *n = len - (size_t)m;
  return true;
}

const rg_worker_protocol rg_cvc5_worker = {cvc5_worker_start, cvc5_request, cvc5_reply, true};
