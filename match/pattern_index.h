/* match/pattern_index.h: patterns (rule sides) indexed by their operator skeleton, so that a
 * term retrieves only the patterns that can match it (a discrimination tree).
 *
 * A pattern's skeleton is its tree read root first: at each operator node the operator, its
 * input count, the output index used, and its parameters when none is a parameter variable;
 * a tensor variable is a wildcard that skips a whole sub-term. A lookup walks the term and the
 * tree together, so every pattern it returns agrees with the term at every operator node in
 * all that rg_match (match.h) checks there except variable bindings; every pattern it leaves
 * out fails rg_match. Matching each returned pattern binds the variables.
 */
#ifndef RG_MATCH_PATTERN_INDEX_H
#define RG_MATCH_PATTERN_INDEX_H

#include "ir/ir.h"

typedef struct {
  int32_t *id;
  int n, cap;
} rg_id_list;

void rg_id_list_free(rg_id_list *l);

typedef struct rg_pattern_index rg_pattern_index;

rg_pattern_index *rg_pattern_index_new(void); /* NULL when out of memory */
void rg_pattern_index_free(rg_pattern_index *x);

/* Adds pattern p of graph g (which must outlive the index) as number id. Ids are 0, 1, 2, ...
 * in the order of addition. */
rg_status rg_pattern_index_add(rg_pattern_index *x, const rg_graph *g, rg_ref p, int32_t id,
                               rg_err *err) RG_MUST_CHECK;

/* Replaces out's contents with the ids of the patterns whose skeleton term t (of graph g)
 * has, in increasing order. */
rg_status rg_pattern_index_lookup(const rg_pattern_index *x, const rg_graph *g, rg_ref t,
                                  rg_id_list *out, rg_err *err) RG_MUST_CHECK;

#endif
