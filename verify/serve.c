/* verify/serve.c: the request loop of a solver helper program (serve.h). */
#define _GNU_SOURCE /* prctl */
#include "serve.h"

#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Answers text into a whole frame (its length first) and writes it at once, so a reply is
 * never left half-written between its length and its text by anything but a death mid-write.
 * False when memory ran out (nothing is sent: the client sees the helper end) or the client
 * is gone. */
static bool answer(int out_fd, const rg_serve_solver *solver, char *text, int timeout_ms) {
  rg_strbuf out;
  rg_sb_init(&out);
  rg_sb_append(&out, "\0\0\0\0", 4);
  solver->eval(text, timeout_ms, &out);
  bool sent = false;
  if (out.failed) {
    fprintf(stderr, "%s: out of memory\n", solver->who);
  } else {
    uint32_t n = (uint32_t)(out.len - 4);
    memcpy(out.s, &n, sizeof n);
    sent = write_all(out_fd, out.s, out.len);
  }
  rg_sb_free(&out);
  return sent;
}

/* Answers in a fork of the helper: true when it replied. */
static bool answer_in_fork(int out_fd, const rg_serve_solver *solver, char *text, int timeout_ms) {
  pid_t helper = getpid();
  fflush(NULL); /* nothing buffered is written twice */
  pid_t pid = fork();
  if (pid == 0) {
    /* Dies with the helper: the client kills the helper (not this fork) at its deadline. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != helper) _exit(1);
    _exit(answer(out_fd, solver, text, timeout_ms) ? 0 : 1);
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
  uint32_t hdr[2];
  size_t got;
  while (read_all(in_fd, hdr, sizeof hdr, &got)) {
    char *text = malloc((size_t)hdr[0] + 1);
    if (!text || !read_all(in_fd, text, hdr[0], &got)) {
      fprintf(stderr, "%s: %s\n", solver->who,
              text ? "input ended inside a request" : "out of memory");
      free(text);
      return 1;
    }
    text[hdr[0]] = 0;
    if (solver->prepare) solver->prepare((int)hdr[1]);
    bool sent = solver->finish ? answer(out_fd, solver, text, (int)hdr[1])
                               : answer_in_fork(out_fd, solver, text, (int)hdr[1]);
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
