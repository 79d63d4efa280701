/* optimizer/cost/gpu_op.c: model nodes as rg_gpu_op. Padding is given as its amount before the
 * first element (ops.def's SAME/VALID convention): cuDNN pads symmetrically, so a SAME window
 * with an odd total pads one less after (gpu_dnn.cu says what that means). */
#include "gpu_op.h"

#include <string.h>

_Static_assert((int)RG_GPU_ACT_NONE == (int)RG_ACT_NONE &&
                   (int)RG_GPU_ACT_SIGMOID == (int)RG_ACT_SIGMOID &&
                   (int)RG_GPU_ACT_RELU == (int)RG_ACT_RELU &&
                   (int)RG_GPU_ACT_TANH == (int)RG_ACT_TANH,
               "cuda.h numbers the activations as ir/op.h does");
_Static_assert(RG_GPU_MAX_RANK >= RG_MAX_RANK && RG_GPU_MAX_IN >= RG_MAX_INPUTS,
               "cuda.h holds every node");

static void put_shape(rg_gpu_shape *d, const rg_shape *s) {
  d->rank = s->rank;
  for (int i = 0; i < s->rank; i++)
    d->dim[i] = s->dim[i];
}

/* the window's padding before, on both spatial dimensions of x (NCHW) */
static bool window(rg_gpu_op *g, const rg_shape *x, int pad) {
  int32_t out, ph, pw;
  if (x->rank != 4) return false;
  if (!rg_window_geometry(x->dim[2], (g->kh - 1) * g->dh + 1, g->sh, pad, &out, &ph) ||
      !rg_window_geometry(x->dim[3], (g->kw - 1) * g->dw + 1, g->sw, pad, &out, &pw))
    return false;
  g->pad_h = ph, g->pad_w = pw;
  return true;
}

bool rg_gpu_op_make(rg_op op, const int32_t *p, int n_in, const rg_shape *const *in, int n_out,
                    const rg_shape *out, rg_gpu_op *g) {
  memset(g, 0, sizeof *g);
  g->n_in = n_in, g->n_out = n_out;
  for (int k = 0; k < n_in; k++)
    put_shape(&g->in[k], in[k]);
  for (int k = 0; k < n_out; k++)
    put_shape(&g->out[k], &out[k]);
  g->dh = g->dw = g->groups = 1;
  switch (op) {
  case RG_OP_CONV2D: /* sh sw pad act dh dw groups */
    if (in[1]->rank != 4) return false;
    g->kind = RG_GPU_CONV, g->sh = p[0], g->sw = p[1], g->act = p[3], g->dh = p[4], g->dw = p[5];
    g->groups = p[6], g->kh = in[1]->dim[2], g->kw = in[1]->dim[3];
    return window(g, in[0], p[2]);
  case RG_OP_POOLMAX:
  case RG_OP_POOLAVG: /* kh kw sh sw pad act */
    g->kind = op == RG_OP_POOLMAX ? RG_GPU_POOLMAX : RG_GPU_POOLAVG;
    g->kh = p[0], g->kw = p[1], g->sh = p[2], g->sw = p[3], g->act = p[5];
    return window(g, in[0], p[4]);
  case RG_OP_MATMUL: g->kind = RG_GPU_MATMUL, g->act = p[0]; return true;
  case RG_OP_RELU: g->kind = RG_GPU_RELU; return true;
  case RG_OP_TANH: g->kind = RG_GPU_TANH; return true;
  case RG_OP_SIGMOID: g->kind = RG_GPU_SIGMOID; return true;
  case RG_OP_SMUL: g->kind = RG_GPU_SMUL; return true;
  case RG_OP_EWADD: g->kind = RG_GPU_EWADD; return true;
  case RG_OP_EWMUL: g->kind = RG_GPU_EWMUL; return true;
  case RG_OP_BIAS: g->kind = RG_GPU_BIAS, g->axis = p[0]; return true;
  case RG_OP_CONCAT: g->kind = RG_GPU_CONCAT, g->axis = p[0]; return true;
  case RG_OP_SPLIT: g->kind = RG_GPU_SPLIT, g->axis = p[0]; return true;
  case RG_OP_PAD: g->kind = RG_GPU_PAD, g->axis = p[0], g->begin = p[1], g->end = p[2]; return true;
  case RG_OP_SLICE:
    g->kind = RG_GPU_SLICE, g->axis = p[0], g->begin = p[1], g->end = p[2];
    return true;
  case RG_OP_RESHAPE: g->kind = RG_GPU_RESHAPE; return true;
  case RG_OP_TRANSPOSE: {
    int perm[RG_MAX_RANK];
    if (rg_perm_unpack(p[0], perm) != in[0]->rank) return false;
    g->kind = RG_GPU_TRANSPOSE;
    for (int i = 0; i < in[0]->rank; i++)
      g->perm[i] = perm[i];
    return true;
  }
  default: return false; /* input, enlarge and the constants: weight-only, folded by export */
  }
}

bool rg_gpu_op_of_node(const rg_model *m, int32_t id, rg_gpu_op *g) {
  const rg_node *nd = rg_graph_node(m->g, id);
  const rg_op_info *info = rg_op_get((rg_op)nd->op);
  const rg_shape *in[RG_MAX_INPUTS];
  rg_shape out[2];
  for (int k = 0; k < nd->n_in; k++)
    in[k] = rg_model_shape(m, nd->in[k]);
  for (int k = 0; k < info->n_outputs && k < 2; k++)
    out[k] = *rg_model_shape(m, (rg_ref){id, k});
  return rg_gpu_op_make((rg_op)nd->op, nd->params, nd->n_in, in, info->n_outputs, out, g);
}
