/* certify/boxes.c: cut propagation, one rule per operator, each written next to its code.
 *
 * Notation: an output position v reads input positions through the operator's index map; a box
 * of the output is valid when, for each term of the operator, the map is affine on the box and
 * sends the whole box into one box of the input (or into one padding region). So each rule
 * pulls the input's boundaries (its cuts, plus 0 and its length where the operator can step
 * outside the input) back through every term's index map, and adds the cuts where the map
 * itself stops being affine (group boundaries, reshape periods).
 */
#include "boxes.h"

#include <stdlib.h>
#include <string.h>

struct rg_boxmap {
  int32_t n;
  rg_cuts (*c)[RG_MAX_OUTPUTS];
};

typedef struct {
  bool nomem;
} prop;

void rg_cuts_free(rg_cuts *c) {
  for (int d = 0; d < RG_MAX_RANK; d++) free(c->cut[d].v);
  memset(c, 0, sizeof *c);
}

static void add(prop *p, rg_cuts *o, int d, int64_t q) {
  if (q <= 0 || q >= o->dim[d]) return;
  rg_cutlist *l = &o->cut[d];
  if (!rg_grow(&l->v, &l->cap, l->n, sizeof *l->v, 8)) {
    p->nomem = true;
    return;
  }
  l->v[l->n++] = (int32_t)q;
}

/* every cut of in's dimension din, shifted by `shift`, kept when inside (lo, hi) of the input */
static void add_shifted(prop *p, rg_cuts *o, int d, const rg_cuts *in, int din, int64_t shift,
                        int64_t lo, int64_t hi) {
  const rg_cutlist *l = &in->cut[din];
  for (int32_t i = 0; i < l->n; i++)
    if (l->v[i] > lo && l->v[i] < hi) add(p, o, d, l->v[i] + shift);
}

