/* ir/crew.c: one mutex guards the batch; workers sleep on `start` until a new batch (or the
 * end), the caller sleeps on `finished` until the last task of its batch returns. */
#include "crew.h"

#include <omp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct rg_crew {
  pthread_mutex_t mu;
  pthread_cond_t start, finished;
  pthread_t *threads; /* [started] */
  int n;              /* threads that run tasks, the caller's included unless aside */
  int started;        /* threads started here */
  bool aside;         /* the caller only waits (rg_crew_new_aside) */
  long batch;    /* counts batches: a worker wakes for a new one */
  int next, m;   /* the next task to hand out, and the batch's size */
  int running;   /* tasks handed out and not yet returned */
  bool ending;
  void (*task)(void *ctx, int j);
  void *ctx;
};

/* Takes and runs the batch's tasks until none is left; called with mu held, returns with it. */
static void work(rg_crew *c) {
  while (c->next < c->m) {
    int j = c->next++;
    c->running++;
    pthread_mutex_unlock(&c->mu);
    c->task(c->ctx, j);
    pthread_mutex_lock(&c->mu);
    if (--c->running == 0 && c->next >= c->m) pthread_cond_signal(&c->finished);
  }
}

static void *worker(void *arg) {
  rg_crew *c = arg;
  long seen = 0;
  pthread_mutex_lock(&c->mu);
  for (;;) {
    while (!c->ending && c->batch == seen) pthread_cond_wait(&c->start, &c->mu);
    if (c->ending) break;
    seen = c->batch;
    work(c);
  }
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

/* A crew with want threads started here (fewer when the system will not start them all). */
static rg_status crew_start(int want, rg_crew **out, rg_err *err) {
  *out = NULL;
  rg_crew *c = calloc(1, sizeof *c);
  if (!c || !(c->threads = calloc((size_t)(want > 1 ? want : 1), sizeof *c->threads))) {
    free(c);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->start, NULL);
  pthread_cond_init(&c->finished, NULL);
  /* A thread the system will not start leaves the crew smaller, as OpenMP's teams would be. */
  while (c->started < want && !pthread_create(&c->threads[c->started], NULL, worker, c))
    c->started++;
  *out = c;
  return RG_OK;
}

rg_status rg_crew_new(int n, rg_crew **out, rg_err *err) {
  rg_status st = crew_start(n - 1, out, err);
  if (!st) (*out)->n = (*out)->started + 1;
  return st;
}

rg_status rg_crew_new_aside(int n, rg_crew **out, rg_err *err) {
  rg_status st = crew_start(n, out, err);
  if (st) return st;
  rg_crew *c = *out;
  c->aside = c->started > 0; /* none started: the caller runs the tasks after all */
  c->n = c->aside ? c->started : 1;
  return RG_OK;
}

int rg_crew_size(const rg_crew *c) { return c->n; }

int rg_crew_omp_threads(void) {
  return omp_get_max_threads() < omp_get_thread_limit() ? omp_get_max_threads()
                                                        : omp_get_thread_limit();
}

rg_status rg_crew_new_omp(rg_crew **out, rg_err *err) {
  return rg_crew_new(rg_crew_omp_threads(), out, err);
}

rg_status rg_crew_new_omp_aside(rg_crew **out, rg_err *err) {
  return rg_crew_new_aside(rg_crew_omp_threads(), out, err);
}

void rg_crew_run(rg_crew *c, int m, void (*task)(void *ctx, int j), void *ctx) {
  pthread_mutex_lock(&c->mu);
  c->task = task, c->ctx = ctx, c->next = 0, c->m = m, c->running = 0;
  c->batch++;
  if (c->aside ? m > 0 : c->n > 1 && m > 1) pthread_cond_broadcast(&c->start);
  if (!c->aside) work(c);
  while (c->next < c->m || c->running > 0)
    pthread_cond_wait(&c->finished, &c->mu);
  pthread_mutex_unlock(&c->mu);
}

void rg_crew_free(rg_crew *c) {
  if (!c) return;
  pthread_mutex_lock(&c->mu);
  c->ending = true;
  pthread_cond_broadcast(&c->start);
  pthread_mutex_unlock(&c->mu);
  for (int i = 0; i < c->started; i++)
    pthread_join(c->threads[i], NULL);
  pthread_cond_destroy(&c->start);
  pthread_cond_destroy(&c->finished);
  pthread_mutex_destroy(&c->mu);
  free(c->threads);
  free(c);
}
