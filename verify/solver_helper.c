/* verify/solver_helper.c: the client side of a solver helper program (rulegen-z3, which
 * answers through z3's C API, and rulegen-cvc5, through cvc5's C++ API; verify/serve.h is the
 * other side). A helper is exec'd (one-shot: one query, or a worker that answers query after
 * query), never a plain fork of rulegen: rulegen forks from several OpenMP threads at once,
 * and a forked child inherits every lock another thread held at that instant (gcc-12's libasan
 * has no fork interceptor, so an ASan child forked while another thread held the allocator lock
 * hung in its first malloc until killed). An exec'd image inherits no lock state.
 *
 * A helper is looked up once, in rg_helper_init, and its path kept in rg_solver.path: the
 * environment variable that names it (RG_Z3_HELPER, RG_CVC5_HELPER); else the program next to
 * the running one (the installed layout, and build/tools/ where rulegen is built); else, for
 * programs of the build tree only (ir/datapath.h), the path CMake compiled in (the test
 * programs in build/tests/): an installed rulegen never runs a helper of the build tree. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ir/ir.h"
#include "serve.h"
#include "solver_impl.h"

/* Takes candidate into path when it is usable; else notes it and why in tried. */
static bool try_path(const char *candidate, const char *label, char *path, size_t size,
                     rg_strbuf *tried) {
  const char *why = strlen(candidate) >= size ? "path too long" : rg_path_unusable(candidate, X_OK);
  if (!why) {
    snprintf(path, size, "%s", candidate);
    return true;
  }
  rg_sb_printf(tried, "%s%s%s (%s)", tried->len ? ", " : "", label, candidate, why);
  return false;
}

/* The first usable helper of the lookup order (file header) into path. */
static rg_status find_helper(const rg_helper_spec *h, char *path, size_t size, rg_err *err) {
  rg_strbuf tried;
  rg_sb_init(&tried);
  bool found = false;
  const char *env = getenv(h->env);
  if (env && *env) {
    /* Asked for by name: no fallback to another helper. A bare name is a file here (execvp
     * would look it up in PATH, not where it was checked). */
    char rel[4096], label[64];
    snprintf(rel, sizeof rel, "%s%s", strchr(env, '/') ? "" : "./", env);
    snprintf(label, sizeof label, "%s=", h->env);
    found = try_path(rel, label, path, size, &tried);
  } else {
    char dir[4096], self[4096 + 64];
    if (rg_exe_dir(dir, sizeof dir) && strlen(h->program) < 64) { /* the helper beside this program */
      snprintf(self, sizeof self, "%s/%s", dir, h->program);
      found = try_path(self, "", path, size, &tried);
    }
    if (!found && h->build_path && rg_exe_in_build_tree())
      found = try_path(h->build_path, "", path, size, &tried);
  }
  rg_status st = RG_OK;
  if (!found)
    st = rg_err_set(err, RG_ERR_IO,
                    "cannot find the %s helper program %s (tried %s): build it "
                    "(scripts/build.sh) or set %s to its path",
                    h->solver, h->program, tried.len ? rg_sb_str(&tried) : "nothing", h->env);
  rg_sb_free(&tried);
  return st;
}

/* "exit status N: " and the first line the program said (stdout, else stderr), escaped. */
static void first_line(const rg_child_result *res, char *why, size_t size) {
  const char *t = res->len ? res->output : res->err_len ? res->errors : "no version line";
  char said[120];
  rg_solver_escape(said, sizeof said, t, strcspn(t, "\n"));
  snprintf(why, size, "exit status %d: %s", res->exit_code, said);
}

rg_status rg_helper_init(rg_solver *s, const rg_helper_spec *h, rg_err *err) {
  snprintf(s->name, sizeof s->name, "%s", h->solver);
  s->helper = true;
  rg_status st = find_helper(h, s->path, sizeof s->path, err);
  if (st) return st;
  /* The version comes from the helper, the solver that will answer (the environment may name
   * one built against another library); it also shows that the helper starts at all. */
  char path[sizeof s->path];
  memcpy(path, s->path, sizeof path);
  char *argv[] = {path, "--version", NULL};
  rg_child_result res;
  st = rg_child_run(argv, NULL, 0, 10000, &res, err);
  if (st) return st;
  /* "PROGRAM: SOLVER version V" (verify/helper.h); the cvc5 binary says "This is cvc5 ..." */
  char prefix[32];
  snprintf(prefix, sizeof prefix, ": %s version ", h->solver);
  const char *v = res.output ? strstr(res.output, prefix) : NULL;
  if (res.exit_code != 0 || !v) {
    char why[160];
    if (res.flooded)
      snprintf(why, sizeof why, "it wrote more than %d bytes to %s",
               res.flooded == 2 ? RG_CHILD_ERRORS_MAX : RG_CHILD_OUTPUT_MAX,
               res.flooded == 2 ? "stderr" : "stdout");
    else if (res.killed)
      snprintf(why, sizeof why, "no answer to --version in 10 s");
    else if (res.signal)
      snprintf(why, sizeof why, "it died on signal %d", res.signal);
    else
      first_line(&res, why, sizeof why);
    st = rg_err_set(err, RG_ERR_IO,
                    "the %s helper '%s' does not run (%s): rebuild it (scripts/build.sh) or set "
                    "%s to a working %s",
                    h->solver, s->path, why, h->env, h->program);
  } else {
    v += strlen(prefix);
    rg_solver_escape(s->version, sizeof s->version, v, strcspn(v, " \n"));
  }
  rg_child_result_free(&res);
  return st;
}

