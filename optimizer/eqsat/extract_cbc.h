/* optimizer/eqsat/extract_cbc.h: private to extract_ilp.c: CBC's solve, stoppable. CBC's C interface
 * (Cbc_C_Interface.h) has no way to stop a solve under way: Cbc_solve runs CbcMain1 on a copy
 * of the model, which only an event handler (C++, CbcEventHandler.hpp) reaches; so this one
 * call is C++ (extract_cbc.cpp), as verify/cvc5_serve.cpp is for cvc5. */
#ifndef RG_OPTIMIZER_EXTRACT_CBC_H
#define RG_OPTIMIZER_EXTRACT_CBC_H

#include <coin/Cbc_C_Interface.h>
#include <signal.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What rg_cbc_solve says of a solve. */
enum { RG_CBC_DONE = 0, RG_CBC_STOPPED = 1, RG_CBC_NOMEM = -1, RG_CBC_FAILED = -2 };

/* Solves cbc (as Cbc_solve) and asks stop(ctx) at each of CBC's events (each node of the
 * search, each heuristic's pass and solution, each round of cuts): once it says yes, CBC stops
 * at its next chance with the incumbent it has, as at its time limit. With interrupted (the
 * program's Ctrl-C flag, NULL none), SIGINT and SIGTERM set it meanwhile, whatever handler
 * Clp puts in (extract_cbc.cpp says why); stop should look at it. RG_CBC_STOPPED when stop
 * said yes; RG_CBC_NOMEM when CBC ran out of memory (std::bad_alloc), RG_CBC_FAILED when it
 * threw anything else: then cbc holds no answer to read. */
int rg_cbc_solve(Cbc_Model *cbc, volatile sig_atomic_t *interrupted, bool (*stop)(void *ctx), void *ctx);

#ifdef __cplusplus
}
#endif

#endif
