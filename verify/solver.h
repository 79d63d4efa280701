/* verify/solver.h: SMT solver backends behind one interface.
 *
 * A backend has a name, a version, and prove(text, timeout) -> answer (result, time, unsat
 * core). Each query runs in its own child process (verify/child.h) with a hard kill at the
 * timeout plus a grace period, so a crash or hang is an answer (crash, timeout), never the end
 * of rulegen. Only RG_SMT_UNSAT proves anything.
 *   z3:   its C API (Z3_eval_smtlib2_string) in a forked child, a fresh Z3_context per query,
 *         the timeout set as z3's own parameter too;
 *   cvc5: its binary (Debian ships no C API) over a pipe, with --enum-inst (its default gives up
 *         on deeper goals) and --tlimit-per (returns unknown; --tlimit would abort).
 * A solver is read-only after rg_solver_init, so threads may share it.
 */
#ifndef RG_VERIFY_SOLVER_H
#define RG_VERIFY_SOLVER_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/status.h"

typedef enum { RG_SOLVER_Z3 = 0, RG_SOLVER_CVC5 = 1 } rg_solver_kind;
#define RG_SOLVER_COUNT 2

typedef enum {
  RG_SMT_UNSAT = 0, /* proved */
  RG_SMT_SAT,       /* refuted: a counter-model exists */
  RG_SMT_UNKNOWN,   /* the solver gave up before its time limit */
  RG_SMT_TIMEOUT,   /* it ran out of time (its own limit, or killed at ours) */
  RG_SMT_CRASH,     /* it died on a signal or exited abnormally */
  RG_SMT_ERROR,     /* it rejected the script (an "(error ...)" answer) */
} rg_smt_result;

#define RG_CORE_MAX 2048

typedef struct {
  rg_smt_result result;
  double ms;               /* wall time of the query */
  char core[RG_CORE_MAX];  /* on unsat: names in the unsat core, space-separated ("goal" dropped) */
  char detail[256];        /* on crash/error: what the solver said */
} rg_solver_answer;

typedef struct {
  rg_solver_kind kind;
  char name[16];
  char version[64];
  char path[256]; /* cvc5: the binary */
} rg_solver;

/* Sets up a backend and reads its version. binary: the cvc5 program (NULL: the default found at
 * build time, else "cvc5" on PATH); ignored for z3. RG_ERR_IO with a clear message when the
 * cvc5 binary cannot be run. */
rg_status rg_solver_init(rg_solver *s, rg_solver_kind kind, const char *binary, rg_err *err) RG_MUST_CHECK;

/* Runs one SMT-LIB2 script (as made by rg_smt_encode: it asks (check-sat) then
 * (get-unsat-core)) with a time limit in milliseconds. Solver failures are answers; only a
 * failure to start a process at all is an error. */
rg_status rg_solver_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                          rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;

const char *rg_smt_result_name(rg_smt_result r);

/* Turns a solver's printed answer into *ans (shared by the backends; exposed for tests). */
void rg_solver_parse_answer(const char *out, double ms, int timeout_ms, rg_solver_answer *ans);

#endif
