/* optimizer/cost/cost.c: the cost-model handle (cost.h): opening a backend by name, the per-node
 * memo, and the sums over the values a graph computes.
 *
 * Memo invariant: entries hold costs of the nodes of one graph (rg_graph_serial), whose node
 * ids never change their operator, parameters or shapes; known[id] says which are computed.
 * Another graph empties the memo. */
#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"

struct rg_cost_model {
  rg_cost_iface iface;
  void *ctx;
  /* [cap]: the memo by node id: its own cost (known bit 1), and what it adds fused into the
   * node below it (bit 2) */
  double *us, *fus;
  uint8_t *known;
  uint64_t graph; /* the serial of the graph the memo is of (0: none) */
  /* [cap]: scratch of rg_cost_sum_values: weight-only, readers of each reachable node, the
   * reach's stamps, stack and order */
  uint8_t *wonly;
  int32_t *uses, *stack, *order;
  uint32_t *seen, stamp;
  int32_t cap;
};

rg_cost_model *rg_cost_model_new(const rg_cost_iface *iface, void *ctx) {
  rg_cost_model *cm = calloc(1, sizeof *cm);
  if (!cm) return NULL;
  cm->iface = *iface, cm->ctx = ctx;
  return cm;
}

void rg_cost_model_free(rg_cost_model *cm) {
  if (!cm) return;
  if (cm->iface.free) cm->iface.free(cm->ctx);
  free(cm->us), free(cm->fus), free(cm->known), free(cm->wonly), free(cm->uses), free(cm->stack), free(cm->order), free(cm->seen);
  free(cm);
}

const char *rg_cost_model_name(const rg_cost_model *cm) { return cm->iface.name; }

void *rg_cost_model_ctx(const rg_cost_model *cm) { return cm->ctx; }

void rg_cost_model_stats(const rg_cost_model *cm, rg_cost_stats *s) {
  memset(s, 0, sizeof *s);
  if (cm->iface.stats) cm->iface.stats(cm->ctx, s);
}

rg_status rg_cost_model_open(const char *name, const rg_cost_opts *o, rg_cost_model **out,
                             rg_err *err) {
  static const rg_cost_opts none = {0};
  *out = NULL;
  if (!o) o = &none;
  const rg_cost_backend *b = rg_cost_backend_find(name);
  if (b) return b->open(o, out, err);
  rg_strbuf names;
  rg_sb_init(&names);
  rg_cost_backend_names(&names);
  rg_status st = rg_err_set(err, RG_ERR_ARG, "no cost model called '%s' (the choices: %s)",
                            name ? name : "", rg_sb_str(&names));
  rg_sb_free(&names);
  return st;
}

/* field reallocated to cap entries; ok false when that failed (field then unchanged) */
#define GROW(field, cap, ok)                                                                       \
  do {                                                                                             \
    void *p_ = realloc((field), sizeof *(field) * (size_t)(cap));                                \
    if (p_) (field) = p_;                                                                          \
    else (ok) = false;                                                                             \
  } while (0)

/* Room in the memo and scratch for every node of m. */
static bool grow(rg_cost_model *cm, int32_t n) {
  if (n <= cm->cap) return true;
  int32_t cap = cm->cap ? cm->cap : 1024;
  while (cap < n)
    cap *= 2;
  bool ok = true;
  GROW(cm->us, cap, ok);
  GROW(cm->fus, cap, ok);
  GROW(cm->known, cap, ok);
  GROW(cm->wonly, cap, ok);
  GROW(cm->uses, cap, ok);
  GROW(cm->stack, cap, ok);
  GROW(cm->order, cap, ok);
  GROW(cm->seen, cap, ok);
  if (!ok) return false;
  memset(cm->known + cm->cap, 0, (size_t)(cap - cm->cap));
  memset(cm->seen + cm->cap, 0, sizeof *cm->seen * (size_t)(cap - cm->cap));
  cm->cap = cap;
  return true;
}

/* The memo's entry of node id (bit: 1 its own cost, 2 fused), asking the backend's fn when it
 * has none. */
