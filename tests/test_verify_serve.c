/* tests/test_verify_serve.c: the solver helper programs (rulegen-z3 and rulegen-cvc5) and the
 * request loop they share (verify/serve.h): each request answered in a fork of the helper, from
 * the same prepared state, a fork's crash shown as the helper's, a fork dying with its helper;
 * the helpers found, and refused with clear errors; a helper that breaks is an answer; the cvc5
 * helper reads exactly the encoder's subset of SMT-LIB2 (anything else is an error, never a
 * verdict) and agrees with the cvc5 binary on true and false goals. */
#define _DEFAULT_SOURCE /* setenv, kill */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "verify/child.h"
#include "verify/serve.h"
#include "verify/smt.h"
#include "verify_helpers.h"

/* ---- the request loop, with a solver of this test's own ---- */

static int prepared; /* times prepare ran, counted in the helper */
static int answered; /* times eval ran, counted in the process it ran in */
static char hang_pid_path[64];

static void toy_prepare(int timeout_ms) {
  (void)timeout_ms;
  prepared++;
}

static void toy_eval(char *text, int timeout_ms, rg_strbuf *out) {
  answered++;
  if (strstr(text, "crash-me")) raise(SIGUSR1);
  if (strstr(text, "exit-me")) _exit(3);
  if (strstr(text, "hang-me")) {
    FILE *f = fopen(hang_pid_path, "w");
    if (f) fprintf(f, "%d\n", (int)getpid()), fclose(f);
    for (;;)
      pause();
  }
  rg_sb_printf(out, "unsat prepared=%d answered=%d ms=%d", prepared, answered, timeout_ms);
}

static const rg_serve_solver toy = {"toy", toy_prepare, toy_eval, NULL};

typedef struct {
  pid_t pid;
  int to, from;
} toy_helper;

static toy_helper start_toy(void) {
  int in[2], out[2];
  CHECK(pipe(in) == 0 && pipe(out) == 0);
  toy_helper h = {fork(), in[1], out[0]};
  if (h.pid == 0) {
    close(in[1]), close(out[0]);
    _exit(rg_serve(in[0], out[1], &toy));
  }
  close(in[0]), close(out[1]);
  return h;
}

static unsigned long toy_seq; /* the number of the last request sent */

/* A request as the client sends it (serve.h): its header names the next number and the hash of
 * sha_of (the script itself, unless a test says otherwise). */
static void send_request_as(const toy_helper *h, const char *text, const char *sha_of,
                            int timeout_ms) {
  rg_serve_header q = {++toy_seq, timeout_ms, "", (unsigned long)strlen(text)};
  rg_sha256_hex(sha_of, strlen(sha_of), q.sha256);
  char hdr[RG_SERVE_QUERY_HEADER_LEN + 1];
  rg_serve_format_query(hdr, &q);
  CHECK(write(h->to, hdr, RG_SERVE_QUERY_HEADER_LEN) == RG_SERVE_QUERY_HEADER_LEN);
  CHECK(write(h->to, text, strlen(text)) == (ssize_t)strlen(text));
}

static void send_request(const toy_helper *h, const char *text, int timeout_ms) {
  send_request_as(h, text, text, timeout_ms);
}

static bool read_exactly(int fd, char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r <= 0) return false;
    got += (size_t)r;
  }
  return true;
}

/* The next reply's text into buf, its header into *r; false when the helper ended first. */
static bool read_reply_header(const toy_helper *h, char *buf, size_t size, rg_serve_header *r) {
  char hdr[RG_SERVE_REPLY_HEADER_LEN];
  if (!read_exactly(h->from, hdr, sizeof hdr)) return false;
  CHECK_MSG(rg_serve_parse_reply(hdr, r), "not a reply header: %.96s", hdr);
  if (r->len >= size || !read_exactly(h->from, buf, r->len)) return false;
  buf[r->len] = 0;
  return true;
}

/* The same, checking that the reply echoes the last request's number. */
static bool read_reply(const toy_helper *h, char *buf, size_t size) {
  rg_serve_header r;
  if (!read_reply_header(h, buf, size, &r)) return false;
  CHECK_MSG(r.seq == toy_seq, "reply %lu to request %lu", r.seq, toy_seq);
  return true;
}

