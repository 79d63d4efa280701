/* cluster/cluster.c: ranks, the spread of a job's items (rank 0) and the workers' loop
 * (cluster.h); the messages are cluster_mpi.c's. */
#define _POSIX_C_SOURCE 200809L
#include "cluster.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cluster_internal.h"
#include "ir/clock.h"
#include "ir/progress.h"

static int rank_, size_ = 1;
#ifdef RG_HAVE_MPI
static bool mpi_on, ended; /* ended: a worker took rank 0's end of the run */
#endif
static rg_cluster_rank_tally *totals_, one_total[RG_CLUSTER_KINDS]; /* [kind * size_ + rank] */
static int64_t bytes_; /* rank 0's messages, both ways */

/* Started by an MPI launcher: Open MPI's, MPICH's (PMI) and PMIx's environments. */
static bool launched(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

rg_status rg_cluster_start(int *argc, char ***argv, bool spreads, rg_err *err) {
  (void)argc, (void)argv, (void)spreads;
  totals_ = one_total;
  if (!launched()) return RG_OK;
#ifndef RG_HAVE_MPI
  const char *n = getenv("OMPI_COMM_WORLD_SIZE") ? getenv("OMPI_COMM_WORLD_SIZE") : getenv("PMI_SIZE");
  if (n && atoi(n) > 1) /* each process would run the whole job, writing the same outputs */
    return rg_err_set(err, RG_ERR_ARG, "this rulegen was built without MPI, so mpirun would start %s separate runs: "
                      "rebuild it where libopenmpi-dev is installed, or run it without mpirun", n);
#else
  rg_status st = rg_cl_mpi_start(argc, argv, &rank_, &size_, err);
  if (st) return st;
  mpi_on = true;
  if (rank_ && !freopen("/dev/null", "w", stdout)) /* what a command prints, rank 0 prints once */
    return rg_err_set(err, RG_ERR_IO, "rank %d: cannot silence its standard output", rank_);
  if (size_ > 1 && !spreads) { /* every rank says no */
    rg_cl_mpi_end();
    mpi_on = false;
    return rg_err_set(err, RG_ERR_ARG, "this command does not spread over MPI ranks: run it without mpirun "
                                       "(the synthesis run does)");
  }
  if (size_ > 1 && !(totals_ = calloc((size_t)size_ * RG_CLUSTER_KINDS, sizeof *totals_))) {
    rg_cl_mpi_abort(2);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
#endif
  return RG_OK;
}

int rg_cluster_rank(void) { return rank_; }
int rg_cluster_size(void) { return size_; }
const rg_cluster_rank_tally *rg_cluster_totals(int kind) {
  return (totals_ ? totals_ : one_total) + (size_t)kind * (size_t)size_;
}
int64_t rg_cluster_bytes(void) { return bytes_; }

/* A worker that has not served (a command that ran on every rank, or one that failed): rank 0's
 * end taken. Failed, it waits 10 s for rank 0 to end too (bad options fail every rank alike);
 * rank 0 going on (no end by then, or a job it cannot do), it ends the job: rank 0 would wait. */
#ifdef RG_HAVE_MPI
static void worker_leaves(int status) {
  char *text = NULL;
  size_t len;
  int kind;
  for (double t0 = rg_clock_seconds(); status && !rg_cl_order_waiting() && rg_clock_seconds() - t0 < 10;)
    rg_cl_nap();
  if ((status && !rg_cl_order_waiting()) || rg_cl_wait_order(&kind, &text, &len) != RG_CL_END) {
    free(text);
    fprintf(stderr, "rulegen: rank %d stopped (status %d) while rank 0 goes on: the job ends\n", rank_, status);
    rg_cl_mpi_abort(status ? status : 1);
  }
}
#endif

void rg_cluster_end(int status) {
  (void)status;
#ifdef RG_HAVE_MPI
  if (!mpi_on) return;
  if (rank_ && !ended) worker_leaves(status);
  for (int r = 1; rank_ == 0 && r < size_; r++) rg_cl_send_end(r);
  rg_cl_mpi_end();
  mpi_on = false;
#endif
}

int64_t rg_cl_peak_kb(void) {
  struct rusage u;
  return getrusage(RUSAGE_SELF, &u) ? 0 : (int64_t)u.ru_maxrss;
}

void rg_cl_nap(void) { nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL); }

rg_cluster_rank_tally *rg_cl_tally(int kind) { return totals_ + (size_t)kind * (size_t)size_; }
void rg_cl_count_bytes(int64_t n) { bytes_ += n; }

void rg_cl_add_tally(rg_cluster_rank_tally *t, int items, const int64_t *counts, double busy) {
  t->items += items, t->chunks++, t->busy_s += busy;
  for (int k = 0; k < RG_CLUSTER_COUNTS; k++) t->counts[k] += counts[k];
}

static void merge_tally(rg_cluster_rank_tally *to, const rg_cluster_rank_tally *from) {
  to->items += from->items, to->chunks += from->chunks, to->busy_s += from->busy_s;
  if (from->peak_kb > to->peak_kb) to->peak_kb = from->peak_kb;
  for (int k = 0; k < RG_CLUSTER_COUNTS; k++) to->counts[k] += from->counts[k];
}

/* ---- rank 0: the spread ---- */

typedef struct {
  pthread_mutex_t mu;
  int next, n, ranks;
  bool failed;                /* stop handing out items: a rank failed */
  _Atomic int64_t done;       /* items finished, every rank */
  const rg_cluster_work *w;
  void *job;
  rg_status local_st;         /* rank 0's own part */
  rg_err local_err;
  rg_cluster_rank_tally local;
  atomic_bool local_done;
} spread;

/* The next chunk: half the rest shared by the ranks, at least a few items. */
static bool take(spread *s, int *begin, int *end) {
  pthread_mutex_lock(&s->mu);
  int rest = s->failed ? 0 : s->n - s->next, c = rest / (2 * s->ranks), least = s->w->min_chunk ? s->w->min_chunk : 8;
  if (c < least) c = least;
  if (c > rest) c = rest;
  *begin = s->next, *end = s->next + c;
  s->next += c;
  pthread_mutex_unlock(&s->mu);
  return c > 0;
}

static void fail(spread *s) {
  pthread_mutex_lock(&s->mu);
  s->failed = true;
  pthread_mutex_unlock(&s->mu);
}

static void *run_local(void *arg) {
  spread *s = arg;
  int b, e;
  while (!s->local_st && take(s, &b, &e)) {
    int64_t counts[RG_CLUSTER_COUNTS] = {0};
    double t0 = rg_clock_seconds();
    s->local_st = s->w->run(s->w->ctx, s->job, b, e, counts, &s->local_err);
    if (s->local_st) fail(s);
    else
      rg_cl_add_tally(&s->local, e - b, counts, rg_clock_seconds() - t0), s->done += e - b;
  }
  s->local_done = true;
  return NULL;
}

#ifdef RG_HAVE_MPI
/* Answers the workers' reports with chunks until every worker has been told the job is over;
 * the first failure into *st and err. */
static void serve_workers(spread *s, rg_progress *line, rg_cluster_rank_tally *tally, rg_status *st,
                          rg_err *err) {
  int active = size_ - 1, from, b, e;
  rg_cl_report rep;
  while (active > 0 || !s->local_done) {
    if (!rg_cl_poll_report(&from, &rep)) {
      rg_progress_tick(line, s->done);
      rg_cl_nap();
      continue;
    }
    if (rep.status && !*st) *st = rg_err_set(err, (rg_status)rep.status, "rank %d: %s", from, rep.msg);
    if (rep.peak_kb > tally[from].peak_kb) tally[from].peak_kb = rep.peak_kb;
    if (rep.status) fail(s);
    else if (rep.end > rep.begin) {
      rg_cl_add_tally(&tally[from], rep.end - rep.begin, rep.counts, rep.busy_s);
      s->done += rep.end - rep.begin;
    }
    if (!take(s, &b, &e)) b = e = 0, active--;
    rg_cl_send_chunk(from, b, e);
    bytes_ += (int64_t)sizeof rep + 2 * (int64_t)sizeof(int32_t);
  }
}
#endif

rg_status rg_cluster_spread(int kind, const char *text, size_t len, int n, const rg_cluster_work *w, void *job,
                            const char *stage, bool progress, rg_err *err) {
  rg_cluster_rank_tally *totals = totals_ + (size_t)kind * (size_t)size_;
  spread s = {.n = n, .ranks = size_, .w = w, .job = job};
  pthread_mutex_init(&s.mu, NULL);
  rg_status st = RG_OK;
  rg_progress line;
  rg_progress_start(&line, stage, "items", n, progress);
#ifdef RG_HAVE_MPI
  for (int r = 1; r < size_; r++) rg_cl_send_job(r, kind, text, len);
  bytes_ += (int64_t)(size_ - 1) * (int64_t)(len + sizeof(int64_t));
#else
  (void)text, (void)len;
#endif
  pthread_t local;
  bool threaded = pthread_create(&local, NULL, run_local, &s) == 0;
  if (!threaded) run_local(&s); /* rank 0 does its part first; the workers wait for chunks */
#ifdef RG_HAVE_MPI
  serve_workers(&s, &line, totals, &st, err);
#endif
  if (threaded) pthread_join(local, NULL);
  rg_progress_finish(&line);
  if (s.local_st && !st) *err = s.local_err, st = s.local_st;
  s.local.peak_kb = rg_cl_peak_kb();
  merge_tally(&totals[0], &s.local);
  pthread_mutex_destroy(&s.mu);
  return st;
}

/* ---- a worker ---- */

int rg_cluster_serve(const rg_cluster_work works[RG_CLUSTER_KINDS]) {
#ifdef RG_HAVE_MPI
  int rc = 0, kind;
  char *text;
  size_t len;
  while (!(ended = rg_cl_wait_order(&kind, &text, &len) == RG_CL_END)) {
    void *job = NULL;
    rg_err err = {0};
    const rg_cluster_work *w = kind >= 0 && kind < RG_CLUSTER_KINDS && works[kind].open ? &works[kind] : NULL;
    rg_cl_report rep = {.status = w ? w->open(w->ctx, text, len, &job, &err)
                                    : rg_err_set(&err, RG_ERR_ARG, "a job of kind %d, which this rank does not do", kind)};
    free(text);
    for (int b, e;;) {
      if (rep.status) snprintf(rep.msg, sizeof rep.msg, "%s", err.msg), rc = 1;
      rep.peak_kb = rg_cl_peak_kb();
      rg_cl_send_report(&rep);
      rg_cl_wait_chunk(&b, &e);
      if (b == e || !w) break;
      rep = (rg_cl_report){.begin = b, .end = e};
      double t0 = rg_clock_seconds();
      rep.status = w->run(w->ctx, job, b, e, rep.counts, &err);
      rep.busy_s = rg_clock_seconds() - t0;
    }
    if (job) w->close(w->ctx, job);
  }
  return rc;
#else
  (void)works;
  fprintf(stderr, "rulegen: built without MPI: there are no workers to serve\n");
  return 2;
#endif
}
