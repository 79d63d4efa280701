/* verify/child.h: running a solver in a child process with a hard time limit.
 *
 * A solver that crashes, aborts or hangs must not take rulegen down: each query runs in a child
 * process, which is killed (SIGKILL) when it runs past its deadline. The child execs a program
 * (argv) reading stdin; its stdout and stderr are collected apart (stdout carries a worker's
 * replies: a message on stderr must not corrupt their framing), each up to a bound: a child
 * that writes more is stopped there (flooded), never a cause of unbounded memory or of a reply
 * that seems late. Safe to call from several
 * threads at once (no shared state; the child's stdin is a socket written with MSG_NOSIGNAL, so
 * a child that exits early cannot raise SIGPIPE in rulegen; every descriptor is close-on-exec).
 * The child always execs: a fork that went on running rulegen's code would inherit locks other
 * threads held (malloc's, ASan's allocator's) for ever, which is why z3 runs in its own helper
 * program, rulegen-z3 (see z3_serve.h).
 *
 * Two ways to use it:
 *   rg_child_run: one process per query: input, then EOF; output until the child ends;
 *   rg_child_start / rg_child_exchange / rg_child_end: a long-lived child (a solver worker)
 *     that answers several queries; each exchange sends one request and reads until the
 *     caller's framing says the reply is whole, the child ends (EOF), or the deadline passes.
 *     Whoever starts a child ends it (rg_child_end reaps it: no zombie, no descriptor left).
 */
#ifndef RG_VERIFY_CHILD_H
#define RG_VERIFY_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ir/status.h"

/* The most a child may write in one run or exchange: a solver's answer is a verdict and a core
 * (a few KB); its messages a few lines. */
#define RG_CHILD_OUTPUT_MAX (1 << 20)
#define RG_CHILD_ERRORS_MAX (1 << 16)

typedef struct {
  char *output;   /* malloc'd stdout of the child (NUL-terminated) */
  size_t len;
  size_t cap;     /* bytes allocated for output */
  char *errors;   /* malloc'd stderr of the child (NUL-terminated), NULL when none came */
  size_t err_len;
  size_t err_cap;
  int flooded;    /* 1 (stdout), 2 (stderr): it wrote more than that stream's bound; else 0 */
  int exit_code;  /* when it exited normally, else -1 */
  int signal;     /* the signal that ended it, else 0 */
  bool killed;    /* we killed it at the deadline */
  double ms;      /* wall time from start to end */
} rg_child_result;

/* A running child: pid 0 when there is none. */
typedef struct {
  pid_t pid;
  int in_fd;  /* our end of its stdin (a socket) */
  int out_fd; /* our end of its stdout (a pipe) */
  int err_fd; /* our end of its stderr (a pipe, non-blocking) */
} rg_child;

/* How an exchange ended: a whole reply, the child closed its stdout, the deadline passed, or it
 * wrote more than a stream's bound (res->flooded says which). */
typedef enum {
  RG_CHILD_REPLIED = 0,
  RG_CHILD_EOF,
  RG_CHILD_LATE,
  RG_CHILD_FLOOD
} rg_child_end_reason;

/* True when out[0..len) holds a whole reply (ctx: the caller's framing state). */
typedef bool (*rg_child_done_fn)(const char *out, size_t len, void *ctx);

/* Runs argv (argv[0] looked up in PATH) with input on stdin for at most kill_ms milliseconds
 * (killed then, or once it passes a stream's bound: res->flooded). Returns RG_ERR_IO when no
 * process could be started; everything the child itself does (exit codes, signals, exec
 * failure: exit 127) is reported in *res. Free res with rg_child_result_free. */
rg_status rg_child_run(char *const *argv, const char *input, size_t input_len, int kill_ms,
                       rg_child_result *res, rg_err *err) RG_MUST_CHECK;
void rg_child_result_free(rg_child_result *res);

/* Starts a child as rg_child_run does, without feeding it. RG_ERR_IO when pipes or the process
 * cannot be made (then c->pid is 0 and nothing is left open). */
rg_status rg_child_start(char *const *argv, rg_child *c, rg_err *err) RG_MUST_CHECK;

/* Sends input (then closes the child's stdin if close_input) and appends what the child prints
 * to res->output (stderr: res->errors) until done says the reply is whole (done NULL: never),
 * the child closes its stdout (what its stderr holds by then is read too), a stream passes its
 * bound, or the monotonic clock (rg_clock_ms) passes deadline_ms. *why says which;
 * res->ms is the time this exchange took. The child is not killed here. Errors: polling or
 * allocation failed (then the child should be ended with kill). */
rg_status rg_child_exchange(rg_child *c, const char *input, size_t input_len, bool close_input,
                            double deadline_ms, rg_child_done_fn done, void *ctx,
                            rg_child_result *res, rg_child_end_reason *why, rg_err *err) RG_MUST_CHECK;

/* Ends a child: closes our descriptors, SIGKILLs it now if kill_now, else waits for it to exit
 * until deadline_ms and kills it then (res->killed set); reaps it and records its exit code or
 * signal in res (may be NULL). c->pid is 0 afterwards; a no-op when it is already 0. */
void rg_child_end(rg_child *c, bool kill_now, double deadline_ms, rg_child_result *res);

#endif
