/* optimizer/onnx/export_nodes.c: one node of the rule vocabulary as ONNX nodes (export_internal.h),
 * and which nodes fold into their readers on the way out; below opset 7, that every node written
 * has its form at the model's opset. */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"
#include "optimizer/opaque/opaque.h"

static const char *in_name(const rg_exporter *ex, const rg_node *nd, int k) {
  return ex->name[nd->in[k].node][nd->in[k].out];
}

static const rg_shape *shape_of(const rg_exporter *ex, rg_ref r) { return rg_model_shape(ex->m, r); }

static rg_status nomem(rg_err *err) { return rg_err_set(err, RG_ERR_NOMEM, "out of memory"); }

/* op(in) into out, then the fused activation act when there is one; *made: the op's node. */
static rg_status with_act(rg_exporter *ex, const char *op, const char *const *in, int n_in, const char *out, int act,
                          Onnx__NodeProto **made, rg_err *err) {
  static const char *const act_op[RG_ACT_COUNT] = {NULL, "Sigmoid", "Relu", "Tanh"};
  if (act == RG_ACT_NONE) return (*made = rg_export_node(ex, op, in, n_in, &out, 1)) ? RG_OK : nomem(err);
  char *tmp = rg_export_fresh(ex, op);
  const char *t = tmp;
  *made = tmp ? rg_export_node(ex, op, in, n_in, &t, 1) : NULL;
  bool ok = *made && rg_export_node(ex, act_op[act], &t, 1, &out, 1);
  free(tmp);
  return ok ? RG_OK : nomem(err);
}

/* ---- windows ---- */

static bool pad_link(const rg_exporter *ex, rg_ref r) {
  const rg_node *nd = rg_graph_node(ex->m->g, r.node);
  return nd->op == RG_OP_PAD && (nd->params[0] == 2 || nd->params[0] == 3) && !ex->is_const[r.node] &&
         !ex->formed[r.node] && ex->uses[r.node] == 1;
}

/* The operand a window reads after the zero pads it folds (extra: those pads, [before h, before
 * w, after h, after w]). */
static rg_ref unpadded(const rg_exporter *ex, int32_t id, int64_t *extra) {
  const rg_node *nd = rg_graph_node(ex->m->g, id);
  rg_ref r = nd->in[0];
  memset(extra, 0, 4 * sizeof *extra);
  if (!(ex->fuse[id] & RG_FUSE_PADS)) return r;
  while (pad_link(ex, r)) {
    const rg_node *p = rg_graph_node(ex->m->g, r.node);
    extra[p->params[0] - 2] += p->params[1], extra[p->params[0]] += p->params[2];
    r = p->in[0];
  }
  return r;
}

/* kernel_shape, strides, dilations and pads of a window over x (its SAME padding made explicit). */
static bool window_attrs(Onnx__NodeProto *n, const rg_shape *x, const int32_t *k, const int32_t *s, const int32_t *d,
                         int pad, const int64_t *extra) {
  int64_t pads[4], ks[2] = {k[0], k[1]}, ss[2] = {s[0], s[1]}, ds[2] = {d[0], d[1]};
  for (int a = 0; a < 2; a++) {
    int32_t in = x->dim[2 + a] + (int32_t)(extra[a] + extra[a + 2]), keff = (k[a] - 1) * d[a] + 1, out = 0, before = 0;
    int64_t total = 0;
    if (pad == RG_PAD_SAME && rg_window_geometry(in, keff, s[a], RG_PAD_SAME, &out, &before)) {
      total = (int64_t)(out - 1) * s[a] + keff - in;
      if (total < 0) total = 0;
    }
    pads[a] = before + extra[a], pads[a + 2] = total - before + extra[a + 2];
  }
  return rg_export_attr_ints(n, "kernel_shape", ks, 2) && rg_export_attr_ints(n, "strides", ss, 2) &&
         (!d || (d[0] == 1 && d[1] == 1) || rg_export_attr_ints(n, "dilations", ds, 2)) &&
         rg_export_attr_ints(n, "pads", pads, 4);
}

