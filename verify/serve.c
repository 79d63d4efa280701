/* verify/serve.c: the request loop of a solver helper program (serve.h). */
#define _GNU_SOURCE /* prctl */
#include "serve.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "smt.h"

#define QUERY_FMT "rg-query %010lu %010d %.64s %010lu\n"
#define REPLY_FMT "rg-reply %010lu %.64s %010lu\n"

void rg_serve_format_query(char *buf, const rg_serve_header *h) {
  snprintf(buf, RG_SERVE_QUERY_HEADER_LEN + 1, QUERY_FMT, h->seq, h->timeout_ms, h->sha256, h->len);
}

void rg_serve_format_reply(char *buf, const rg_serve_header *h) {
  snprintf(buf, RG_SERVE_REPLY_HEADER_LEN + 1, REPLY_FMT, h->seq, h->sha256, h->len);
}

/* Ten decimal digits at p into *v; false when any is not a digit. */
static bool number(const char *p, unsigned long *v) {
  *v = 0;
  for (int i = 0; i < 10; i++) {
    if (p[i] < '0' || p[i] > '9') return false;
    *v = *v * 10 + (unsigned long)(p[i] - '0');
  }
  return true;
}

/* 64 lowercase hex digits at p into sha (NUL-terminated). */
static bool hash(const char *p, char sha[65]) {
  for (int i = 0; i < 64; i++)
    if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return false;
  memcpy(sha, p, 64);
  sha[64] = 0;
  return true;
}

/* buf against a header's shape: the tag, then fields of the widths given (0 ends), each after
 * one space, then a newline. */
static bool shaped(const char *buf, const char *tag, const int *widths) {
  size_t at = strlen(tag);
  if (memcmp(buf, tag, at)) return false;
  for (int i = 0; widths[i]; i++) {
    if (buf[at] != ' ') return false;
    at += 1 + (size_t)widths[i];
  }
  return buf[at] == '\n';
}

bool rg_serve_parse_query(const char *buf, rg_serve_header *h) {
  static const int widths[] = {10, 10, 64, 10, 0};
  unsigned long timeout;
  memset(h, 0, sizeof *h);
  if (!shaped(buf, "rg-query", widths) || !number(buf + 9, &h->seq) ||
      !number(buf + 20, &timeout) || !hash(buf + 31, h->sha256) || !number(buf + 96, &h->len))
    return false;
  if (timeout < 1 || timeout > INT_MAX) return false;
  h->timeout_ms = (int)timeout;
  return true;
}

bool rg_serve_parse_reply(const char *buf, rg_serve_header *h) {
  static const int widths[] = {10, 64, 10, 0};
  memset(h, 0, sizeof *h);
  return shaped(buf, "rg-reply", widths) && number(buf + 9, &h->seq) &&
         hash(buf + 20, h->sha256) && number(buf + 85, &h->len);
}

static bool write_all(int fd, const void *buf, size_t n) {
  const char *s = buf;
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w;
    n -= (size_t)w;
  }
  return true;
}

/* Reads exactly n bytes; *got says how many came before EOF or an error. */
static bool read_all(int fd, void *buf, size_t n, size_t *got) {
  char *p = buf;
  *got = 0;
  while (*got < n) {
    ssize_t r = read(fd, p + *got, n - *got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    *got += (size_t)r;
  }
  return true;
}

/* Answers the request q (its script text) into a whole frame (its header first) and writes it
 * at once, so a reply is never left half-written by anything but a death mid-write. A script
 * whose hash is not the request's is answered with an error, never run: the reply vouches for
 * the obligation it names. False when memory ran out (nothing is sent: the client sees the
 * helper end) or the client is gone. */
static bool answer(int out_fd, const rg_serve_solver *solver, const rg_serve_header *q,
                   char *text) {
  rg_strbuf out;
  rg_sb_init(&out);
  char hdr[RG_SERVE_REPLY_HEADER_LEN + 1];
  memset(hdr, ' ', RG_SERVE_REPLY_HEADER_LEN);
  rg_sb_append(&out, hdr, RG_SERVE_REPLY_HEADER_LEN); /* filled in once the length is known */
  char sha[65];
  rg_sha256_hex(text, q->len, sha);
  if (strcmp(sha, q->sha256))
    rg_sb_printf(&out, "(error \"the script's SHA-256 is %s, not the request's %s\")\n", sha,
                 q->sha256);
  else
    solver->eval(text, q->timeout_ms, &out); /* may edit text: hashed above */
  bool sent = false;
  if (out.failed || out.len - RG_SERVE_REPLY_HEADER_LEN > RG_SERVE_NUMBER_MAX) {
    fprintf(stderr, "%s: %s\n", solver->who,
            out.failed ? "out of memory" : "an answer too long for its frame");
  } else {
    rg_serve_header r = *q;
    r.len = out.len - RG_SERVE_REPLY_HEADER_LEN;
    rg_serve_format_reply(hdr, &r);
    memcpy(out.s, hdr, RG_SERVE_REPLY_HEADER_LEN);
    sent = write_all(out_fd, out.s, out.len);
  }
  rg_sb_free(&out);
  return sent;
}

/* Answers in a fork of the helper: true when it replied. */
static bool answer_in_fork(int out_fd, const rg_serve_solver *solver, const rg_serve_header *q,
                           char *text) {
  pid_t helper = getpid();
  fflush(NULL); /* nothing buffered is written twice */
  pid_t pid = fork();
  if (pid == 0) {
    /* Dies with the helper: the client kills the helper (not this fork) at its deadline. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != helper) _exit(1);
    _exit(answer(out_fd, solver, q, text) ? 0 : 1);
  }
  if (pid < 0) {
    fprintf(stderr, "%s: cannot fork to answer a query: %s\n", solver->who, strerror(errno));
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) { /* the solver crashed: so does the helper, the same way */
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0; /* else it said why, or the client is gone */
}

int rg_serve(int in_fd, int out_fd, const rg_serve_solver *solver) {
  signal(SIGINT, SIG_DFL);
  /* Answered in the helper itself, a query reuses the memory the one before it freed instead of
   * having it returned to the system and faulted in again (z3: median 21 -> 13 ms, measured
   * with the same settings as glibc tunables); what a hard query leaves above 64 MB still goes. */
  if (solver->finish) {
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
  }
  char buf[RG_SERVE_QUERY_HEADER_LEN];
  size_t got;
  while (read_all(in_fd, buf, sizeof buf, &got)) {
    rg_serve_header q;
    if (!rg_serve_parse_query(buf, &q)) {
      fprintf(stderr, "%s: not a request header (rg-query SEQ TIMEOUT_MS SHA256 LENGTH)\n",
              solver->who);
      return 1;
    }
    char *text = q.len < SIZE_MAX ? malloc((size_t)q.len + 1) : NULL;
    if (!text || !read_all(in_fd, text, (size_t)q.len, &got)) {
      fprintf(stderr, "%s: %s\n", solver->who,
              text ? "input ended inside a request" : "out of memory");
      free(text);
      return 1;
    }
    text[q.len] = 0;
    if (solver->prepare) solver->prepare(q.timeout_ms);
    bool sent = solver->finish ? answer(out_fd, solver, &q, text)
                               : answer_in_fork(out_fd, solver, &q, text);
    if (solver->finish) solver->finish();
    free(text);
    if (!sent) return 1;
  }
  if (got != 0) {
    fprintf(stderr, "%s: input ended inside a request\n", solver->who);
    return 1;
  }
  return 0;
}
