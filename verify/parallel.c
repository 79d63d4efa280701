/* verify/parallel.c: the thread count and first error of verify's parallel loops (parallel.h). */
#include "parallel.h"

#include <omp.h>

int rg_verify_threads(int requested) { return requested > 0 ? requested : omp_get_max_threads(); }

void rg_first_error_note(rg_first_error *f, int i, rg_status st, const rg_err *e) {
#pragma omp critical(rg_first_error)
  if (f->at < 0 || i < f->at) f->at = i, f->st = st, f->err = *e;
}

rg_status rg_first_error_take(const rg_first_error *f, rg_err *err) {
  if (f->st && err) *err = f->err;
  return f->st;
}
