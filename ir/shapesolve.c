/* ir/shapesolve.c: well-typed shape and parameter assignments for a rule (method in the
 * header). Every candidate assignment is checked with the real shape inference, so whatever
 * this returns type-checks; the search only decides how general the assignments are. */
#include "shapesolve.h"

#include <stdlib.h>
#include <string.h>

#include "zp.h"

#define BASE_ATTEMPTS 6000
/* Shape draws per draw of the parameter variables' values while looking for a base. */
#define PARAM_PATIENCE 64
#define SPLIT_TESTS 4000
#define SAMPLE_ATTEMPTS 400
/* Walks in a row that found nothing new before the search gives up: a rule whose constants pin
 * every size repeats its one assignment, and would otherwise spend all SAMPLE_ATTEMPTS. */
#define SAMPLE_PATIENCE 64
#define MAX_SLOTS (64 * RG_MAX_RANK * 2) /* a seamed axis is a slot per part */

typedef struct {
  uint64_t s;
} prng;

static uint64_t next(prng *r) { return rg_mix64(r->s += UINT64_C(0x9e3779b97f4a7c15)); }
static int below(prng *r, int n) { return (int)(next(r) % (uint64_t)n); }

/* ---- assignments ---- */

static void assignment_free(rg_assignment *a) {
  free(a->shapes);
  free(a->shape_ptrs);
  free(a->pvar_values);
  free(a->pvar_bound);
  memset(a, 0, sizeof *a);
}

static void assignment_rebind(rg_assignment *a) {
  for (int32_t i = 0; i < a->n_tvars; i++) a->shape_ptrs[i] = &a->shapes[i];
  a->binding = (rg_binding){a->shape_ptrs, a->pvar_values, a->pvar_bound};
}

static bool assignment_init(rg_assignment *a, int32_t nt, int32_t np) {
  memset(a, 0, sizeof *a);
  a->n_tvars = nt, a->n_pvars = np;
  a->shapes = calloc((size_t)nt + 1, sizeof *a->shapes);
  a->shape_ptrs = calloc((size_t)nt + 1, sizeof *a->shape_ptrs);
  a->pvar_values = calloc((size_t)np + 1, sizeof *a->pvar_values);
  a->pvar_bound = calloc((size_t)np + 1, 1);
  if (!a->shapes || !a->shape_ptrs || !a->pvar_values || !a->pvar_bound) {
    assignment_free(a);
    return false;
  }
  memset(a->pvar_bound, 1, (size_t)np);
  assignment_rebind(a);
  return true;
}

static bool assignment_copy(rg_assignment *dst, const rg_assignment *src) {
  if (!assignment_init(dst, src->n_tvars, src->n_pvars)) return false;
  memcpy(dst->shapes, src->shapes, sizeof *src->shapes * (size_t)src->n_tvars);
  memcpy(dst->pvar_values, src->pvar_values, sizeof *src->pvar_values * (size_t)src->n_pvars);
  return true;
}

static bool assignment_same(const rg_assignment *a, const rg_assignment *b) {
  for (int32_t i = 0; i < a->n_tvars; i++)
    if (!rg_shape_dims_eq(&a->shapes[i], &b->shapes[i])) return false;
  return memcmp(a->pvar_values, b->pvar_values, sizeof *a->pvar_values * (size_t)a->n_pvars) == 0;
}

void rg_assignment_list_free(rg_assignment_list *l) {
  for (int i = 0; i < l->n; i++) assignment_free(&l->items[i]);
  free(l->items);
  l->items = NULL;
  l->n = 0;
}