static int end_status(toy_helper *h) {
  close(h->to), close(h->from);
  int status = 0;
  CHECK(waitpid(h->pid, &status, 0) == h->pid);
  return status;
}

/* Dead: gone, or a zombie waiting for whoever inherited it. */
static bool dead(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return true;
  bool zombie = fgets(line, sizeof line, f) && strstr(line, ") Z ");
  fclose(f);
  return zombie;
}

/* Every reply echoes its request's number and hash; a script that does not hash to what its
 * request says is refused, never run; a header that is not one ends the helper (the stream
 * cannot be followed past it). */
static void test_serve_framing(void) {
  toy_helper h = start_toy();
  char buf[256];
  send_request(&h, "(check-sat)", 100);
  rg_serve_header r;
  CHECK(read_reply_header(&h, buf, sizeof buf, &r));
  char sha[65];
  rg_sha256_hex("(check-sat)", 11, sha);
  CHECK_MSG(r.seq == toy_seq && !strcmp(r.sha256, sha) && !strncmp(buf, "unsat", 5),
            "reply %lu %s: %s", r.seq, r.sha256, buf);
  send_request_as(&h, "(check-sat) ; crash-me", "(check-sat)", 100);
  CHECK(read_reply_header(&h, buf, sizeof buf, &r));
  CHECK_MSG(r.seq == toy_seq && !strcmp(r.sha256, sha) &&
                strstr(buf, "(error \"the script's SHA-256 is ") && strstr(buf, sha),
            "a script with another's hash: %s", buf);
  CHECK(write(h.to, "rg-query 1 2 3 4\n", 17) == 17); /* short fields: not a header */
  static const char pad[RG_SERVE_QUERY_HEADER_LEN];
  CHECK(write(h.to, pad, sizeof pad) == sizeof pad);
  CHECK(!read_reply(&h, buf, sizeof buf));
  int st = end_status(&h);
  CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "a bad header: status %#x", st);

  /* The header functions: each field its width, nothing else read as a header. */
  rg_serve_header q = {42, 5000, "", 12}, back;
  memcpy(q.sha256, sha, sizeof sha);
  char hdr[RG_SERVE_QUERY_HEADER_LEN + 1];
  rg_serve_format_query(hdr, &q);
  CHECK_MSG(strlen(hdr) == RG_SERVE_QUERY_HEADER_LEN && rg_serve_parse_query(hdr, &back) &&
                back.seq == 42 && back.timeout_ms == 5000 && back.len == 12 &&
                !strcmp(back.sha256, sha) && !rg_serve_parse_reply(hdr, &back),
            "%s", hdr);
  hdr[40] = 'A'; /* upper-case hex */
  CHECK(!rg_serve_parse_query(hdr, &back));
  rg_serve_format_reply(hdr, &q);
  CHECK(strlen(hdr) == RG_SERVE_REPLY_HEADER_LEN && rg_serve_parse_reply(hdr, &back) &&
        back.seq == 42 && back.len == 12);
  hdr[12] = ' ';
  CHECK(!rg_serve_parse_reply(hdr, &back));
}

/* Runs first, while this process has one thread (the helper is a fork of it). */
static void test_serve_loop(void) {
  toy_helper h = start_toy();
  char buf[256];
  /* Every request sees what prepare did in the helper, and a pristine count of its own. */
  for (int i = 1; i <= 3; i++) {
    send_request(&h, "(check-sat)", 100 * i);
    CHECK(read_reply(&h, buf, sizeof buf));
    char want[96];
    snprintf(want, sizeof want, "unsat prepared=%d answered=1 ms=%d", i, 100 * i);
    CHECK_MSG(!strcmp(buf, want), "reply %d: '%s'", i, buf);
  }
  int st = end_status(&h);
  CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0 && answered == 0, "end between requests: %#x",
            st);

  /* A fork that dies on a signal takes the helper down with the same signal: no reply. */
  h = start_toy();
  send_request(&h, "crash-me", 100);
  CHECK(!read_reply(&h, buf, sizeof buf));
  st = end_status(&h);
  CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1, "crash: status %#x", st);

  /* A fork that exits without its reply ends the helper with status 1. */
  h = start_toy();
  send_request(&h, "exit-me", 100);
  CHECK(!read_reply(&h, buf, sizeof buf));
  st = end_status(&h);
  CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit: status %#x", st);

  /* Input that ends inside a request: exit 1. */
  h = start_toy();
  CHECK(write(h.to, "rg-query 0000000001", 19) == 19);
  st = end_status(&h);
  CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "cut request: status %#x", st);

  test_serve_framing();

  /* The client kills a helper at its deadline: the fork working on the query dies with it. */
  snprintf(hang_pid_path, sizeof hang_pid_path, "/tmp/rg_serve_hang_%d", (int)getpid());
  remove(hang_pid_path);
  h = start_toy();
  send_request(&h, "hang-me", 100);
  int fork_pid = 0;
  for (int i = 0; i < 500 && !fork_pid; i++) {
    FILE *f = fopen(hang_pid_path, "r");
    if (!f || fscanf(f, "%d", &fork_pid) != 1) usleep(10000);
    if (f) fclose(f);
  }
  CHECK(fork_pid > 0 && !dead(fork_pid));
  kill(h.pid, SIGKILL);
  end_status(&h);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; i++) {
    gone = dead(fork_pid);
    if (!gone) usleep(10000);
  }
  CHECK_MSG(gone, "the fork %d outlived its helper", fork_pid);
  remove(hang_pid_path);
}

