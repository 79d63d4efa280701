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

/* What a solver printed may hold anything (terminal escape sequences too), and goes into
 * messages printed on a terminal: printable ASCII is kept, a backslash doubled, every other byte
 * written as \xNN; cut with "..." where it does not fit. */
void rg_solver_escape(char *dst, size_t size, const char *src, size_t n) {
  if (!size) return;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)src[i];
    char e[8];
    int k = c == '\\'                ? snprintf(e, sizeof e, "\\\\")
            : c < 0x20 || c >= 0x7f ? snprintf(e, sizeof e, "\\x%02x", c)
                                     : snprintf(e, sizeof e, "%c", c);
    /* Room is kept for "..." (and the NUL) while more may follow. */
    if (o + (size_t)k + (i + 1 < n ? 3 : 0) + 1 > size) {
      if (o + 4 <= size) memcpy(dst + o, "...", 3), o += 3;
      break;
    }
    memcpy(dst + o, e, (size_t)k);
    o += (size_t)k;
  }
  dst[o] = 0;
}

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && isspace((unsigned char)*p)) p++;
  return p;
}

static size_t word_len(const char *p, const char *end) {
  size_t n = 0;
  while (p + n < end && !isspace((unsigned char)p[n]) && p[n] != '(' && p[n] != ')') n++;
  return n;
}

/* A character of an SMT-LIB simple symbol (the names the encoder gives its assertions). */
static bool symbol_char(char c) {
  return isalnum((unsigned char)c) || (c && strchr("~!@$%^&*_-+=<>.?/", c));
}

/* The end of the s-expression that starts at p ('('), strings ("...", "" inside) and quoted
 * symbols (|...|) skipped; NULL when it does not end before end. */
static const char *sexpr_end(const char *p, const char *end) {
  int depth = 0;
  while (p < end) {
    char c = *p++;
    if (c == '"' || c == '|') {
      while (p < end && *p != c) p++;
      if (p++ >= end) return NULL;
      if (c == '"' && p < end && *p == '"') continue; /* "" is a quote inside the string */
    } else if (c == '(') {
      depth++;
    } else if (c == ')' && --depth == 0) {
      return p;
    }
  }
  return NULL;
}

/* Marks ans an error answer: what was wrong, then (escaped) the text it was wrong about. */
static void malformed(rg_solver_answer *ans, const char *what, const char *text, size_t n) {
  char shown[160];
  rg_solver_escape(shown, sizeof shown, text, n);
  ans->result = RG_SMT_ERROR;
  ans->core[0] = 0;
  snprintf(ans->detail, sizeof ans->detail, "%s: '%s'", what, shown);
}

/* The core at p: "(" simple symbols ")" exactly; names other than goal are kept in ans->core,
 * space-separated. Returns the end of the core, or NULL when p holds no such core. */
static const char *parse_core(const char *p, const char *end, rg_solver_answer *ans,
                              bool *has_goal) {
  p = skip_ws(p, end);
  if (p >= end || *p != '(') return NULL;
  p++;
  size_t used = 0;
  for (;;) {
    p = skip_ws(p, end);
    if (p >= end) return NULL;
    if (*p == ')') return p + 1;
    size_t n = 0;
    while (p + n < end && symbol_char(p[n])) n++;
    if (n == 0 || (p + n < end && !isspace((unsigned char)p[n]) && p[n] != ')')) return NULL;
    bool goal = n == 4 && !memcmp(p, "goal", 4);
    *has_goal |= goal;
    if (!goal && used + n + 2 < sizeof ans->core) {
      if (used) ans->core[used++] = ' ';
      memcpy(ans->core + used, p, n);
      used += n;
      ans->core[used] = 0;
    }
    p += n;
  }
}

/* At p: nothing, or one "(error ...)" (a solver refuses (get-unsat-core) after sat or unknown),
 * then nothing; true when so. */
static bool only_core_refusal(const char *p, const char *end) {
  p = skip_ws(p, end);
  if (p < end && end - p > 6 && !memcmp(p, "(error", 6)) {
    const char *e = sexpr_end(p, end);
    if (!e) return false;
    p = skip_ws(e, end);
  }
  return p == end;
}

/* An answer that is an "(error ...)": its first line is the detail. */
static void error_answer(const char *p, const char *end, rg_solver_answer *ans) {
  ans->result = RG_SMT_ERROR;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  size_t n = (size_t)((nl ? nl : end) - p);
  rg_solver_escape(ans->detail, sizeof ans->detail, p, n < 200 ? n : 200);
}

static void unsat_answer(const char *p, const char *end, const char *out, size_t len,
                         rg_solver_answer *ans) {
  bool has_goal = false;
  const char *e = parse_core(p, end, ans, &has_goal);
  if (!e) return malformed(ans, "unsat without one complete unsat core of names", out, len);
  if (skip_ws(e, end) != end)
    return malformed(ans, "text after the unsat core", e, (size_t)(end - e));
  ans->result = RG_SMT_UNSAT;
  /* A core without the goal means the rest is contradictory on its own (a fact or axiom false
   * of some term the search built): such an unsat would prove any rule, so it proves none. */
  if (!has_goal) {
    ans->result = RG_SMT_VACUOUS;
    snprintf(ans->detail, sizeof ans->detail, "unsat without the goal in its core: the hypotheses and axioms "
                                              "(%.120s) contradict each other", ans->core[0] ? ans->core : "none named");
  }
}

/* Strict: exactly "unsat" and one complete core; or "sat", "unknown" or "timeout", followed by
 * nothing but the refusal of the core; or an answer that starts "(error". Anything else (a
 * second verdict, text after the answer, an unclosed core, a NUL byte) is an error answer that
 * says what was wrong: never a proof. */
