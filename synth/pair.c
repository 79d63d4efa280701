/* synth/pair.c: pairing two bucket members into a candidate rule (synth/pair.h). */
#include "pair.h"

#include <stdlib.h>
#include <string.h>

/* One attempt at pairing: both sides built into r's graph, outputs sa[i] paired with sb[map[i]]. */
typedef struct {
  rg_rule *r;
  rg_ref sa[RG_RULE_MAX_OUTPUTS], sb[RG_RULE_MAX_OUTPUTS];
  int na, nb;
  int map[RG_RULE_MAX_OUTPUTS];
  int kind;
  rg_shape ta[RG_RULE_MAX_OUTPUTS], tb[RG_RULE_MAX_OUTPUTS];
  int nta, ntb;
  bool by_type;
} pairing;

/* Whether the roots of single-output sides sa, sb are the same operator (params, output)
 * applied to operands that differ in one position only, where the two operands have equal
 * values (type and Z_p values on the fingerprint inputs): then a => b, a smaller candidate of
 * its own, gives this pair by congruence. */
static rg_status congruent(const rg_enum_space *sp, const rg_graph *g, rg_ref sa, rg_ref sb,
                           rg_value *const *inputs, uint64_t seed, bool *yes, rg_err *err) {
  *yes = false;
  const rg_node *x = rg_graph_node(g, sa.node), *y = rg_graph_node(g, sb.node);
  if (x->op != y->op || x->op == RG_OP_INPUT || sa.out != sb.out || x->n_in != y->n_in ||
      memcmp(x->params, y->params, sizeof x->params))
    return RG_OK;
  int diff = -1;
  for (int k = 0; k < x->n_in; k++)
    if (x->in[k].node != y->in[k].node || x->in[k].out != y->in[k].out) {
      if (diff >= 0) return RG_OK;
      diff = k;
    }
  if (diff < 0) return RG_OK;
  int32_t nt = rg_graph_n_tvars(g);
  const rg_shape *shapes[RG_ENUM_MAX_INPUTS];
  const rg_value *vals[RG_ENUM_MAX_INPUTS];
  for (int32_t q = 0; q < nt; q++) {
    int i = rg_enum_input_index(sp, rg_graph_tvar_name(g, q));
    shapes[q] = &sp->inputs.in[i].shape;
    vals[q] = inputs[i];
  }
  rg_ref refs[2] = {x->in[diff], y->in[diff]};
  rg_plan *plan = NULL;
  rg_value *res[2] = {NULL, NULL};
  rg_eval_ctx ctx;
  rg_fp_eval_ctx(seed, &ctx);
  rg_status st = rg_plan_new(g, refs, 2, shapes, NULL, NULL, &plan, err);
  if (!st) st = rg_eval_full(plan, RG_DOM_ZP, &ctx, vals, refs, 2, res, err);
  if (!st)
    *yes = rg_fp_tensor_hash(rg_plan_shape(plan, refs[0]), res[0]) ==
           rg_fp_tensor_hash(rg_plan_shape(plan, refs[1]), res[1]);
  free(res[0]), free(res[1]);
  rg_plan_free(plan);
  return st;
}

/* Tensor variables reachable from refs, as a bit set (variable index mod 64). */
static uint64_t vars_of(const rg_graph *g, const rg_ref *refs, int n, uint8_t *mark) {
  int32_t size = rg_graph_size(g);
  memset(mark, 0, (size_t)size);
  rg_graph_mark_reachable(g, refs, n, mark);
  uint64_t v = 0;
  for (int32_t id = 0; id < size; id++) {
    const rg_node *nd = rg_graph_node(g, id);
    if (mark[id] && nd->op == RG_OP_INPUT) v |= UINT64_C(1) << (nd->params[0] & 63);
  }
  return v;
}