static rg_status memo(rg_cost_model *cm, const rg_model *m, int32_t id, uint8_t bit, double *us, rg_err *err) {
  int32_t n = rg_graph_size(m->g);
  if (id < 0 || id >= n)
    return rg_err_set(err, RG_ERR_ARG, "cost of node %d: the graph has %d nodes", id, n);
  if (rg_graph_node(m->g, id)->op == RG_OP_INPUT) return *us = 0, RG_OK;
  if (!grow(cm, n)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (cm->graph != rg_graph_serial(m->g)) {
    memset(cm->known, 0, (size_t)cm->cap);
    cm->graph = rg_graph_serial(m->g);
  }
  double *slot = bit == 1 ? &cm->us[id] : &cm->fus[id];
  if (cm->known[id] & bit) return *us = *slot, RG_OK;
  double c = 0;
  rg_status st = bit == 1 ? cm->iface.node(cm->ctx, m, id, &c, err) : cm->iface.fused(cm->ctx, m, id, &c, err);
  if (st) return st;
  if (!isfinite(c) || c < 0)
    return rg_err_set(err, RG_ERR_ARG, "cost model %s: node %d (%s) costs %g%s, not a finite number >= 0",
                      cm->iface.name, id, rg_op_get((rg_op)rg_graph_node(m->g, id)->op)->name, c,
                      bit == 1 ? "" : " fused");
  *slot = c, cm->known[id] |= bit;
  return *us = c, RG_OK;
}

rg_status rg_cost_node(rg_cost_model *cm, const rg_model *m, int32_t id, double *us, rg_err *err) {
  return memo(cm, m, id, 1, us, err);
}

rg_status rg_cost_fused_node(rg_cost_model *cm, const rg_model *m, int32_t id, double *us, rg_err *err) {
  if (!cm->iface.fused) return *us = 0, RG_OK;
  return memo(cm, m, id, 2, us, err);
}

bool rg_cost_fusable_op(int op) {
  return op == RG_OP_BIAS || op == RG_OP_RELU || op == RG_OP_SIGMOID || op == RG_OP_TANH;
}

bool rg_cost_fuses(const rg_model *m, const rg_node *nd, rg_ref operand, const rg_node *pn, bool pn_fused) {
  if (!rg_cost_fusable_op(nd->op)) return false;
  bool gemm = pn->op == RG_OP_MATMUL && rg_model_shape(m, operand)->rank == 2;
  if (nd->op == RG_OP_BIAS)
    return nd->params[0] == 1 && ((pn->op == RG_OP_CONV2D && pn->params[3] == RG_ACT_NONE) ||
                                  (gemm && pn->params[0] == RG_ACT_NONE));
  return pn->op == RG_OP_CONV2D || gemm || (pn->op == RG_OP_BIAS && pn_fused);
}

/* Whether node id costs nothing of its own (rg_cost_fuses), its operand's node having no other
 * reader. */
static bool fused(const rg_model *m, const int32_t *uses, int32_t id) {
  const rg_node *nd = rg_graph_node(m->g, id);
  if (!rg_cost_fusable_op(nd->op)) return false;
  int32_t p = nd->in[0].node;
  const rg_node *pn = rg_graph_node(m->g, p);
  return uses[p] == 1 && rg_cost_fuses(m, nd, nd->in[0], pn, pn->op == RG_OP_BIAS && fused(m, uses, p));
}

rg_status rg_cost_sum_values(rg_cost_model *cm, const rg_model *m, const rg_ref *roots, int n_roots,
                             rg_cost_sum *s, rg_err *err) {
  memset(s, 0, sizeof *s);
  int32_t n = rg_graph_size(m->g);
  for (int i = 0; i < n_roots; i++)
    if (roots[i].node >= n)
      return rg_err_set(err, RG_ERR_ARG, "cost of values: root %d is node %d of a graph of %d", i,
                        roots[i].node, n);
  if (!grow(cm, n)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (++cm->stamp == 0) { /* the stamps wrapped: start them again */
    memset(cm->seen, 0, sizeof *cm->seen * (size_t)cm->cap);
    cm->stamp = 1;
  }
  /* {-1, 0}, an omitted operand, reaches nothing */
  int32_t n_reached = rg_graph_reach(m->g, roots, n_roots, cm->seen, cm->stamp, cm->stack, cm->order);
  rg_model_weight_only(m, cm->order, n_reached, cm->wonly);
  for (int32_t i = 0; i < n_reached; i++) cm->uses[cm->order[i]] = 0;
  for (int i = 0; i < n_roots; i++)
    if (roots[i].node >= 0) cm->uses[roots[i].node]++;
  for (int32_t i = 0; i < n_reached; i++) {
    const rg_node *nd = rg_graph_node(m->g, cm->order[i]);
    for (int k = 0; k < nd->n_in; k++) cm->uses[nd->in[k].node]++;
  }
  for (int32_t i = 0; i < n_reached; i++) {
    int32_t id = cm->order[i];
    const rg_node *nd = rg_graph_node(m->g, id);
    if (nd->op == RG_OP_INPUT) continue;
    if (cm->wonly[id]) {
      s->folded++;
      continue;
    }
    bool in_node = fused(m, cm->uses, id);
    double c;
    rg_status st = in_node ? rg_cost_fused_node(cm, m, id, &c, err) : rg_cost_node(cm, m, id, &c, err);
    if (st) return st;
    if (in_node) s->fused++, s->fused_us += c;
    else s->count[nd->op]++, s->us[nd->op] += c;
    s->total += c;
  }
  return RG_OK;
}

rg_status rg_cost_values(rg_cost_model *cm, const rg_model *m, const rg_ref *roots, int n_roots,
                         double *total, rg_err *err) {
  rg_cost_sum s;
  rg_status st = rg_cost_sum_values(cm, m, roots, n_roots, &s, err);
  *total = st ? 0 : s.total;
  return st;
}

/* ---- configurations as text ---- */

static void param_text(rg_param_kind kind, const int32_t *slot, rg_strbuf *sb) {
  char buf[128];
  int perm[RG_MAX_RANK];
  switch (kind) {
  case RG_PK_PAD: rg_sb_puts(sb, rg_pad_name(slot[0])); break;
  case RG_PK_ACT: rg_sb_puts(sb, rg_act_name(slot[0])); break;
  case RG_PK_PERM:
    for (int i = 0, r = rg_perm_unpack(slot[0], perm); i < r; i++)
      rg_sb_printf(sb, "%d", perm[i]);
    break;
  case RG_PK_SHAPE: {
    rg_shape s = rg_shape_make(slot[0], slot + 1);
    rg_sb_puts(sb, rg_shape_format(&s, buf, sizeof buf));
    break;
  }
  default: rg_sb_printf(sb, "%d", slot[0]); break;
  }
}

void rg_cost_config(const rg_model *m, int32_t id, rg_strbuf *sb) {
  const rg_node *nd = rg_graph_node(m->g, id);
  const rg_op_info *info = rg_op_get((rg_op)nd->op);
  char buf[128];
  for (int k = 0, slot = 0; k < info->n_params; k++) {
    if (k) rg_sb_puts(sb, " ");
    param_text(info->params[k].kind, nd->params + slot, sb);
    slot += info->params[k].kind == RG_PK_SHAPE ? RG_SHAPE_SLOTS : 1;
  }
  rg_sb_puts(sb, info->n_params ? " :" : ":");
  for (int k = 0; k < nd->n_in; k++)
    rg_sb_printf(sb, " %s", rg_shape_format(rg_model_shape(m, nd->in[k]), buf, sizeof buf));
  rg_sb_puts(sb, " ->");
  for (int j = 0; j < info->n_outputs; j++)
    rg_sb_printf(sb, " %s", rg_shape_format(rg_model_shape(m, (rg_ref){id, j}), buf, sizeof buf));
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double rg_cost_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
