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

#include "run.h"

/* Enumerates the units spill lacks (fp: the enumeration's options and progress), saying so when
 * an earlier run did some; c->graphs is the graphs of every unit done, c->secs[0] gets this
 * call's time. Returns RG_OK, interrupted or not (fp->stop). Errors: the spill folder's. */
rg_status rg_synth_enumerate_spilled(const rg_fp_opts *fp, const rg_enum_space *sp, rg_fp_spill *spill,
                                     rg_synth_counts *c, rg_err *err) RG_MUST_CHECK;

/* Tests the parts of a finished enumeration, appending every part's candidate lines to out and
 * its counts to c (c->secs[1] gets this call's time). Returns RG_OK with the output incomplete
 * when *o->stop is set. Errors: the spill folder's, the test stage's. */
rg_status rg_synth_test_spilled(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp,
                                rg_fp_spill *spill, FILE *out, rg_synth_counts *c, rg_err *err) RG_MUST_CHECK;

#endif
