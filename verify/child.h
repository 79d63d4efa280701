/* verify/child.h: running a solver in a child process with a hard time limit.
 *
 * A solver that crashes, aborts or hangs must not take rulegen down: each query runs in its own
 * process, which is killed (SIGKILL) when it runs past its deadline. The child either execs a
 * program (argv) fed `input` on stdin, or runs a function in the forked process (fn), which
 * writes its answer to out_fd and returns the child's exit status. The child's stdout and
 * stderr are both collected. Safe to call from several threads at once (no shared state; the
 * child's stdin is a socket so a child that exits early cannot raise SIGPIPE in rulegen).
 */
#ifndef RG_VERIFY_CHILD_H
#define RG_VERIFY_CHILD_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/status.h"

typedef int (*rg_child_fn)(void *arg, int out_fd);

typedef struct {
  char *output;   /* malloc'd stdout + stderr of the child (NUL-terminated) */
  size_t len;
  int exit_code;  /* when it exited normally, else -1 */
  int signal;     /* the signal that ended it, else 0 */
  bool killed;    /* we killed it at the deadline */
  double ms;      /* wall time from start to end */
} rg_child_result;

/* Runs argv (argv[0] looked up in PATH) with input on stdin, or fn(arg, out_fd) in a fork when
 * argv is NULL, for at most kill_ms milliseconds. Returns RG_ERR_IO when no process could be
 * started; everything the child itself does (exit codes, signals, exec failure: exit 127) is
 * reported in *res. Free res with rg_child_result_free. */
rg_status rg_child_run(char *const *argv, rg_child_fn fn, void *arg, const char *input,
                       size_t input_len, int kill_ms, rg_child_result *res, rg_err *err) RG_MUST_CHECK;
void rg_child_result_free(rg_child_result *res);

#endif
