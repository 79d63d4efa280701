/* certify/mutant.h: generators of PET's partially-equivalent mutants of a small multilinear
 * program, as rule text with shapes, ready for rg_pet_pair_new.
 *
 *  fig1     PET's Figure 1: a conv2d whose input width is cut into `pieces` strips that are
 *           stacked into the batch (reshape/transpose), convolved, and put back. Only the
 *           columns next to a strip border differ (the kernel reads the neighbouring strip's
 *           padding instead of its real neighbours).
 *  dilated  a conv2d with dilation 2 rewritten as a plain conv2d on the four phases of the
 *           input (space-to-batch by reshape/transpose, then back): the interleaving reshape
 *           makes boxes 2 wide; with even H and W the mutant is equivalent everywhere.
 *  fold     the other direction of Fig. 1: a batch of N images laid side by side along the
 *           width (transpose/reshape), one conv2d, taken apart again; the columns at each
 *           image's left and right border differ (they read the neighbouring image).
 *  merged   two conv2d with the same kernel on inputs x and y, concatenated along the width,
 *           merged into one conv2d over the concatenated inputs: the two columns at the seam
 *           differ.
 *  mmrows   PET's merged form for products: two products of one weight, x w and y w,
 *           concatenated along the rows, as one product of the stacked inputs.
 *  mmcols   the same with one input and two weights, x w and x v concatenated along the
 *           columns, as one product with the weights side by side.
 * A product has no spatial axis for fig1, dilated or fold, so merged is PET's only kind that
 * types there, and its mutants are equal everywhere (no box differs): they are certified like
 * the others, and the certificate says so.
 */
#ifndef RG_CERTIFY_MUTANT_H
#define RG_CERTIFY_MUTANT_H

#include "ir/ir.h"

typedef enum {
  RG_MUTANT_FIG1,
  RG_MUTANT_DILATED,
  RG_MUTANT_MERGED,
  RG_MUTANT_FOLD,
  RG_MUTANT_MMROWS,
  RG_MUTANT_MMCOLS,
  RG_MUTANT_COUNT
} rg_mutant_kind;

/* Input (n, c, h, w), kernel (o, c/groups, k, kw), and for fig1 the number of strips; the
 * convolution's stride is 1 and its padding SAME (what every kind needs). kw, dilation and
 * groups may be 0: kw = k, dilation 1 (the dilated kind's original always has 2), groups 1.
 * Graphopt makes them at a model's convolutions (optimizer/pet/). The product kinds read n as
 * each product's rows, c as its inner size and o as its columns, and nothing else. */
typedef struct {
  int32_t n, c, h, w, o, k, pieces;
  int32_t kw, dilation, groups;
} rg_mutant_dims;

typedef struct {
  char original[256];
  char mutant[1024];
  char shapes[256]; /* "w=OxCxKxK x=NxCxHxW"; a product's "w=CxO x=NxC" */
} rg_mutant;

const char *rg_mutant_name(rg_mutant_kind k);
/* mmrows and mmcols. */
bool rg_mutant_is_product(rg_mutant_kind k);
/* -1 when unknown. */
int rg_mutant_by_name(const char *name);
/* PET's sizes: 1x64x56x56 input, 64x64x3x3 kernel, two strips. */
rg_mutant_dims rg_mutant_default(void);
/* Writes the programs; RG_ERR_ARG when the dims do not suit the kind (e.g. a width that the
 * strips do not divide, odd sizes for dilated), naming the condition. */
rg_status rg_mutant_make(rg_mutant_kind kind, const rg_mutant_dims *d, rg_mutant *m, rg_err *err) RG_MUST_CHECK;

#endif
