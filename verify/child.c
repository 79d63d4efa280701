/* verify/child.c: solver child processes, killed at their deadline (see child.h). */
#define _GNU_SOURCE
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ir/ir.h"

/* Runs in the child after fork: only dup2/exec/_exit (async-signal-safe, as a fork taken while
 * other threads run requires). */
static void child_main(char *const *argv, int in_fd, int out_fd, int err_fd) {
  if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(126);
  if (in_fd > 2) close(in_fd);
  if (out_fd > 2) close(out_fd);
  if (err_fd > 2) close(err_fd);
  execvp(argv[0], argv);
  static const char msg[] = "exec failed\n";
  if (write(2, msg, sizeof msg - 1) < 0) _exit(127);
  _exit(127);
}

/* Appends n bytes to the growing buffer *s (length *len, capacity *cap), NUL-terminated. */
static rg_status append_to(char **s, size_t *len, size_t *cap, const char *buf, size_t n,
                           rg_err *err) {
  if (*len + n + 1 > *cap) {
    size_t nc = (*cap ? *cap * 2 : 4096);
    while (nc < *len + n + 1) nc *= 2;
    char *p = realloc(*s, nc);
    if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory reading a solver's answer");
    *s = p;
    *cap = nc;
  }
  memcpy(*s + *len, buf, n);
  *len += n;
  (*s)[*len] = 0;
  return RG_OK;
}

static rg_status append(rg_child_result *res, const char *buf, size_t n, rg_err *err) {
  return append_to(&res->output, &res->len, &res->cap, buf, n, err);
}

/* Reads what the child's stderr holds now (err_fd is non-blocking) into res->errors. Returns
 * false when it is at its end (EOF or an error other than "nothing yet"); sets res->flooded
 * when it passes its bound. */
static bool read_errors(int err_fd, rg_child_result *res, rg_status *st, rg_err *err) {
  for (;;) {
    char buf[8192];
    ssize_t n = read(err_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) return false;
    *st = append_to(&res->errors, &res->err_len, &res->err_cap, buf, (size_t)n, err);
    if (*st) return false;
    if (res->err_len > RG_CHILD_ERRORS_MAX) {
      res->flooded = 2;
      return true;
    }
  }
}

static void close_all(int *fds, int n) {
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0) close(fds[i]);
}

rg_status rg_child_start(char *const *argv, rg_child *c, rg_err *err) {
  c->pid = 0;
  c->in_fd = c->out_fd = c->err_fd = -1;
  /* [0], [1]: its stdin (a socket); [2], [3]: its stdout; [4], [5]: its stderr. */
  int fd[6] = {-1, -1, -1, -1, -1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) < 0 || pipe2(fd + 2, O_CLOEXEC) < 0 ||
      pipe2(fd + 4, O_CLOEXEC) < 0) {
    int e = errno;
    close_all(fd, 6);
    return rg_err_set(err, RG_ERR_IO, "cannot create pipes for a solver process: %s", strerror(e));
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close_all(fd, 6);
    return rg_err_set(err, RG_ERR_IO, "cannot start a solver process: %s", strerror(e));
  }
  if (pid == 0) {
    /* CLOEXEC fds are closed by exec; dup2 copies do not inherit the flag. */
    close(fd[0]);
    close(fd[2]);
    close(fd[4]);
    child_main(argv, fd[1], fd[3], fd[5]);
  }
  close(fd[1]);
  close(fd[3]);
  close(fd[5]);
  c->pid = pid;
  c->in_fd = fd[0];
  c->out_fd = fd[2];
  c->err_fd = fd[4];
  fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
  fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
  return RG_OK;
}