static rg_status hashes_of(rg_pair_members *pm, size_t i, const uint64_t **h, int *n, rg_err *err) {
  if (!pm->n[i]) {
    int k;
    uint64_t fp;
    rg_status st = rg_fp_graph_hashes(pm->sp, &pm->m[i].code, pm->seed, pm->inputs, pm->h[i], &k, &fp, err);
    if (st) return st;
    pm->n[i] = (int8_t)k;
  }
  *h = pm->h[i];
  *n = pm->n[i];
  return RG_OK;
}

/* Outputs of distinct types pair by type (equal fingerprints: equal multisets of typed values);
 * only outputs sharing a type need their values' hashes, a whole evaluation. */
static void pair_by_type(const rg_enum_space *sp, const rg_enum_code *a, const rg_enum_code *b,
                         pairing *p) {
  p->by_type = !rg_enum_code_out_types(sp, a, p->ta, &p->nta) &&
               !rg_enum_code_out_types(sp, b, p->tb, &p->ntb) && p->nta == p->na && p->ntb == p->nb;
  for (int i = 0; p->by_type && i < p->na; i++)
    for (int j = 0; j < i; j++) p->by_type &= !rg_shape_type_eq(&p->ta[i], &p->ta[j]);
  bool taken[RG_RULE_MAX_OUTPUTS] = {0};
  for (int i = 0; p->by_type && p->kind == RG_PAIR_RULE && i < p->na; i++) {
    p->map[i] = -1;
    for (int j = 0; j < p->nb && p->map[i] < 0; j++)
      if (!taken[j] && rg_shape_type_eq(&p->ta[i], &p->tb[j])) p->map[i] = j, taken[j] = true;
    if (p->map[i] < 0) p->kind = RG_PAIR_MISMATCH;
  }
}

/* Two outputs, one the same node on both sides: equal fingerprints and the common output leave
 * the other two with equal sample hashes, which for a tensor of at most RG_FP_SAMPLES elements
 * cover every value: the pair is the rule between those two, a smaller candidate, and neither
 * graph needs evaluating. (A larger tensor may differ away from the samples, so its values
 * decide in pair_by_hash.) */
static void pair_small_common(pairing *p) {
  if (p->na != 2 || p->nb != 2 || p->nta != 2 || p->by_type) return;
  for (int i = 0; p->kind == RG_PAIR_RULE && i < 2; i++)
    for (int j = 0; j < 2 && p->kind == RG_PAIR_RULE; j++)
      if (p->sa[i].node == p->sb[j].node && p->sa[i].out == p->sb[j].out &&
          rg_shape_numel(&p->ta[1 - i]) <= RG_FP_SAMPLES)
        p->map[i] = j, p->map[1 - i] = 1 - j, p->kind = RG_PAIR_COMMON;
}

/* Outputs paired by their values' hashes on the fingerprint inputs. */
static rg_status pair_by_hash(rg_pair_members *pm, size_t ia, size_t ib, pairing *p, rg_err *err) {
  const uint64_t *ha, *hb;
  rg_status st = hashes_of(pm, ia, &ha, &p->na, err);
  if (!st) st = hashes_of(pm, ib, &hb, &p->nb, err);
  if (st) return st;
  bool taken[RG_RULE_MAX_OUTPUTS] = {0};
  for (int i = 0; p->kind == RG_PAIR_RULE && i < p->na; i++) {
    p->map[i] = -1;
    for (int j = 0; j < p->nb && p->map[i] < 0; j++)
      if (!taken[j] && ha[i] == hb[j]) p->map[i] = j, taken[j] = true;
    if (p->map[i] < 0) p->kind = RG_PAIR_MISMATCH;
  }
  return RG_OK;
}

/* Which side's variables cover the other's (UNBOUND when neither), and whether a multi-output
 * pair says nothing its output pairs do not (SPLITS): every way the whole pair can be applied,
 * some output pair can be applied alone, so the others only borrow its variables. A merge of
 * two products of x keeps its candidate: read from the products' side, neither output pair can
 * be applied alone (each would have to invent the other weight), so graphopt could only undo
 * the merge with them, never make it. */