static rg_status conv(rg_exporter *ex, int32_t id, const char *bias, const char *out, rg_err *err) {
  const rg_node *nd = rg_graph_node(ex->m->g, id);
  const int32_t *p = nd->params; /* sh sw pad act dh dw groups */
  int64_t extra[4];
  rg_ref x = unpadded(ex, id, extra);
  const rg_shape *ws = shape_of(ex, nd->in[1]);
  const char *in[3] = {ex->name[x.node][x.out], in_name(ex, nd, 1), bias};
  Onnx__NodeProto *n;
  rg_status st = with_act(ex, "Conv", in, bias ? 3 : 2, out, p[3], &n, err);
  if (st) return st;
  bool ok = window_attrs(n, shape_of(ex, x), &ws->dim[2], &p[0], &p[4], p[2], extra) &&
            (p[6] == 1 || rg_export_attr_int(n, "group", p[6]));
  return ok ? RG_OK : nomem(err);
}

static rg_status pool(rg_exporter *ex, int32_t id, rg_err *err) {
  const rg_node *nd = rg_graph_node(ex->m->g, id);
  const int32_t *p = nd->params; /* kh kw sh sw pad act */
  int64_t extra[4];
  rg_ref x = unpadded(ex, id, extra);
  const char *in = ex->name[x.node][x.out];
  bool avg = nd->op == RG_OP_POOLAVG;
  Onnx__NodeProto *n;
  rg_status st = with_act(ex, avg ? "AveragePool" : "MaxPool", &in, 1, ex->name[id][0], p[5], &n, err);
  if (st) return st;
  int32_t one[2] = {1, 1};
  bool ok = window_attrs(n, shape_of(ex, x), &p[0], &p[2], one, p[4], extra) &&
            (!avg || rg_export_attr_int(n, "count_include_pad", 1)); /* the vocabulary's padded zeros count */
  return ok ? RG_OK : nomem(err);
}

/* ---- bias ---- */

/* The B operand of a Gemm for product mm: its second operand, or with trans_b what that operand
 * transposes (a weight is written here if no other reader has written it). */
static rg_status gemm_b(rg_exporter *ex, const rg_node *mm, bool trans_b, const char **b, rg_err *err) {
  if (!trans_b) return (*b = in_name(ex, mm, 1)) ? RG_OK : nomem(err);
  rg_ref w = rg_graph_node(ex->m->g, mm->in[1].node)->in[0];
  rg_status st = ex->is_const[w.node] ? rg_export_constant(ex, w.node, err) : RG_OK;
  *b = st ? NULL : ex->name[w.node][w.out];
  return st;
}

/* b (one value per position of x's axis) shaped to broadcast against x: (C, 1, ..., 1). */
static const char *broadcast_bias(rg_exporter *ex, const rg_node *nd, rg_err *err) {
  int axis = nd->params[0], rank = shape_of(ex, nd->in[0])->rank;
  rg_ref b = nd->in[1];
  if (axis == rank - 1) return in_name(ex, nd, 1);
  int32_t dims[RG_MAX_RANK];
  int64_t dims64[RG_MAX_RANK];
  for (int d = 0; d < rank - axis; d++) dims[d] = d ? 1 : shape_of(ex, b)->dim[0], dims64[d] = dims[d];
  rg_shape s = rg_shape_make(rank - axis, dims);
  char *name = rg_export_fresh(ex, in_name(ex, nd, 1));
  const char *r = NULL;
  if (name && ex->is_const[b.node]) { /* a constant: reshaped here */
    float *f = rg_export_const_floats(ex, b);
    r = f ? rg_export_init(ex, name, RG_ELEM_FLOAT, &s, f) : NULL;
    free(f);
  } else if (name) {
    const char *in[2] = {in_name(ex, nd, 1), rg_export_ints(ex, "shape", dims64, rank - axis)};
    const char *out = name;
    r = in[1] && rg_export_node(ex, "Reshape", in, 2, &out, 1) ? ex->node[ex->n_node - 1]->output[0] : NULL;
  }
  free(name);
  if (!r) nomem(err);
  return r;
}

