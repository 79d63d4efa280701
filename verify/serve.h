/* verify/serve.h: private to verify/ and the solver helper programs (tools/rulegen_z3.c,
 * tools/rulegen_cvc5.c): the request loop a helper runs in its own process.
 *
 * The protocol, in this machine's byte order (both ends are built from this tree): a request
 * is {u32 length, i32 timeout_ms, script}, a reply {u32 length, answer}. One reply per
 * request, in order; the helper ends when its input does. The answer is the solver's printed
 * answer to the script's (check-sat) and (get-unsat-core), or "(error ...)" for a script it
 * rejects. verify/solver_helper.c is the client side.
 *
 * Two ways to answer, each measured on the depth-4 obligations (sequential queries through the
 * helper, medians on the same machine):
 *   in a fork of the helper, which ends (_exit) once its reply is written: every query starts
 *     from the same prepared process, as a fresh exec would without the exec and the loading of
 *     the solver library, and no solver state is torn down or carried from one query to the
 *     next. cvc5 (rulegen-cvc5): its queries run one after another in one process took 2.2x
 *     the CPU time of the same queries each in a fork (its node tables grow from query to
 *     query), and its Solver's destructor was a tenth of the rest;
 *   in the helper itself, the solver's state torn down after the reply is sent, the memory it
 *     freed kept for the next query. z3 (rulegen-z3): a fresh context per query keeps nothing
 *     from one to the next, and each query that touched memory afresh (in a fork, or after
 *     glibc returned the freed memory to the system) paid for it: median 21-30 ms against 13.
 */
#ifndef RG_VERIFY_SERVE_H
#define RG_VERIFY_SERVE_H

#ifdef __cplusplus
extern "C" {
#endif

#include "ir/strbuf.h"

/* Answers one script (NUL-terminated, may be edited) within timeout_ms, appending the answer
 * to out. */
typedef void (*rg_serve_eval_fn)(char *text, int timeout_ms, rg_strbuf *out);

/* A helper's solver. prepare (NULL: none) runs in the helper before each request. With finish
 * NULL, eval runs in a fork of the helper (so it need not free what it made, and what prepare
 * set up once is inherited by every fork: cvc5's library set-up); else eval runs in the helper
 * itself, and finish after the reply is sent (z3: delete the query's context). */
typedef struct {
  const char *who; /* "rulegen-z3", for messages */
  void (*prepare)(int timeout_ms);
  rg_serve_eval_fn eval;
  void (*finish)(void);
} rg_serve_solver;

/* Answers requests read from in_fd on out_fd, one at a time, until in_fd ends. Returns the
 * helper's exit status: 0 when the input ended between requests, 1 when it ended inside one,
 * memory ran out, a fork failed, or a fork ended without its reply (a line on stderr says
 * which); a fork killed by a signal kills the helper with the same signal, so the client sees
 * the solver's crash as it happened. SIGINT is set to its default first: the helper dies on
 * Ctrl-C (rulegen may run with SIGINT ignored, which exec passes on; rulegen itself stops
 * between queries); a fork dies with the helper. */
int rg_serve(int in_fd, int out_fd, const rg_serve_solver *solver);

#ifdef __cplusplus
}
#endif

#endif
