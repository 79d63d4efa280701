/* verify/solver.c: the backend interface and the parsing of answers both solvers print. */
#include "solver.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "solver_impl.h"

const char *rg_smt_result_name(rg_smt_result r) {
  switch (r) {
  case RG_SMT_UNSAT: return "unsat";
  case RG_SMT_SAT: return "sat";
  case RG_SMT_UNKNOWN: return "unknown";
  case RG_SMT_TIMEOUT: return "timeout";
  case RG_SMT_CRASH: return "crash";
  case RG_SMT_ERROR: return "error";
  case RG_SMT_VACUOUS: return "vacuous";
  }
  return "?";
}

static const char *skip_ws(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

static size_t word_len(const char *p) {
  size_t n = 0;
  while (p[n] && !isspace((unsigned char)p[n]) && p[n] != '(' && p[n] != ')') n++;
  return n;
}

/* The core is "( name name ... )"; names other than goal are kept, space-separated. Returns
 * whether it names the goal. */
static bool parse_core(const char *p, rg_solver_answer *ans) {
  bool has_goal = false;
  p = skip_ws(p);
  if (*p != '(') return false;
  p++;
  size_t used = 0;
  for (;;) {
    p = skip_ws(p);
    if (!*p || *p == ')' || *p == '(') break;
    size_t n = word_len(p);
    bool goal = n == 4 && !memcmp(p, "goal", 4);
    has_goal |= goal;
    if (!goal && used + n + 2 < sizeof ans->core) {
      if (used) ans->core[used++] = ' ';
      memcpy(ans->core + used, p, n);
      used += n;
      ans->core[used] = 0;
    }
    p += n;
  }
  return has_goal;
}

void rg_solver_parse_answer(const char *out, double ms, int timeout_ms, rg_solver_answer *ans) {
  memset(ans, 0, sizeof *ans);
  ans->ms = ms;
  const char *p = skip_ws(out);
  size_t n = word_len(p);
  if (n == 5 && !memcmp(p, "unsat", 5)) {
    ans->result = RG_SMT_UNSAT;
    /* A core without the goal means the rest is contradictory on its own (a fact or axiom false
     * of some term the search built): such an unsat would prove any rule, so it proves none. */
    if (!parse_core(p + n, ans)) {
      ans->result = RG_SMT_VACUOUS;
      snprintf(ans->detail, sizeof ans->detail, "unsat without the goal in its core: the hypotheses and axioms "
                                                "(%.120s) contradict each other", ans->core[0] ? ans->core : "none named");
    }
  } else if (n == 3 && !memcmp(p, "sat", 3)) {
    ans->result = RG_SMT_SAT;
  } else if ((n == 7 && !memcmp(p, "unknown", 7)) || (n == 7 && !memcmp(p, "timeout", 7))) {
    /* Both solvers say unknown when their own limit stops them: near the limit it is a timeout. */
    ans->result = (n == 7 && p[0] == 't') || ms >= 0.9 * timeout_ms ? RG_SMT_TIMEOUT : RG_SMT_UNKNOWN;
  } else {
    ans->result = RG_SMT_ERROR;
    snprintf(ans->detail, sizeof ans->detail, "%.200s", p);
    char *nl = strchr(ans->detail, '\n');
    if (nl) *nl = 0;
  }
}

rg_status rg_solver_init(rg_solver *s, rg_solver_kind kind, const char *binary, rg_err *err) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  static const rg_helper_spec z3 = {"rulegen-z3", "z3", "RG_Z3_HELPER", RG_Z3_HELPER_BUILD_PATH};
  switch (kind) {
  case RG_SOLVER_Z3: return rg_helper_init(s, &z3, err);
  case RG_SOLVER_CVC5: return rg_cvc5_init(s, binary, err);
  }
  return rg_err_set(err, RG_ERR_ARG, "unknown solver kind %d", (int)kind);
}

rg_status rg_solver_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                          rg_solver_answer *ans, rg_err *err) {
  if (timeout_ms < 1) return rg_err_set(err, RG_ERR_ARG, "timeout must be at least 1 ms");
  if (s->kind != RG_SOLVER_Z3 && s->kind != RG_SOLVER_CVC5)
    return rg_err_set(err, RG_ERR_ARG, "unknown solver kind %d", (int)s->kind);
  return s->helper ? rg_helper_prove(s, text, len, timeout_ms, ans, err)
                   : rg_cvc5_prove(s, text, len, timeout_ms, ans, err);
}

void rg_solver_answer_from_child(const rg_child_result *res, int timeout_ms, const char *who,
                                 rg_solver_answer *ans) {
  if (res->killed) {
    memset(ans, 0, sizeof *ans);
    ans->ms = res->ms;
    ans->result = RG_SMT_TIMEOUT;
    snprintf(ans->detail, sizeof ans->detail, "%s killed after %.0f ms", who, res->ms);
    return;
  }
  if (res->signal) {
    memset(ans, 0, sizeof *ans);
    ans->ms = res->ms;
    ans->result = RG_SMT_CRASH;
    snprintf(ans->detail, sizeof ans->detail, "%s died on signal %d", who, res->signal);
    return;
  }
  rg_solver_parse_answer(res->output ? res->output : "", res->ms, timeout_ms, ans);
  if (ans->result == RG_SMT_ERROR && res->exit_code != 0) {
    ans->result = RG_SMT_CRASH;
    char d[sizeof ans->detail];
    snprintf(d, sizeof d, "%s exited with status %d: %.180s", who, res->exit_code, ans->detail);
    memcpy(ans->detail, d, sizeof d);
  }
}

rg_status rg_solver_spawn(const rg_solver *s, const char *const *args, rg_child *c, rg_err *err) {
  char path[sizeof s->path];
  memcpy(path, s->path, sizeof path);
  char *argv[8] = {path};
  for (int i = 0; args[i] && i < 7; i++)
    argv[i + 1] = (char *)args[i];
  return rg_child_start(argv, c, err);
}