static rg_status bias(rg_exporter *ex, int32_t id, rg_err *err) {
  const rg_node *nd = rg_graph_node(ex->m->g, id);
  const char *out = ex->name[id][0];
  if (ex->fuse[id] & RG_FUSE_OPERAND) {
    const rg_node *x = rg_graph_node(ex->m->g, nd->in[0].node);
    if (x->op == RG_OP_CONV2D) return conv(ex, nd->in[0].node, in_name(ex, nd, 1), out, err);
    const char *in[3] = {in_name(ex, x, 0), NULL, in_name(ex, nd, 1)};
    rg_status st = gemm_b(ex, x, ex->fuse[id] & RG_FUSE_TRANS_B, &in[1], err);
    Onnx__NodeProto *n = st ? NULL : rg_export_node(ex, "Gemm", in, 3, &out, 1);
    return st ? st : n && (!(ex->fuse[id] & RG_FUSE_TRANS_B) || rg_export_attr_int(n, "transB", 1)) ? RG_OK : nomem(err);
  }
  const char *b = broadcast_bias(ex, nd, err);
  if (!b) return RG_ERR_NOMEM;
  const char *in[2] = {in_name(ex, nd, 0), b};
  return rg_export_node(ex, "Add", in, 2, &out, 1) ? RG_OK : nomem(err);
}

/* ---- data movement ---- */

/* Nodes are written in the forms of the model's opset (never another: the model keeps its
 * opset_import): Slice's bounds are attributes before opset 10, Pad's amounts before 11, and a
 * Gemm before 11 needs its C. */

/* Slice of x along axis from begin to end into out. */
static rg_status slice(rg_exporter *ex, const char *x, int axis, int64_t begin, int64_t end, const char *out, rg_err *err) {
  int64_t ax = axis;
  if (ex->m->opset < 10) {
    Onnx__NodeProto *n = rg_export_node(ex, "Slice", &x, 1, &out, 1);
    bool ok = n && rg_export_attr_ints(n, "starts", &begin, 1) && rg_export_attr_ints(n, "ends", &end, 1) &&
              rg_export_attr_ints(n, "axes", &ax, 1);
    return ok ? RG_OK : nomem(err);
  }
  const char *in[4] = {x, rg_export_ints(ex, "starts", &begin, 1), rg_export_ints(ex, "ends", &end, 1),
                       rg_export_ints(ex, "axes", &ax, 1)};
  return in[1] && in[2] && in[3] && rg_export_node(ex, "Slice", in, 4, &out, 1) ? RG_OK : nomem(err);
}

/* Zero padding of x: pads[2 * rank] as ONNX orders them (all befores, then all afters). */
static rg_status pad(rg_exporter *ex, const char *x, const int64_t *pads, int rank, const char *out, rg_err *err) {
  if (ex->m->opset < 11) {
    Onnx__NodeProto *n = rg_export_node(ex, "Pad", &x, 1, &out, 1);
    return n && rg_export_attr_ints(n, "pads", pads, 2 * rank) ? RG_OK : nomem(err);
  }
  const char *in[2] = {x, rg_export_ints(ex, "pads", pads, 2 * rank)};
  return in[1] && rg_export_node(ex, "Pad", in, 2, &out, 1) ? RG_OK : nomem(err);
}

/* A reshape undoing a product's flattening (RG_FUSE_MATMUL): the flattened operand multiplied
 * as it is, then its bias (if import put one on the flattened product) added along the last
 * axis, into out. */
static rg_status unflattened(rg_exporter *ex, const rg_node *nd, const char *out, rg_err *err) {
  const rg_node *mm = rg_graph_node(ex->m->g, nd->in[0].node), *b = NULL;
  if (mm->op == RG_OP_BIAS) b = mm, mm = rg_graph_node(ex->m->g, mm->in[0].node);
  const char *in[2] = {in_name(ex, rg_graph_node(ex->m->g, mm->in[0].node), 0), in_name(ex, mm, 1)};
  char *mid = b ? rg_export_fresh(ex, out) : NULL;
  const char *prod = b ? mid : out;
  bool ok = (!b || mid) && rg_export_node(ex, "MatMul", in, 2, &prod, 1);
  const char *sum[2] = {prod, b ? in_name(ex, b, 1) : NULL};
  ok = ok && (!b || rg_export_node(ex, "Add", sum, 2, &out, 1));
  free(mid);
  return ok ? RG_OK : nomem(err);
}

