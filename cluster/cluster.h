/* cluster/cluster.h: one rulegen run over the processes of an MPI job (`mpirun -np N rulegen
 * ...`). Rank 0 runs the pipeline and writes every output; the other ranks (workers) serve it:
 * rank 0 sends a job (a text every rank parses the same way, such as a proof round's rules) and
 * spreads its n items over every rank, itself included, a chunk at a time as each asks for more
 * (guided: large chunks first, small ones at the end, so that the ranks finish together).
 * What the ranks compute goes where rank 0 takes it from (the proof cache, shared by the ranks:
 * a folder every rank sees), so the outputs are those of one process.
 *
 * Without MPI (a build where it was not found, or a program not started by an MPI launcher:
 * no OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK in the environment) there is one rank, 0, and
 * a spread runs every item here: the single-process program, unchanged.
 *
 * Waiting never spins: a rank with nothing to do polls for messages every few milliseconds, so
 * that workers waiting out rank 0's hours of enumeration leave the cores to it.
 *
 * A rank that dies ends the job (mpirun kills the others and names the rank); the run resumes
 * from its checkpoints and the proof cache with the same command, under any N.
 */
#ifndef RG_CLUSTER_CLUSTER_H
#define RG_CLUSTER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/status.h"

/* Counters a chunk's work reports (the caller's meaning), summed per rank. */
#define RG_CLUSTER_COUNTS 8
/* Kinds of job (the caller's meaning: a stage of the run); each kind is tallied apart. */
#define RG_CLUSTER_KINDS 5

/* Joins the MPI job when an MPI launcher started this process (else one rank); spreads: the
 * command is one that spreads its work over the ranks (else it must run alone). Errors:
 * RG_ERR_ARG: MPI did not start (said why), a build without MPI started as one of several
 * processes (each would run the whole job), or several ranks for a command that does not spread. */
rg_status rg_cluster_start(int *argc, char ***argv, bool spreads, rg_err *err) RG_MUST_CHECK;
int rg_cluster_rank(void);
int rg_cluster_size(void);
/* Every rank, before it exits: rank 0 tells the workers the run is over; then MPI is left.
 * status is this rank's exit status. */
void rg_cluster_end(int status);

/* The work of a job, on every rank: open parses the job's text into *job (rank 0 passes its
 * own, already made, to rg_cluster_spread instead), run does items [begin, end) and adds what it
 * counts to counts, close releases the job. Errors end the job on every rank. */
typedef struct {
  void *ctx;
  rg_status (*open)(void *ctx, const char *text, size_t len, void **job, rg_err *err);
  rg_status (*run)(void *ctx, void *job, int begin, int end, int64_t counts[RG_CLUSTER_COUNTS],
                   rg_err *err);
  void (*close)(void *ctx, void *job);
  int min_chunk; /* fewest items a chunk holds, but the last (0: 8; 1 where items are large) */
} rg_cluster_work;

/* What each rank did in every spread of a kind so far (rg_cluster_totals). */
typedef struct {
  int64_t items, chunks;
  int64_t counts[RG_CLUSTER_COUNTS];
  double busy_s; /* seconds in run() */
  int64_t peak_kb; /* the rank's peak resident memory, KB, as last reported */
} rg_cluster_rank_tally;

/* Rank 0 of a job of several ranks (rg_cluster_size() > 1: with one there is nothing to spread,
 * and a caller runs its items itself): sends text (len bytes) to every worker as a job of kind
 * kind (0 .. RG_CLUSTER_KINDS-1, served by the workers' w of that kind), then
 * spreads items 0..n-1 over every rank, itself running them on job (made from the same text)
 * with w->run in a thread of its own; returns when every item is done, each rank's figures
 * added to rg_cluster_totals(kind). progress: a line on stderr (stage) while it runs. Errors: a
 * rank's (its message, naming the rank), RG_ERR_NOMEM. */
rg_status rg_cluster_spread(int kind, const char *text, size_t len, int n, const rg_cluster_work *w, void *job,
                            const char *stage, bool progress, rg_err *err) RG_MUST_CHECK;

/* A worker: serves rank 0's jobs until rank 0 ends the run, a job of kind k with works[k]
 * (RG_CLUSTER_KINDS of them; one whose open is NULL fails the job: a kind this worker cannot
 * do). Returns the exit status (0; 1 when a job failed here, said on stderr). */
int rg_cluster_serve(const rg_cluster_work works[RG_CLUSTER_KINDS]);

/* A talk: work whose ranks keep in step, each turn depending on the last (derivability's
 * batches). Rank 0 opens it with a job of kind (text parsed by the workers' open, as for a
 * spread); each worker's run is then called once (items [r - 1, r) on rank r) and talks with
 * rg_cluster_listen and rg_cluster_reply until listen says the talk is over; rank 0 says to and
 * hears from each worker, then closes the talk, which adds the workers' figures to
 * rg_cluster_totals(kind). Waiting polls with naps of microseconds (a turn is milliseconds),
 * growing to a few milliseconds while nothing comes. With one rank there is no one to talk to.
 * Errors: a worker's (its message, naming the rank), RG_ERR_NOMEM. */
rg_status rg_cluster_talk_open(int kind, const char *text, size_t len, rg_err *err) RG_MUST_CHECK;
/* Rank 0: len bytes to worker to (1 .. size - 1), and its next reply (malloc'ed into *msg, with
 * a NUL after its len bytes). A worker that failed: its error, and no more is said to it. */
rg_status rg_cluster_say(int to, const void *msg, size_t len, rg_err *err) RG_MUST_CHECK;
rg_status rg_cluster_hear(int from, char **msg, size_t *len, rg_err *err) RG_MUST_CHECK;
/* Rank 0: ends the talk on every worker (after a failure too); the first failure not heard yet. */
rg_status rg_cluster_talk_close(rg_err *err) RG_MUST_CHECK;
/* A worker, in its run: rank 0's next words (malloc'ed into *msg, NUL after them); false when the
 * talk is over. */
bool rg_cluster_listen(char **msg, size_t *len);
void rg_cluster_reply(const void *msg, size_t len);

/* The figures of every spread of kind so far, per rank (size entries; rank 0's own table). */
const rg_cluster_rank_tally *rg_cluster_totals(int kind);
/* Bytes rank 0 sent and received in every spread so far (jobs, chunks, reports). */
int64_t rg_cluster_bytes(void);

#endif
