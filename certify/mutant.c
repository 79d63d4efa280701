/* certify/mutant.c: PET's mutants as rule text (see mutant.h). */
#include "mutant.h"

#include <stdio.h>
#include <string.h>

static const char *const names[RG_MUTANT_COUNT] = {"fig1", "dilated", "merged", "fold", "mmrows", "mmcols"};

const char *rg_mutant_name(rg_mutant_kind k) { return k < RG_MUTANT_COUNT ? names[k] : "?"; }

int rg_mutant_by_name(const char *name) {
  for (int k = 0; k < RG_MUTANT_COUNT; k++)
    if (strcmp(names[k], name) == 0) return k;
  return -1;
}

bool rg_mutant_is_product(rg_mutant_kind k) { return k == RG_MUTANT_MMROWS || k == RG_MUTANT_MMCOLS; }

rg_mutant_dims rg_mutant_default(void) { return (rg_mutant_dims){1, 64, 56, 56, 64, 3, 2, 0, 0, 0}; }

/* "(conv2d" with the parameters a stride-1 SAME convolution of dilation dil and g groups needs
 * written out (none when both are 1, as PET's own programs read). */
static void conv_head(char *out, size_t n, int32_t dil, int32_t g) {
  if (g > 1) snprintf(out, n, "(conv2d 1 1 same none %d %d %d", dil, dil, g);
  else if (dil > 1) snprintf(out, n, "(conv2d 1 1 same none %d %d", dil, dil);
  else snprintf(out, n, "(conv2d");
}

static rg_status fig1(const rg_mutant_dims *d, const char *conv, rg_mutant *m, rg_err *err) {
  /* (N,C,H,W) -> (N,C,H,P,W/P) -> perm 30124 (P,N,C,H,W/P) -> (P*N,C,H,W/P) -> conv ->
   * (P,N,O,H,W/P) -> perm 12304 (N,O,H,P,W/P) -> (N,O,H,W) */
  int32_t N = d->n, C = d->c, H = d->h, W = d->w, O = d->o, P = d->pieces;
  if (P < 2 || W % P)
    return rg_err_set(err, RG_ERR_ARG, "mutant fig1: %d strips must be at least 2 and divide the width %d", P, W);
  snprintf(m->original, sizeof m->original, "%s ?x ?w)", conv);
  snprintf(m->mutant, sizeof m->mutant,
           "(reshape %dx%dx%dx%d (transpose 12304 (reshape %dx%dx%dx%dx%d %s (reshape %dx%dx%dx%d "
           "(transpose 30124 (reshape %dx%dx%dx%dx%d ?x))) ?w))))",
           N, O, H, W, P, N, O, H, W / P, conv, P * N, C, H, W / P, N, C, H, P, W / P);
  return RG_OK;
}

static rg_status dilated(const rg_mutant_dims *d, int32_t g, rg_mutant *m, rg_err *err) {
  /* (N,C,H,W) -> (N,C,H/2,2,W/2,2) -> perm 350124 (2,2,N,C,H/2,W/2) -> (4N,C,H/2,W/2) ->
   * conv -> (2,2,N,O,H/2,W/2) -> perm 234051 (N,O,H/2,2,W/2,2) -> (N,O,H,W) */
  int32_t N = d->n, C = d->c, H = d->h, W = d->w, O = d->o;
  if (H % 2 || W % 2) return rg_err_set(err, RG_ERR_ARG, "mutant dilated: height %d and width %d must be even", H, W);
  char orig[64], plain[64];
  conv_head(orig, sizeof orig, 2, g), conv_head(plain, sizeof plain, 1, g);
  snprintf(m->original, sizeof m->original, "%s ?x ?w)", orig);
  snprintf(m->mutant, sizeof m->mutant,
           "(reshape %dx%dx%dx%d (transpose 234051 (reshape 2x2x%dx%dx%dx%d %s (reshape %dx%dx%dx%d "
           "(transpose 350124 (reshape %dx%dx%dx2x%dx2 ?x))) ?w))))",
           N, O, H, W, N, O, H / 2, W / 2, plain, 4 * N, C, H / 2, W / 2, N, C, H / 2, W / 2);
  return RG_OK;
}

