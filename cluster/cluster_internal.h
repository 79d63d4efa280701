/* cluster/cluster_internal.h: the messages between rank 0 and the workers (cluster_mpi.c, built
 * with MPI only) and what cluster.c keeps. */
#ifndef RG_CLUSTER_INTERNAL_H
#define RG_CLUSTER_INTERNAL_H

#include "cluster.h"

/* A worker's word to rank 0 after a chunk (the first of a job: begin == end == 0): what it did,
 * and whether it failed (status, msg). */
typedef struct {
  int32_t status, begin, end;
  int64_t counts[RG_CLUSTER_COUNTS];
  double busy_s;
  int64_t peak_kb; /* the worker's peak resident memory so far */
  char msg[512];
} rg_cl_report;

/* This process's peak resident memory, KB (getrusage). */
int64_t rg_cl_peak_kb(void);

/* rank 0's orders */
typedef enum { RG_CL_JOB, RG_CL_END } rg_cl_order;

#ifdef RG_HAVE_MPI
/* Joins the job (MPI_Init_thread, funneled: only the main thread talks). */
rg_status rg_cl_mpi_start(int *argc, char ***argv, int *rank, int *size, rg_err *err);
void rg_cl_mpi_end(void);
void rg_cl_mpi_abort(int status);
/* rank 0 */
void rg_cl_send_job(int to, int kind, const char *text, size_t len);
void rg_cl_send_end(int to);
void rg_cl_send_chunk(int to, int begin, int end); /* begin == end: the job has no more */
bool rg_cl_poll_report(int *from, rg_cl_report *r); /* a report waiting, taken; never blocks */
/* a worker: rank 0's next order (a job's kind, and its text malloc'ed into *text; out of memory ends the job),
 * its next chunk, and its reports; waiting sleeps between polls */
rg_cl_order rg_cl_wait_order(int *kind, char **text, size_t *len);
bool rg_cl_order_waiting(void); /* an order has come (never blocks) */
void rg_cl_wait_chunk(int *begin, int *end);
void rg_cl_send_report(const rg_cl_report *r);
/* A talk (cluster.h): a message to a worker, or to rank 0 (to 0); what waits from a rank (never
 * blocks); a talk message from it, taken (malloc'ed into *msg; out of memory ends the job); its
 * report, taken. */
enum { RG_CL_NONE, RG_CL_TALK, RG_CL_REPORT, RG_CL_OTHER };
void rg_cl_send_talk(int to, const void *msg, size_t len);
int rg_cl_waiting_from(int from);
void rg_cl_recv_talk(int from, char **msg, size_t *len);
void rg_cl_recv_report(int from, rg_cl_report *r);
#endif

/* The tally of kind (size entries, one a rank), and a chunk's figures added to one. */
rg_cluster_rank_tally *rg_cl_tally(int kind);
void rg_cl_add_tally(rg_cluster_rank_tally *t, int items, const int64_t *counts, double busy);
/* Adds what bytes rank 0 sent or took. */
void rg_cl_count_bytes(int64_t n);

/* Sleeps a few milliseconds: a rank waiting leaves its core to the others. */
void rg_cl_nap(void);

#endif
