/* verify/child.c: a child process per solver query, killed at its deadline (see child.h). */
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

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Runs in the child after fork: only dup2/exec/_exit, or the caller's function. */
static void child_main(char *const *argv, rg_child_fn fn, void *arg, int in_fd, int out_fd) {
  if (argv) {
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(126);
    if (in_fd > 2) close(in_fd);
    if (out_fd > 2) close(out_fd);
    execvp(argv[0], argv);
    static const char msg[] = "exec failed\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(127);
    _exit(127);
  }
  /* Without exec, CLOEXEC does not apply: drop every other descriptor (other threads' solver
   * pipes among them), so no unrelated pipe stays open until this child ends. */
  if (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(126);
  close_range(3, ~0U, 0);
  /* The parent's Ctrl-C handler only sets a flag; a child must simply die on Ctrl-C. */
  signal(SIGINT, SIG_DFL);
  _exit(fn(arg, 1));
}

static rg_status append(rg_child_result *res, size_t *cap, const char *buf, size_t n, rg_err *err) {
  if (res->len + n + 1 > *cap) {
    size_t nc = (*cap ? *cap * 2 : 4096);
    while (nc < res->len + n + 1) nc *= 2;
    char *p = realloc(res->output, nc);
    if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory reading a solver's answer");
    res->output = p;
    *cap = nc;
  }
  memcpy(res->output + res->len, buf, n);
  res->len += n;
  res->output[res->len] = 0;
  return RG_OK;
}

rg_status rg_child_run(char *const *argv, rg_child_fn fn, void *arg, const char *input,
                       size_t input_len, int kill_ms, rg_child_result *res, rg_err *err) {
  memset(res, 0, sizeof *res);
  res->exit_code = -1;
  int in_sock[2] = {-1, -1}, out_pipe[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sock) < 0 || pipe2(out_pipe, O_CLOEXEC) < 0) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (in_sock[i] >= 0) close(in_sock[i]);
      if (out_pipe[i] >= 0) close(out_pipe[i]);
    }
    return rg_err_set(err, RG_ERR_IO, "cannot create pipes for a solver process: %s", strerror(e));
  }
  double t0 = now_ms();
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
    child_main(argv, fn, arg, in_sock[1], out_pipe[1]);
  }
  close(in_sock[1]);
  close(out_pipe[1]);
  int in_fd = in_sock[0], out_fd = out_pipe[0];
  fcntl(in_fd, F_SETFL, O_NONBLOCK);
  size_t sent = 0, cap = 0;
  if (!argv || input_len == 0) {
    shutdown(in_fd, SHUT_WR);
    sent = input_len;
  }
  rg_status st = RG_OK;
  double deadline = t0 + kill_ms;
  while (!st) {
    struct pollfd pf[2] = {{out_fd, POLLIN, 0}, {in_fd, POLLOUT, 0}};
    int npf = sent < input_len ? 2 : 1;
    double left = deadline - now_ms();
    if (left <= 0) {
      res->killed = true;
      kill(pid, SIGKILL);
      break;
    }
    int pr = poll(pf, (nfds_t)npf, left > 100 ? 100 : (int)left + 1);
    if (pr < 0 && errno != EINTR) {
      st = rg_err_set(err, RG_ERR_IO, "waiting for a solver process: %s", strerror(errno));
      kill(pid, SIGKILL);
      break;
    }
    if (pr <= 0) continue;
    if (npf == 2 && pf[1].revents) {
      ssize_t w = send(in_fd, input + sent, input_len - sent, MSG_NOSIGNAL);
      if (w > 0) sent += (size_t)w;
      if (w < 0 && errno != EAGAIN && errno != EINTR) sent = input_len; /* child closed stdin */
      if (sent >= input_len) shutdown(in_fd, SHUT_WR);
    }
    if (pf[0].revents) {
      char buf[8192];
      ssize_t n = read(out_fd, buf, sizeof buf);
      if (n > 0)
        st = append(res, &cap, buf, (size_t)n, err);
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        break; /* EOF: the child closed its output (normally: it ended) */
    }
  }
  if (st) kill(pid, SIGKILL);
  int status = 0;
  /* The output is closed; the child is ending. Wait for it, but never past the deadline. */
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (now_ms() > deadline && !res->killed) {
      res->killed = true;
      kill(pid, SIGKILL);
    }
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  res->ms = now_ms() - t0;
  if (WIFEXITED(status)) res->exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res->signal = WTERMSIG(status);
  close(in_fd);
  close(out_fd);
  if (!st && !res->output) st = append(res, &cap, "", 0, err);
  return st;
}

void rg_child_result_free(rg_child_result *res) {
  free(res->output);
  res->output = NULL;
}
