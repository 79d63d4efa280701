/* verify/solver_cvc5.c: the cvc5 backend. By default every query runs in the rulegen-cvc5
 * helper (cvc5's C++ API: cvc5_serve.h; its client is solver_helper.c, as z3's). Given a cvc5
 * binary instead (rulegen prove --cvc5 PATH: an auditor may want cvc5's own front end to
 * answer), queries go to that binary over a pipe: one process per query, or a worker fed query
 * after query, each followed by an echoed marker (the end of its answer) and (reset).
 * A worker keeps its command-line options across (reset) (checked: (get-option :enum-inst) is
 * still true after it), and (set-option :tlimit-per N) after a (reset) sets the next query's
 * limit, so one worker serves any timeout. cvc5 prints (echo "m") as "m" with its quotes. A
 * worker reads the pipe non-interactively: --interactive builds a new ANTLR input, a large
 * zeroed token pool, for every command (14% of all instructions). */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <string.h>

#include "cvc5_options.h"
#include "solver_impl.h"

/* cvc5_options.h's options as the binary's arguments, in buf (one string each). */
#define N_OPTIONS (0 RG_CVC5_OPTIONS(COUNT_OPTION))
#define COUNT_OPTION(name, value) +1
typedef struct {
  char arg[N_OPTIONS][64];
} option_args;

static void fill_options(option_args *a, char **argv) {
  int k = 0;
#define ADD_OPTION(name, value)                                                                    \
  if (!strcmp(value, "true"))                                                                      \
    snprintf(a->arg[k], sizeof a->arg[k], "--%s", name);                                           \
  else if (!strcmp(value, "false"))                                                                \
    snprintf(a->arg[k], sizeof a->arg[k], "--no-%s", name);                                        \
  else                                                                                             \
    snprintf(a->arg[k], sizeof a->arg[k], "--%s=%s", name, value);                                 \
  argv[k] = a->arg[k];                                                                             \
  k++;
  RG_CVC5_OPTIONS(ADD_OPTION)
#undef ADD_OPTION
}

/* The cvc5 binary at binary: its name, path and version. */
static rg_status cvc5_init(rg_solver *s, const char *binary, rg_err *err) {
  snprintf(s->name, sizeof s->name, "cvc5");
  snprintf(s->path, sizeof s->path, "%s", binary);
  char *argv[] = {s->path, "--version", NULL};
  rg_child_result res;
  rg_status st = rg_child_run(argv, NULL, 0, 10000, &res, err);
  if (st) return st;
  const char *v = res.output ? strstr(res.output, "cvc5 version ") : NULL;
  if (res.exit_code != 0 || !v) {
    st = rg_err_set(err, RG_ERR_IO,
                    "cannot run the cvc5 solver '%s' (%s): install it (scripts/setup.sh) or leave "
                    "out --cvc5 to use rulegen's own cvc5 helper",
                    s->path, res.exit_code == 127 ? "not found" : "no version answer");
  } else {
    v += strlen("cvc5 version ");
    rg_solver_escape(s->version, sizeof s->version, v, strcspn(v, " \n"));
  }
  rg_child_result_free(&res);
  return st;
}

static rg_status cvc5_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                             rg_solver_answer *ans, rg_err *err) {
  char tl[48];
  snprintf(tl, sizeof tl, "--tlimit-per=%d", timeout_ms);
  char path[sizeof s->path];
  memcpy(path, s->path, sizeof path);
  option_args a;
  char *argv[N_OPTIONS + 5] = {path, "--lang=smt2", tl};
  fill_options(&a, argv + 3);
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
  option_args a;
  char *argv[N_OPTIONS + 5] = {path, "--lang=smt2", "--no-interactive"};
  fill_options(&a, argv + 3);
  return rg_child_start(argv, c, err);
}

/* The end of query key's answer: cvc5 prints (echo "m") as "m", quotes and all. The obligation's
 * hash in it ties the answer to the obligation, the number to this query. */
#define MARKER_FMT "\"rg-end-%lu-%s\""

static void cvc5_request(rg_strbuf *req, const char *text, size_t len, int timeout_ms,
                         const rg_query_key *key) {
  rg_sb_printf(req, "(set-option :tlimit-per %d)\n", timeout_ms);
  rg_sb_append(req, text, len);
  rg_sb_printf(req, "\n(echo " MARKER_FMT ")\n(reset)\n", key->seq, key->sha256);
}

/* The answer is all before this query's marker line (after unsat, the core comes first; an
 * error answer is one "(error ...)" line and the script goes on); nothing may follow the marker
 * (the answer text itself is read strictly: rg_solver_parse_answer_n). */
static rg_reply_state cvc5_reply(const char *out, size_t len, const rg_query_key *key, size_t *off,
                                 size_t *n, char *why, size_t why_size) {
  char marker[128];
  int m = snprintf(marker, sizeof marker, MARKER_FMT "\n", key->seq, key->sha256);
  for (const char *p = out; (p = memmem(p, len - (size_t)(p - out), marker, (size_t)m)); p++) {
    if (p > out && p[-1] != '\n') continue; /* not a line of its own */
    size_t after = len - (size_t)(p - out) - (size_t)m;
    if (after) {
      char shown[96];
      rg_solver_escape(shown, sizeof shown, p + m, after);
      snprintf(why, why_size, "text after the end marker: '%s'", shown);
      return RG_REPLY_BAD;
    }
    *off = 0;
    *n = (size_t)(p - out);
    return RG_REPLY_WHOLE;
  }
  return RG_REPLY_PARTIAL;
}

static const rg_worker_protocol cvc5_worker = {cvc5_worker_start, cvc5_request, cvc5_reply, true};

static const rg_helper_spec cvc5_helper = {"rulegen-cvc5", "cvc5", "RG_CVC5_HELPER",
                                           RG_CVC5_HELPER_BUILD_PATH};

const rg_solver_backend rg_solver_backend_cvc5 = {"cvc5", &cvc5_helper, cvc5_init, cvc5_prove,
                                                  &cvc5_worker};