static rg_status list_push(rg_assignment_list *l, const rg_assignment *a, rg_err *err) {
  rg_assignment *items = realloc(l->items, sizeof *items * (size_t)(l->n + 1));
  if (!items) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  l->items = items;
  if (!assignment_copy(&l->items[l->n], a)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  l->n++;
  return RG_OK;
}

/* ---- typing ---- */

bool rg_rule_well_typed(const rg_rule *r, const rg_binding *b) {
  rg_ref all[2 * RG_RULE_MAX_OUTPUTS];
  memcpy(all, r->src, sizeof(rg_ref) * (size_t)r->n_src);
  memcpy(all + r->n_src, r->tgt, sizeof(rg_ref) * (size_t)r->n_tgt);
  int n = r->n_src + r->n_tgt;
  rg_plan_types_buf buf; /* no allocation: this runs for every shape set the solver tries */
  rg_plan *plan = &buf.plan, *heap = NULL;
  if (rg_graph_size(r->g) <= RG_PLAN_TYPES_MAX) {
    if (rg_plan_types(r->g, all, n, b->tvar_shapes, b->pvar_values, b->pvar_bound, &buf, NULL) !=
        RG_OK)
      return false;
  } else if (rg_plan_new(r->g, all, n, b->tvar_shapes, b->pvar_values, b->pvar_bound, &heap,
                         NULL) != RG_OK) {
    return false;
  } else {
    plan = heap;
  }
  bool ok = true;
  for (int o = 0; ok && o < r->n_tgt; o++)
    ok = rg_shape_type_eq(rg_plan_shape(plan, r->src[o]), rg_plan_shape(plan, r->tgt[o]));
  rg_plan_free(heap);
  return ok;
}

/* ---- what the rule itself says about its variables ---- */

typedef struct {
  const rg_rule *r;
  int32_t nt, np;
  uint8_t rank_mask[64];      /* per tensor variable: bit k set if rank k is plausible; 0: no hint */
  const rg_param_spec *pspec[64]; /* per parameter variable: the kind it is used as */
  bool sizes_constant[64];         /* per parameter variable: a constant's size (Iconv's channels) */
  int sizes[16], n_sizes;     /* dimension sizes worth trying (1..5 and the rule's constants) */
  bool fixed_reshape;         /* a reshape to a constant shape fixes its operand's element count */
  /* Shape variables ((reshape ?S x)), innermost first: their slots' parameter variables, and
   * the term x whose element count they take. */
  int n_shape_vars;
  struct {
    int32_t slot_pvar[RG_SHAPE_SLOTS];
    rg_ref operand;
  } shape_var[8];
  /* Grouped convolutions whose group count is a parameter variable: per tensor variable, 1 + the
   * parameter variable that multiplies its channels (axis 1: it reaches a conv's input through
   * operators that keep channels) or its output channels (axis 0: a conv's kernel); 0: none. */
  int8_t group_in[64], group_out[64];
  bool grouped;
  bool splits; /* the rule splits: a base may need seams (seamed_vars) */
} problem;

static void add_size(problem *p, int v) {
  if (v < 1 || v > 64 || p->n_sizes == 16) return;
  for (int i = 0; i < p->n_sizes; i++)
    if (p->sizes[i] == v) return;
  p->sizes[p->n_sizes++] = v;
}

/* Marks the tensor variables that reach operand term `at` through operators that keep axes 0
 * and 1 (elementwise ones, smul's tensor, a concat along another axis) with 1 + pvar in mark. */
static void mark_channels(const rg_graph *g, int32_t at, int depth, int8_t *mark, int32_t pvar) {
  const rg_node *nd = rg_graph_node(g, at);
  if (nd->op == RG_OP_INPUT) {
    if (nd->params[0] < 64) mark[nd->params[0]] = (int8_t)(1 + pvar);
    return;
  }
  bool first_only = nd->op == RG_OP_SMUL || nd->op == RG_OP_BIAS; /* the other is s or b */
  bool keeps = rg_op_get(nd->op)->flags & RG_OPF_ELEMENTWISE || first_only ||
               (nd->op == RG_OP_CONCAT && !(nd->var_mask & 1) && nd->params[0] > 1);
  for (int k = 0; keeps && depth < 8 && k < (first_only ? 1 : nd->n_in); k++)
    mark_channels(g, nd->in[k].node, depth + 1, mark, pvar);
}

/* Ranks the consumer of an input implies; anything else may take ranks 1..4. */
/* Operators whose operands and result are 4-D images. */
static bool image_op(rg_op op) {
  return op == RG_OP_CONV2D || op == RG_OP_POOLAVG || op == RG_OP_POOLMAX || op == RG_OP_ENLARGE;
}

static uint8_t ranks_for(const rg_node *user, int k, const int32_t *params) {
  int perm[RG_MAX_RANK];
  if (image_op((rg_op)user->op)) return 1 << 4;
  switch ((rg_op)user->op) {
  case RG_OP_SMUL: return k == 1 ? 1 << 0 : 0x1f;
  case RG_OP_BIAS: return k == 1 ? 1 << 1 : 0x1e; /* a vector along an axis of x */
  case RG_OP_MATMUL: return 1 << 2 | 1 << 3 | 1 << 4; /* batched too: ranks 2..4 */
  case RG_OP_TRANSPOSE: {
    int r = (user->var_mask & 1) ? -1 : rg_perm_unpack(params[0], perm);
    return r > 0 ? (uint8_t)(1 << r) : 0x1e;
  }
  default: return 0x1f;
  }
}

static void add_shape_var(problem *p, const rg_node *nd, int slot) {
  for (int k = 0; k < p->n_shape_vars; k++)
    if (p->shape_var[k].slot_pvar[0] == nd->params[slot]) return;
  if (p->n_shape_vars == 8) return;
  int k = p->n_shape_vars++;
  for (int j = 0; j < RG_SHAPE_SLOTS; j++)
    p->shape_var[k].slot_pvar[j] = nd->params[slot + j];
  /* a constant's ((Iewmul ?S)) has no operand: it takes a tensor variable's shape instead */
  p->shape_var[k].operand = nd->n_in ? nd->in[0] : (rg_ref){-1, 0};
}

static void set_shape_var(const problem *p, int k, const rg_shape *s, rg_assignment *a) {
  const int32_t *sp = p->shape_var[k].slot_pvar;
  a->pvar_values[sp[0]] = s->rank;
  for (int d = 0; d < RG_MAX_RANK; d++)
    a->pvar_values[sp[1 + d]] = d < s->rank ? s->dim[d] : 0;
}

/* Gives a constant's shape variable the first tensor variable's shape under which r types (an
 * all-ones factor of an ewmul has its other operand's shape): drawn independently, it rarely
 * types, and an axiom over one (ewmul-identity) was tested at few assignments. */
static void fit_constant_shapes(const problem *p, rg_assignment *a) {
  for (int k = 0; k < p->n_shape_vars; k++) {
    if (p->shape_var[k].operand.node < 0 && p->nt > 0) {
      const int32_t *sp = p->shape_var[k].slot_pvar;
      int32_t was[RG_SHAPE_SLOTS];
      for (int j = 0; j < RG_SHAPE_SLOTS; j++) was[j] = a->pvar_values[sp[j]];
      int32_t v = 0;
      for (; v < p->nt; v++) {
        rg_shape s = a->shapes[v];
        set_shape_var(p, k, &s, a);
        if (rg_rule_well_typed(p->r, &a->binding)) break;
      }
      if (v == p->nt) /* none types: as drawn */
        for (int j = 0; j < RG_SHAPE_SLOTS; j++) a->pvar_values[sp[j]] = was[j];
    }
  }
}

/* Gives shape variable k the first reordering of its operand's sizes under which r types, if
 * any does (a reshape of a row to a column: x is n x m x 1 x k, ?s n x m x k x 1), else leaves
 * it as it is. Up to rank 4: 24 orders. */
static void fit_operand_order(const problem *p, int k, const rg_shape *in, rg_assignment *a) {
  if (in->rank > 4) return;
  int32_t was[RG_SHAPE_SLOTS];
  for (int j = 0; j < RG_SHAPE_SLOTS; j++) was[j] = a->pvar_values[p->shape_var[k].slot_pvar[j]];
  int idx[4] = {0, 1, 2, 3};
  do {
    int32_t dims[RG_MAX_RANK] = {1, 1, 1, 1, 1, 1};
    for (int d = 0; d < in->rank; d++) dims[d] = in->dim[idx[d]];
    rg_shape s = rg_shape_make(in->rank, dims);
    set_shape_var(p, k, &s, a);
    if (rg_rule_well_typed(p->r, &a->binding)) return;
  } while (rg_perm_next(idx, in->rank));
  for (int j = 0; j < RG_SHAPE_SLOTS; j++) a->pvar_values[p->shape_var[k].slot_pvar[j]] = was[j];
}

/* Gives each shape variable a shape with its operand's element count (under the shapes of a and
 * the shape variables fitted before it): one of several factorizations, chosen by a hash of that
 * count and the variable, so that the same tensor shapes always give the same values (a type
 * check and the assignment kept agree); where r does not type with it, the first order of the
 * operand's own sizes under which it does. An operand that does not type leaves it as it is. */
static void fit_shape_vars(const problem *p, rg_assignment *a) {
  for (int k = 0; k < p->n_shape_vars; k++) {
    rg_plan_types_buf buf;
    if (p->shape_var[k].operand.node < 0 || rg_graph_size(p->r->g) > RG_PLAN_TYPES_MAX ||
        rg_plan_types(p->r->g, &p->shape_var[k].operand, 1, a->binding.tvar_shapes, a->pvar_values,
                      a->pvar_bound, &buf, NULL) != RG_OK)
      continue;
    const rg_shape *in = rg_plan_shape(&buf.plan, p->shape_var[k].operand);
    int64_t n = 1;
    for (int d = 0; d < in->rank; d++)
      n *= in->dim[d];
    uint64_t h = rg_mix64((uint64_t)n * 131 + (uint64_t)k * 7 + (uint64_t)in->rank);
    int rank = 1 + (int)(h % 4);
    int32_t dims[RG_MAX_RANK] = {1, 1, 1, 1, 1, 1};
    /* prime factors dealt to the dimensions, starting at a hashed one */
    int at = (int)((h >> 8) % (uint64_t)rank);
    for (int64_t f = 2; n > 1 && f * f <= n; f++)
      while (n % f == 0) {
        dims[at] *= (int32_t)f;
        n /= f;
        at = (at + 1 + (int)(h >> 16 & 1)) % rank;
      }
    if (n > 1) dims[at] *= (int32_t)n;
    rg_shape fitted = rg_shape_make(rank, dims);
    set_shape_var(p, k, &fitted, a);
    if (!rg_rule_well_typed(p->r, &a->binding)) fit_operand_order(p, k, in, a);
  }
  fit_constant_shapes(p, a);
}

/* Type-checks a, its shape variables fitted first. */
static bool typed(const problem *p, rg_assignment *a) {
  fit_shape_vars(p, a);
  return rg_rule_well_typed(p->r, &a->binding);
}

/* Whether operand k of op has the rank of op's output. */
static bool keeps_rank(rg_op op, int k) {
  switch (op) {
  case RG_OP_SMUL:
  case RG_OP_BIAS: return k == 0;
  case RG_OP_RESHAPE: return false;
  default: return !(rg_op_get(op)->flags & RG_OPF_CONSTANT);
  }
}

void rg_forced_ranks(const rg_graph *g, int8_t *rk) {
  int32_t n = rg_graph_size(g);
  int shape = rg_op_param_slot(RG_OP_IEWMUL, 0), target = rg_op_param_slot(RG_OP_RESHAPE, 0);
  memset(rk, 0, (size_t)n);
  for (int pass = 0; pass < 4; pass++) {
    for (int32_t id = 0; id < n; id++) { /* up: operands come before their users */
      const rg_node *nd = rg_graph_node(g, id);
      rg_op op = (rg_op)nd->op;
      if (image_op(op) || op == RG_OP_ICONV || op == RG_OP_CPOOL) rk[id] = 4;
      if (op == RG_OP_IMATMUL) rk[id] = 2;
      if (op == RG_OP_IEWMUL && !(nd->var_mask >> shape & 1)) rk[id] = (int8_t)nd->params[shape];
      if (op == RG_OP_RESHAPE && !(nd->var_mask >> target & 1)) rk[id] = (int8_t)nd->params[target];
      for (int k = 0; !rk[id] && k < nd->n_in; k++)
        if (keeps_rank(op, k)) rk[id] = rk[nd->in[k].node];
    }
    for (int32_t id = n - 1; id >= 0; id--) { /* down */
      const rg_node *nd = rg_graph_node(g, id);
      rg_op op = (rg_op)nd->op;
      for (int k = 0; k < nd->n_in; k++) {
        int32_t in = nd->in[k].node;
        if (image_op(op)) rk[in] = 4;
        else if (op == RG_OP_BIAS && k == 1) rk[in] = 1; /* the bias is a vector */
        else if (rk[id] && keeps_rank(op, k) && !rk[in]) rk[in] = rk[id];
      }
    }
  }
}

/* Narrows each tensor variable's rank hint to the rank the rule's structure forces
 * (rg_forced_ranks). Without it the operands of a matmul chain under a conv (or beside one in an
 * ewadd) draw their ranks from 2..4 each, and a base assignment with all of them 4 is rare. */
/* Marks in axes[v] (bit `axis`) the tensor variables whose seams on axis reach term `at` through
 * operators that keep them there: elementwise ones (which meet their operands' seams), smul's
 * and bias's tensor, a concat along another axis (which meets them too). A concat along the
 * axis makes a seam of its own, and every other operator sets that axis's seams itself. */
static void seam_reach(const rg_graph *g, int32_t at, int axis, int depth, uint8_t *axes) {
  const rg_node *nd = rg_graph_node(g, at);
  if (nd->op == RG_OP_INPUT) {
    if (nd->params[0] < 64) axes[nd->params[0]] |= (uint8_t)(1u << axis);
    return;
  }
  bool first_only = nd->op == RG_OP_SMUL || nd->op == RG_OP_BIAS;
  bool keeps = rg_op_get(nd->op)->flags & RG_OPF_ELEMENTWISE || first_only ||
               (nd->op == RG_OP_CONCAT && !(nd->var_mask & 1) && nd->params[0] != axis);
  for (int k = 0; keeps && depth < 16 && k < (first_only ? 1 : nd->n_in); k++)
    seam_reach(g, nd->in[k].node, axis, depth + 1, axes);
}

/* The axis of split node nd: its constant, or the value a gives its parameter variable; -1 when
 * neither is an axis. */
static int split_axis(const rg_node *nd, const rg_assignment *a) {
  int32_t axis = nd->var_mask & 1 ? (a ? a->pvar_values[nd->params[0]] : -1) : nd->params[0];
  return axis >= 0 && axis < 8 ? axis : -1;
}

static void seamed_vars(const rg_graph *g, const rg_assignment *a, uint8_t *axes) {
  memset(axes, 0, 64);
  for (int32_t id = 0; id < rg_graph_size(g); id++) {
    const rg_node *nd = rg_graph_node(g, id);
    int axis = nd->op == RG_OP_SPLIT ? split_axis(nd, a) : -1;
    if (axis >= 0) seam_reach(g, nd->in[0].node, axis, 0, axes);
  }
}

void rg_split_seamed_vars(const rg_graph *g, uint8_t *axes) { seamed_vars(g, NULL, axes); }

static void narrow_by_structure(problem *p) {
  const rg_graph *g = p->r->g;
  int32_t n = rg_graph_size(g);
  int8_t *rk = calloc((size_t)n + 1, 1);
  if (!rk) return; /* the hints stay as they are: only the search gets slower */
  rg_forced_ranks(g, rk);
  for (int32_t id = 0; id < n; id++) {
    const rg_node *nd = rg_graph_node(g, id);
    if (nd->op != RG_OP_INPUT || !rk[id] || nd->params[0] >= 64) continue;
    uint8_t *mask = &p->rank_mask[nd->params[0]], bit = (uint8_t)(1u << rk[id]);
    if (!*mask || (*mask & bit)) *mask = bit;
  }
  free(rk);
}

static void analyse(problem *p, const rg_rule *r) {
  memset(p, 0, sizeof *p);
  p->r = r;
  p->nt = rg_graph_n_tvars(r->g);
  p->np = rg_graph_n_pvars(r->g);
  for (int i = 1; i <= 5; i++) add_size(p, i);
  for (int32_t id = 0; id < rg_graph_size(r->g); id++) {
    const rg_node *nd = rg_graph_node(r->g, id);
    rg_op op = (rg_op)nd->op;
    const rg_op_info *info = rg_op_get(op);
    for (int k = 0; k < info->n_params; k++) {
      int slot = rg_op_param_slot(op, k);
      if (nd->var_mask >> slot & 1) {
        if (nd->params[slot] < 64 && !p->pspec[nd->params[slot]]) p->pspec[nd->params[slot]] = &info->params[k];
        if (nd->params[slot] < 64 && info->flags & RG_OPF_CONSTANT) p->sizes_constant[nd->params[slot]] = true;
        if (info->params[k].kind == RG_PK_SHAPE) add_shape_var(p, nd, slot);
        if (op == RG_OP_CONV2D && k == info->n_params - 1 && nd->params[slot] < 64) { /* groups */
          mark_channels(r->g, nd->in[0].node, 0, p->group_in, nd->params[slot]);
          mark_channels(r->g, nd->in[1].node, 0, p->group_out, nd->params[slot]);
          p->grouped = true;
        }
      } else if (info->params[k].kind == RG_PK_INT) {
        add_size(p, nd->params[slot]);
      } else if (info->params[k].kind == RG_PK_SHAPE) {
        p->fixed_reshape = true;
        for (int d = 0; d < nd->params[slot]; d++) add_size(p, nd->params[slot + 1 + d]);
      }
    }
    p->splits |= op == RG_OP_SPLIT;
    for (int k = 0; k < nd->n_in; k++) {
      const rg_node *in = rg_graph_node(r->g, nd->in[k].node);
      if (in->op != RG_OP_INPUT || in->params[0] >= 64) continue;
      uint8_t *mask = &p->rank_mask[in->params[0]], hint = ranks_for(nd, k, nd->params);
      if (!*mask) *mask = hint;
      else if (*mask & hint) *mask &= hint; /* conflicting hints: keep the earlier ones */
    }
  }
  narrow_by_structure(p);
}

static int pick_rank(prng *g, uint8_t mask) {
  int cand[8], n = 0;
  for (int k = 0; k <= RG_MAX_RANK && k < 8; k++)
    if (mask >> k & 1) cand[n++] = k;
  return n ? cand[below(g, n)] : below(g, 5);
}

static void sample_params(const problem *p, prng *g, rg_assignment *a) {
  for (int32_t v = 0; v < p->np; v++) {
    const rg_param_spec *ps = v < 64 ? p->pspec[v] : NULL;
    int32_t val = 0;
    if (ps) switch (ps->kind) {
      case RG_PK_INT: {
        /* small values keep the shapes small (and hit bounds such as a slice's end); a rule
         * without tensor variables (an axiom about constants: transpose-identity's (Imatmul ?n))
         * has nothing else to vary, and four values would be all of its assignments, as they
         * would where a constant's sizes fix every shape (matmul-iconv-row: ?y is n x n x 1 x k) */
        int32_t span = !p->nt ? 23 : p->sizes_constant[v] ? 5 : 3;
        int32_t hi = ps->hi < ps->lo + span ? ps->hi : ps->lo + span;
        val = ps->lo + below(g, hi - ps->lo + 1);
        break;
      }
      case RG_PK_AXIS: val = below(g, 4); break;
      case RG_PK_PAD: val = below(g, 2); break;
      case RG_PK_ACT: val = below(g, RG_ACT_COUNT); break;
      case RG_PK_PERM: {
        int perm[RG_MAX_RANK], r = 1 + below(g, 4);
        for (int i = 0; i < r; i++) perm[i] = i;
        for (int i = r - 1; i > 0; i--) {
          int j = below(g, i + 1), t = perm[i];
          perm[i] = perm[j], perm[j] = t;
        }
        val = rg_perm_pack(perm, r);
        break;
      }
      default: break;
      }
    a->pvar_values[v] = val;
  }
  /* A constant's shape variable: a rank and sizes of its own (with tensor variables, typed()
   * then gives it one of theirs where that types: fit_constant_shapes). */
  for (int k = 0; k < p->n_shape_vars; k++) {
    if (p->shape_var[k].operand.node >= 0) continue;
    int32_t dims[RG_MAX_RANK];
    int rank = 1 + below(g, 4);
    for (int d = 0; d < rank; d++) dims[d] = p->sizes[below(g, p->n_sizes)];
    rg_shape s = rg_shape_make(rank, dims);
    set_shape_var(p, k, &s, a);
  }
}

/* Doubles each axis of x in mask and puts a seam in its middle (two equal parts, as two like
 * tensors concatenated make). */
static void cut_in_halves(rg_shape *x, uint8_t mask) {
  for (int d = 0; d < x->rank; d++)
    if (mask >> d & 1 && x->nseam[d] == 0 && x->dim[d] <= RG_MAX_DIM / 2) {
      x->seam[d][0] = x->dim[d];
      x->dim[d] *= 2;
      x->nseam[d] = 1;
    }
}

/* A first well-typed assignment: ranks from the hints, every dimension one common size (so
 * equalities hold), or, failing that, sizes drawn per dimension from the rule's constants; every
 * other attempt cuts the axes a split takes apart (seamed_vars). */
static bool find_base(const problem *p, prng *g, rg_assignment *a) {
  for (int t = 0; t < BASE_ATTEMPTS; t++) {
    /* Parameter values get several shape draws each: drawn anew at every attempt, the values
     * that type at once (groups 1) won every base, and an axiom over ?g was never tested at
     * groups 2 to 4. */
    if (t % PARAM_PATIENCE == 0) sample_params(p, g, a);
    /* The second half also tries one common size with some dimensions 1: a grouped conv ties
     * channel counts by a factor (C = groups * kernel channels) that neither other draw meets
     * often, while 1 and the group count are both among the sizes. With parameter variables
     * (a group count among them), every fourth draw takes each size as a multiple (1 to 4) of
     * one small size, so that a channel count g times another comes up for g = 2 to 4; and
     * where the group count of a conv is one, every fourth takes one common size but for the
     * channels of the variables that reach the conv's input (g times) and kernel outputs. */
    int mode = p->np > 0 && t % 4 == 3    ? 3
               : p->grouped && t % 4 == 1 ? 4
               : t < BASE_ATTEMPTS / 2    ? t % 2
                                          : t % 3;
    int common = p->sizes[below(g, p->n_sizes)];
    int unit = mode == 3 ? 1 + below(g, 2) : 1; /* drawn only here: other rules draw as before */
    for (int32_t v = 0; v < p->nt; v++) {
      int rank = pick_rank(g, v < 64 ? p->rank_mask[v] : 0);
      int32_t dims[RG_MAX_RANK];
      for (int d = 0; d < rank; d++) {
        if (mode == 1) dims[d] = p->sizes[below(g, p->n_sizes)];
        else if (mode == 3)
          dims[d] = unit * (1 + below(g, 4));
        else dims[d] = mode == 2 && below(g, 8) == 0 ? 1 : common;
      }
      /* A grouped conv's input has g times its kernel's channels, and g divides its outputs. */
      if (mode == 4 && v < 64 && p->group_in[v] && rank > 1)
        dims[1] *= a->pvar_values[p->group_in[v] - 1];
      if (mode == 4 && v < 64 && p->group_out[v] && rank > 0)
        dims[0] *= a->pvar_values[p->group_out[v] - 1];
      a->shapes[v] = rg_shape_make(rank, dims);
    }
    if (p->splits && t % 2 == 0) { /* the variables a split takes apart, cut where it does */
      uint8_t axes[64];
      seamed_vars(p->r->g, a, axes);
      for (int32_t v = 0; v < p->nt && v < 64; v++) cut_in_halves(&a->shapes[v], axes[v]);
    }
    if (typed(p, a)) return true;
  }
  return false;
}

/* ---- classes of dimension slots that must stay equal ---- */

/* A slot is one dimension of a tensor variable or, on an axis with seams, one of the parts its
 * seams cut it into (the dimension is their sum): moving a part moves the seams after it, so
 * every assignment keeps its seams inside their dimensions, in the same order. */
typedef struct {
  int32_t var[MAX_SLOTS];
  int8_t dim[MAX_SLOTS];
  int8_t part[MAX_SLOTS]; /* -1: the whole dimension (no seams); else the part's index */
  int cls[MAX_SLOTS]; /* class id per slot */
  int n, n_cls;
} slots;

/* The cut positions of axis d of x in increasing order, 0 and the dimension included: cut[0..n+2);
 * rank_of[k]: where seam k (in x's order) stands among them. */
static int axis_cuts(const rg_shape *x, int d, int32_t *cut, int *rank_of) {
  int n = x->nseam[d];
  cut[0] = 0;
  for (int k = 0; k < n; k++) {
    int r = 1;
    for (int j = 0; j < n; j++) r += x->seam[d][j] < x->seam[d][k];
    cut[r] = x->seam[d][k];
    if (rank_of) rank_of[k] = r;
  }
  cut[n + 1] = x->dim[d];
  return n + 2;
}

static int32_t slot_value(const slots *s, const rg_assignment *a, int i) {
  const rg_shape *x = &a->shapes[s->var[i]];
  if (s->part[i] < 0) return x->dim[s->dim[i]];
  int32_t cut[RG_MAX_SEAMS + 2];
  axis_cuts(x, s->dim[i], cut, NULL);
  return cut[s->part[i] + 1] - cut[s->part[i]];
}

static void set_slot(const slots *s, rg_assignment *a, int i, int32_t v) {
  rg_shape *x = &a->shapes[s->var[i]];
  int d = s->dim[i];
  if (s->part[i] < 0) {
    x->dim[d] = v;
    return;
  }
  int32_t cut[RG_MAX_SEAMS + 2];
  int rank_of[RG_MAX_SEAMS], n = axis_cuts(x, d, cut, rank_of);
  int32_t delta = v - (cut[s->part[i] + 1] - cut[s->part[i]]);
  for (int j = s->part[i] + 1; j < n; j++) cut[j] += delta;
  for (int k = 0; k < x->nseam[d]; k++) x->seam[d][k] = cut[rank_of[k]];
  x->dim[d] = cut[n - 1];
}

static void slots_from(slots *s, const rg_assignment *a) {
  s->n = 0;
  for (int32_t v = 0; v < a->n_tvars; v++)
    for (int d = 0; d < a->shapes[v].rank; d++) {
      int parts = a->shapes[v].nseam[d] + 1;
      for (int k = 0; k < parts && s->n < MAX_SLOTS; k++) {
        s->var[s->n] = v;
        s->dim[s->n] = (int8_t)d;
        s->part[s->n] = (int8_t)(parts > 1 ? k : -1);
        s->n++;
      }
    }
  /* Initial classes: slots of equal base value. */
  s->n_cls = 0;
  for (int i = 0; i < s->n; i++) {
    int32_t val = slot_value(s, a, i);
    s->cls[i] = -1;
    for (int j = 0; j < i; j++)
      if (slot_value(s, a, j) == val) {
        s->cls[i] = s->cls[j];
        break;
      }
    if (s->cls[i] < 0) s->cls[i] = s->n_cls++;
  }
}

/* Tries moving the chosen members of a class (indices into members) to another size, keeping
 * the split when the rule still type-checks. Several sizes are tried: a larger one can break a
 * window that must fit, a smaller one a kernel that must be covered, and divisibility (grouped
 * convolutions) accepts only multiples. */
static bool try_split(const problem *p, slots *s, rg_assignment *a, const int *members,
                      const int *chosen, int n_chosen) {
  int32_t old = slot_value(s, a, members[chosen[0]]);
  const int32_t fresh[6] = {old + 7, old > 1 ? old - 1 : old + 1, old + 1, 2 * old, old + 2,
                            old > 1 ? old / 2 : old + 3};
  for (int f = 0; f < 6; f++) {
    if (fresh[f] == old) continue;
    for (int j = 0; j < n_chosen; j++) set_slot(s, a, members[chosen[j]], fresh[f]);
    bool ok = typed(p, a);
    for (int j = 0; j < n_chosen; j++) set_slot(s, a, members[chosen[j]], old);
    if (ok) {
      int nc = s->n_cls++;
      for (int j = 0; j < n_chosen; j++) s->cls[members[chosen[j]]] = nc;
      return true;
    }
  }
  return false;
}

/* The subsets of slots try_split found no size for. A split only regroups slots: the
 * assignment is the same throughout refine, so a subset that failed fails again, and refine
 * tries each class's subsets again from the first after every split. Skipping those checks
 * (still counted against the budget) leaves refine's result as it was. Not where shape
 * variables are fitted: fit_shape_vars keeps a value from the last check that typed its
 * operand, so a check skipped could leave another value for a later one. keys NULL: no memo. */
#define FAILED_CAP 8192 /* a power of two above twice SPLIT_TESTS: probes stay short */
#define FAILED_FIRST 64 /* most refines note few failures: 512 bytes to clear, not 64 KiB */
typedef struct {
  uint64_t *keys; /* 0: empty */
  size_t cap, n;  /* cap a power of two; at most half full once it is FAILED_CAP */
} failed_subsets;

static uint64_t subset_key(const int *members, const int *chosen, int n_chosen) {
  uint64_t k = UINT64_C(1) << 63 | (uint64_t)n_chosen; /* slots < 2^11 (MAX_SLOTS) */
  for (int j = 0; j < n_chosen; j++)
    k |= (uint64_t)members[chosen[j]] << (2 + 11 * j);
  return k;
}

/* The slot of f that holds key, or the empty one where it would go. */
static uint64_t *failed_slot(const failed_subsets *f, uint64_t key) {
  size_t i = rg_mix64(key) & (f->cap - 1);
  while (f->keys[i] && f->keys[i] != key)
    i = (i + 1) & (f->cap - 1);
  return &f->keys[i];
}

/* Notes key as failed, the table doubled first where it would be more than half full; out of
 * memory it is left as it is (a memo: refine's result is the same without it). */
static void note_failed(failed_subsets *f, uint64_t key) {
  if (2 * (f->n + 1) > f->cap && f->cap < FAILED_CAP) {
    failed_subsets g = {calloc(2 * f->cap, sizeof *g.keys), 2 * f->cap, f->n};
    if (g.keys) {
      for (size_t i = 0; i < f->cap; i++)
        if (f->keys[i]) *failed_slot(&g, f->keys[i]) = f->keys[i];
      free(f->keys);
      *f = g;
    }
  }
  if (2 * (f->n + 1) > f->cap) return;
  *failed_slot(f, key) = key;
  f->n++;
}

/* try_split, unless f knows the subset fails; a failure is noted there. */
static bool try_split_once(const problem *p, slots *s, rg_assignment *a, const int *members,
                           const int *chosen, int n_chosen, failed_subsets *f) {
  uint64_t key = subset_key(members, chosen, n_chosen);
  if (f->keys && *failed_slot(f, key)) return false;
  bool ok = try_split(p, s, a, members, chosen, n_chosen);
  if (!ok && f->keys) note_failed(f, key);
  return ok;
}

/* Splits one class once, trying subsets of one, two, then three members; returns whether it
 * split. *tests counts type checks against the budget. */
static bool split_once(const problem *p, slots *s, rg_assignment *a, int c, int *tests,
                       failed_subsets *f) {
  int members[MAX_SLOTS], n = 0;
  for (int i = 0; i < s->n; i++)
    if (s->cls[i] == c) members[n++] = i;
  int ch[3];
  for (ch[0] = 0; ch[0] < n; ch[0]++) {
    if (n > 1 && ++*tests <= SPLIT_TESTS && try_split_once(p, s, a, members, ch, 1, f)) return true;
    for (ch[1] = ch[0] + 1; n > 2 && ch[1] < n; ch[1]++) {
      if (++*tests <= SPLIT_TESTS && try_split_once(p, s, a, members, ch, 2, f)) return true;
      for (ch[2] = ch[1] + 1; n > 3 && ch[2] < n; ch[2]++)
        if (++*tests <= SPLIT_TESTS && try_split_once(p, s, a, members, ch, 3, f)) return true;
    }
  }
  return false;
}

/* Splits classes as far as type-checking allows (within the budget). */
static void refine(const problem *p, slots *s, rg_assignment *a) {
  int tests = 0;
  /* without memory for the memo, every subset is checked each time: the same result */
  failed_subsets f = {p->n_shape_vars == 0 ? calloc(FAILED_FIRST, sizeof *f.keys) : NULL,
                      FAILED_FIRST, 0};
  for (int c = 0; c < s->n_cls && tests < SPLIT_TESTS; c++)
    while (tests < SPLIT_TESTS && split_once(p, s, a, c, &tests, &f)) {
    }
  free(f.keys);
}

/* A random walk from a well-typed assignment: each class in random order moves to a fresh size,
 * preferably one no other class has (so no two classes coincide), and keeps the move only if
 * the rule still type-checks. Every step is well-typed, so the result is too, however coupled
 * the constraints (grouped convolutions tie channel counts by divisibility). small: 0 no, 1
 * every class tries 1, then 2 first, 2 each class does with probability 1/2 (where every size
 * is 1 different operators agree, a 1x1 matmul is an ewmul: a counterexample often needs one
 * operand small and the others not). */
static void walk_sizes(const problem *p, const slots *s, prng *g, int small, rg_assignment *a) {
  int order[MAX_SLOTS];
  for (int c = 0; c < s->n_cls; c++) order[c] = c;
  for (int c = s->n_cls - 1; c > 0; c--) {
    int j = below(g, c + 1), t = order[c];
    order[c] = order[j], order[j] = t;
  }
  for (int k = 0; k < s->n_cls; k++) {
    int c = order[k], first = -1;
    uint32_t used = 0;
    for (int i = 0; i < s->n; i++) {
      int32_t v = slot_value(s, a, i);
      if (s->cls[i] == c && first < 0) first = i;
      else if (s->cls[i] != c && v <= RG_SOLVE_MAX_DIM) used |= 1u << v;
    }
    if (first < 0) continue;
    int32_t old = slot_value(s, a, first);
    bool shrink = small == 1 || (small == 2 && below(g, 2));
    for (int tries = shrink ? -2 : 0; tries < 6; tries++) {
      int32_t v = 1 + below(g, RG_SOLVE_MAX_DIM);
      for (int d = 0; d < RG_SOLVE_MAX_DIM && (used >> v & 1) && tries >= 0 && tries < 3; d++)
        v = v % RG_SOLVE_MAX_DIM + 1;
      if (tries < 0) v = 3 + tries; /* small: 1, then 2 */
      for (int i = 0; i < s->n; i++)
        if (s->cls[i] == c) set_slot(s, a, i, v);
      if (typed(p, a)) break;
      for (int i = 0; i < s->n; i++)
        if (s->cls[i] == c) set_slot(s, a, i, old);
    }
  }
}

/* Under a reshape to a constant shape, moving one class alone changes the element count and
 * never types; a rule true only at the base's factorization (weights 4x4x1x3 whose 1x3 kernel
 * could as well be 3x1) needs two classes moved at once. Each pair of classes, once, from a
 * random one on, may trade a prime factor either way (kept if the rule still types). */
static bool trade_one(const problem *p, const slots *s, rg_assignment *a, int from, int to) {
  int32_t vf = slot_value(s, a, from), vt = slot_value(s, a, to), f = 2;
  if (vf < 2) return false;
  while (vf % f)
    f++;
  for (int k = 0; k < s->n; k++)
    if (s->cls[k] == s->cls[from] || s->cls[k] == s->cls[to])
      set_slot(s, a, k, s->cls[k] == s->cls[to] ? vt * f : vf / f);
  if (typed(p, a)) return true;
  for (int k = 0; k < s->n; k++)
    if (s->cls[k] == s->cls[from] || s->cls[k] == s->cls[to])
      set_slot(s, a, k, s->cls[k] == s->cls[to] ? vt : vf);
  return false;
}

static void trade_factors(const problem *p, const slots *s, prng *g, rg_assignment *a) {
  int first[MAX_SLOTS], n = 0;
  for (int i = 0; i < s->n && n < s->n_cls; i++) {
    bool seen = false;
    for (int j = 0; j < n && !seen; j++)
      seen = s->cls[first[j]] == s->cls[i];
    if (!seen) first[n++] = i;
  }
  int start = n > 1 ? below(g, n * n) : 0;
  for (int t = 0; n > 1 && t < n * n; t++) { /* the pairs i < j, from a random one on */
    int i = (start + t) % (n * n) / n, j = (start + t) % n;
    if (i < j && !trade_one(p, s, a, first[j], first[i])) trade_one(p, s, a, first[i], first[j]);
  }
}

/* Coincidences the classes keep: a walk moves each class as a whole, so slots that refine()
 * grouped never part, and where two must move together to keep a sum (x1 + z1 = y1 + u1, two
 * channel concats meeting in a conv) only the pairing refine() found first is ever drawn: the
 * aligned split x1 = y1, never the misaligned x1 = u1 under which a reordering of the concats
 * is false. Skewing tries moves of two slots at once, each by +-1 or +-2 (a sum kept either way
 * round, or both grown), or one or two doubled (a grouped conv's kernel count past the walk's
 * sizes: 8 kernels in 4 groups), and keeps each that still types. */
#define SKEW_TRIES 24
#define SKEW_MAX_DIM 8     /* sizes a move by +-d may reach (a conv's cost grows fast) */
#define SKEW_MAX_DOUBLED 12

static void skew(const problem *p, const slots *s, prng *g, rg_assignment *a) {
  for (int t = 0; s->n >= 2 && t < SKEW_TRIES; t++) {
    int i = below(g, s->n), j = below(g, s->n - 1);
    j += j >= i;
    int32_t vi = slot_value(s, a, i), vj = slot_value(s, a, j), ni, nj, cap;
    if (below(g, 4) == 0) { /* doubling */
      ni = 2 * vi;
      nj = below(g, 2) ? 2 * vj : vj;
      cap = SKEW_MAX_DOUBLED;
    } else {
      int32_t d = 1 + below(g, 2);
      ni = vi + (below(g, 2) ? d : -d);
      nj = vj + (below(g, 2) ? d : -d);
      cap = SKEW_MAX_DIM;
    }
    if (ni < 1 || nj < 1 || ni > cap || nj > cap) continue;
    set_slot(s, a, i, ni);
    set_slot(s, a, j, nj);
    if (typed(p, a)) continue;
    set_slot(s, a, i, vi);
    set_slot(s, a, j, vj);
  }
}

/* The caller's shapes and parameter values where it gives them; whether they type. */
static bool take_base(problem *p, const rg_binding *base, rg_assignment *a) {
  for (int32_t v = 0; v < p->nt; v++)
    if (base->tvar_shapes && base->tvar_shapes[v]) a->shapes[v] = *base->tvar_shapes[v];
  for (int32_t v = 0; v < p->np; v++)
    if (base->pvar_bound && base->pvar_bound[v]) a->pvar_values[v] = base->pvar_values[v];
  return typed(p, a);
}

/* Starts again from new parameter values, where a base under them is found. */
static rg_status redraw_params(problem *p, prng *g, slots *s, rg_assignment *a, rg_err *err) {
  rg_assignment fresh;
  if (!assignment_init(&fresh, p->nt, p->np)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!find_base(p, g, &fresh)) {
    assignment_free(&fresh);
    return RG_OK;
  }
  assignment_free(a);
  *a = fresh;
  assignment_rebind(a);
  slots_from(s, a);
  refine(p, s, a);
  fit_shape_vars(p, a);
  return RG_OK;
}

/* Draw t: moves the sizes of a copy of a and keeps it when it is new; *stale counts the draws
 * since the last new one. */
static rg_status draw(problem *p, slots *s, prng *g, bool small, int t, const rg_assignment *a,
                      rg_assignment_list *out, int *stale, rg_err *err) {
  rg_assignment trial;
  if (!assignment_copy(&trial, a)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  walk_sizes(p, s, g, small && t % 2 == 0 ? (t == 0 ? 1 : 2) : 0, &trial);
  if (p->fixed_reshape && !(small && t % 2 == 0)) trade_factors(p, s, g, &trial);
  if (t % 2 == 1) skew(p, s, g, &trial);
  fit_shape_vars(p, &trial); /* to the sizes kept, not to the last move tried */
  bool ok = true;
  for (int i = 0; ok && i < out->n; i++) ok = !assignment_same(&trial, &out->items[i]);
  rg_status st = ok ? list_push(out, &trial, err) : RG_OK;
  *stale = ok ? 0 : *stale + 1;
  assignment_free(&trial);
  return st;
}

static rg_status solve(const rg_rule *r, const rg_binding *base, uint64_t seed, int max, bool small,
                       rg_assignment_list *out, rg_err *err) {
  out->items = NULL;
  out->n = 0;
  problem p;
  analyse(&p, r);
  if (p.nt > 64 || p.np > 64) return rg_err_set(err, RG_ERR_LIMIT, "more than 64 variables");
  prng g = {seed ^ UINT64_C(0x5eed)};
  rg_assignment a;
  if (!assignment_init(&a, p.nt, p.np)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = RG_OK;
  bool have_base = base && take_base(&p, base, &a);
  if (have_base && max > 0) st = list_push(out, &a, err);
  if (!have_base && !find_base(&p, &g, &a)) {
    assignment_free(&a);
    return rg_err_set(err, RG_ERR_SHAPE,
                      "found no shapes under which both sides type-check (tried %d assignments)",
                      BASE_ATTEMPTS);
  }
  slots s;
  slots_from(&s, &a);
  refine(&p, &s, &a);
  fit_shape_vars(&p, &a);
  for (int t = 0, stale = 0;
       st == RG_OK && out->n < max && t < SAMPLE_ATTEMPTS && stale < SAMPLE_PATIENCE; t++) {
    /* With parameter variables, every other draw starts again from new parameter values. */
    if (p.np > 0 && t % 2 == 1) st = redraw_params(&p, &g, &s, &a, err);
    if (st == RG_OK) st = draw(&p, &s, &g, small, t, &a, out, &stale, err);
  }
  if (st == RG_OK && out->n == 0 && max > 0) st = list_push(out, &a, err);
  assignment_free(&a);
  return st;
}

rg_status rg_shapes_solve(const rg_rule *r, const rg_binding *base, uint64_t seed, int max,
                          rg_assignment_list *out, rg_err *err) {
  return solve(r, base, seed, max, false, out, err);
}

rg_status rg_shapes_solve_small(const rg_rule *r, const rg_binding *base, uint64_t seed, int max,
                                rg_assignment_list *out, rg_err *err) {
  return solve(r, base, seed, max, true, out, err);
}
