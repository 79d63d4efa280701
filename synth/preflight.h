/* synth/preflight.h: what a synthesis run checks before its long part starts.
 *
 * Enumeration and testing can take hours; a mistyped key, an axioms file that does not parse or
 * an output folder that does not exist must not be found only when the output is written. So
 * every such input is checked first, in well under a second: the output's and the JSON file's
 * folders, the signing key (a secret key, not a public one), and the axioms when the run goes
 * as far as the proofs.
 */
#ifndef RG_SYNTH_PREFLIGHT_H
#define RG_SYNTH_PREFLIGHT_H

#include "run.h"

/* Checks o's files before any work. Returns 0, or 2 (bad input) after printing to stderr what
 * is wrong, naming the option or file:line, and what to do. */
int rg_synth_preflight(const rg_synth_opts *o);

#endif