rg_status rg_child_exchange(rg_child *c, const char *input, size_t input_len, bool close_input,
                            double deadline_ms, rg_child_done_fn done, void *ctx,
                            rg_child_result *res, rg_child_end_reason *why, rg_err *err) {
  double t0 = rg_clock_ms();
  size_t sent = 0;
  if (input_len == 0 && close_input) shutdown(c->in_fd, SHUT_WR);
  rg_status st = RG_OK;
  bool err_open = c->err_fd >= 0; /* its stderr may still say something */
  *why = RG_CHILD_EOF;
  while (!st) {
    if (res->flooded || res->len > RG_CHILD_OUTPUT_MAX) {
      res->flooded = res->flooded ? res->flooded : 1;
      *why = RG_CHILD_FLOOD;
      break;
    }
    if (done && done(res->output ? res->output : "", res->len, ctx)) {
      *why = RG_CHILD_REPLIED;
      break;
    }
    /* [2] is ignored (fd -1) once its stderr is at its end. */
    struct pollfd pf[3] = {{c->out_fd, POLLIN, 0},
                           {err_open ? c->err_fd : -1, POLLIN, 0},
                           {c->in_fd, POLLOUT, 0}};
    int npf = sent < input_len ? 3 : 2;
    double left = deadline_ms - rg_clock_ms();
    if (left <= 0) {
      *why = RG_CHILD_LATE;
      break;
    }
    int pr = poll(pf, (nfds_t)npf, left > 100 ? 100 : (int)left + 1);
    if (pr < 0 && errno != EINTR) {
      st = rg_err_set(err, RG_ERR_IO, "waiting for a solver process: %s", strerror(errno));
      break;
    }
    if (pr <= 0) continue;
    if (npf == 3 && pf[2].revents) {
      ssize_t w = send(c->in_fd, input + sent, input_len - sent, MSG_NOSIGNAL);
      if (w > 0) sent += (size_t)w;
      if (w < 0 && errno != EAGAIN && errno != EINTR) sent = input_len; /* child closed stdin */
      if (sent >= input_len && close_input) shutdown(c->in_fd, SHUT_WR);
    }
    if (pf[1].revents) err_open = read_errors(c->err_fd, res, &st, err);
    if (pf[0].revents) {
      char buf[8192];
      ssize_t n = read(c->out_fd, buf, sizeof buf);
      if (n > 0) {
        if (!st) st = append(res, buf, (size_t)n, err);
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        /* EOF: the child closed its stdout (normally: it ended); what it said on stderr
         * before that is in the pipe already. */
        if (err_open && !st) read_errors(c->err_fd, res, &st, err);
        if (res->flooded) *why = RG_CHILD_FLOOD;
        break;
      }
    }
  }
  if (!st && !res->output) st = append(res, "", 0, err);
  res->ms = rg_clock_ms() - t0;
  return st;
}

void rg_child_end(rg_child *c, bool kill_now, double deadline_ms, rg_child_result *res) {
  if (c->pid <= 0) return;
  close(c->in_fd);
  close(c->out_fd);
  if (c->err_fd >= 0) close(c->err_fd);
  bool killed = false;
  if (kill_now) kill(c->pid, SIGKILL);
  int status = 0;
  /* Its output is closed: it is ending. Wait for it, but never past the deadline. */
  for (;;) {
    pid_t r = waitpid(c->pid, &status, kill_now ? 0 : WNOHANG);
    if (r == c->pid) break;
    if (r < 0 && errno != EINTR) { /* not our child any more: nothing to reap */
      status = 0;
      break;
    }
    if (r == 0 && rg_clock_ms() > deadline_ms) {
      killed = kill_now = true;
      kill(c->pid, SIGKILL);
    } else if (r == 0) {
      struct timespec ts = {0, 1000000};
      nanosleep(&ts, NULL);
    }
  }
  if (res) {
    res->killed |= killed;
    if (WIFEXITED(status)) res->exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) res->signal = WTERMSIG(status);
  }
  c->pid = 0;
  c->in_fd = c->out_fd = c->err_fd = -1;
}

rg_status rg_child_run(char *const *argv, const char *input, size_t input_len, int kill_ms,
                       rg_child_result *res, rg_err *err) {
  memset(res, 0, sizeof *res);
  res->exit_code = -1;
  double t0 = rg_clock_ms(), deadline = t0 + kill_ms;
  rg_child c;
  rg_status st = rg_child_start(argv, &c, err);
  if (st) return st;
  rg_child_end_reason why;
  st = rg_child_exchange(&c, input, input_len, true, deadline, NULL, NULL, res, &why, err);
  res->killed = why == RG_CHILD_LATE;
  rg_child_end(&c, st || why == RG_CHILD_LATE || why == RG_CHILD_FLOOD, deadline, res);
  res->ms = rg_clock_ms() - t0;
  return st;
}

void rg_child_result_free(rg_child_result *res) {
  free(res->output);
  free(res->errors);
  res->output = res->errors = NULL;
}
