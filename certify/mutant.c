/* certify/mutant.c: PET's mutants as rule text (see mutant.h). */
#include "mutant.h"

#include <stdio.h>
#include <string.h>

static const char *const names[RG_MUTANT_COUNT] = {"fig1", "dilated", "merged", "fold"};

const char *rg_mutant_name(rg_mutant_kind k) { return k < RG_MUTANT_COUNT ? names[k] : "?"; }

int rg_mutant_by_name(const char *name) {
  for (int k = 0; k < RG_MUTANT_COUNT; k++)
    if (strcmp(names[k], name) == 0) return k;
  return -1;
}

rg_mutant_dims rg_mutant_default(void) { return (rg_mutant_dims){1, 64, 56, 56, 64, 3, 2}; }

rg_status rg_mutant_make(rg_mutant_kind kind, const rg_mutant_dims *d, rg_mutant *m, rg_err *err) {
  memset(m, 0, sizeof *m);
  int32_t N = d->n, C = d->c, H = d->h, W = d->w, O = d->o, K = d->k, P = d->pieces;
  if (N < 1 || C < 1 || H < 1 || W < 1 || O < 1 || K < 1)
    return rg_err_set(err, RG_ERR_ARG, "mutant %s: every size must be at least 1", rg_mutant_name(kind));
  snprintf(m->shapes, sizeof m->shapes, "w=%dx%dx%dx%d x=%dx%dx%dx%d", O, C, K, K, N, C, H, W);
  switch (kind) {
  case RG_MUTANT_FIG1:
    /* (N,C,H,W) -> (N,C,H,P,W/P) -> perm 30124 (P,N,C,H,W/P) -> (P*N,C,H,W/P) -> conv ->
     * (P,N,O,H,W/P) -> perm 12304 (N,O,H,P,W/P) -> (N,O,H,W) */
    if (P < 2 || W % P)
      return rg_err_set(err, RG_ERR_ARG, "mutant fig1: %d strips must be at least 2 and divide the width %d", P, W);
    snprintf(m->original, sizeof m->original, "(conv2d ?x ?w)");
    snprintf(m->mutant, sizeof m->mutant,
             "(reshape %dx%dx%dx%d (transpose 12304 (reshape %dx%dx%dx%dx%d (conv2d (reshape %dx%dx%dx%d "
             "(transpose 30124 (reshape %dx%dx%dx%dx%d ?x))) ?w))))",
             N, O, H, W, P, N, O, H, W / P, P * N, C, H, W / P, N, C, H, P, W / P);
    return RG_OK;
  case RG_MUTANT_DILATED:
    /* (N,C,H,W) -> (N,C,H/2,2,W/2,2) -> perm 350124 (2,2,N,C,H/2,W/2) -> (4N,C,H/2,W/2) ->
     * conv -> (2,2,N,O,H/2,W/2) -> perm 234051 (N,O,H/2,2,W/2,2) -> (N,O,H,W) */
    if (H % 2 || W % 2)
      return rg_err_set(err, RG_ERR_ARG, "mutant dilated: height %d and width %d must be even", H, W);
    snprintf(m->original, sizeof m->original, "(conv2d 1 1 same none 2 2 ?x ?w)");
    snprintf(m->mutant, sizeof m->mutant,
             "(reshape %dx%dx%dx%d (transpose 234051 (reshape 2x2x%dx%dx%dx%d (conv2d (reshape %dx%dx%dx%d "
             "(transpose 350124 (reshape %dx%dx%dx2x%dx2 ?x))) ?w))))",
             N, O, H, W, N, O, H / 2, W / 2, 4 * N, C, H / 2, W / 2, N, C, H / 2, W / 2);
    return RG_OK;
  case RG_MUTANT_MERGED:
    snprintf(m->original, sizeof m->original, "(concat 3 (conv2d ?x ?w) (conv2d ?y ?w))");
    snprintf(m->mutant, sizeof m->mutant, "(conv2d (concat 3 ?x ?y) ?w)");
    snprintf(m->shapes, sizeof m->shapes, "w=%dx%dx%dx%d x=%dx%dx%dx%d y=%dx%dx%dx%d", O, C, K, K, N, C, H, W,
             N, C, H, W);
    return RG_OK;
  case RG_MUTANT_FOLD:
    /* (N,C,H,W) -> perm 1203 (C,H,N,W) -> (1,C,H,N*W) -> conv -> (O,H,N,W) -> perm 2013 */
    if (N < 2) return rg_err_set(err, RG_ERR_ARG, "mutant fold: the batch (%d) must hold at least 2 images", N);
    snprintf(m->original, sizeof m->original, "(conv2d ?x ?w)");
    snprintf(m->mutant, sizeof m->mutant,
             "(transpose 2013 (reshape %dx%dx%dx%d (conv2d (reshape 1x%dx%dx%d (transpose 1203 ?x)) ?w)))", O, H, N, W, C,
             H, N * W);
    return RG_OK;
  case RG_MUTANT_COUNT: break;
  }
  return rg_err_set(err, RG_ERR_ARG, "unknown mutant kind %d", (int)kind);
}