void rg_solver_parse_answer_n(const char *out, size_t len, double ms, int timeout_ms,
                              rg_solver_answer *ans) {
  memset(ans, 0, sizeof *ans);
  ans->ms = ms;
  const char *end = out + len;
  const char *p = skip_ws(out, end);
  if (memchr(out, 0, len)) return malformed(ans, "a NUL byte in the answer", out, len);
  if (p == end) return malformed(ans, "no answer", out, len);
  if (*p == '(') {
    if (end - p > 6 && !memcmp(p, "(error", 6)) return error_answer(p, end, ans);
    return malformed(ans, "not a solver answer", out, len);
  }
  size_t n = word_len(p, end);
  if (n == 5 && !memcmp(p, "unsat", 5)) return unsat_answer(p + n, end, out, len, ans);
  bool sat = n == 3 && !memcmp(p, "sat", 3);
  bool unknown = n == 7 && !memcmp(p, "unknown", 7), timeout = n == 7 && !memcmp(p, "timeout", 7);
  if (!sat && !unknown && !timeout) return malformed(ans, "not a solver answer", out, len);
  if (!only_core_refusal(p + n, end))
    return malformed(ans, "text after the answer", p + n, (size_t)(end - p - n));
  /* Both solvers say unknown when their own limit stops them: near the limit it is a timeout. */
  ans->result = sat ? RG_SMT_SAT
                    : timeout || ms >= 0.9 * timeout_ms ? RG_SMT_TIMEOUT : RG_SMT_UNKNOWN;
}

void rg_solver_parse_answer(const char *out, double ms, int timeout_ms, rg_solver_answer *ans) {
  rg_solver_parse_answer_n(out, strlen(out), ms, timeout_ms, ans);
}

rg_status rg_solver_init(rg_solver *s, rg_solver_kind kind, const char *binary, rg_err *err) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  const rg_solver_backend *b = rg_solver_backend_of(kind);
  if (!b) return rg_err_set(err, RG_ERR_ARG, "unknown solver kind %d", (int)kind);
  if (binary && *binary && b->binary_init) return b->binary_init(s, binary, err);
  return rg_helper_init(s, b->helper, err);
}

rg_status rg_solvers_init(rg_solver solvers[RG_SOLVER_COUNT],
                          const char *const binary[RG_SOLVER_COUNT], rg_err *err) {
  rg_status st = RG_OK;
  for (int k = 0; !st && k < RG_SOLVER_COUNT; k++)
    st = rg_solver_init(&solvers[k], (rg_solver_kind)k, binary ? binary[k] : NULL, err);
  return st;
}

rg_status rg_solver_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                          rg_solver_answer *ans, rg_err *err) {
  if (timeout_ms < 1) return rg_err_set(err, RG_ERR_ARG, "timeout must be at least 1 ms");
  const rg_solver_backend *b = rg_solver_backend_of(s->kind);
  if (!b) return rg_err_set(err, RG_ERR_ARG, "unknown solver kind %d", (int)s->kind);
  return s->helper ? rg_helper_prove(s, text, len, timeout_ms, ans, err)
                   : b->binary_prove(s, text, len, timeout_ms, ans, err);
}

/* The first line of what a child said, escaped, into buf: its stdout, else its stderr. */
static void child_said(const rg_child_result *res, char *buf, size_t size) {
  const char *t = res->len ? res->output : res->errors ? res->errors : "";
  size_t n = res->len ? res->len : res->err_len;
  while (n && isspace((unsigned char)*t)) t++, n--;
  const char *nl = memchr(t, '\n', n);
  rg_solver_escape(buf, size, t, nl ? (size_t)(nl - t) : n);
}

bool rg_solver_answer_from_end(const rg_child_result *res, const char *who, rg_solver_answer *ans) {
  memset(ans, 0, sizeof *ans);
  ans->ms = res->ms;
  if (res->flooded) {
    /* Stopped for it: no part of a timeout, whatever the clock said. */
    ans->result = RG_SMT_ERROR;
    snprintf(ans->detail, sizeof ans->detail, "%s wrote more than %d bytes to %s", who,
             res->flooded == 2 ? RG_CHILD_ERRORS_MAX : RG_CHILD_OUTPUT_MAX,
             res->flooded == 2 ? "stderr" : "stdout");
  } else if (res->killed) {
    ans->result = RG_SMT_TIMEOUT;
    snprintf(ans->detail, sizeof ans->detail, "%s killed after %.0f ms", who, res->ms);
  } else if (res->signal) {
    ans->result = RG_SMT_CRASH;
    snprintf(ans->detail, sizeof ans->detail, "%s died on signal %d", who, res->signal);
  } else {
    return false;
  }
  return true;
}

void rg_solver_answer_from_child(const rg_child_result *res, int timeout_ms, const char *who,
                                 rg_solver_answer *ans) {
  if (rg_solver_answer_from_end(res, who, ans)) return;
  rg_solver_parse_answer_n(res->output ? res->output : "", res->len, res->ms, timeout_ms, ans);
  if (ans->result == RG_SMT_ERROR && !res->len && res->err_len) { /* it may have said why */
    char said[160];
    child_said(res, said, sizeof said);
    snprintf(ans->detail, sizeof ans->detail, "no answer; on stderr: '%s'", said);
  }
  if (ans->result == RG_SMT_ERROR && res->exit_code != 0) {
    ans->result = RG_SMT_CRASH;
    char said[160];
    child_said(res, said, sizeof said);
    snprintf(ans->detail, sizeof ans->detail, "%s exited with status %d: %s", who, res->exit_code,
             said[0] ? said : "no message");
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
