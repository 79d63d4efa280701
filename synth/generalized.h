/* synth/generalized.h: the candidates after the renaming collapse and the generalize stage,
 * kept next to the output as OUT.generalized, so that a run going on from its candidates does
 * not redo those two stages (at depth 4 with every operator about 47 minutes) before pruning's
 * checkpoints (checkpoint.h) can be used.
 *
 * The file, written whole or not at all (ir/atomic.h):
 *   # rulegen generalized 1
 *   # of: KEY                 (rg_generalized_key: the candidate text read, the options)
 *   # counts: the collapse's in, out, seconds; generalize's in, repeated, tried, passed, added,
 *             capped, seconds
 *   # kept: I:K ...           (candidate I has K generalizations appended; in order)
 *   # text: BYTES
 *   the text, BYTES long
 *   end SHA-256               (of every byte before this line)
 * A file made from other candidates or options is not used (this run's replaces it); one cut
 * short, altered or unreadable is passed over with a line saying so, and the stages run again.
 */
#ifndef RG_SYNTH_GENERALIZED_H
#define RG_SYNTH_GENERALIZED_H

#include <stdbool.h>
#include <stddef.h>

#include "collapse.h"
#include "generalize.h"

typedef struct {
  char *text; /* the candidate text after both stages (owned) */
  size_t len;
  int *general_off, *general_of; /* as rg_synth_generalize's (owned; NULL without generalize) */
  rg_collapse_counts cc;
  rg_generalize_counts gc;
} rg_generalized;

#define RG_GENERALIZED_KEY 128
/* What binds the file to a run: the SHA-256 of the candidate text (len bytes) the stages read,
 * and whether generalize runs. */
void rg_generalized_key(const char *cand, size_t len, bool generalize, char key[RG_GENERALIZED_KEY]);

/* OUT.generalized (malloc'ed; NULL when out of memory). */
char *rg_generalized_path(const char *out_path);

/* Writes g as out_path's OUT.generalized under key, whole or not at all. */
rg_status rg_generalized_save(const char *out_path, const char *key, const rg_generalized *g,
                              rg_err *err) RG_MUST_CHECK;

/* Takes out_path's OUT.generalized into *g (freed by the caller: rg_generalized_free) when it is
 * whole and made under key; false otherwise (a file that is there but not used gets a line on
 * stderr saying why). */
bool rg_generalized_load(const char *out_path, const char *key, rg_generalized *g);

void rg_generalized_free(rg_generalized *g);

#endif
