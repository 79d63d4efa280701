/* verify/parallel.h: private to verify/: what its OpenMP loops over rules share: the thread
 * count they run on, and the error they report (that of the lowest index that failed, so that
 * a run reports the same error whatever the threads' order). */
#ifndef RG_VERIFY_PARALLEL_H
#define RG_VERIFY_PARALLEL_H

#include "ir/status.h"

/* requested when positive, else OpenMP's default. */
int rg_verify_threads(int requested);

/* The first error of a parallel loop: start it with RG_FIRST_ERROR_INIT. */
typedef struct {
  rg_status st; /* RG_OK while none */
  int at;       /* its index, -1 while none */
  rg_err err;
} rg_first_error;
#define RG_FIRST_ERROR_INIT {RG_OK, -1, {0}}

/* Notes that index i failed with st (error e); thread-safe; keeps the lowest index's. */
void rg_first_error_note(rg_first_error *f, int i, rg_status st, const rg_err *e);

/* The status to return: RG_OK, or the first error, copied into *err (err may be NULL). */
rg_status rg_first_error_take(const rg_first_error *f, rg_err *err);

#endif
