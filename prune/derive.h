/* prune/derive.h: is a rule derivable from other rules? A bounded bidirectional breadth-first
 * search over rewrites.
 *
 * For each output pair src_i = tgt_i of the rule, one search rewrites src_i forwards and tgt_i
 * backwards (each with the usable orientations of the given rules, see rewrite.h) until the two
 * frontiers meet, within a step limit (total derivation length) and a state limit. The result
 * is a chain of single rewrite steps from src_i to tgt_i; the steps taken from the target side
 * appear reversed (the rule used right to left), which is sound because every step is an
 * equation. A rule is derivable only when every output pair is; nothing is claimed otherwise.
 * Terms are untyped, as in the SMT encoding the proofs use: a derivation is equational reasoning
 * in the same theory.
 *
 * Derivable means re-derivable by graphopt's searches, which apply a rule only where its
 * source side binds every variable of its target: in each direction the whole rule can be
 * applied in, every step of the chain must be a rewrite that binds its own target too. So a step
 * from the target side (reversed in the chain) must use a rule usable right to left as well when
 * r is usable source to target, and a step from the source side likewise when r is usable target
 * to source. A merge such as (matmul x w1) ; (matmul x w2) => split.0 / split.1 of (matmul x
 * (concat w1 w2)) is not derivable from its two output pairs: each pair, read left to right,
 * would have to invent the other weight.
 */
#ifndef RG_PRUNE_DERIVE_H
#define RG_PRUNE_DERIVE_H

#include <signal.h>

#include "rewrite.h"

typedef struct {
  int max_steps;  /* longest derivation per output pair */
  int max_states; /* terms visited per output pair (both directions together) */
  int max_growth; /* a term may have this many operators more than the larger side */
  const volatile sig_atomic_t *stop; /* if non-NULL and set, searches end (as not found) */
} rg_derive_limits;

#define RG_DERIVE_LIMITS_DEFAULT ((rg_derive_limits){4, 2000, 2, NULL})

typedef struct {
  int tag;      /* the rule used: the tag it was added to the rewrite set with */
  bool reverse; /* used right to left (target side to source side) */
  int output;   /* the output pair of the derived rule this step rewrites */
  char *state;  /* that output's whole term after the step, in rule text (malloc'ed) */
} rg_derive_step;

/* Steps in order, grouped by output pair in increasing order. */
typedef struct {
  int n;
  rg_derive_step *steps;
} rg_derivation;

void rg_derivation_free(rg_derivation *d);

/* Searches a derivation of r from the enabled rules in s but the one tagged exclude (-1: none;
 * a rule searched against the others while the set stays as it is, so that several threads
 * search at once). *found tells whether one was found within lim; then *d holds it (free with
 * rg_derivation_free), else *d is empty. Terms deeper than RG_TERM_MAX_DEPTH are not rewritten.
 * Errors only for allocation failure. */
rg_status rg_derive_search(const rg_rewrite_set *s, const rg_rule *r, const rg_derive_limits *lim, int exclude,
                           rg_derivation *d, bool *found, rg_err *err) RG_MUST_CHECK;

#endif
