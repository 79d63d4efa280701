/* verify/serve.h: private to verify/ and the solver helper programs (tools/rulegen_z3.c,
 * tools/rulegen_cvc5.c): the request loop a helper runs in its own process.
 *
 * The protocol: a request is a header line, then the script,
 *   rg-query SEQ TIMEOUT_MS SHA256 LENGTH\n<LENGTH bytes of script>
 * and a reply a header line, then the answer,
 *   rg-reply SEQ SHA256 LENGTH\n<LENGTH bytes of answer>
 * with SEQ, TIMEOUT_MS and LENGTH ten decimal digits each (zero-padded) and SHA256 the
 * obligation's 64 lowercase hex digits (smt.h's rg_obligation.sha256, the hash of the script):
 * fixed-width text, so each end reads one header with one read of known size, and a test's
 * fake helper can be a shell script. One reply per request, in order, echoing its number and
 * hash: the client takes nothing else for the answer (an extra frame, a reply to another query
 * or obligation, a header that is not one, bytes after the reply are all error answers), and
 * the helper answers a script whose hash is not the request's with an (error ...) answer. The
 * helper ends when its input does. The answer is the solver's printed answer to the script's
 * (check-sat) and (get-unsat-core), or "(error ...)" for a script it rejects. Only replies go to
 * stdout; messages go to stderr. verify/solver_helper.c is the client side.
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

#include <stdbool.h>
#include <stddef.h>

#include "ir/strbuf.h"

/* The fixed sizes of the header lines, and the most any number in them may be. */
#define RG_SERVE_QUERY_HEADER_LEN 107
#define RG_SERVE_REPLY_HEADER_LEN 96
#define RG_SERVE_NUMBER_MAX 9999999999ul

/* What a header says. timeout_ms: queries only. */
typedef struct {
  unsigned long seq;
  int timeout_ms;
  char sha256[65];
  unsigned long len;
} rg_serve_header;

/* Writes h as a query or reply header into buf (its size above, plus a NUL). seq and len must
 * be at most RG_SERVE_NUMBER_MAX, timeout_ms at least 1, sha256 64 hex digits. */
void rg_serve_format_query(char *buf, const rg_serve_header *h);
void rg_serve_format_reply(char *buf, const rg_serve_header *h);

/* Reads a query or reply header from buf (its size above; no NUL needed) into *h: false when
 * buf is not exactly such a header (the tag, the fields, their widths, a digit or hex digit out
 * of place, a timeout of 0 or above INT_MAX). */
bool rg_serve_parse_query(const char *buf, rg_serve_header *h);
bool rg_serve_parse_reply(const char *buf, rg_serve_header *h);

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
 * a request header was malformed (the stream cannot be followed past it), memory ran out, a
 * fork failed, or a fork ended without its reply (a line on stderr says which); a fork killed
 * by a signal kills the helper with the same signal, so the client sees the solver's crash as
 * it happened. SIGINT is set to its default first: the helper dies on
 * Ctrl-C (rulegen may run with SIGINT ignored, which exec passes on; rulegen itself stops
 * between queries); a fork dies with the helper. */
int rg_serve(int in_fd, int out_fd, const rg_serve_solver *solver);

#ifdef __cplusplus
}
#endif

#endif
