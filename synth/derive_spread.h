/* synth/derive_spread.h: derivability's searches over the ranks of an MPI job
 * (cluster/cluster.h's talk; prune.h's rg_derive_helpers). Derivability stays rank 0's: it takes
 * each batch's results in order up to the first that changes the rewrite set. Each batch, rank 0
 * sends every worker the set's changes since the last (a rule added, as its text; one switched
 * off) and its share of the searches; each worker keeps its own copy of the set and answers with
 * what it found, which rank 0 checks before it uses it. So the result is the one-by-one pass's,
 * under any N. A worker searches without the stop flag: rank 0 stops between batches, so a
 * search cut short on a worker is never taken for a rule kept. The workers are asked only while
 * a search on rank 0 takes longer than a turn of the talk (timed when it opens; a test sets it
 * with RULEGEN_TEST_DERIVE_TURN=SECONDS, 0 to ask them always): at depths 2 and 3 a search is
 * microseconds and the talk would only slow it. A worker a signal stopped (a scheduler's SIGTERM)
 * answers its batch and says so: rank 0 then stops as on Ctrl-C, derivability's work kept. */
#ifndef RG_SYNTH_DERIVE_SPREAD_H
#define RG_SYNTH_DERIVE_SPREAD_H

#include "cluster/cluster.h"
#include "prune/prune.h"

typedef struct {
  rg_derive_helpers h;
  int workers;
  rg_strbuf changes; /* a batch's changes, said to every worker */
  rg_strbuf say;     /* one worker's message: the changes, then its searches */
  bool open;
  volatile sig_atomic_t *stop; /* rank 0's: set when a worker says a signal stopped it */
} rg_derive_spread;

/* Rank 0, before one derivability call under po: with several ranks, opens the talk and sets
 * po->helpers to s's; nothing with one. Errors: a rank's (naming it), RG_ERR_NOMEM; close s
 * after a failed open too (the workers that opened the talk wait in it). */
rg_status rg_derive_spread_open(rg_derive_spread *s, rg_prune_opts *po, rg_err *err) RG_MUST_CHECK;
/* After that call (st its status): closes the talk (after a failure too); the first error. */
rg_status rg_derive_spread_close(rg_derive_spread *s, rg_prune_opts *po, rg_status st,
                                 rg_err *err) RG_MUST_CHECK;

/* A worker's work for those talks (synth/spread.h's RG_SPREAD_DERIVE); stop: its Ctrl-C/SIGTERM
 * flag (set: it says so after the batch it is in). */
void rg_derive_work(volatile sig_atomic_t *stop, rg_cluster_work *w);

#endif
