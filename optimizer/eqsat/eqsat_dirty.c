/* optimizer/eqsat/eqsat_dirty.c: the classes changed since the last matching, and how near each
 * class is to one (eqsat_internal.h), for semi-naive matching: a pattern can match anew only
 * where something within its depth changed. */
#include <stdlib.h>
#include <string.h>

#include "eqsat_internal.h"

/* Whether root class c changed since the last matching (eqsat_internal.h). */
static bool changed(const rg_dirty *d, const rg_egraph *eg, int32_t c) {
  return c >= d->n_values || d->size[c] != rg_egraph_members(eg, c) || !d->live[c];
}

static int32_t n_outputs(const rg_node *nd) { return rg_op_get((rg_op)nd->op)->n_outputs; }

/* One relaxation pass: each class at most one more than the nearest of its members' operands
 * (then a nonlinear variable below may bind anew). In place, so values only fall, never below
 * the true distance; after k passes every distance up to k is exact (Bellman-Ford). */
static void relax(rg_egraph *eg, const rg_graph *g, int32_t n, uint8_t *near) {
  for (int32_t id = 0; id < n; id++) {
    const rg_node *nd = rg_graph_node(g, id);
    if (nd->op == RG_OP_INPUT) continue;
    int best = RG_DIRTY_FAR;
    for (int k = 0; k < nd->n_in; k++)
      if (nd->in[k].node >= 0) {
        int h = near[rg_egraph_class(eg, nd->in[k])];
        if (h < best) best = h;
      }
    if (best >= RG_DIRTY_FAR - 1) continue;
    for (int o = 0; o < n_outputs(nd); o++) {
      int32_t c = rg_egraph_find(eg, id * RG_MAX_OUTPUTS + o);
      if (best + 1 < near[c]) near[c] = (uint8_t)(best + 1);
    }
  }
}

rg_status rg_dirty_update(rg_dirty *d, rg_egraph *eg, const uint8_t *live, int depth, rg_err *err) {
  const rg_graph *g = rg_egraph_model(eg)->g;
  int32_t n = rg_egraph_n_nodes(eg);
  size_t nv = (size_t)n * RG_MAX_OUTPUTS;
  uint8_t *near = malloc(nv + 1), *live_now = malloc(nv + 1);
  int32_t *size = calloc(nv + 1, sizeof *size);
  if (!near || !live_now || !size) {
    free(near), free(live_now), free(size);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  memset(near, RG_DIRTY_FAR, nv + 1);
  for (int32_t id = 0; id < n; id++) {
    int32_t outs = n_outputs(rg_graph_node(g, id));
    for (int32_t v = id * RG_MAX_OUTPUTS; v < id * RG_MAX_OUTPUTS + outs; v++)
      if (rg_egraph_find(eg, v) == v) {
        near[v] = changed(d, eg, v) ? 0 : RG_DIRTY_FAR;
        size[v] = rg_egraph_members(eg, v);
      }
  }
  for (int k = 0; k < depth && k < RG_DIRTY_FAR - 1; k++) relax(eg, g, n, near);
  memcpy(live_now, live, nv + 1);
  rg_dirty_free(d);
  d->near = near, d->n_values = (int32_t)nv, d->size = size, d->live = live_now;
  return RG_OK;
}

void rg_dirty_free(rg_dirty *d) {
  free(d->near), free(d->size), free(d->live);
  *d = (rg_dirty){0};
}

int rg_pattern_depth(const rg_graph *g, rg_ref pr) {
  const rg_node *pn = rg_graph_node(g, pr.node);
  if (pn->op == RG_OP_INPUT) return 0;
  int deepest = 0;
  for (int k = 0; k < pn->n_in; k++)
    if (pn->in[k].node >= 0) {
      int h = rg_pattern_depth(g, pn->in[k]);
      if (h > deepest) deepest = h;
    }
  return 1 + deepest;
}

uint32_t rg_pattern_ops(const rg_graph *g, rg_ref pr) {
  const rg_node *pn = rg_graph_node(g, pr.node);
  if (pn->op == RG_OP_INPUT) return 0;
  uint32_t ops = 1u << pn->op;
  for (int k = 0; k < pn->n_in; k++)
    if (pn->in[k].node >= 0) ops |= rg_pattern_ops(g, pn->in[k]);
  return ops;
}