static rg_status data_movement(rg_exporter *ex, int32_t id, rg_err *err) {
  const rg_node *nd = rg_graph_node(ex->m->g, id);
  const rg_shape *xs = shape_of(ex, nd->in[0]);
  const char *x = in_name(ex, nd, 0), *out = ex->name[id][0];
  const int32_t *p = nd->params;
  int64_t pads[2 * RG_MAX_RANK] = {0}, v[RG_MAX_RANK];
  Onnx__NodeProto *n = NULL;
  switch ((rg_op)nd->op) {
  case RG_OP_TRANSPOSE: {
    int perm[RG_MAX_RANK], rank = rg_perm_unpack(p[0], perm);
    for (int d = 0; d < rank; d++) v[d] = perm[d];
    n = rg_export_node(ex, "Transpose", &x, 1, &out, 1);
    return n && rg_export_attr_ints(n, "perm", v, rank) ? RG_OK : nomem(err);
  }
  case RG_OP_CONCAT: {
    const char *in[RG_MAX_INPUTS];
    for (int k = 0; k < nd->n_in; k++) in[k] = in_name(ex, nd, k);
    n = rg_export_node(ex, "Concat", in, nd->n_in, &out, 1);
    return n && rg_export_attr_int(n, "axis", p[0]) ? RG_OK : nomem(err);
  }
  case RG_OP_SPLIT: { /* at the outermost seam */
    int32_t mid = xs->seam[p[0]][xs->nseam[p[0]] - 1];
    rg_status st = slice(ex, x, p[0], 0, mid, ex->name[id][0], err);
    return st ? st : slice(ex, x, p[0], mid, xs->dim[p[0]], ex->name[id][1], err);
  }
  case RG_OP_RESHAPE: {
    if (ex->fuse[id] & RG_FUSE_MATMUL) return unflattened(ex, nd, out, err);
    if (p[0] == 0) /* to a scalar: an empty shape tensor has no elements, which ONNX readers refuse */
      return rg_export_node(ex, "Squeeze", &x, 1, &out, 1) ? RG_OK : nomem(err);
    for (int d = 0; d < p[0]; d++) v[d] = p[1 + d];
    const char *in[2] = {x, rg_export_ints(ex, "shape", v, p[0])};
    return in[1] && rg_export_node(ex, "Reshape", in, 2, &out, 1) ? RG_OK : nomem(err);
  }
  case RG_OP_PAD:
    pads[p[0]] = p[1], pads[p[0] + xs->rank] = p[2];
    return pad(ex, x, pads, xs->rank, out, err);
  case RG_OP_SLICE: return slice(ex, x, p[0], p[1], p[2], out, err);
  case RG_OP_ENLARGE: /* a kernel (O, I, a, b) centred in (O, I, kh, kw) */
    for (int a = 0; a < 2; a++) {
      int32_t k = p[a], have = xs->dim[2 + a], before = (k - 1) / 2 - (have - 1) / 2;
      pads[2 + a] = before, pads[2 + a + 4] = k - have - before;
    }
    return pad(ex, x, pads, 4, out, err);
  default: return rg_err_set(err, RG_ERR_ARG, "export: operator %s has no ONNX form here", rg_op_get((rg_op)nd->op)->name);
  }
}

/* A C of one zero for a Gemm without bias before opset 11, where C is not optional; its name, or
 * NULL when out of memory. */
static const char *zero_c(rg_exporter *ex) {
  char *name = rg_export_fresh(ex, "zero");
  float zero = 0;
  rg_shape s = rg_shape_make(1, (int32_t[]){1});
  const char *r = name ? rg_export_init(ex, name, RG_ELEM_FLOAT, &s, &zero) : NULL;
  free(name);
  return r;
}