/* The protocol (serve.h): a header line that names the query (its number, its limit, the
 * obligation's hash, the script's length), then the script. */
static void helper_request(rg_strbuf *req, const char *text, size_t len, int timeout_ms,
                           const rg_query_key *key) {
  rg_serve_header h = {key->seq % (RG_SERVE_NUMBER_MAX + 1), timeout_ms, "", (unsigned long)len};
  memcpy(h.sha256, key->sha256, sizeof h.sha256);
  char hdr[RG_SERVE_QUERY_HEADER_LEN + 1];
  rg_serve_format_query(hdr, &h);
  rg_sb_append(req, hdr, RG_SERVE_QUERY_HEADER_LEN);
  rg_sb_append(req, text, len);
}

/* The most an answer may be: a verdict and a core, or an error message. */
#define ANSWER_MAX (RG_CHILD_OUTPUT_MAX - RG_SERVE_REPLY_HEADER_LEN)

static rg_reply_state bad(char *why, size_t size, const char *what, const char *out, size_t n) {
  char shown[96];
  rg_solver_escape(shown, sizeof shown, out, n);
  snprintf(why, size, "%s: '%s'", what, shown);
  return RG_REPLY_BAD;
}

/* Exactly one frame, the reply to key: its header as soon as it is whole (a stream that does
 * not start with one is bad at once), then its answer, and nothing after it. */
static rg_reply_state helper_reply(const char *out, size_t len, const rg_query_key *key,
                                   size_t *off, size_t *n, char *why, size_t why_size) {
  static const char tag[] = "rg-reply ";
  size_t hl = RG_SERVE_REPLY_HEADER_LEN;
  if (memcmp(out, tag, len < sizeof tag - 1 ? len : sizeof tag - 1))
    return bad(why, why_size, "not a reply frame", out, len < hl ? len : hl);
  if (len < hl) return RG_REPLY_PARTIAL;
  rg_serve_header r;
  if (!rg_serve_parse_reply(out, &r))
    return bad(why, why_size, "a malformed reply header", out, hl);
  unsigned long seq = key->seq % (RG_SERVE_NUMBER_MAX + 1);
  if (r.seq != seq) {
    snprintf(why, why_size,
             "a reply to query %lu where query %lu's was due (an extra or a missing frame)", r.seq,
             seq);
    return RG_REPLY_BAD;
  }
  if (strcmp(r.sha256, key->sha256)) {
    snprintf(why, why_size, "a reply for obligation %.16s..., not for the one asked (%.16s...)",
             r.sha256, key->sha256);
    return RG_REPLY_BAD;
  }
  if (r.len > ANSWER_MAX) {
    snprintf(why, why_size, "a reply of %lu bytes: an answer has at most %d", r.len, ANSWER_MAX);
    return RG_REPLY_BAD;
  }
  if (len < hl + r.len) return RG_REPLY_PARTIAL;
  if (len > hl + r.len)
    return bad(why, why_size, "bytes after the reply (an extra frame?)", out + hl + r.len,
               len - hl - r.len);
  *off = hl;
  *n = r.len;
  return RG_REPLY_WHOLE;
}

/* One-shot: a worker of a pool of its own for this one query, ended (SIGKILL) once the reply
 * is whole: tearing down a hard query's solver is no part of the answer. Without a whole
 * reply, its end is the answer (killed: timeout, signal: crash, an exit with a message: crash
 * with that text). */
rg_status rg_helper_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                          rg_solver_answer *ans, rg_err *err) {
  rg_solver_pool *p = rg_solver_pool_new();
  if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory sending a query to %s", s->name);
  rg_status st = rg_solver_prove_in(p, s, text, len, timeout_ms, ans, err);
  rg_solver_pool_free(p);
  return st;
}

/* The worker: the same helper, kept for query after query (it ends when its stdin does: the
 * pool closed it, or rulegen died). */
static rg_status helper_worker_start(const rg_solver *s, rg_child *c, rg_err *err) {
  return rg_solver_spawn(s, (const char *const[]){NULL}, c, err);
}

const rg_worker_protocol rg_helper_worker = {helper_worker_start, helper_request, helper_reply,
                                             false};
