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
 * sees the input set the candidates came from. The lines after it hold those options whole
 * ("# options: --depth 2 --ops ...", then "# input NAME DIMS" per input), so that
 * `rulegen --resume FILE -o OUT` needs none of them retyped: they are the resumed run's
 * defaults, and an option given that changes the first line is refused by the check above.
 */
#ifndef RG_SYNTH_RESUME_H
#define RG_SYNTH_RESUME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run.h"

/* Appends the lines after the header: the options that made the candidates and the input set
 * (each line ending in a newline). */
void rg_synth_resume_lines(const rg_synth_opts *o, rg_strbuf *sb);

/* Reads those lines back from the candidates file at path: the options' text into args (without
 * "# options: "), the input set into *inputs. *found is false for a file written before the
 * lines existed (args and inputs untouched: the options come from the command line). Returns 0,
 * or 2 after printing what is wrong (file:line). */
int rg_synth_resume_options(const char *path, rg_strbuf *args, rg_enum_inputset *inputs, bool *found);

/* Whether the candidates file at path begins with block (the header line and the lines after
 * it, as this run would write them): candidates this very run made, which the same command
 * run again goes on from. False for a missing or unreadable file. */
bool rg_synth_candidates_made_by(const char *path, const char *block);

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
