/* optimizer/eqsat/extract_must.c: the classes each class cannot be computed without (eqsat_internal.h),
 * for the ILP's implied rows. A class needs class a when every one of its nodes reads a or a
 * class that needs a. A 0/1 choice obeys y_a >= y_c for those on its own, but the relaxation
 * does not: a class computed half by one node and half by another (X directly, or as the
 * transpose of X's transpose) needs what both read at 1/2 only, and down a network the bound
 * halves layer after layer (VGG-19: 230 against an optimum of 866). */
#include <stdlib.h>

#include "eqsat_internal.h"

typedef struct {
  int32_t level, cls;
} ranked;

static int by_level(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  return x->level != y->level ? (x->level > y->level) - (x->level < y->level) : (x->cls > y->cls) - (x->cls < y->cls);
}

/* Whether class a comes before b in a must list: nearer (higher level) first. */
static bool nearer(rg_egraph *eg, int32_t a, int32_t b) {
  int32_t la = rg_egraph_level(eg, a), lb = rg_egraph_level(eg, b);
  return la != lb ? la > lb : a < b;
}

/* Inserts a into the sorted list s of *n (no duplicates; room for one more). */
static void insert(rg_egraph *eg, int32_t *s, int *n, int32_t a) {
  int i = *n;
  while (i > 0 && nearer(eg, a, s[i - 1]))
    i--;
  if (i > 0 && s[i - 1] == a) return;
  for (int j = *n; j > i; j--) s[j] = s[j - 1];
  s[i] = a, (*n)++;
}

/* What node id needs: each operand class and what it needs (sorted, nearest first). */
static int node_needs(rg_egraph *eg, const rg_node *nd, const rg_must *m, int32_t *out) {
  int n = 0;
  for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) {
    int32_t a = rg_egraph_class(eg, nd->in[k]);
    insert(eg, out, &n, a);
    for (int i = 0; i < m->n[a]; i++) insert(eg, out, &n, m->cls[(size_t)a * RG_MUST_KEEP + i]);
  }
  return n;
}

/* must[c]: the intersection of its nodes' needs, the nearest RG_MUST_KEEP kept. */
static void class_needs(rg_egraph *eg, const rg_graph *g, int32_t c, rg_must *m, int32_t *all, int32_t *one) {
  int n_all = -1, v = c;
  do {
    int n_one = node_needs(eg, rg_graph_node(g, v / RG_MAX_OUTPUTS), m, one), kept = 0;
    if (n_all < 0) {
      for (int i = 0; i < n_one; i++) all[i] = one[i];
      n_all = n_one;
    } else {
      for (int i = 0; i < n_all; i++)
        for (int j = 0; j < n_one; j++)
          if (all[i] == one[j]) {
            all[kept++] = all[i];
            break;
          }
      n_all = kept;
    }
    v = rg_egraph_next(eg, v);
  } while (v != c && n_all > 0);
  m->n[c] = n_all < RG_MUST_KEEP ? n_all : RG_MUST_KEEP;
  for (int i = 0; i < m->n[c]; i++) m->cls[(size_t)c * RG_MUST_KEEP + i] = all[i];
}

bool rg_extract_must(rg_egraph *eg, const uint8_t *reached, rg_must *m) {
  int32_t nv = rg_egraph_n_nodes(eg) * RG_MAX_OUTPUTS, n = 0;
  const rg_graph *g = rg_egraph_model(eg)->g;
  m->n = calloc((size_t)nv + 1, sizeof *m->n);
  m->cls = malloc(sizeof *m->cls * ((size_t)nv * RG_MUST_KEEP + 1));
  ranked *order = malloc(sizeof *order * ((size_t)nv + 1));
  /* a node's needs: its operands (RG_MAX_INPUTS) and theirs, before the cut to RG_MUST_KEEP */
  int32_t *all = malloc(sizeof *all * (RG_MAX_INPUTS * (RG_MUST_KEEP + 1) + 1));
  int32_t *one = malloc(sizeof *one * (RG_MAX_INPUTS * (RG_MUST_KEEP + 1) + 1));
  bool ok = m->n && m->cls && order && all && one;
  for (int32_t c = 0; ok && c < nv; c++)
    if (reached[c]) order[n].level = rg_egraph_level(eg, c), order[n++].cls = c;
  if (ok) qsort(order, (size_t)n, sizeof *order, by_level); /* operands first */
  for (int32_t i = 0; ok && i < n; i++) class_needs(eg, g, order[i].cls, m, all, one);
  free(order), free(all), free(one);
  if (!ok) rg_must_free(m);
  return ok;
}

void rg_must_free(rg_must *m) {
  free(m->n), free(m->cls);
  m->n = NULL, m->cls = NULL;
}