/* ---- the helper programs ---- */

static const struct {
  rg_solver_kind kind;
  const char *program, *env;
} helpers[] = {{RG_SOLVER_Z3, "rulegen-z3", "RG_Z3_HELPER"},
               {RG_SOLVER_CVC5, "rulegen-cvc5", "RG_CVC5_HELPER"}};

/* The answer to a query run by the helper the environment names (a fake one). */
static rg_solver_answer with_fake_helper(int h, const char *fake, int timeout_ms, bool pool) {
  rg_solver_answer a;
  memset(&a, 0, sizeof a);
  rg_solver s;
  rg_err err;
  setenv(helpers[h].env, fake, 1);
  CHECK_MSG(rg_solver_init(&s, helpers[h].kind, NULL, &err) == RG_OK, "%s: %s", fake, err.msg);
  CHECK(s.helper && s.version[0] && !strcmp(s.path, fake));
  rg_solver_pool *p = pool ? rg_solver_pool_new() : NULL;
  CHECK(p || !pool);
  rg_status st = p ? rg_solver_prove_in(p, &s, "(check-sat)\n", 12, timeout_ms, &a, &err)
                   : rg_solver_prove(&s, "(check-sat)\n", 12, timeout_ms, &a, &err);
  CHECK_MSG(st == RG_OK, "%s: %s", fake, err.msg);
  rg_solver_pool_free(p);
  unsetenv(helpers[h].env);
  return a;
}

/* Each helper: found at the path this build compiled in (these tests are not next to it); its
 * environment variable overrides that, with a clear error when it names nothing that works.
 * It answers framed requests until its input ends, then exits 0 having printed nothing else
 * (in the ASan build: no leak report); one that ends without a whole reply gives the answer of
 * its end. */