static void check_variables(pairing *p, uint8_t *mark, bool *a_covers_b) {
  uint64_t va = vars_of(p->r->g, p->sa, p->na, mark), vb = vars_of(p->r->g, p->sb, p->nb, mark);
  *a_covers_b = (vb & ~va) == 0;
  bool b_covers_a = (va & ~vb) == 0;
  if (!*a_covers_b && !b_covers_a) {
    p->kind = RG_PAIR_UNBOUND;
    return;
  }
  if (p->na <= 1) return;
  bool some_ab = false, some_ba = false; /* an output pair usable alone a to b, b to a */
  for (int i = 0; i < p->na; i++) {
    va = vars_of(p->r->g, &p->sa[i], 1, mark), vb = vars_of(p->r->g, &p->sb[p->map[i]], 1, mark);
    some_ab = some_ab || (vb & ~va) == 0, some_ba = some_ba || (va & ~vb) == 0;
  }
  if ((!*a_covers_b || some_ab) && (!b_covers_a || some_ba)) p->kind = RG_PAIR_SPLITS;
}

/* Pairs the outputs of the two built sides and classifies the pair; *a_covers_b says which way
 * round the rule goes. */
static rg_status classify(rg_pair_members *pm, size_t ia, size_t ib, pairing *p, bool *a_covers_b,
                          rg_err *err) {
  const rg_enum_space *sp = pm->sp;
  if (p->na != p->nb) p->kind = RG_PAIR_MISMATCH;
  if (p->kind == RG_PAIR_RULE && p->na > 1) pair_by_type(sp, &pm->m[ia].code, &pm->m[ib].code, p);
  if (p->kind == RG_PAIR_RULE) pair_small_common(p);
  rg_status st = RG_OK;
  if (p->kind == RG_PAIR_RULE && p->na > 1 && !p->by_type && (st = pair_by_hash(pm, ia, ib, p, err)))
    return st;
  for (int i = 0; p->kind == RG_PAIR_RULE && i < p->na; i++)
    if (p->sa[i].node == p->sb[p->map[i]].node && p->sa[i].out == p->sb[p->map[i]].out)
      p->kind = RG_PAIR_COMMON;
  if (p->kind == RG_PAIR_RULE && p->na == 1) {
    bool yes;
    if ((st = congruent(sp, p->r->g, p->sa[0], p->sb[0], pm->inputs, pm->seed, &yes, err))) return st;
    if (yes) p->kind = RG_PAIR_CONGRUENT;
  }
  *a_covers_b = true;
  if (p->kind != RG_PAIR_RULE) return RG_OK;
  uint8_t *mark = malloc((size_t)rg_graph_size(p->r->g));
  if (!mark) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  check_variables(p, mark, a_covers_b);
  free(mark);
  return RG_OK;
}

int rg_pair_build(rg_pair_members *pm, size_t ia, size_t ib, rg_rule **out, rg_err *err) {
  pairing p = {.map = {0, 1, 2, 3}, .kind = RG_PAIR_RULE};
  if (!(p.r = rg_rule_new())) return rg_err_set(err, RG_ERR_NOMEM, "out of memory"), -1;
  bool a_covers_b;
  if (rg_enum_build(pm->sp, &pm->m[ia].code, p.r->g, p.sa, &p.na, err) ||
      rg_enum_build(pm->sp, &pm->m[ib].code, p.r->g, p.sb, &p.nb, err) ||
      classify(pm, ia, ib, &p, &a_covers_b, err)) {
    rg_rule_free(p.r);
    return -1;
  }
  if (p.kind != RG_PAIR_RULE) {
    rg_rule_free(p.r);
    return p.kind;
  }
  p.r->n_src = p.r->n_tgt = p.na;
  for (int i = 0; i < p.na; i++) {
    p.r->src[i] = a_covers_b ? p.sa[i] : p.sb[p.map[i]];
    p.r->tgt[i] = a_covers_b ? p.sb[p.map[i]] : p.sa[i];
  }
  *out = p.r;
  return RG_PAIR_RULE;
}
