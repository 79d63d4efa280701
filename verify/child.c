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

double rg_child_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Runs in the child after fork: only dup2/exec/_exit (async-signal-safe, as a fork taken while
 * other threads run requires). */
static void child_main(char *const *argv, int in_fd, int out_fd) {
  if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(126);
  if (in_fd > 2) close(in_fd);
  if (out_fd > 2) close(out_fd);
  execvp(argv[0], argv);
  static const char msg[] = "exec failed\n";
  if (write(2, msg, sizeof msg - 1) < 0) _exit(127);
  _exit(127);
}

static rg_status append(rg_child_result *res, const char *buf, size_t n, rg_err *err) {
  if (res->len + n + 1 > res->cap) {
    size_t nc = (res->cap ? res->cap * 2 : 4096);
    while (nc < res->len + n + 1) nc *= 2;
    char *p = realloc(res->output, nc);
    if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory reading a solver's answer");
    res->output = p;
    res->cap = nc;
  }
  memcpy(res->output + res->len, buf, n);
  res->len += n;
  res->output[res->len] = 0;
  return RG_OK;
}

rg_status rg_child_start(char *const *argv, rg_child *c, rg_err *err) {
  c->pid = 0;
  c->in_fd = c->out_fd = -1;
  int in_sock[2] = {-1, -1}, out_pipe[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sock) < 0 || pipe2(out_pipe, O_CLOEXEC) < 0) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (in_sock[i] >= 0) close(in_sock[i]);
      if (out_pipe[i] >= 0) close(out_pipe[i]);
    }
    return rg_err_set(err, RG_ERR_IO, "cannot create pipes for a solver process: %s", strerror(e));
  }
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    for (int i = 0; i < 2; i++) close(in_sock[i]), close(out_pipe[i]);
    return rg_err_set(err, RG_ERR_IO, "cannot start a solver process: %s", strerror(e));
  }
  if (pid == 0) {
    /* CLOEXEC fds are closed by exec; dup2 copies do not inherit the flag. */
    close(in_sock[0]);
    close(out_pipe[0]);
    child_main(argv, in_sock[1], out_pipe[1]);
  }
  close(in_sock[1]);
  close(out_pipe[1]);
  c->pid = pid;
  c->in_fd = in_sock[0];
  c->out_fd = out_pipe[0];
  fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
  return RG_OK;
}

rg_status rg_child_exchange(rg_child *c, const char *input, size_t input_len, bool close_input,
                            double deadline_ms, rg_child_done_fn done, void *ctx,
                            rg_child_result *res, rg_child_end_reason *why, rg_err *err) {
  double t0 = rg_child_now_ms();
  size_t sent = 0;
  if (input_len == 0 && close_input) shutdown(c->in_fd, SHUT_WR);
  rg_status st = RG_OK;
  *why = RG_CHILD_EOF;
  while (!st) {
    if (done && done(res->output ? res->output : "", res->len, ctx)) {
      *why = RG_CHILD_REPLIED;
      break;
    }
    struct pollfd pf[2] = {{c->out_fd, POLLIN, 0}, {c->in_fd, POLLOUT, 0}};
    int npf = sent < input_len ? 2 : 1;
    double left = deadline_ms - rg_child_now_ms();
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
    if (npf == 2 && pf[1].revents) {
      ssize_t w = send(c->in_fd, input + sent, input_len - sent, MSG_NOSIGNAL);
      if (w > 0) sent += (size_t)w;
      if (w < 0 && errno != EAGAIN && errno != EINTR) sent = input_len; /* child closed stdin */
      if (sent >= input_len && close_input) shutdown(c->in_fd, SHUT_WR);
    }
    if (pf[0].revents) {
      char buf[8192];
      ssize_t n = read(c->out_fd, buf, sizeof buf);
      if (n > 0)
        st = append(res, buf, (size_t)n, err);
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        break; /* EOF: the child closed its output (normally: it ended) */
    }
  }
  if (!st && !res->output) st = append(res, "", 0, err);
  res->ms = rg_child_now_ms() - t0;
  return st;
}

void rg_child_end(rg_child *c, bool kill_now, double deadline_ms, rg_child_result *res) {
  if (c->pid <= 0) return;
  close(c->in_fd);
  close(c->out_fd);
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
    if (r == 0 && rg_child_now_ms() > deadline_ms) {
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
  c->in_fd = c->out_fd = -1;
}

rg_status rg_child_run(char *const *argv, const char *input, size_t input_len, int kill_ms,
                       rg_child_result *res, rg_err *err) {
  memset(res, 0, sizeof *res);
  res->exit_code = -1;
  double t0 = rg_child_now_ms(), deadline = t0 + kill_ms;
  rg_child c;
  rg_status st = rg_child_start(argv, &c, err);
  if (st) return st;
  rg_child_end_reason why;
  st = rg_child_exchange(&c, input, input_len, true, deadline, NULL, NULL, res, &why, err);
  res->killed = why == RG_CHILD_LATE;
  rg_child_end(&c, st || why == RG_CHILD_LATE, deadline, res);
  res->ms = rg_child_now_ms() - t0;
  return st;
}

void rg_child_result_free(rg_child_result *res) {
  free(res->output);
  res->output = NULL;
}