static void test_helper_programs(void) {
  for (int h = 0; h < 2; h++) {
    rg_solver s;
    rg_err err;
    CHECK_MSG(rg_solver_init(&s, helpers[h].kind, NULL, &err) == RG_OK, "%s", err.msg);
    CHECK_MSG(s.helper && strstr(s.path, helpers[h].program) && s.version[0] >= '1' &&
                  s.version[0] <= '9',
              "helper '%s', version '%s'", s.path, s.version);
    static const char *scripts[] = {"(check-sat)\n", "(assert false)\n(check-sat)\n"},
                      *answers[] = {"sat\n", "unsat\n"};
    rg_strbuf req, want;
    rg_sb_init(&req);
    rg_sb_init(&want);
    for (unsigned long i = 0; i < 2; i++) {
      char hdr[RG_SERVE_QUERY_HEADER_LEN + 1];
      rg_serve_header q = {i + 7, 1000, "", (unsigned long)strlen(scripts[i])};
      rg_sha256_hex(scripts[i], strlen(scripts[i]), q.sha256);
      rg_serve_format_query(hdr, &q);
      rg_sb_puts(&req, hdr);
      rg_sb_puts(&req, scripts[i]);
      q.len = strlen(answers[i]);
      rg_serve_format_reply(hdr, &q);
      rg_sb_puts(&want, hdr);
      rg_sb_puts(&want, answers[i]);
    }
    char *argv[] = {s.path, NULL};
    rg_child_result res;
    CHECK(rg_child_run(argv, req.s, req.len, 20000, &res, &err) == RG_OK);
    CHECK_MSG(res.exit_code == 0 && res.len == want.len && !memcmp(res.output, want.s, res.len) &&
                  !res.err_len,
              "%s exited %d with %zu bytes: %.300s (stderr: %.300s)", helpers[h].program,
              res.exit_code, res.len, res.output, res.errors ? res.errors : "");
    rg_child_result_free(&res);
    CHECK(rg_child_run(argv, req.s, 60, 20000, &res, &err) == RG_OK);
    CHECK(res.exit_code == 1 && res.errors && strstr(res.errors, "input ended inside a request"));
    rg_child_result_free(&res);
    rg_sb_free(&req);
    rg_sb_free(&want);

    char missing[96];
    snprintf(missing, sizeof missing, "/nonexistent/%s", helpers[h].program);
    setenv(helpers[h].env, missing, 1);
    CHECK(rg_solver_init(&s, helpers[h].kind, NULL, &err) == RG_ERR_IO);
    CHECK_MSG(strstr(err.msg, helpers[h].env) && strstr(err.msg, "(not found)") &&
                  strstr(err.msg, "scripts/build.sh"),
              "%s", err.msg);
    setenv(helpers[h].env, "data/taso-133.rules", 1);
    CHECK(rg_solver_init(&s, helpers[h].kind, NULL, &err) == RG_ERR_IO);
    CHECK_MSG(strstr(err.msg, "data/taso-133.rules (not executable)"), "%s", err.msg);
    setenv(helpers[h].env, "data/fake_solver.sh", 1); /* runs, but is no helper */
    CHECK(rg_solver_init(&s, helpers[h].kind, NULL, &err) == RG_ERR_IO);
    CHECK_MSG(strstr(err.msg, "'data/fake_solver.sh' does not run"), "%s", err.msg);
    unsetenv(helpers[h].env);

    for (int pool = 0; pool < 2; pool++) {
      rg_solver_answer a = with_fake_helper(h, "data/fake_helper_crash.sh", 1000, pool);
      CHECK_MSG(a.result == RG_SMT_CRASH && strstr(a.detail, "signal 11"), "crash: %s (%s)",
                rg_smt_result_name(a.result), a.detail);
      double t0 = now_s();
      a = with_fake_helper(h, "data/fake_helper_hang.sh", 100, pool);
      CHECK_MSG(a.result == RG_SMT_TIMEOUT && now_s() - t0 < 5.0, "hang: %s after %.1f s",
                rg_smt_result_name(a.result), now_s() - t0);
    }
    rg_solver_answer a = with_fake_helper(h, "data/fake_helper_exit.sh", 1000, false);
    CHECK_MSG(a.result == RG_SMT_CRASH &&
                  strstr(a.detail, "status 3: rulegen-fake: broken on purpose"),
              "exit: %s (%s)", rg_smt_result_name(a.result), a.detail);
  }
}

/* Helpers that reply wrongly (tests/data/fake_helper_reply.sh): only exactly one well-formed
 * reply to the query asked, echoing its number and hash, with exactly one verdict (and after
 * unsat one complete core) is an answer; everything else is an error answer that says what was
 * wrong, with what the helper printed escaped, and never a proof. A helper that floods its
 * stderr is stopped and said to have, not reported as a timeout. */