rg_status rg_export_ir_node(rg_exporter *ex, int32_t id, rg_err *err) {
  const rg_node *nd = rg_graph_node(ex->m->g, id);
  const char *out = ex->name[id][0];
  const char *in[2] = {nd->n_in > 0 ? in_name(ex, nd, 0) : NULL, nd->n_in > 1 ? in_name(ex, nd, 1) : NULL};
  Onnx__NodeProto *n;
  switch ((rg_op)nd->op) {
  case RG_OP_EWADD: return rg_export_node(ex, "Add", in, 2, &out, 1) ? RG_OK : nomem(err);
  case RG_OP_EWMUL:
  case RG_OP_SMUL: return rg_export_node(ex, "Mul", in, 2, &out, 1) ? RG_OK : nomem(err);
  case RG_OP_RELU: return rg_export_node(ex, "Relu", in, 1, &out, 1) ? RG_OK : nomem(err);
  case RG_OP_TANH: return rg_export_node(ex, "Tanh", in, 1, &out, 1) ? RG_OK : nomem(err);
  case RG_OP_SIGMOID: return rg_export_node(ex, "Sigmoid", in, 1, &out, 1) ? RG_OK : nomem(err);
  case RG_OP_MATMUL: {
    bool trans_b = ex->fuse[id] & RG_FUSE_TRANS_B;
    const char *gin[3] = {in[0], NULL, trans_b && ex->m->opset < 11 ? zero_c(ex) : NULL};
    rg_status st = gemm_b(ex, nd, trans_b, &gin[1], err);
    if (!st && trans_b && ex->m->opset < 11 && !gin[2]) st = nomem(err);
    if (!st) st = with_act(ex, trans_b ? "Gemm" : "MatMul", gin, gin[2] ? 3 : 2, out, nd->params[0], &n, err);
    return st || !trans_b ? st : rg_export_attr_int(n, "transB", 1) ? RG_OK : nomem(err);
  }
  case RG_OP_CONV2D: return conv(ex, id, NULL, out, err);
  case RG_OP_POOLAVG:
  case RG_OP_POOLMAX: return pool(ex, id, err);
  case RG_OP_BIAS: return bias(ex, id, err);
  default: return data_movement(ex, id, err);
  }
}

/* Whether 2-D product mm reads its second operand through a transpose (a Linear layer's weight,
 * as exporters write it): ONNX's Gemm takes it with transB, so the transposed copy need not be
 * made. A constant transpose qualifies only of a weight itself (folded values are not kept). */
static bool weight_transposed(const rg_exporter *ex, const rg_node *mm) {
  if (mm->op != RG_OP_MATMUL || shape_of(ex, mm->in[0])->rank != 2) return false;
  const rg_node *t = rg_graph_node(ex->m->g, mm->in[1].node);
  int perm[RG_MAX_RANK];
  return t->op == RG_OP_TRANSPOSE && rg_perm_unpack(t->params[0], perm) == 2 && perm[0] == 1 &&
         (!ex->is_const[mm->in[1].node] || rg_model_var_of(ex->m, t->in[0]) >= 0) && !ex->formed[mm->in[1].node];
}

/* Whether reshape node id undoes the flattening of a MatMul's operand: (reshape (matmul
 * (reshape a) w)) with a of rank > 2 flattened to (rows, k) and the product put back to a's
 * leading dims, which ONNX's MatMul broadcasts by itself; or (reshape (bias 1 (matmul ...) b)),
 * the bias import put on the flattened product (a MatMul, then an Add along the last axis). The
 * product (and its bias) must have no other reader; the flattening may (Q, K and V of one input
 * share it): it is written only for readers that do not fold it. Returns the product's node, or
 * -1. */
static int32_t unflattens(const rg_exporter *ex, int32_t id) {
  const rg_model *m = ex->m;
  const rg_node *r2 = rg_graph_node(m->g, id);
  rg_ref p = r2->in[0];
  const rg_node *mm = rg_graph_node(m->g, p.node);
  if (mm->op == RG_OP_BIAS && mm->params[0] == 1 && ex->uses[p.node] == 1 && !ex->is_const[p.node] &&
      !ex->formed[p.node])
    p = mm->in[0], mm = rg_graph_node(m->g, p.node);
  if (mm->op != RG_OP_MATMUL || mm->params[0] != RG_ACT_NONE || ex->uses[p.node] != 1 || ex->is_const[p.node] ||
      ex->formed[p.node])
    return -1;
  const rg_node *r1 = rg_graph_node(m->g, mm->in[0].node);
  if (r1->op != RG_OP_RESHAPE || ex->is_const[mm->in[0].node] || ex->formed[mm->in[0].node]) return -1;
  const rg_shape *a = shape_of(ex, r1->in[0]), *out = &m->shape[id][0], *w = shape_of(ex, mm->in[1]);
  if (a->rank <= 2 || out->rank != a->rank || w->rank != 2) return -1;
  for (int d = 0; d < a->rank - 1; d++)
    if (out->dim[d] != a->dim[d]) return -1;
  return p.node;
}

