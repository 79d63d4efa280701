/* tests/test_ir_crew.c: a crew (ir/crew.h) runs every task of a batch exactly once, on more than
 * one thread when it has them, and returns only when all have returned; batches of every size
 * back to back (the race a late-waking worker could lose), crews of one to eight threads, a batch
 * whose first task is slow given to workers that are asleep (they must be woken for it), and a
 * crew freed right after it is made; the same for crews aside (the caller only waits: no task
 * on its thread). Run under the sanitizer build too. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "ir/ir.h"

enum { MAX_TASKS = 64 };

typedef struct {
  atomic_int runs[MAX_TASKS];
  atomic_int returned;
  pthread_t who[MAX_TASKS];
  bool slow; /* the first task is slow: the batch must still wait for it */
} batch;

static void task(void *ctx, int j) {
  batch *b = ctx;
  /* The slow task waits (up to 10 s, for a busy machine) for another task to return: only a
   * woken worker can run one meanwhile. */
  for (int waited = 0; b->slow && j == 0 && atomic_load(&b->returned) == 0 && waited < 1000; waited++)
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  atomic_fetch_add(&b->runs[j], 1);
  b->who[j] = pthread_self();
  atomic_fetch_add(&b->returned, 1);
}

static bool aside_; /* the crews under test are aside: no task may run on the caller's thread */

/* One batch of m tasks, checked; returns whether it ran tasks on two threads. */
static bool run_checked(rg_crew *c, int m, bool slow) {
  batch b = {.slow = slow};
  rg_crew_run(c, m, task, &b);
  for (int j = 0; aside_ && j < m; j++)
    CHECK_MSG(!pthread_equal(b.who[j], pthread_self()), "a crew aside ran task %d on the caller",
              j);
  int bad = 0;
  for (int j = 0; j < MAX_TASKS; j++) bad += atomic_load(&b.runs[j]) != (j < m);
  CHECK_MSG(bad == 0, "a crew of %d, batch of %d: %d tasks not run exactly once", rg_crew_size(c), m, bad);
  CHECK(atomic_load(&b.returned) == m);
  bool spread = false;
  for (int j = 1; j < m; j++) spread = spread || !pthread_equal(b.who[j], b.who[0]);
  return spread;
}

/* Batches of every size from 0 to MAX_TASKS, 40 rounds, back to back. */
static void hammer(rg_crew *c) {
  for (int round = 0; round < 40; round++)
    for (int m = 0; m <= MAX_TASKS; m++) run_checked(c, m, false);
}

/* Crews of 1 to 8 threads (aside: the caller only waits). */
static void crews(bool aside) {
  rg_err err;
  aside_ = aside;
  for (int n = 1; n <= 8; n *= 2) {
    rg_crew *c;
    CHECK((aside ? rg_crew_new_aside : rg_crew_new)(n, &c, &err) == RG_OK);
    CHECK(rg_crew_size(c) == n);
    hammer(c);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL); /* the workers asleep by now */
    bool spread = run_checked(c, 8, true);
    if (n == 1) CHECK_MSG(!spread, "a crew of one ran tasks on another thread");
    else CHECK_MSG(spread, "a crew of %d ran a batch whose first task was slow on one thread", n);
    rg_crew_free(c);
  }
}

int main(void) {
  rg_err err;
  crews(false);
  crews(true);
  rg_crew *idle;
  CHECK(rg_crew_new(4, &idle, &err) == RG_OK);
  rg_crew_free(idle);
  CHECK(rg_crew_new_aside(2, &idle, &err) == RG_OK);
  rg_crew_free(idle);
  rg_crew_free(NULL);
  return check_done("test_ir_crew");
}
