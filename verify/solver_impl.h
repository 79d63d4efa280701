/* verify/solver_impl.h: private to verify/solver*.c: the per-backend functions behind the
 * interface of solver.h, and the kill-timeout policy they share. */
#ifndef RG_VERIFY_SOLVER_IMPL_H
#define RG_VERIFY_SOLVER_IMPL_H

#include "child.h"
#include "solver.h"

/* A child gets its own limit plus this grace before it is killed. */
#define RG_SOLVER_GRACE_MS 2000

rg_status rg_z3_init(rg_solver *s, rg_err *err) RG_MUST_CHECK;
rg_status rg_z3_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                      rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;
rg_status rg_cvc5_init(rg_solver *s, const char *binary, rg_err *err) RG_MUST_CHECK;
rg_status rg_cvc5_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                        rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;

/* Fills ans from a finished child: killed -> timeout, signal -> crash, else the printed answer. */
void rg_solver_answer_from_child(const rg_child_result *res, int timeout_ms, const char *who,
                                 rg_solver_answer *ans);

#endif
