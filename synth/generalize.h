/* synth/generalize.h: the generalize stage of `rulegen` (between testing and pruning).
 *
 * Every tested candidate with a repeated variable is generalized by splitting that variable
 * (verify/generalize.h) where the input set forced the repetition (every input of the
 * variable's shape is used in the candidate: a split with an unused input would be a graph
 * pair the enumeration compared itself). The most general passing generalizations are appended
 * to the candidates, and named to pruning as more general than the candidate, so the candidate
 * is removed as an instance of a kept generalization (and put back if that one fails its
 * proof); the general one goes to the provers like any candidate. Candidates are taken in parallel;
 * the appended text is in candidate order, the same for any thread count.
 */
#ifndef RG_SYNTH_GENERALIZE_H
#define RG_SYNTH_GENERALIZE_H

#include <signal.h>
#include <stdint.h>

#include "enumerate/enumerate.h"
#include "generalize_chunks.h"
#include "ir/progress.h"
#include "verify/generalize.h"
#include "verify/randtest_cache.h"

typedef struct {
  uint64_t in;       /* candidates read */
  uint64_t repeated; /* of them with a variable split at least once */
  uint64_t tried;    /* generalizations random-tested */
  uint64_t passed;   /* of those, passing */
  uint64_t added;    /* most general ones appended */
  uint64_t capped;   /* candidates whose tries ran into the bound */
  double seconds;
} rg_generalize_counts;

typedef struct rg_generalize_opts rg_generalize_opts;
/* Has the ranks of an MPI job make the chunks the folder kept (open) lacks, each kept there
 * (synth/generalize_spread.c); chunks[0..n) of text[0..len); *made: how many. */
typedef rg_status (*rg_generalize_spread_fn)(const rg_generalize_opts *o, const char *text, size_t len,
                                             const rg_gen_chunk *chunks, int n, const rg_gen_chunks *kept,
                                             int *made, rg_err *err);

struct rg_generalize_opts {
  const rg_enum_space *sp; /* the input set: shapes of the candidates' variables */
  rg_randtest_opts rt;     /* the test stage's options */
  rg_generalize_limits lim;
  int threads;
  size_t cache_bytes;          /* verdicts of renamed generalizations remembered */
  volatile sig_atomic_t *stop; /* Ctrl-C: stop at the next candidate */
  bool quiet;                  /* no progress line on stderr */
  int chunk_rules;             /* candidates parsed and held at once (0: 8192) */
  const char *keep_dir;        /* each chunk's result kept there as it is made, and taken from
                                  there by a run that goes on (generalize_chunks.h), or NULL */
  rg_generalize_spread_fn spread; /* with keep_dir: the chunks made by an MPI job's ranks first, or NULL */
};

/* Which variables of a candidate the stage splits (bit q: tensor variable q): those whose
 * shape has no input of the input set left unused in r (with an unused one, the split rule is
 * (a renaming of) a graph pair the enumeration itself compared). 0 also for a rule naming a
 * variable that is not an input. */
typedef struct {
  const rg_enum_space *sp;
  int same_shape[RG_ENUM_MAX_INPUTS]; /* inputs with input i's shape, i included */
} rg_split_ctx;
void rg_split_ctx_init(rg_split_ctx *c, const rg_enum_space *sp);
uint64_t rg_split_mask(const rg_split_ctx *c, const rg_rule *r);

/* Generalizes the candidates of the rule text *cand (*len bytes, '#' lines are comments) and
 * appends the generalizations' lines to it (realloc'd; *cand stays owned by the caller). With
 * rules numbered in the order of the text that results, *general_off ([rules + 1]) and
 * *general_of (new arrays, the caller frees them; NULL on error) list for each rule the
 * generalizations made from it, as rg_prune_opts.general_of wants them.
 * Returns RG_ERR_NOMEM, a parse error of the text, or an error of the random testing; when
 * interrupted, returns RG_OK with the text unchanged (the caller checks the stop flag). */
rg_status rg_synth_generalize(char **cand, size_t *len, const rg_generalize_opts *o,
                              rg_generalize_counts *c, int **general_off, int **general_of,
                              rg_err *err) RG_MUST_CHECK;

/* Generalizes chunk ch of text: its candidates' counts into stats[0..ch->m), their
 * generalizations' lines appended to lines; pg and done (may be NULL) count the candidates.
 * Errors: as rg_synth_generalize's. */
rg_status rg_generalize_chunk(const rg_generalize_opts *o, const char *text, const rg_gen_chunk *ch,
                              rg_generalize_stats *stats, rg_randtest_cache *cache, rg_progress *pg, int *done,
                              rg_strbuf *lines, rg_err *err) RG_MUST_CHECK;

#endif
