/* synth/tested.h: the enumeration and the test stage through a spill folder
 * (fingerprint/spill.h), so that they need memory for one part of the records at a time and a
 * stopped run goes on where it stopped.
 *
 * The records are tested one part (a range of fingerprints) at a time, in order; a part whose
 * records exceed the memory limit is tested in pieces. Once a part is tested, its candidate
 * lines and counts are kept in the folder (test-NN.cand, whole or not at all) and read back by a
 * run that goes on, instead of being tested again. Parts are concatenated in fingerprint order,
 * so the candidates are those of one pass over all the records, for any thread count and however
 * often the run was stopped.
 */
#ifndef RG_SYNTH_TESTED_H
#define RG_SYNTH_TESTED_H

#include <stdio.h>

#include "cluster/cluster.h"
#include "run.h"

/* Enumerates the units spill lacks (fp: the enumeration's options and progress), saying so when
 * an earlier run did some; c->graphs is the graphs of every unit done, c->secs[0] gets this
 * call's time. Returns RG_OK, interrupted or not (fp->stop). Errors: the spill folder's. */
rg_status rg_synth_enumerate_spilled(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp,
                                     rg_fp_spill *spill, rg_synth_counts *c, rg_err *err) RG_MUST_CHECK;

/* Tests the parts of a finished enumeration, appending every part's candidate lines to out and
 * its counts to c (c->secs[1] gets this call's time). Returns RG_OK with the output incomplete
 * when *o->stop is set. Errors: the spill folder's, the test stage's. */
rg_status rg_synth_test_spilled(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp,
                                rg_fp_spill *spill, FILE *out, rg_synth_counts *c, rg_err *err) RG_MUST_CHECK;

/* ---- over the ranks of an MPI job (cluster/cluster.h; synth/tested_spread.c) ----
 * Rank 0 hands out the units spill lacks, then the groups of parts not yet tested, as each rank
 * asks, itself included; each rank writes the folder they share (every rank must see it, as
 * the proof cache), into files of its own. Rank 0 then reads the folder back and goes on as one
 * process would, so the candidates are the same byte for byte; what a stopped run kept is
 * taken under any number of ranks. */

/* What a rank needs to do such jobs: the run's options and operator space. */
typedef struct {
  const rg_synth_opts *o;
  const rg_enum_space *sp;
  bool progress; /* rank 0: a progress line while the ranks work */
} rg_synth_records_ctx;

/* Rank 0 of several: the units spill lacks enumerated by every rank (rank r writing slots
 * r*S .. r*S+j-1, S = RG_FP_SPILL_SLOTS / ranks, so ranks of any thread count never share one),
 * then spill read back, the units no rank committed (a rank stopped) enumerated here, and the
 * folder marked finished. Errors: a rank's (naming it; also a rank stopped by a signal), the
 * folder's. */
rg_status rg_synth_spread_enumerate(const rg_synth_records_ctx *c, rg_fp_spill *spill, rg_err *err) RG_MUST_CHECK;

/* Rank 0 of several: every group of parts of a finished enumeration not yet kept in spill
 * tested by the ranks and kept there (rg_synth_test_spilled then reads them); *parts: the
 * parts they tested, *loads: the loads of records that took. Errors: a rank's (naming it), the
 * folder's. */
rg_status rg_synth_spread_test(const rg_synth_records_ctx *c, rg_fp_spill *spill, int *parts, int *loads,
                               rg_err *err) RG_MUST_CHECK;

/* A worker's works for those jobs (synth/spread.h's kinds), on c (which must outlive them). */
void rg_synth_records_works(const rg_synth_records_ctx *c, rg_cluster_work works[RG_CLUSTER_KINDS]);

#endif