static void copy_dim(prop *p, rg_cuts *o, int d, const rg_cuts *in, int din) {
  add_shifted(p, o, d, in, din, 0, 0, in->dim[din]);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static void finish(rg_cuts *o) {
  for (int d = 0; d < o->rank; d++) {
    rg_cutlist *l = &o->cut[d];
    if (l->n < 2) continue;
    qsort(l->v, (size_t)l->n, sizeof *l->v, cmp_i32);
    int32_t k = 1;
    for (int32_t i = 1; i < l->n; i++)
      if (l->v[i] != l->v[k - 1]) l->v[k++] = l->v[i];
    l->n = k;
  }
}

rg_status rg_cuts_merge(rg_cuts *dst, const rg_cuts *src, rg_err *err) {
  prop p = {false};
  for (int d = 0; d < dst->rank; d++) copy_dim(&p, dst, d, src, d);
  finish(dst);
  return p.nomem ? rg_err_set(err, RG_ERR_NOMEM, "out of memory merging box cuts") : RG_OK;
}

int64_t rg_cuts_boxes(const rg_cuts *c) {
  int64_t n = 1;
  for (int d = 0; d < c->rank; d++) n *= c->cut[d].n + 1;
  return n;
}

void rg_cuts_box(const rg_cuts *c, int64_t k, int32_t *lo, int32_t *hi) {
  for (int d = c->rank - 1; d >= 0; d--) {
    int32_t m = c->cut[d].n + 1, i = (int32_t)(k % m);
    k /= m;
    lo[d] = i == 0 ? 0 : c->cut[d].v[i - 1];
    hi[d] = i == m - 1 ? c->dim[d] : c->cut[d].v[i];
  }
}

static int64_t ceil_div(int64_t x, int64_t s) { return x >= 0 ? (x + s - 1) / s : -((-x) / s); }

/* Sliding window (conv2d, poolavg) along one dimension: output o reads input o*s - pb + a*dil
 * for each tap a in [0, k). Every input boundary q (0, each input cut, the length: leaving the
 * input means entering padding) and every tap give a cut at the first output whose tap reaches
 * q, ceil((q + pb - a*dil) / s); between such cuts each tap stays in one input box. */
static void window_cuts(prop *p, rg_cuts *o, int d, const rg_cuts *in, int din, int32_t k,
                        int32_t s, int32_t pb, int32_t dil) {
  const rg_cutlist *l = &in->cut[din];
  for (int32_t i = -1; i <= l->n; i++) {
    int64_t q = i < 0 ? 0 : i == l->n ? in->dim[din] : l->v[i];
    for (int32_t a = 0; a < k; a++) add(p, o, d, ceil_div(q + pb - (int64_t)a * dil, s));
  }
}

/* Reshape keeps the row-major order, so it is the identity on the flat index; we split both
 * shapes into groups of consecutive dimensions with equal products (size-1 dimensions carry
 * nothing and are skipped) and treat each group alone:
 *  - one input dim -> one output dim: the same cuts;
 *  - one input dim -> several output dims (o_0 .. o_b): the input index sum o_j*stride_j is
 *    affine everywhere; an input cut q is the lexicographic staircase {o >= digits(q)}: cut o_j
 *    at q_j and q_j+1 for j before the last nonzero digit k, and o_k at q_k;
 *  - several input dims (i_0 .. i_a) -> one output dim u: i_e = (u / stride_e) % dim_e is
 *    affine between consecutive multiples of dim(i_a) (all strides are multiples of it): cut at
 *    each multiple, and at base + q for each cut q of i_a (cuts of outer input dims fall on
 *    multiples already);
 *  - several -> several (interleaving): every leading output dim of the group is cut at every
 *    position, and the last one (a contiguous run of flat indices per box) at the flat cut
 *    points of the case above, taken modulo its length. Conservative, but affine by
 *    construction. */
static void reshape_group(prop *p, rg_cuts *o, const rg_cuts *in, const int *gi, int na,
                          const int *go, int nb) {
  if (na == 1 && nb == 1) {
    copy_dim(p, o, go[0], in, gi[0]);
    return;
  }
  if (na == 1) {
    const rg_cutlist *l = &in->cut[gi[0]];
    for (int32_t i = 0; i < l->n; i++) {
      int64_t r = l->v[i], dig[RG_MAX_RANK];
      for (int j = nb - 1; j >= 0; j--) dig[j] = r % o->dim[go[j]], r /= o->dim[go[j]];
      int k = nb - 1;
      while (k > 0 && dig[k] == 0) k--;
      for (int j = 0; j < k; j++) add(p, o, go[j], dig[j]), add(p, o, go[j], dig[j] + 1);
      add(p, o, go[k], dig[k]);
    }
    return;
  }
  int64_t total = 1, inner = in->dim[gi[na - 1]];
  for (int j = 0; j < na; j++) total *= in->dim[gi[j]];
  int last = go[nb - 1];
  int64_t len = o->dim[last];
  for (int j = 0; j < nb - 1; j++)
    for (int32_t q = 1; q < o->dim[go[j]]; q++) add(p, o, go[j], q);
  const rg_cutlist *l = &in->cut[gi[na - 1]];
  for (int64_t base = 0; base < total && !p->nomem; base += inner) {
    add(p, o, last, base % len);
    for (int32_t i = 0; i < l->n; i++) add(p, o, last, (base + l->v[i]) % len);
  }
}

static void reshape_cuts(prop *p, rg_cuts *o, const rg_cuts *in) {
  int ii[RG_MAX_RANK], oi[RG_MAX_RANK], ni = 0, no = 0;
  for (int d = 0; d < in->rank; d++)
    if (in->dim[d] > 1) ii[ni++] = d;
  for (int d = 0; d < o->rank; d++)
    if (o->dim[d] > 1) oi[no++] = d;
  int a = 0, b = 0;
  while (a < ni && b < no) {
    int ga = a, gb = b;
    int64_t pa = in->dim[ii[a++]], pb = o->dim[oi[b++]];
    while (pa != pb) {
      if (pa < pb) pa *= in->dim[ii[a++]];
      else pb *= o->dim[oi[b++]];
    }
    reshape_group(p, o, in, ii + ga, a - ga, oi + gb, b - gb);
  }
}

static void conv_cuts(prop *p, rg_cuts *o, const rg_cuts *x, const rg_cuts *w, const int32_t *pr) {
  /* N: the identity. O: the weight's output-channel cuts; with groups, the input channels an
   * output channel reads jump at each group boundary (a multiple of O / groups). The summed
   * dims (input channel, kernel taps) are fixed per term, so their cuts do not matter. */
  copy_dim(p, o, 0, x, 0);
  copy_dim(p, o, 1, w, 0);
  int32_t groups = pr[6], per = w->dim[0] / groups;
  for (int32_t g = 1; g < groups; g++) add(p, o, 1, (int64_t)g * per);
  for (int d = 0; d < 2; d++) {
    int32_t k = w->dim[2 + d], s = pr[d], dil = pr[4 + d], out, pb;
    rg_window_geometry(x->dim[2 + d], (k - 1) * dil + 1, s, pr[2], &out, &pb);
    window_cuts(p, o, 2 + d, x, 2 + d, k, s, pb, dil);
  }
}

/* Every dimension but axis: the input's cuts. */
static void copy_off_axis(prop *p, rg_cuts *o, const rg_cuts *in, int axis) {
  for (int d = 0; d < o->rank; d++)
    if (d != axis) copy_dim(p, o, d, in, d);
}

static void concat_cuts(prop *p, rg_cuts *o, const rg_cuts *const *in, int n_in, int axis) {
  int64_t off = 0; /* along the axis each input starts a box at its offset */
  for (int k = 0; k < n_in; k++) {
    copy_off_axis(p, o, in[k], axis);
    add(p, o, axis, off);
    add_shifted(p, o, axis, in[k], axis, off, 0, in[k]->dim[axis]);
    off += in[k]->dim[axis];
  }
}

static void split_cuts(prop *p, rg_cuts *out, const rg_cuts *in, int axis) {
  int32_t mid = out[0].dim[axis]; /* each side keeps the cuts inside it, shifted to its origin */
  for (int k = 0; k < 2; k++) {
    copy_off_axis(p, &out[k], in, axis);
    add_shifted(p, &out[k], axis, in, axis, k ? -mid : 0, k ? mid : 0, k ? in->dim[axis] : mid);
  }
}

/* Operators that move data (and pooling's window of ones): the output's cuts from the input's. */
static void movement_cuts(prop *p, rg_op op, int n_in, const int32_t *pr, const rg_cuts *const *in, rg_cuts *out) {
  rg_cuts *o = &out[0];
  switch (op) {
  case RG_OP_POOLAVG: /* N, C: identity; H, W: a window of ones (dilation 1) */
    copy_dim(p, o, 0, in[0], 0), copy_dim(p, o, 1, in[0], 1);
    for (int d = 0; d < 2; d++) {
      int32_t outn, pb;
      rg_window_geometry(in[0]->dim[2 + d], pr[d], pr[2 + d], pr[4], &outn, &pb);
      window_cuts(p, o, 2 + d, in[0], 2 + d, pr[d], pr[2 + d], pb, 1);
    }
    break;
  case RG_OP_TRANSPOSE: { /* output dim i is input dim perm[i] */
    int perm[RG_MAX_RANK];
    rg_perm_unpack(pr[0], perm);
    for (int d = 0; d < o->rank; d++) copy_dim(p, o, d, in[0], perm[d]);
    break;
  }
  case RG_OP_ENLARGE: /* kernel placed at an offset: its cuts shifted, plus both borders */
    copy_dim(p, o, 0, in[0], 0), copy_dim(p, o, 1, in[0], 1);
    for (int d = 2; d < 4; d++) {
      int32_t a = in[0]->dim[d], off = (o->dim[d] - 1) / 2 - (a - 1) / 2;
      add(p, o, d, off), add(p, o, d, off + a);
      add_shifted(p, o, d, in[0], d, off, 0, a);
    }
    break;
  case RG_OP_CONCAT: concat_cuts(p, o, in, n_in, pr[0]); break;
  case RG_OP_SPLIT: split_cuts(p, out, in[0], pr[0]); break;
  case RG_OP_RESHAPE: reshape_cuts(p, o, in[0]); break;
  case RG_OP_PAD: /* zeros before `before` and from before+dim: both are borders */
    copy_off_axis(p, o, in[0], pr[0]);
    add(p, o, pr[0], pr[1]), add(p, o, pr[0], (int64_t)pr[1] + in[0]->dim[pr[0]]);
    add_shifted(p, o, pr[0], in[0], pr[0], pr[1], 0, in[0]->dim[pr[0]]);
    break;
  case RG_OP_SLICE: /* the cuts inside begin .. end, shifted */
    copy_off_axis(p, o, in[0], pr[0]);
    add_shifted(p, o, pr[0], in[0], pr[0], -(int64_t)pr[1], pr[1], pr[2]);
    break;
  default: break;
  }
}

/* Constants: the boxes on which each is constant. */
static void constant_cuts(prop *p, rg_op op, const int32_t *pr, rg_cuts *o) {
  if (op == RG_OP_IEWMUL) return; /* constant everywhere: one box */
  if (op == RG_OP_ICONV) {
    /* one 1 at the kernel centre of each diagonal channel pair: the centre row and column
     * are boxes, and (like Imatmul) every channel pair */
    add(p, o, 2, (pr[1] - 1) / 2), add(p, o, 2, (pr[1] - 1) / 2 + 1);
    add(p, o, 3, (pr[2] - 1) / 2), add(p, o, 3, (pr[2] - 1) / 2 + 1);
  }
  /* Imatmul: the identity is not constant on any larger box, every element; Cpool: constant on
   * the channel diagonal, zero off it, every channel pair */
  for (int d = 0; d < 2; d++)
    for (int32_t q = 1; q < o->dim[d]; q++) add(p, o, d, q);
}

static void node_cuts(prop *p, const rg_plan *plan, int32_t id, const rg_cuts *const *in,
                      rg_cuts *out) {
  const rg_node *nd = rg_graph_node(plan->g, id);
  const int32_t *pr = plan->params[id];
  rg_cuts *o = &out[0];
  int r = o->rank;
  switch ((rg_op)nd->op) {
  case RG_OP_EWADD:
  case RG_OP_EWMUL: /* same position in both operands: the union */
    for (int d = 0; d < r; d++) copy_dim(p, o, d, in[0], d), copy_dim(p, o, d, in[1], d);
    break;
  case RG_OP_SMUL: /* x's position; the scalar is one fixed element */
    for (int d = 0; d < r; d++) copy_dim(p, o, d, in[0], d);
    break;
  case RG_OP_BIAS: /* x's position; b's one axis is x's axis there */
    for (int d = 0; d < r; d++) copy_dim(p, o, d, in[0], d);
    copy_dim(p, o, pr[0], in[1], 0);
    break;
  case RG_OP_MATMUL: /* batch dims from both; rows from a, columns from b; k is summed */
    for (int d = 0; d < r - 2; d++) copy_dim(p, o, d, in[0], d), copy_dim(p, o, d, in[1], d);
    copy_dim(p, o, r - 2, in[0], r - 2);
    copy_dim(p, o, r - 1, in[1], r - 1);
    break;
  case RG_OP_CONV2D: conv_cuts(p, o, in[0], in[1], pr); break;
  case RG_OP_POOLAVG:
  case RG_OP_TRANSPOSE:
  case RG_OP_ENLARGE:
  case RG_OP_CONCAT:
  case RG_OP_SPLIT:
  case RG_OP_RESHAPE:
  case RG_OP_PAD:
  case RG_OP_SLICE: movement_cuts(p, (rg_op)nd->op, nd->n_in, pr, in, out); break;
  case RG_OP_ICONV:
  case RG_OP_IMATMUL:
  case RG_OP_CPOOL:
  case RG_OP_IEWMUL: constant_cuts(p, (rg_op)nd->op, pr, o); break;
  default: break; /* rejected before (not multilinear) */
  }
  for (int k = 0; k < rg_op_get((rg_op)nd->op)->n_outputs; k++) finish(&out[k]);
}

/* Multilinear: no activation (standalone or fused), no max pooling. */
static rg_status check_multilinear(const rg_plan *plan, int32_t id, rg_err *err) {
  rg_op op = (rg_op)rg_graph_node(plan->g, id)->op;
  const rg_op_info *info = rg_op_get(op);
  for (int k = 0; k < info->n_params; k++)
    if (info->params[k].kind == RG_PK_ACT && plan->params[id][rg_op_param_slot(op, k)] != RG_ACT_NONE)
      return rg_err_set(err, RG_ERR_ARG,
                        "%s with activation %s is not multilinear: certify handles only linear and "
                        "multilinear programs (use act none, or certify the part before the activation)",
                        info->name, rg_act_name(plan->params[id][rg_op_param_slot(op, k)]));
  if (info->linearity == RG_LIN_NONE && !(info->flags & (RG_OPF_INPUT | RG_OPF_CONSTANT)))
    return rg_err_set(err, RG_ERR_ARG,
                      "%s is not multilinear: certify handles only linear and multilinear "
                      "programs (no relu, tanh, sigmoid or max pooling)",
                      info->name);
  return RG_OK;
}

void rg_boxmap_free(rg_boxmap *m) {
  if (!m) return;
  for (int32_t i = 0; m->c && i < m->n; i++)
    for (int k = 0; k < RG_MAX_OUTPUTS; k++) rg_cuts_free(&m->c[i][k]);
  free(m->c);
  free(m);
}

const rg_cuts *rg_boxmap_cuts(const rg_boxmap *m, rg_ref r) { return &m->c[r.node][r.out]; }

rg_status rg_boxes_propagate(const rg_plan *plan, const rg_ref *outs, int n, rg_boxmap **out,
                             rg_err *err) {
  *out = NULL;
  rg_boxmap *m = calloc(1, sizeof *m);
  uint8_t *need = calloc(plan->n ? (size_t)plan->n : 1, 1);
  if (m) m->c = calloc(plan->n ? (size_t)plan->n : 1, sizeof *m->c);
  if (!m || !need || !m->c) {
    free(need);
    rg_boxmap_free(m);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory propagating boxes");
  }
  m->n = plan->n;
  rg_graph_mark_reachable(plan->g, outs, n, need);
  prop p = {false};
  rg_status st = RG_OK;
  for (int32_t id = 0; id < plan->n && st == RG_OK && !p.nomem; id++) {
    if (!need[id]) continue;
    const rg_node *nd = rg_graph_node(plan->g, id);
    st = check_multilinear(plan, id, err);
    for (int k = 0; k < rg_op_get((rg_op)nd->op)->n_outputs; k++) {
      m->c[id][k].rank = plan->shape[id][k].rank;
      memcpy(m->c[id][k].dim, plan->shape[id][k].dim, sizeof m->c[id][k].dim);
    }
    if (st || nd->op == RG_OP_INPUT) continue;
    const rg_cuts *in[RG_MAX_INPUTS];
    for (int k = 0; k < nd->n_in; k++) in[k] = &m->c[nd->in[k].node][nd->in[k].out];
    node_cuts(&p, plan, id, in, m->c[id]);
  }
  free(need);
  if (st == RG_OK && p.nomem) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory propagating boxes");
  if (st) {
    rg_boxmap_free(m);
    return st;
  }
  *out = m;
  return RG_OK;
}

int rg_boxes_degree(const rg_plan *plan, rg_ref r) {
  /* node by node in id (topological) order, so shared subgraphs are counted once */
  int *deg = calloc((size_t)r.node + 1, sizeof *deg);
  if (!deg) return INT32_MAX; /* no memory: the weakest (largest) degree */
  for (int32_t id = 0; id <= r.node; id++) {
    const rg_node *nd = rg_graph_node(plan->g, id);
    const rg_op_info *info = rg_op_get((rg_op)nd->op);
    int d = info->flags & RG_OPF_INPUT ? 1 : 0;
    for (int k = 0; k < nd->n_in; k++) {
      int dk = deg[nd->in[k].node];
      d = info->linearity == RG_LIN_MULTI ? d + dk : (dk > d ? dk : d);
    }
    deg[id] = d;
  }
  int d = deg[r.node];
  free(deg);
  return d;
}