static void test_fake_replies(void) {
  static const struct {
    const char *fake, *says;
  } bad[] = {
      {"data/fake_helper_reply_unclosed.sh", "unsat without one complete unsat core of names"},
      {"data/fake_helper_reply_twice.sh", "text after the unsat core: '\\x0asat\\x0a'"},
      {"data/fake_helper_reply_extra.sh", "bytes after the reply (an extra frame?): 'rg-reply"},
      {"data/fake_helper_reply_seq.sh", "a reply to query 2 where query 1's was due"},
      {"data/fake_helper_reply_hash.sh", "a reply for obligation 0000000000000000..., not for"},
      {"data/fake_helper_reply_escape.sh", "evil \\x1b[2J\\x1b]0;pwned\\x07 done"},
      {"data/fake_helper_reply_flood.sh", "wrote more than 65536 bytes to stderr"},
  };
  for (int h = 0; h < 2; h++)
    for (int pool = 0; pool < 2; pool++) {
      rg_solver_answer a = with_fake_helper(h, "data/fake_helper_reply_good.sh", 1000, pool);
      CHECK_MSG(a.result == RG_SMT_UNSAT && !strcmp(a.core, "fake-axiom"), "good: %s [%s] %s",
                rg_smt_result_name(a.result), a.core, a.detail);
      for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double t0 = now_s();
        a = with_fake_helper(h, bad[i].fake, 5000, pool);
        bool escaped = !strchr(a.detail, '\033') && !strchr(a.detail, '\a');
        CHECK_MSG(a.result == RG_SMT_ERROR && strstr(a.detail, bad[i].says) && escaped &&
                      now_s() - t0 < 4.0,
                  "%s: %s (%s) after %.1f s", bad[i].fake, rg_smt_result_name(a.result), a.detail,
                  now_s() - t0);
      }
    }
  /* An extra frame that comes after its reply was taken is found where the next reply is due:
   * that query is an error (no longer the extra frame's unsat), and the next one goes to a
   * fresh helper. */
  setenv("RG_Z3_HELPER", "data/fake_helper_reply_late.sh", 1);
  rg_solver s;
  rg_err err;
  CHECK(rg_solver_init(&s, RG_SOLVER_Z3, NULL, &err) == RG_OK);
  rg_solver_pool *p = rg_solver_pool_new();
  for (int i = 0; i < 4; i++) {
    rg_solver_answer a;
    CHECK(rg_solver_prove_in(p, &s, "(check-sat)\n", 12, 1000, &a, &err) == RG_OK);
    char says[96];
    snprintf(says, sizeof says, "a reply to query %d where query %d's was due", i, i + 1);
    CHECK_MSG(i % 2 ? a.result == RG_SMT_ERROR && strstr(a.detail, says) : a.result == RG_SMT_SAT,
              "query %d: %s (%s)", i + 1, rg_smt_result_name(a.result), a.detail);
  }
  rg_solver_pool_free(p);
  unsetenv("RG_Z3_HELPER");
}

/* ---- what the cvc5 helper reads ---- */

static rg_solver_answer cvc5_answer(const char *script) {
  rg_solver s;
  rg_err err;
  rg_solver_answer a;
  CHECK(rg_solver_init(&s, RG_SOLVER_CVC5, NULL, &err) == RG_OK);
  CHECK_MSG(rg_solver_prove(&s, script, strlen(script), 5000, &a, &err) == RG_OK, "%s", err.msg);
  return a;
}

static const char prelude[] =
    "(set-option :produce-unsat-cores true)\n(set-logic UFLIA)\n"
    "(declare-sort T 0)\n(declare-fun f (Int T) T)\n(declare-const a T)\n";

/* The encoder's constructs, each read as cvc5's own front end reads it (named assertions,
 * patterns, chained comparisons, ite, unary minus); the core names the named assertions used,
 * and only those. Anything outside the subset is an error that names the line, never a
 * verdict; an answer before the error stands. */
