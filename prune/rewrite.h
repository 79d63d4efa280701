/* prune/rewrite.h: terms as refs of a hash-consed graph, their positions, replacement at a
 * position, and sets of oriented rewrite rules indexed by the operator skeleton of their left
 * side.
 *
 * A position is the path of input indices from the root of a term's tree form. Replacing at a
 * position rebuilds the ancestors on that path in the same graph (hash-consing shares the
 * rest). A rule's output pair src_i = tgt_i may be used left to right when the left side is not
 * a bare variable and every variable of the right side occurs in the left side (otherwise the
 * right side could not be built), and right to left under the same condition. A rule of several
 * outputs gives no rewriters: each output pair is an equation, but graphopt's searches apply such
 * a rule only whole, so a derivation through one of its pairs is not one they could repeat.
 */
#ifndef RG_PRUNE_REWRITE_H
#define RG_PRUNE_REWRITE_H

#include "ir/ir.h"
#include "match/match.h"

#define RG_TERM_MAX_DEPTH 32

typedef struct {
  rg_ref sub;
  int depth;
  uint8_t path[RG_TERM_MAX_DEPTH];
} rg_position;

/* Operators in the tree form of r (variables not counted), saturating at cap. */
int rg_term_size(const rg_graph *g, rg_ref r, int cap);

/* rg_term_size of every node of a graph that grows (saturating at RG_TERM_SIZES_CAP, above any
 * size bound a derivation search uses: 2^20 and a growth of at most 64), kept up to date by
 * rg_term_sizes_update: a derivation search asks the sizes of the same sub-terms at every state
 * it visits, and walking them each time was a sixth of its time. */
#define RG_TERM_SIZES_CAP (1 << 28)
typedef struct {
  int32_t *size;
  int32_t n, cap;
} rg_term_sizes;

/* Computes the sizes of the nodes g gained since the last call (ids are topological, so each
 * node's operands are known first). Errors only for allocation failure. */
rg_status rg_term_sizes_update(rg_term_sizes *ts, const rg_graph *g, rg_err *err) RG_MUST_CHECK;
void rg_term_sizes_free(rg_term_sizes *ts);

/* rg_term_size of the instance of pattern pr (in pg) under e, in tg, without building it: a
 * derivation search rejects most rewrites for their size, and building them first was most of
 * its time. Unbound variables count 0 (rg_match_instantiate would refuse them). known: tg's
 * sizes, up to date for every node e binds, or NULL to walk the bound terms. */
int rg_instance_size(const rg_graph *pg, rg_ref pr, const rg_match_env *e, const rg_graph *tg,
                     const rg_term_sizes *known, int cap);

/* Every position of r's tree whose sub-term is not a variable, root first. *out is malloc'ed
 * (free it); RG_ERR_LIMIT when the term is deeper than RG_TERM_MAX_DEPTH. */
rg_status rg_term_positions(const rg_graph *g, rg_ref r, rg_position **out, int *n,
                            rg_err *err) RG_MUST_CHECK;

/* The term root with the sub-term at path[0..depth) replaced by repl, built in g. */
rg_status rg_term_replace(rg_graph *g, rg_ref root, const uint8_t *path, int depth, rg_ref repl,
                          rg_ref *out, rg_err *err) RG_MUST_CHECK;

/* Copies term r of graph `from` into `to`, mapping variables by name (interned in `to`). */
rg_status rg_term_import(const rg_graph *from, rg_ref r, rg_graph *to, rg_ref *out,
                         rg_err *err) RG_MUST_CHECK;

/* A copy of g with the same node ids and variable indices. */
rg_status rg_graph_clone(const rg_graph *g, rg_graph **out, rg_err *err) RG_MUST_CHECK;

/* One usable orientation of one output pair of a rule. */
typedef struct {
  const rg_graph *g; /* the rule's graph (not owned) */
  rg_ref lhs, rhs;
  int tag;      /* the caller's number for the rule */
  int output;   /* which output pair */
  bool reverse; /* lhs is the rule's target side */
  bool reversible; /* rhs to lhs is usable too (rhs an operator that binds lhs's variables) */
  /* Bounds on an instance's size before matching: most rewrites a search meets are too big for
   * it, and matching and sizing them was most of its time. rhs_ops: operators of rhs (its
   * instance has at least these). keeps_vars: every tensor variable occurs in rhs at least as
   * often as in lhs, so an instance has at least the matched term's size - lhs_ops + rhs_ops. */
  int32_t lhs_ops, rhs_ops;
  bool keeps_vars;
} rg_rewriter;

/* The least size rg_instance_size can give for w's instance at a term of sub_size operators. */
int rg_rewriter_least_size(const rg_rewriter *w, int sub_size);

/* Whether the variables of sides a (na outputs) cover those of b (nb outputs): b can be built
 * from a match of a. */
rg_status rg_side_covers(const rg_graph *g, const rg_ref *a, int na, const rg_ref *b, int nb, bool *yes,
                         rg_err *err) RG_MUST_CHECK;

typedef struct rg_rewrite_set rg_rewrite_set;

rg_rewrite_set *rg_rewrite_set_new(void); /* NULL when out of memory */
void rg_rewrite_set_free(rg_rewrite_set *s);
/* A left side of more operators than this (in its tree form) is no rewriter: no rule rulegen
 * makes comes near it, and a lookup's recursion is as deep as the patterns are large (a hostile
 * rule of a million operators, written as a tree of shared sub-terms, overflowed the stack). */
#define RG_REWRITE_MAX_LHS 512

/* Adds every usable orientation of r (which must outlive the set; none for a rule of several
 * outputs, none whose left side passes RG_REWRITE_MAX_LHS), under the caller's number tag.
 * Returns how many were usable in *added (may be NULL). */
rg_status rg_rewrite_set_add(rg_rewrite_set *s, const rg_rule *r, int tag, int *added,
                             rg_err *err) RG_MUST_CHECK;
/* The rewriters whose left side may match term t, as their numbers in increasing order (a
 * rewriter's number is its place in the order of addition, from 0): those whose left side has t's operator skeleton (pattern_index.h). A
 * search tries every position of every term it visits, so scanning rewriters that cannot match
 * there was most of the derivability stage. */
rg_status rg_rewrite_set_candidates(const rg_rewrite_set *s, const rg_graph *g, rg_ref t,
                                    rg_id_list *out, rg_err *err) RG_MUST_CHECK;
/* The rewriter numbered k (from rg_rewrite_set_candidates). */
const rg_rewriter *rg_rewrite_set_at(const rg_rewrite_set *s, int32_t k);
int rg_rewrite_set_size(const rg_rewrite_set *s);
/* Switches the rewriters of rule `tag` (added before) off or back on: a search can then ask
 * whether the other rules derive it. Not thread-safe against concurrent searches. */
void rg_rewrite_set_enable(rg_rewrite_set *s, int tag, bool on);
bool rg_rewrite_set_enabled(const rg_rewrite_set *s, int tag);
/* The most tensor / parameter variables of any rule added (to size a rg_match_env). */
void rg_rewrite_set_max_vars(const rg_rewrite_set *s, int32_t *n_tvars, int32_t *n_pvars);

#endif
