/* cluster/talk.c: a talk between rank 0 and the workers (cluster.h): a job each worker serves
 * in one call of its run, turn by turn. */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "cluster_internal.h"
#include "ir/clock.h"

#ifdef RG_HAVE_MPI
/* Each worker's part in the talk now: talking, owing a reply (said to, not heard yet), or done
 * (its report taken: failed, or the talk over). */
enum { TALKING, OWES, DONE };
static char *state_;
static int kind_; /* the talk's job */

/* A wait between polls: the first 2 ms yield the core (the other side of a turn answers within
 * microseconds to milliseconds, and both sides napping made each turn wait out the other's naps:
 * 16 ms a turn), then naps of 20 us doubled each time nothing came, up to rg_cl_nap's 5 ms. */
typedef struct {
  double since;
  int naps;
} waiting;

static void nap(waiting *w) {
  if (rg_clock_seconds() - w->since < 0.002)
    sched_yield();
  else if (w->naps < 8)
    nanosleep(&(struct timespec){0, 20 * 1000L << w->naps++}, NULL);
  else
    rg_cl_nap();
}

/* Worker from's report taken: its figures tallied, its failure into *st (the first one), and the
 * chunk that ends its job sent. */
static void take_report(int from, rg_status *st, rg_err *err) {
  rg_cl_report rep;
  rg_cl_recv_report(from, &rep);
  rg_cluster_rank_tally *t = &rg_cl_tally(kind_)[from];
  if (rep.peak_kb > t->peak_kb) t->peak_kb = rep.peak_kb;
  if (rep.status && !*st)
    *st = rg_err_set(err, (rg_status)rep.status, "rank %d: %s", from, rep.msg);
  if (!rep.status && rep.end > rep.begin)
    rg_cl_add_tally(t, rep.end - rep.begin, rep.counts, rep.busy_s);
  rg_cl_send_chunk(from, 0, 0);
  rg_cl_count_bytes((int64_t)sizeof rep);
  state_[from] = DONE;
}

/* Waits for worker from's next message: a talk message (true) or its report (taken: false). */
static bool wait_for(int from) {
  for (waiting w = {rg_clock_seconds(), 0};; nap(&w)) {
    int what = rg_cl_waiting_from(from);
    if (what == RG_CL_TALK) return true;
    if (what == RG_CL_REPORT) return false;
  }
}
#endif

rg_status rg_cluster_talk_open(int kind, const char *text, size_t len, rg_err *err) {
  rg_status st = RG_OK;
#ifdef RG_HAVE_MPI
  int size = rg_cluster_size();
  free(state_);
  kind_ = kind;
  if (!(state_ = calloc((size_t)size, 1))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int r = 1; r < size; r++)
    rg_cl_send_job(r, kind, text, len);
  rg_cl_count_bytes((int64_t)(size - 1) * (int64_t)len);
  for (int r = 1; r < size; r++) { /* each worker's word that it opened the job */
    rg_cl_report rep;
    while (rg_cl_waiting_from(r) != RG_CL_REPORT)
      rg_cl_nap();
    rg_cl_recv_report(r, &rep);
    if (rep.status) {
      if (!st) st = rg_err_set(err, (rg_status)rep.status, "rank %d: %s", r, rep.msg);
      rg_cl_send_chunk(r, 0, 0);
      state_[r] = DONE;
    } else {
      rg_cl_send_chunk(r, r - 1, r);
    }
  }
#else
  (void)kind, (void)text, (void)len, (void)err;
#endif
  return st;
}

rg_status rg_cluster_say(int to, const void *msg, size_t len, rg_err *err) {
#ifdef RG_HAVE_MPI
  if (state_[to] == DONE) return rg_err_set(err, RG_ERR_ARG, "rank %d left the talk", to);
  rg_cl_send_talk(to, msg, len);
  rg_cl_count_bytes((int64_t)len);
  state_[to] = OWES;
  return RG_OK;
#else
  (void)to, (void)msg, (void)len;
  return rg_err_set(err, RG_ERR_ARG, "there is no rank to talk to");
#endif
}

rg_status rg_cluster_hear(int from, char **msg, size_t *len, rg_err *err) {
  *msg = NULL, *len = 0;
#ifdef RG_HAVE_MPI
  if (state_[from] == DONE) return rg_err_set(err, RG_ERR_ARG, "rank %d left the talk", from);
  rg_status st = RG_OK;
  if (!wait_for(from)) {
    take_report(from, &st, err); /* a worker that failed */
    return st ? st : rg_err_set(err, RG_ERR_ARG, "rank %d left the talk", from);
  }
  rg_cl_recv_talk(from, msg, len);
  rg_cl_count_bytes((int64_t)*len);
  state_[from] = TALKING;
  return RG_OK;
#else
  (void)from;
  return rg_err_set(err, RG_ERR_ARG, "there is no rank to talk to");
#endif
}

#ifdef RG_HAVE_MPI
/* Worker r's next message: a reply no one waits for, dropped, or its report, taken (r done). */
static void drop_next(int r, rg_status *st, rg_err *err) {
  char *msg = NULL;
  size_t len;
  if (wait_for(r))
    rg_cl_recv_talk(r, &msg, &len), free(msg);
  else
    take_report(r, st, err);
}
#endif

rg_status rg_cluster_talk_close(rg_err *err) {
  rg_status st = RG_OK;
#ifdef RG_HAVE_MPI
  int size = rg_cluster_size();
  /* A worker said to and not heard (rank 0 failed part way through a turn) answers first, or
   * reports its failure: the end of the talk must not be left waiting for its next one. */
  for (int r = 1; state_ && r < size; r++)
    if (state_[r] == OWES) {
      drop_next(r, &st, err);
      if (state_[r] == OWES) state_[r] = TALKING; /* it answered */
    }
  for (int r = 1; state_ && r < size; r++)
    if (state_[r] == TALKING) rg_cl_send_talk(r, "", 0); /* the talk is over */
  for (int r = 1; state_ && r < size; r++)
    while (state_[r] == TALKING)
      drop_next(r, &st, err); /* its report ends it */
  free(state_);
  state_ = NULL;
#else
  (void)err;
#endif
  return st;
}

bool rg_cluster_listen(char **msg, size_t *len) {
  *msg = NULL, *len = 0;
#ifdef RG_HAVE_MPI
  for (waiting w = {rg_clock_seconds(), 0}; rg_cl_waiting_from(0) != RG_CL_TALK; nap(&w)) {
  }
  rg_cl_recv_talk(0, msg, len);
  if (*len) return true;
  free(*msg);
  *msg = NULL;
#endif
  return false;
}

void rg_cluster_reply(const void *msg, size_t len) {
#ifdef RG_HAVE_MPI
  rg_cl_send_talk(0, msg, len);
#else
  (void)msg, (void)len;
#endif
}
