/* synth/resume.h: the tested candidates of a `rulegen` run saved next to its output, and a
 * later run resumed from them.
 *
 * Enumeration, fingerprints and testing are the long, parallel part of a run (26 minutes at
 * depth 4 --ops all); what follows (generalization, pruning, proofs) can fail or be stopped on
 * its own, and should not cost that part again. A run with an output FILE that goes past the
 * test stage therefore writes its candidates, header line first, to FILE.candidates (atomically)
 * before it goes on; `rulegen --resume FILE.candidates ...` starts after the test stage from
 * them. The header line names what made the candidates (depth, operator variants, inputs, seeds,
 * trials, shape sets): a resumed run's options must give the same line, so that generalization
 * sees the input set the candidates came from.
 */
#ifndef RG_SYNTH_RESUME_H
#define RG_SYNTH_RESUME_H

#include <stddef.h>
#include <stdint.h>

/* Writes len bytes of candidate text to OUT.candidates through a temporary file renamed over it.
 * Returns 0, or 1 after printing what failed. */
int rg_synth_save_candidates(const char *out_path, const char *text, size_t len);

/* Reads candidates saved by rg_synth_save_candidates from path into *text (malloc'ed, *len
 * bytes; the caller frees it) and counts its rules in *n. Its first line must equal header
 * (without the newline). Returns 0, or 2 after printing what is wrong (a missing or unreadable
 * file, another run's header, no header). */
int rg_synth_load_candidates(const char *path, const char *header, char **text, size_t *len,
                             uint64_t *n);

#endif
