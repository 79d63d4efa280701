/* cluster/cluster_mpi.c: the messages of cluster_internal.h over MPI point-to-point. Every wait
 * polls (MPI_Iprobe) and naps between polls: MPI's blocking calls spin a core. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "cluster_internal.h"

enum { TAG_JOB = 1, TAG_END, TAG_CHUNK, TAG_REPORT, TAG_TALK };

rg_status rg_cl_mpi_start(int *argc, char ***argv, int *rank, int *size, rg_err *err) {
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return rg_err_set(err, RG_ERR_ARG, "MPI did not start (MPI_Init_thread failed)");
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    return rg_err_set(err, RG_ERR_ARG, "this MPI runs no threads beside its calls (MPI_THREAD_FUNNELED)");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return RG_OK;
}

void rg_cl_mpi_end(void) { MPI_Finalize(); }

void rg_cl_mpi_abort(int status) { MPI_Abort(MPI_COMM_WORLD, status); }

/* A head of two numbers (the second the length), then the bytes in pieces under INT_MAX: a
 * depth-4 round's rules are over 1 GB of text. */
static void send_big(int to, int tag, int64_t first, const char *text, size_t len) {
  int64_t head[2] = {first, (int64_t)len};
  MPI_Send(head, 2, MPI_INT64_T, to, tag, MPI_COMM_WORLD);
  for (size_t at = 0; at < len; at += 1 << 30) {
    size_t piece = len - at < (size_t)1 << 30 ? len - at : (size_t)1 << 30;
    MPI_Send(text + at, (int)piece, MPI_CHAR, to, tag, MPI_COMM_WORLD);
  }
}

void rg_cl_send_job(int to, int kind, const char *text, size_t len) {
  send_big(to, TAG_JOB, kind, text, len);
}

void rg_cl_send_end(int to) { MPI_Send(NULL, 0, MPI_CHAR, to, TAG_END, MPI_COMM_WORLD); }

void rg_cl_send_chunk(int to, int begin, int end) {
  int32_t c[2] = {begin, end};
  MPI_Send(c, 2, MPI_INT32_T, to, TAG_CHUNK, MPI_COMM_WORLD);
}

bool rg_cl_poll_report(int *from, rg_cl_report *r) {
  int flag = 0;
  MPI_Status s;
  MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &flag, &s);
  if (!flag) return false;
  MPI_Recv(r, (int)sizeof *r, MPI_BYTE, s.MPI_SOURCE, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  r->msg[sizeof r->msg - 1] = 0;
  *from = s.MPI_SOURCE;
  return true;
}

/* Waits for a message from rank 0 with one of the tags (tag2 0: one), napping between polls. */
static MPI_Status wait_from_zero(int tag1, int tag2) {
  for (;;) {
    int flag = 0;
    MPI_Status s;
    MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &s);
    if (flag && (s.MPI_TAG == tag1 || s.MPI_TAG == tag2)) return s;
    rg_cl_nap();
  }
}

bool rg_cl_order_waiting(void) {
  int flag = 0;
  MPI_Status s;
  MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &s);
  return flag && (s.MPI_TAG == TAG_JOB || s.MPI_TAG == TAG_END);
}

/* What send_big sent, from rank from with tag: its first number returned, its bytes malloc'ed into
 * *text with a NUL after them (out of memory ends the job: its pieces could not be taken). poll: a
 * worker taking a job from rank 0 polls for each piece, napping (it never spins); a talk's pieces
 * follow the head at once, and a nap there would cost each turn milliseconds. */
static int64_t recv_big(int from, int tag, bool poll, char **text, size_t *len) {
  int64_t head[2] = {0, 0};
  MPI_Recv(head, 2, MPI_INT64_T, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  *len = (size_t)head[1];
  if (!(*text = malloc(*len + 1))) {
    fprintf(stderr, "rulegen: rank %d: out of memory for a message of %zu bytes\n",
            rg_cluster_rank(), *len);
    rg_cl_mpi_abort(1);
  }
  for (size_t at = 0; at < *len; at += 1 << 30) {
    size_t piece = *len - at < (size_t)1 << 30 ? *len - at : (size_t)1 << 30;
    if (poll) wait_from_zero(tag, 0);
    MPI_Recv(*text + at, (int)piece, MPI_CHAR, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  (*text)[*len] = 0;
  return head[0];
}

rg_cl_order rg_cl_wait_order(int *kind, char **text, size_t *len) {
  MPI_Status s = wait_from_zero(TAG_JOB, TAG_END);
  if (s.MPI_TAG == TAG_END) {
    MPI_Recv(NULL, 0, MPI_CHAR, 0, TAG_END, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return RG_CL_END;
  }
  *kind = (int)recv_big(0, TAG_JOB, true, text, len);
  return RG_CL_JOB;
}

void rg_cl_wait_chunk(int *begin, int *end) {
  wait_from_zero(TAG_CHUNK, 0);
  int32_t c[2];
  MPI_Recv(c, 2, MPI_INT32_T, 0, TAG_CHUNK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  *begin = c[0], *end = c[1];
}

void rg_cl_send_report(const rg_cl_report *r) {
  MPI_Send(r, (int)sizeof *r, MPI_BYTE, 0, TAG_REPORT, MPI_COMM_WORLD);
}

void rg_cl_send_talk(int to, const void *msg, size_t len) { send_big(to, TAG_TALK, 0, msg, len); }

int rg_cl_waiting_from(int from) {
  int flag = 0;
  MPI_Status s;
  MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &s);
  return !flag                     ? RG_CL_NONE
         : s.MPI_TAG == TAG_TALK   ? RG_CL_TALK
         : s.MPI_TAG == TAG_REPORT ? RG_CL_REPORT
                                   : RG_CL_OTHER;
}

void rg_cl_recv_talk(int from, char **msg, size_t *len) {
  recv_big(from, TAG_TALK, false, msg, len);
}

void rg_cl_recv_report(int from, rg_cl_report *r) {
  MPI_Recv(r, (int)sizeof *r, MPI_BYTE, from, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  r->msg[sizeof r->msg - 1] = 0;
}