static void test_cvc5_subset(void) {
  char script[2048];
  snprintf(
      script, sizeof script,
      "%s; a comment\n"
      "(assert (! (forall ((k Int) (x T)) (! (=> (<= 0 k 3) (= (f k x) x)) :pattern ((f k x)))) "
      ":named id))\n"
      "(assert (! (forall ((k Int) (x T)) (= (f (ite (< k 0) (- k) (+ k 0)) x) (f k x))) :named "
      "unused))\n"
      "(assert (! (not (= (f (- 2 (- 1)) a) a)) :named goal))\n(check-sat)\n(get-unsat-core)\n",
      prelude);
  rg_solver_answer x = cvc5_answer(script);
  CHECK_MSG(x.result == RG_SMT_UNSAT && !strcmp(x.core, "id"), "%s [%s] %s",
            rg_smt_result_name(x.result), x.core, x.detail);
  /* sat, then the core request is refused: the answer stands */
  x = cvc5_answer(
      "(declare-const b Int)\n(assert (! (< 2 b) :named g))\n(check-sat)\n(get-unsat-core)\n");
  CHECK_MSG(x.result == RG_SMT_SAT, "%s %s", rg_smt_result_name(x.result), x.detail);
  static const struct {
    const char *script, *says;
  } bad[] = {
      {"(push 1)\n(check-sat)\n", "line 1: command push is not read"},
      {"(assert (frobnicate))\n(check-sat)\n", "unknown symbol frobnicate"},
      {"(declare-const |odd name| Int)\n(check-sat)\n", "line 1: unexpected '|'"},
      {"(declare-sort T 1)\n(check-sat)\n", "only sorts of arity 0"},
      {"(assert (! true :pattern (true)))\n(check-sat)\n", "annotation :pattern is not read here"},
      {"(assert (and true (! true :named n)))\n(check-sat)\n", "an annotation (!) is read only"},
      {"(declare-fun g (Real) Int)\n(check-sat)\n", "unknown sort Real"},
      {"(assert (= 1 1)\n(check-sat)\n", "expected ')'"},
      {"(check-sat)\n(get-unsat-core)\n", "no unsat core"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    x = cvc5_answer(bad[i].script);
    bool after_sat = strstr(bad[i].script, "get-unsat-core") != NULL;
    CHECK_MSG(after_sat ? x.result == RG_SMT_SAT
                        : x.result == RG_SMT_ERROR && strstr(x.detail, bad[i].says),
              "'%s': %s (%s)", bad[i].script, rg_smt_result_name(x.result), x.detail);
  }
}

/* On the encoder's obligations the helper and the cvc5 binary agree: true goals unsat with the
 * same core, false ones never unsat. */
static void test_cvc5_helper_matches_binary(const rg_axioms *ax) {
  static const struct {
    const char *text;
    bool holds;
  } goals[] = {
      {"(transpose 10 (matmul (matmul ?a ?b) ?c)) => (matmul (transpose 10 ?c) (matmul (transpose "
       "10 ?b) (transpose 10 ?a)))",
       true},
      {"(split.1 1 (concat 1 (matmul ?x ?w) (matmul ?x ?v))) => (matmul ?x ?v)", true},
      {"(ewmul (ewadd ?a ?b) ?c) => (ewadd (ewmul ?c ?b) (ewmul ?a ?c))", true},
      {"(matmul ?x ?y) => (matmul ?y ?x)", false},
      {"(relu (ewadd ?x ?y)) => (ewadd (relu ?x) (relu ?y))", false},
  };
  rg_solver helper, binary;
  rg_err err;
  CHECK(rg_solver_init(&helper, RG_SOLVER_CVC5, NULL, &err) == RG_OK && helper.helper);
  CHECK_MSG(rg_solver_init(&binary, RG_SOLVER_CVC5, "cvc5", &err) == RG_OK && !binary.helper, "%s",
            err.msg);
  CHECK(!strcmp(helper.version, binary.version));
  for (size_t i = 0; i < sizeof goals / sizeof *goals; i++) {
    rg_rule *r = NULL;
    CHECK_MSG(rg_text_parse_rule(goals[i].text, &r, &err) == RG_OK, "%s: %s", goals[i].text,
              err.msg);
    if (!r) continue;
    rg_obligation ob;
    CHECK(rg_smt_encode(r, 0, ax, false, &ob, &err) == RG_OK);
    rg_solver_answer h, b;
    int tl = goals[i].holds ? 10000 : 300;
    CHECK(rg_solver_prove(&helper, ob.text, ob.len, tl, &h, &err) == RG_OK);
    CHECK(rg_solver_prove(&binary, ob.text, ob.len, tl, &b, &err) == RG_OK);
    if (goals[i].holds)
      CHECK_MSG(h.result == RG_SMT_UNSAT && b.result == RG_SMT_UNSAT && !strcmp(h.core, b.core),
                "%s: helper %s [%s], binary %s [%s]", goals[i].text, rg_smt_result_name(h.result),
                h.core, rg_smt_result_name(b.result), b.core);
    else
      CHECK_MSG(h.result != RG_SMT_UNSAT && b.result != RG_SMT_UNSAT, "%s proved", goals[i].text);
    rg_obligation_free(&ob);
    rg_rule_free(r);
  }
}

int main(void) {
  test_serve_loop();
  rg_axioms ax;
  load_axioms(&ax);
  test_helper_programs();
  test_fake_replies();
  test_cvc5_subset();
  test_cvc5_helper_matches_binary(&ax);
  rg_axioms_free(&ax);
  return check_done("test_verify_serve");
}
