/* synth/collapse.h: renamed copies among the tested candidates collapse to one line
 * before anything parses the candidates for good.
 *
 * Why here and not only in prune/'s renaming stage: at depth 4 with every operator the test
 * stage passes about 10 million candidates, most of them renamings of one another (equal-shaped
 * inputs in other orders). Holding all of them as rule graphs for generalization and pruning
 * would take about 1.5 KB each; this pass parses one line at a time (in parallel), keeps only
 * its content id (prune/canon.h), and keeps the first line of each id, in order: exactly the
 * lines prune's renaming stage would keep. The later renaming stage then only meets
 * generalizations that rename one another. The lines dropped are renamings of a kept line (same
 * content id), so nothing they say is lost; they stay in OUT.candidates when a run saves it.
 */
#ifndef RG_SYNTH_COLLAPSE_H
#define RG_SYNTH_COLLAPSE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

typedef struct {
  uint64_t in, out; /* rule lines read, kept */
  double seconds;
} rg_collapse_counts;

typedef struct {
  int threads;
  volatile sig_atomic_t *stop; /* Ctrl-C: the text is left unchanged */
  bool quiet;                  /* no progress line on stderr */
  /* Optional: more of the key, from the parsed rule (e.g. which variables the generalize
   * stage would split: that depends on the shapes of the inputs the line names, so two
   * renamings it treats differently must each reach it). */
  uint64_t (*extra_key)(void *ctx, const rg_rule *r);
  void *extra_ctx;
} rg_collapse_opts;

/* Drops, in place, every rule line of cand (*len bytes, NUL-terminated; '#' lines and blank
 * lines are kept) whose content id (and extra key) an earlier line has; *len shrinks
 * accordingly. Errors: a line that does not parse (RG_ERR_PARSE naming the line number),
 * RG_ERR_NOMEM. When *stop is set the text is left unchanged and RG_OK returned (the caller
 * checks the flag). */
rg_status rg_synth_collapse_renamings(char *cand, size_t *len, const rg_collapse_opts *o,
                                      rg_collapse_counts *c, rg_err *err) RG_MUST_CHECK;

#endif