/* PET's merged form for two products (mutant.h): rows M = n, inner K = c, columns N = o. */
static rg_status merged_products(rg_mutant_kind kind, const rg_mutant_dims *d, rg_mutant *m, rg_err *err) {
  int32_t M = d->n, K = d->c, N = d->o;
  if (M < 1 || K < 1 || N < 1)
    return rg_err_set(err, RG_ERR_ARG, "mutant %s: every size must be at least 1", rg_mutant_name(kind));
  if (kind == RG_MUTANT_MMROWS) {
    snprintf(m->original, sizeof m->original, "(concat 0 (matmul ?x ?w) (matmul ?y ?w))");
    snprintf(m->mutant, sizeof m->mutant, "(matmul (concat 0 ?x ?y) ?w)");
    snprintf(m->shapes, sizeof m->shapes, "w=%dx%d x=%dx%d y=%dx%d", K, N, M, K, M, K);
  } else {
    snprintf(m->original, sizeof m->original, "(concat 1 (matmul ?x ?w) (matmul ?x ?v))");
    snprintf(m->mutant, sizeof m->mutant, "(matmul ?x (concat 1 ?w ?v))");
    snprintf(m->shapes, sizeof m->shapes, "v=%dx%d w=%dx%d x=%dx%d", K, N, K, N, M, K);
  }
  return RG_OK;
}

rg_status rg_mutant_make(rg_mutant_kind kind, const rg_mutant_dims *d, rg_mutant *m, rg_err *err) {
  memset(m, 0, sizeof *m);
  if (rg_mutant_is_product(kind)) return merged_products(kind, d, m, err);
  int32_t N = d->n, C = d->c, H = d->h, W = d->w, O = d->o, K = d->k, KW = d->kw ? d->kw : d->k;
  int32_t dil = d->dilation ? d->dilation : 1, g = d->groups ? d->groups : 1;
  if (N < 1 || C < 1 || H < 1 || W < 1 || O < 1 || K < 1 || KW < 1 || dil < 1 || g < 1)
    return rg_err_set(err, RG_ERR_ARG, "mutant %s: every size must be at least 1", rg_mutant_name(kind));
  if (C % g || O % g)
    return rg_err_set(err, RG_ERR_ARG, "mutant %s: %d groups must divide the channels (%d in, %d out)",
                      rg_mutant_name(kind), g, C, O);
  snprintf(m->shapes, sizeof m->shapes, "w=%dx%dx%dx%d x=%dx%dx%dx%d", O, C / g, K, KW, N, C, H, W);
  char conv[64];
  conv_head(conv, sizeof conv, dil, g);
  switch (kind) {
  case RG_MUTANT_FIG1: return fig1(d, conv, m, err);
  case RG_MUTANT_DILATED: return dilated(d, g, m, err);
  case RG_MUTANT_MERGED:
    snprintf(m->original, sizeof m->original, "(concat 3 %s ?x ?w) %s ?y ?w))", conv, conv);
    snprintf(m->mutant, sizeof m->mutant, "%s (concat 3 ?x ?y) ?w)", conv);
    snprintf(m->shapes, sizeof m->shapes, "w=%dx%dx%dx%d x=%dx%dx%dx%d y=%dx%dx%dx%d", O, C / g, K, KW, N, C, H, W,
             N, C, H, W);
    return RG_OK;
  case RG_MUTANT_FOLD:
    /* (N,C,H,W) -> perm 1203 (C,H,N,W) -> (1,C,H,N*W) -> conv -> (O,H,N,W) -> perm 2013 */
    if (N < 2) return rg_err_set(err, RG_ERR_ARG, "mutant fold: the batch (%d) must hold at least 2 images", N);
    snprintf(m->original, sizeof m->original, "%s ?x ?w)", conv);
    snprintf(m->mutant, sizeof m->mutant,
             "(transpose 2013 (reshape %dx%dx%dx%d %s (reshape 1x%dx%dx%d (transpose 1203 ?x)) ?w)))", O, H, N, W,
             conv, C, H, N * W);
    return RG_OK;
  case RG_MUTANT_MMROWS:
  case RG_MUTANT_MMCOLS:
  case RG_MUTANT_COUNT: break;
  }
  return rg_err_set(err, RG_ERR_ARG, "unknown mutant kind %d", (int)kind);
}
