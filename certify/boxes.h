/* certify/boxes.h: box propagation (PET, OSDI'21, section 5): the split points ("cuts") of
 * every tensor of a multilinear program, derived operator by operator.
 *
 * A cut at q in dimension d means a box starts at q (0 < q < dim). The boxes of a tensor are
 * the products of the intervals between consecutive cuts. Invariant established for every
 * node output T (and tested against brute force in tests/test_certify_boxes.c): inside each
 * box of T, every input element that T[v] reads, through the whole program, is read at a
 * row-major index that is an affine function of v, and the set of terms (which padding cells
 * are skipped, which concat branch is taken) does not change. That is the hypothesis of PET's
 * Theorem 1, which lets m+1 positions stand for a whole box. Each operator's rule is written
 * next to its code in boxes.c; reshape refines boxes until its index map is affine.
 */
#ifndef RG_CERTIFY_BOXES_H
#define RG_CERTIFY_BOXES_H

#include "ir/ir.h"

/* Sorted, duplicate-free cut positions of one dimension, each in (0, dim). */
typedef struct {
  int32_t *v;
  int32_t n, cap;
} rg_cutlist;

typedef struct {
  int rank;
  int32_t dim[RG_MAX_RANK];
  rg_cutlist cut[RG_MAX_RANK];
} rg_cuts;

void rg_cuts_free(rg_cuts *c);
/* dst (already of the same dims) gets every cut of src too. */
rg_status rg_cuts_merge(rg_cuts *dst, const rg_cuts *src, rg_err *err) RG_MUST_CHECK;
/* Number of boxes (product over dimensions of cuts + 1). */
int64_t rg_cuts_boxes(const rg_cuts *c);
/* Box k (row-major over the per-dimension intervals): lo[d] .. hi[d]-1. */
void rg_cuts_box(const rg_cuts *c, int64_t k, int32_t *lo, int32_t *hi);

/* The cuts of every output of every node a plan typed. */
typedef struct rg_boxmap rg_boxmap;

/* Propagates cuts through the nodes reachable from outs[0..n). Fails with RG_ERR_ARG and a
 * message naming the operator when the program is not multilinear (an activation, max pooling,
 * a fused activation other than none) or uses an operator without a box rule. *out is owned by
 * the caller (rg_boxmap_free). */
rg_status rg_boxes_propagate(const rg_plan *plan, const rg_ref *outs, int n, rg_boxmap **out,
                             rg_err *err) RG_MUST_CHECK;
const rg_cuts *rg_boxmap_cuts(const rg_boxmap *m, rg_ref r);
void rg_boxmap_free(rg_boxmap *m);

/* The polynomial degree of an output in the input elements (inputs 1, constants 0, sums take
 * the maximum, products the sum): the d of PET's Theorem 2. INT32_MAX (a useless but safe
 * bound) when out of memory. */
int rg_boxes_degree(const rg_plan *plan, rg_ref r);

#endif