/* The reshapes that undo a product's flattening (unflattens): one MatMul, and its bias's Add. */
static void plan_unflattening(rg_exporter *ex, const int32_t *order, int32_t n_order) {
  const rg_model *m = ex->m;
  for (int32_t i = 0; i < n_order; i++) {
    int32_t id = order[i], mm;
    const rg_node *nd = rg_graph_node(m->g, id);
    if (ex->is_const[id] || ex->formed[id] || nd->op != RG_OP_RESHAPE || (mm = unflattens(ex, id)) < 0) continue;
    ex->fuse[id] |= RG_FUSE_MATMUL;
    if (mm != nd->in[0].node) ex->absorbed[nd->in[0].node]++; /* the bias */
    ex->absorbed[mm]++;
    ex->absorbed[rg_graph_node(m->g, mm)->in[0].node]++;
  }
}

void rg_export_plan_fusions(rg_exporter *ex, const int32_t *order, int32_t n_order) {
  const rg_model *m = ex->m;
  plan_unflattening(ex, order, n_order);
  for (int32_t i = 0; i < n_order; i++) {
    int32_t id = order[i];
    const rg_node *nd = rg_graph_node(m->g, id);
    if (ex->is_const[id] || ex->formed[id]) continue; /* a node written as read fuses nothing, nor is fused */
    if (nd->op == RG_OP_BIAS && nd->params[0] == 1 && !ex->absorbed[id] && !ex->is_const[nd->in[0].node] &&
        !ex->formed[nd->in[0].node] && ex->uses[nd->in[0].node] == 1) {
      const rg_node *x = rg_graph_node(m->g, nd->in[0].node);
      int rank = shape_of(ex, nd->in[0])->rank;
      bool into_conv = x->op == RG_OP_CONV2D && x->params[3] == RG_ACT_NONE;
      bool into_gemm = x->op == RG_OP_MATMUL && x->params[0] == RG_ACT_NONE && rank == 2;
      if (into_conv || into_gemm) ex->fuse[id] |= RG_FUSE_OPERAND, ex->absorbed[nd->in[0].node]++;
      if (into_gemm && weight_transposed(ex, x)) ex->fuse[id] |= RG_FUSE_TRANS_B, ex->absorbed[x->in[1].node]++;
    }
    /* zero pads add to a conv's or average pool's own, SAME ones too (window_attrs writes SAME's at
     * the padded size plus these); not a max pool's, whose padded cells are no zeros */
    bool zero_padded = nd->op == RG_OP_CONV2D || nd->op == RG_OP_POOLAVG;
    if (zero_padded && pad_link(ex, nd->in[0])) {
      ex->fuse[id] |= RG_FUSE_PADS;
      for (rg_ref r = nd->in[0]; pad_link(ex, r); r = rg_graph_node(m->g, r.node)->in[0]) ex->absorbed[r.node]++;
    }
  }
  for (int32_t i = 0; i < n_order; i++) { /* products written as themselves, now that readers chose */
    int32_t id = order[i];
    const rg_node *nd = rg_graph_node(m->g, id);
    if (ex->is_const[id] || ex->formed[id] || ex->absorbed[id] || !weight_transposed(ex, nd)) continue;
    ex->fuse[id] |= RG_FUSE_TRANS_B, ex->absorbed[nd->in[1].node]++;
  }
}

rg_status rg_export_check_opset(const rg_exporter *ex, rg_err *err) {
  for (size_t k = 0; ex->m->opset < 7 && k < ex->n_node; k++) {
    bool ort_runs = false;
    const Onnx__NodeProto *n = ex->node[k];
    int64_t since = rg_opaque_legacy_since(n, ex->m->opset, &ort_runs, NULL);
    if (since && !ort_runs)
      return rg_err_set(err, RG_ERR_ARG, "graphopt would write %s at the model's opset %lld, in a version that opset "
                        "%lld superseded and onnxruntime does not run: the rewrite needs opset 7 or later (convert "
                        "the model with onnx.version_converter)", n->op_type, (long long)ex->m->opset,
                        (long long)since);
  }
  return RG_OK;
}
