/* ir/shapesolve.h: finding shapes (and parameter values) under which a rule is well-typed.
 *
 * Random testing must run a rule at several shape sets, not only the one it was found at, and
 * axioms must be tested at many shapes and parameter values. Both need assignments under which
 * both sides of the rule type-check and each output pair has the same type (dims and seams).
 *
 * Method (no per-operator symbolic algebra; real shape inference is the oracle):
 *   1. a base assignment: the caller's, or one found by trying ranks for each tensor variable
 *      with every dimension set to one common size (equalities then hold trivially);
 *   2. the base's dimension slots are grouped by equal value, and each group is split as far as
 *      type-checking allows (slots that need not be equal get their own group), so coincidences
 *      of the base (batch == channels, width 1) do not survive into the other shape sets;
 *   3. new assignments walk from the base: each group in turn moves to a fresh size
 *      (1 .. RG_SOLVE_MAX_DIM, preferably one no other group has) if the rule still
 *      type-checks; parameter variables get fresh values (within their domains) and a new base;
 *   4. every other walk is then skewed: two slots at a time move by +-1 or +-2, or double, where
 *      the rule still types, which breaks the pairings step 2 chose (operands of two concats
 *      that must add up to the same size, split unequally and out of line with each other;
 *      channels that line up with a kernel only together; a grouped conv's kernel count).
 * Under a reshape to a constant shape two groups may also trade a prime factor (the
 * element count stays, the factorization changes). A shape variable ((reshape ?s x)) is not drawn:
 * before every type check it is given a shape with x's element count (one of its factorizations,
 * picked by a hash of the count), so that random sizes keep the reshape possible. A constant's
 * shape variable ((Iewmul ?s)) takes the first tensor variable's shape under which the rule
 * types, or else one drawn with the parameters. Deterministic for a given seed.
 */
#ifndef RG_IR_SHAPESOLVE_H
#define RG_IR_SHAPESOLVE_H

#include "compare.h"

/* Sizes 1..6 leave enough distinct values to break the coincidences of the base (a rule's
 * groups rarely number more) while keeping trials cheap: a conv2d's cost grows with the fifth
 * power of the size, and trials at other shape sets were most of the depth-4 test stage. */
#define RG_SOLVE_MAX_DIM 6

/* One complete binding of a rule's variables, owning its storage. */
typedef struct {
  int32_t n_tvars, n_pvars;
  rg_shape *shapes;           /* [n_tvars] */
  const rg_shape **shape_ptrs; /* [n_tvars], into shapes */
  int32_t *pvar_values;        /* [n_pvars] */
  uint8_t *pvar_bound;         /* [n_pvars], all 1 */
  rg_binding binding;          /* points into the arrays above */
} rg_assignment;

typedef struct {
  rg_assignment *items;
  int n;
} rg_assignment_list;

/* Finds up to `max` pairwise different well-typed assignments for r (both sides, or the source
 * of a bare graph). If base is non-NULL and well-typed it is returned first; otherwise a base is
 * searched for. Returns RG_ERR_SHAPE with a message when no well-typed assignment is found
 * within the search budget. out must be freed with rg_assignment_list_free (also on error). */
rg_status rg_shapes_solve(const rg_rule *r, const rg_binding *base, uint64_t seed, int max,
                          rg_assignment_list *out, rg_err *err) RG_MUST_CHECK;
/* The same, but every other walk moves groups to the smallest size (1, else 2) that still
 * types before trying random ones, the first walk every group, later ones each group with
 * probability 1/2: a rule that holds only from some size on (a slice that needs two rows of one
 * operand of a concat) differs there, and one that holds where every size is 1 (a 1x1 matmul
 * is an ewmul) differs where only some are. */
rg_status rg_shapes_solve_small(const rg_rule *r, const rg_binding *base, uint64_t seed, int max,
                                rg_assignment_list *out, rg_err *err) RG_MUST_CHECK;
void rg_assignment_list_free(rg_assignment_list *l);

/* The rank every typing of g gives each node (rk[id], for rg_graph_size(g) nodes), or 0 where
 * the structure does not force one: images, kernels and constants of a fixed shape have theirs,
 * and a rank-keeping operator (elementwise ones, matmul, slice, pad, concat, split, transpose)
 * has its result's rank in those operands, both ways. */
void rg_forced_ranks(const rg_graph *g, int8_t *rk);

/* The axes (bit a of axes[v], for tensor variables v < 64) on which a split of g with a constant
 * axis a reaches variable v through operators that keep that axis's seams (elementwise ones,
 * smul's and bias's tensor, a concat along another axis): the split cuts where v's seams
 * are, so v has some there wherever g types. */
void rg_split_seamed_vars(const rg_graph *g, uint8_t *axes);

/* True when both sides of r type-check under b and their outputs have equal types. */
bool rg_rule_well_typed(const rg_rule *r, const rg_binding *b);

#endif
