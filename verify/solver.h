/* verify/solver.h: SMT solver backends behind one interface.
 *
 * A backend has a name, a version, and prove(text, timeout) -> answer (result, time, unsat
 * core). Every query runs in a child process (verify/child.h) with a hard kill at the timeout
 * plus a grace period, so a crash or hang is an answer (crash, timeout), never the end of
 * rulegen. Only RG_SMT_UNSAT proves anything. The backends are one table (solvers.def; each
 * entry's functions in solver_impl.h's rg_solver_backend, in verify/solver_<name>.c):
 *   z3:   its C API (Z3_eval_smtlib2_string) in rulegen-z3, a helper program that is exec'd,
 *         never a plain fork of rulegen (queries come from several threads at once, and a fork
 *         of a multi-threaded process inherits locks other threads hold: an ASan child hung in
 *         its first malloc; see z3_serve.h); a fresh Z3_context per query (a reused one changes
 *         quantifier instantiation and loses proofs), the timeout set as z3's own parameter too;
 *   cvc5: its C++ API (Debian ships no C API) in rulegen-cvc5, a helper like rulegen-z3 that
 *         reads the obligation text itself (cvc5_serve.h: its binary's parser was 37% of its
 *         work), a fresh cvc5 Solver per query; or, when asked for by path (rulegen prove
 *         --cvc5 PATH), the cvc5 binary over a pipe. Both with cvc5_options.h's options
 *         (--enum-inst: its default gives up on deeper goals) and a per-query limit
 *         (tlimit-per: returns unknown; tlimit aborts).
 * Two ways to run a query, with the same answers:
 *   rg_solver_prove: one-shot: a fresh process per query (an exec of a helper or of cvc5):
 *     simple, but the process start is most of the time of an easy query;
 *   rg_solver_prove_in: through a pool of long-lived workers (one per solver kind), owned by one
 *     thread: a helper worker loops {read a framed obligation (serve.h), fresh context or
 *     solver, eval, answer, delete it}; a cvc5 binary worker is one `cvc5 --no-interactive`
 *     fed each obligation followed by an echoed marker (the end of its answer) and (reset).
 *     Only exactly the reply to the query counts: the frame that echoes its number and its
 *     obligation's hash, or the output up to the marker that names both, with nothing after;
 *     anything else is an error answer (and the worker is ended).
 *     A worker that runs past the deadline is SIGKILLed and reaped (answer: timeout), one that
 *     dies is seen at EOF (answer: crash, or the error it printed); the next query starts a
 *     fresh one; so does a query after a slow one (ending a worker is cheaper than its cleanup
 *     after a hard query). rg_solver_pool_free ends them all; if rulegen itself dies, the workers read
 *     EOF on their stdin and exit.
 * A solver is read-only after rg_solver_init, so threads may share it; a pool may not be shared.
 */
#ifndef RG_VERIFY_SOLVER_H
#define RG_VERIFY_SOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/status.h"

/* One kind per line of solvers.def, in its order; RG_SOLVER_COUNT of them. */
typedef enum {
#define RG_SOLVER(ID, name) RG_SOLVER_##ID,
#include "solvers.def"
#undef RG_SOLVER
  RG_SOLVER_COUNT
} rg_solver_kind;

/* A kind's name as printed and journaled ("z3"); "?" for a value that is no kind. */
const char *rg_solver_kind_name(rg_solver_kind kind);

/* The kind named name ("z3"), -1 when no solver has that name. */
int rg_solver_kind_of(const char *name);

typedef enum {
  RG_SMT_UNSAT = 0, /* proved */
  RG_SMT_SAT,       /* refuted: a counter-model exists */
  RG_SMT_UNKNOWN,   /* the solver gave up before its time limit (z3: E-matching ran dry and
                     * its MBQI pass found nothing in its share of the limit, z3_serve.h) */
  RG_SMT_TIMEOUT,   /* it ran out of time (its own limit, or killed at ours) */
  RG_SMT_CRASH,     /* it died on a signal or exited abnormally */
  RG_SMT_ERROR,     /* it rejected the script (an "(error ...)" answer) */
  RG_SMT_VACUOUS,   /* unsat, but the core does not name the goal: the hypotheses and axioms
                     * contradict each other, and the answer proves nothing about the rule */
} rg_smt_result;
#define RG_SMT_RESULTS (RG_SMT_VACUOUS + 1)

