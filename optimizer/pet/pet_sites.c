/* optimizer/pet/pet_sites.c: a model's PET candidates (pet.h): the mutant kinds that type at
 * each convolution it runs, at each pair of them concatenated along the width, and at each pair
 * of 2-D products concatenated along the rows (one weight) or the columns (one input). */
#include "pet.h"

#include <stdlib.h>
#include <string.h>

/* A stride-1 SAME convolution without activation, of equal dilations, over 4-D operands: what
 * every kind needs. Its sizes into d (pieces 2: fig1's two strips). */
static bool plain_conv(const rg_model *m, const rg_node *nd, rg_mutant_dims *d) {
  const int32_t *p = nd->params; /* sh sw pad act dh dw g */
  if (nd->op != RG_OP_CONV2D || nd->var_mask || p[0] != 1 || p[1] != 1 || p[2] != RG_PAD_SAME || p[3] != RG_ACT_NONE ||
      p[4] != p[5])
    return false;
  const rg_shape *x = rg_model_shape(m, nd->in[0]), *w = rg_model_shape(m, nd->in[1]);
  if (x->rank != 4 || w->rank != 4) return false;
  *d = (rg_mutant_dims){x->dim[0], x->dim[1], x->dim[2], x->dim[3], w->dim[0], w->dim[2], 2, w->dim[3], p[4], p[6]};
  return true;
}

typedef struct {
  rg_pet_candidate *c;
  int n, cap;
} found;

static bool note(found *f, rg_mutant_kind kind, const rg_mutant_dims *d) {
  for (int i = 0; i < f->n; i++)
    if (f->c[i].kind == kind && !memcmp(&f->c[i].dims, d, sizeof *d)) return f->c[i].sites++, true;
  if (f->n == f->cap) {
    int cap = f->cap ? 2 * f->cap : 16;
    rg_pet_candidate *c = realloc(f->c, sizeof *c * (size_t)cap);
    if (!c) return false;
    f->c = c, f->cap = cap;
  }
  f->c[f->n++] = (rg_pet_candidate){kind, *d, 1};
  return true;
}

/* A 2-D product without activation: its rows, inner size and columns into d. */
static bool plain_product(const rg_model *m, const rg_node *nd, rg_mutant_dims *d) {
  if (nd->op != RG_OP_MATMUL || nd->var_mask || nd->params[0] != RG_ACT_NONE) return false;
  const rg_shape *x = rg_model_shape(m, nd->in[0]), *w = rg_model_shape(m, nd->in[1]);
  if (x->rank != 2 || w->rank != 2) return false;
  *d = (rg_mutant_dims){x->dim[0], x->dim[1], 1, 1, w->dim[1], 1, 2, 1, 1, 1};
  return true;
}

static bool same_ref(rg_ref a, rg_ref b) { return a.node == b.node && a.out == b.out; }

/* A concat of two products of one size sharing the weight (rows, axis 0) or the input
 * (columns, axis 1): mmrows or mmcols. */
static bool merged_products(const rg_model *m, const rg_node *nd, found *f) {
  rg_mutant_dims d, e;
  const rg_node *a = rg_graph_node(m->g, nd->in[0].node), *b = rg_graph_node(m->g, nd->in[1].node);
  if (!plain_product(m, a, &d) || !plain_product(m, b, &e) || memcmp(&d, &e, sizeof d)) return true;
  if (nd->params[0] == 0 && same_ref(a->in[1], b->in[1])) return note(f, RG_MUTANT_MMROWS, &d);
  if (nd->params[0] == 1 && same_ref(a->in[0], b->in[0])) return note(f, RG_MUTANT_MMCOLS, &d);
  return true;
}

/* The kinds one node offers. */
static bool at_node(const rg_model *m, const rg_node *nd, found *f) {
  rg_mutant_dims d, e;
  bool pair = nd->op == RG_OP_CONCAT && nd->n_in == 2 && !nd->var_mask;
  if (pair && nd->params[0] < 2) return merged_products(m, nd, f);
  if (pair && nd->params[0] == 3) {
    const rg_node *a = rg_graph_node(m->g, nd->in[0].node), *b = rg_graph_node(m->g, nd->in[1].node);
    bool same = plain_conv(m, a, &d) && plain_conv(m, b, &e) && !memcmp(&d, &e, sizeof d) &&
                !memcmp(a->params, b->params, sizeof a->params) && same_ref(a->in[1], b->in[1]);
    return !same || note(f, RG_MUTANT_MERGED, &d);
  }
  if (!plain_conv(m, nd, &d)) return true;
  bool ok = true;
  if (d.dilation == 1 && d.w % 2 == 0) ok = note(f, RG_MUTANT_FIG1, &d);
  if (ok && d.dilation == 2 && d.h % 2 == 0 && d.w % 2 == 0) ok = note(f, RG_MUTANT_DILATED, &d);
  if (ok && d.n >= 2) ok = note(f, RG_MUTANT_FOLD, &d);
  return ok;
}

rg_status rg_pet_candidates(const rg_model *m, rg_pet_candidate **out, int *n, rg_err *err) {
  *out = NULL, *n = 0;
  int32_t size = rg_graph_size(m->g), nr = rg_model_n_roots(m);
  uint32_t *seen = calloc((size_t)size + 1, sizeof *seen);
  int32_t *stack = malloc(sizeof *stack * ((size_t)size + 1)), *order = malloc(sizeof *order * ((size_t)size + 1));
  uint8_t *wonly = malloc((size_t)size + 1);
  rg_ref *roots = malloc(sizeof *roots * ((size_t)nr + 1));
  found f = {0};
  bool ok = seen && stack && order && wonly && roots;
  if (ok) {
    rg_model_roots(m, roots);
    int32_t k = rg_graph_reach(m->g, roots, nr, seen, 1, stack, order);
    rg_ids_sort(order, k, stack);
    rg_model_weight_only(m, order, k, wonly);
    for (int32_t i = 0; ok && i < k; i++)
      if (!wonly[order[i]]) ok = at_node(m, rg_graph_node(m->g, order[i]), &f);
  }
  free(seen), free(stack), free(order), free(wonly), free(roots);
  if (!ok) return free(f.c), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *out = f.c, *n = f.n;
  return RG_OK;
}
