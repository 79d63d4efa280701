/* synth/parts.h: the test stage's parts (synth/tested.h) and the files that keep them.
 *
 * The records' fingerprint parts (fingerprint/spill.h) are tested in groups: parts p..q are
 * joined while their records stay under a target, which is the same in every run over one
 * folder, so a run that goes on, and every MPI rank, finds the same groups. A tested group's
 * candidate lines and counts are kept in the folder as test-PP-QQ.cand, whole or not at all.
 */
#ifndef RG_SYNTH_PARTS_H
#define RG_SYNTH_PARTS_H

#include <stdio.h>

#include "run.h"
#include "verify/randtest_cache.h"

/* The file that keeps parts p..q tested (malloc'ed; NULL: out of memory). */
char *rg_part_path(const rg_fp_spill *s, int p, int q);

/* The last part of the group that starts at part p. */
int rg_part_group_end(const rg_fp_spill *spill, const rg_fp_opts *fp, int p);

/* A tested group read back from path: its lines to out (NULL: not copied), its counts added to
 * c. False when there is none, or it is not whole (said on stderr: it is tested again). */
bool rg_part_read(const char *path, int p, int q, FILE *out, rg_synth_counts *c);

/* Keeps a tested group at path: its counts, the length and SHA-256 of its lines, then the
 * lines. Not synced: a file a machine restart cut is found so by rg_part_read. Errors: RG_ERR_IO. */
rg_status rg_part_save(const char *path, int p, int q, const rg_synth_counts *pc, const char *text, size_t len,
                       rg_err *err) RG_MUST_CHECK;

/* Tests parts p..q, in pieces when their records exceed the memory limit: the candidate lines
 * into *text (malloc'ed), the counts into pc. Errors: the spill folder's, the test stage's. */
rg_status rg_part_test(const rg_synth_opts *o, const rg_fp_opts *fp, const rg_enum_space *sp, const rg_fp_spill *spill,
                       int p, int q, rg_randtest_cache *cache, char **text, size_t *len, rg_synth_counts *pc,
                       rg_err *err) RG_MUST_CHECK;

#endif