#define RG_CORE_MAX 2048

typedef struct {
  rg_smt_result result;
  double ms;               /* wall time of the query */
  char core[RG_CORE_MAX];  /* on unsat: names in the unsat core, space-separated ("goal" dropped) */
  char detail[256];        /* on crash/error: what the solver said, or what was wrong with its
                            * reply (escaped: rg_solver_escape) */
} rg_solver_answer;

typedef struct {
  rg_solver_kind kind;
  char name[16];
  char version[64];
  char path[256]; /* the program run: a helper (rulegen-z3, rulegen-cvc5), or the cvc5 binary */
  bool helper;     /* path is a helper (verify/serve.h's protocol), not a solver's own binary */
} rg_solver;

/* Sets up a backend and reads its version. binary: a cvc5 binary to run instead of the helper
 * rulegen-cvc5 (NULL: the helper); ignored for z3. A helper (rulegen-z3, rulegen-cvc5) is found
 * through the environment variable RG_Z3_HELPER or RG_CVC5_HELPER, else next to the running
 * program, else in this build tree (solver_helper.c). RG_ERR_IO with a clear message when the
 * cvc5 binary or a helper cannot be found or run. */
rg_status rg_solver_init(rg_solver *s, rg_solver_kind kind, const char *binary, rg_err *err) RG_MUST_CHECK;

/* Sets up every solver of the table: solvers[kind] by rg_solver_init with binary[kind] (binary
 * NULL: every solver's helper). The first error stands. */
rg_status rg_solvers_init(rg_solver solvers[RG_SOLVER_COUNT],
                          const char *const binary[RG_SOLVER_COUNT], rg_err *err) RG_MUST_CHECK;

/* Runs one SMT-LIB2 script (as made by rg_smt_encode: it asks (check-sat) then
 * (get-unsat-core)) with a time limit in milliseconds. Solver failures are answers; only a
 * failure to start a process at all is an error. */
rg_status rg_solver_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                          rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;

/* A set of solver workers for one thread (not thread-safe: one pool per thread). */
typedef struct rg_solver_pool rg_solver_pool;

/* An empty pool (workers start on first use); NULL when out of memory. */
rg_solver_pool *rg_solver_pool_new(void);

/* Ends every worker of the pool (SIGKILL, reaped) and frees it. NULL is a no-op. */
void rg_solver_pool_free(rg_solver_pool *p);

/* As rg_solver_prove, through the pool's worker for s (started, or restarted when the previous
 * one died, was killed or ran another binary). Answers are those of a fresh process per query;
 * ans->ms is the time of this query (sending to answer, plus starting a worker if it needed
 * one). p must not be NULL. Errors: a bad timeout, a worker
 * that cannot be started (RG_ERR_IO), allocation. */
rg_status rg_solver_prove_in(rg_solver_pool *p, const rg_solver *s, const char *text, size_t len,
                             int timeout_ms, rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;

/* The process id of the pool's worker for a solver kind, 0 when none is running. */
int rg_solver_pool_pid(const rg_solver_pool *p, rg_solver_kind kind);

const char *rg_smt_result_name(rg_smt_result r);

/* Turns a solver's printed answer (out[0..len)) into *ans (shared by the backends; exposed for
 * tests). Strict: "unsat" and exactly one complete core of names, nothing after it, proves (or
 * is vacuous); "sat", "unknown" or "timeout" followed by nothing but the solver's refusal of the
 * core; an answer that starts "(error" is that error. Anything else (an unclosed core, a second
 * verdict, trailing text, a NUL byte) is RG_SMT_ERROR with a detail that says what was wrong. */
void rg_solver_parse_answer_n(const char *out, size_t len, double ms, int timeout_ms,
                              rg_solver_answer *ans);
/* The same for a NUL-terminated answer. */
void rg_solver_parse_answer(const char *out, double ms, int timeout_ms, rg_solver_answer *ans);

/* Copies src[0..n) into dst (size bytes, NUL-terminated) fit for a terminal: printable ASCII
 * as is, a backslash doubled, any other byte as \xNN; cut with "..." where it does not fit.
 * Everything a solver or helper printed goes through it before it enters a message. */
void rg_solver_escape(char *dst, size_t size, const char *src, size_t n);

#endif
