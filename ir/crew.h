/* ir/crew.h: a fixed team of threads that runs short batches of independent tasks, waiting
 * asleep between them.
 *
 * Why not an OpenMP parallel loop: derivability runs a batch of a few searches (milliseconds
 * each) thousands of times a second, and libgomp's threads spin between parallel regions. On a
 * machine whose cores something else is using, the spinning threads took the cores from the
 * ones with work: 5,000 depth-4 candidates took 15 s instead of 0.4 s beside a second job.
 * Threads here block on a condition variable instead (OpenMP's wait policy is fixed when the
 * process starts, by OMP_WAIT_POLICY).
 */
#ifndef RG_IR_CREW_H
#define RG_IR_CREW_H

#include "status.h"

typedef struct rg_crew rg_crew;

/* A crew of n threads in all: the caller and n - 1 started here (fewer when the system will not
 * start them all: rg_crew_size says how many). RG_ERR_NOMEM only when out of memory. */
rg_status rg_crew_new(int n, rg_crew **out, rg_err *err) RG_MUST_CHECK;
/* A crew of n threads started here, the caller only waiting while they run a batch: their
 * allocations come from their own malloc arenas, not the caller's. Derivability at depth 4
 * runs in a process whose main arena holds millions of freed rules' blocks: on the main thread
 * `perf` put a fifth of a search's time in _int_malloc, on a started one 2%. */
rg_status rg_crew_new_aside(int n, rg_crew **out, rg_err *err) RG_MUST_CHECK;
/* The threads that run tasks. */
int rg_crew_size(const rg_crew *c);
/* As many threads as OpenMP may use here (-j sets its default), and a crew of that many. */
int rg_crew_omp_threads(void);
rg_status rg_crew_new_omp(rg_crew **out, rg_err *err) RG_MUST_CHECK;
rg_status rg_crew_new_omp_aside(rg_crew **out, rg_err *err) RG_MUST_CHECK;

/* Runs task(ctx, j) for every j in [0, m), on the crew's threads (the caller is one unless the
 * crew is aside), and returns when all have returned. Tasks must not call rg_crew_run on the same
 * crew. */
void rg_crew_run(rg_crew *c, int m, void (*task)(void *ctx, int j), void *ctx);

/* Ends the threads (after any batch in progress) and frees c; c may be NULL. */
void rg_crew_free(rg_crew *c);

#endif
