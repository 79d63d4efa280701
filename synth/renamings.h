/* synth/renamings.h: the candidates that rename one before them, let go of while the candidates
 * are parsed.
 *
 * Why: pruning's renaming stage removes every rule whose content id an earlier rule has, and
 * 1.37M of the 7.17M depth-4 candidates (generalizations, mostly) are such. Parsed whole, they
 * held about 1.4 GB at the run's peak, the end of the parse. Here each is made hollow
 * (synth/hollow.h) once its slice of the text is parsed, its rg_prune_facts kept for pruning
 * (rg_prune_opts.absent); pruning's result, the records and the checkpoints are as if it had
 * stayed whole.
 */
#ifndef RG_SYNTH_RENAMINGS_H
#define RG_SYNTH_RENAMINGS_H

#include "hollow.h"
#include "prune/prune.h"

typedef struct {
  rg_hollow *hollow;      /* where the renamings go, grown with the parse */
  rg_hashtab first;       /* a content id's hash -> the first rule with that id */
  uint64_t *tag;          /* [cap_tag]: more of each first rule's id, checked before it is recomputed */
  int *at;                /* [cap]: an absent rule's index into facts, else -1 */
  rg_prune_facts *facts;  /* [n_facts] of the absent rules */
  int32_t n_facts, cap_facts, cap_tag, cap;
  int threads;            /* for the slice's ids (rulegen -j) */
  const rg_ruleset *rs;   /* the set being parsed, for the equality check */
} rg_renamings;

void rg_renamings_init(rg_renamings *r, rg_hollow *hollow, int threads);
/* An rg_text_parsed_fn (ir/text.h), ctx the rg_renamings: hollows the slice's renamings. */
rg_status rg_renamings_parsed(void *ctx, rg_ruleset *rs, int first, rg_err *err) RG_MUST_CHECK;
/* Lets go of what only the parse needed (the table); the facts stay. */
void rg_renamings_parse_done(rg_renamings *r);
/* For rg_prune_opts.absent, ctx the rg_renamings: the facts of absent rule i, or NULL. */
const rg_prune_facts *rg_renamings_facts(void *ctx, int i);
void rg_renamings_free(rg_renamings *r);

#endif
