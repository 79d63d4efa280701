/* verify/smt.c: the SMT-LIB2 encoder (format described in smt.h). */
#include "smt.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/sha256.h"
#include "ir/shapesolve.h"
#include "smt_facts.h"

static bool shape_erased(rg_op op) { return (rg_op_get(op)->flags & RG_OPF_CONSTANT) != 0; }

static void fn_name(rg_op op, int n_in, int out, char *buf, size_t n) {
  const rg_op_info *oi = rg_op_get(op);
  if (oi->n_outputs > 1)
    snprintf(buf, n, "%s.%d", oi->name, out);
  else if (oi->n_inputs == RG_VARIADIC && n_in != 2)
    snprintf(buf, n, "%s%d", oi->name, n_in);
  else
    snprintf(buf, n, "%s", oi->name);
}

/* Int arguments op takes in SMT: one per parameter, a reshape shape as its slots. */
static int int_args(rg_op op) {
  const rg_op_info *oi = rg_op_get(op);
  int k = 0;
  for (int p = 0; p < oi->n_params; p++) {
    if (oi->params[p].kind == RG_PK_SHAPE)
      k += shape_erased(op) ? 0 : RG_SHAPE_SLOTS;
    else
      k += 1;
  }
  return k;
}

static void mark_fns(const rg_graph *g, fn_set *fs) {
  int32_t n = rg_graph_size(g);
  for (int32_t i = 0; i < n; i++) {
    const rg_node *nd = rg_graph_node(g, i);
    if (nd->op == RG_OP_INPUT) continue;
    for (int o = 0; o < rg_op_get(nd->op)->n_outputs; o++) fs->used[nd->op][nd->n_in][o] = true;
  }
}

/* Domain of a parameter as an inclusive Int range; false when it has none worth stating. */
static bool param_domain(const rg_param_spec *ps, int32_t *lo, int32_t *hi) {
  switch (ps->kind) {
  case RG_PK_INT: *lo = ps->lo; *hi = ps->hi; return true;
  case RG_PK_AXIS: *lo = 0; *hi = RG_MAX_RANK - 1; return true;
  case RG_PK_PAD: *lo = 0; *hi = 1; return true;
  case RG_PK_ACT: *lo = 0; *hi = RG_ACT_COUNT - 1; return true;
  default: return false;
  }
}

/* Intersected domains of a graph's parameter variables. */
typedef struct {
  int32_t n;
  int32_t *lo, *hi;
  bool *has;
} pvar_domains;

static rg_status domains_of(const rg_graph *g, pvar_domains *d, rg_err *err) {
  d->n = rg_graph_n_pvars(g);
  d->lo = calloc((size_t)d->n + 1, sizeof *d->lo);
  d->hi = calloc((size_t)d->n + 1, sizeof *d->hi);
  d->has = calloc((size_t)d->n + 1, sizeof *d->has);
  if (!d->lo || !d->hi || !d->has) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int32_t n = rg_graph_size(g);
  for (int32_t i = 0; i < n; i++) {
    const rg_node *nd = rg_graph_node(g, i);
    const rg_op_info *oi = rg_op_get(nd->op);
    for (int p = 0; p < oi->n_params; p++) {
      int slot = rg_op_param_slot(nd->op, p);
      int32_t lo, hi;
      if (!(nd->var_mask >> slot & 1) || !param_domain(&oi->params[p], &lo, &hi)) continue;
      int32_t v = nd->params[slot];
      if (!d->has[v] || lo > d->lo[v]) d->lo[v] = lo;
      if (!d->has[v] || hi < d->hi[v]) d->hi[v] = hi;
      d->has[v] = true;
    }
  }
  return RG_OK;
}

static void domains_free(pvar_domains *d) {
  free(d->lo);
  free(d->hi);
  free(d->has);
}

static void put_int(rg_strbuf *sb, int64_t v) {
  if (v < 0)
    rg_sb_printf(sb, " (- %lld)", (long long)-v);
  else
    rg_sb_printf(sb, " %lld", (long long)v);
}

/* Prints a parameter slot of node nd: its value, its variable (<vp>p.NAME), or the expression a
 * guard defines that variable by (NULL gd: no definitions). A shape variable is one per slot. */
static void put_slot(rg_strbuf *sb, const rg_graph *g, const rg_node *nd, int slot,
                     const rg_guard *gd, const char *vp) {
  if (!(nd->var_mask >> slot & 1)) {
    put_int(sb, nd->params[slot]);
    return;
  }
  int32_t v = nd->params[slot];
  rg_sb_puts(sb, " ");
  if (gd && rg_guard_def(gd, v) >= 0) {
    rg_guard_put_expr(sb, gd, g, gd->node[gd->atom[rg_guard_def(gd, v)]].b, vp);
    return;
  }
  rg_sb_printf(sb, "%sp.%s", vp, rg_graph_pvar_name(g, v));
}

static void put_param(rg_strbuf *sb, const rg_graph *g, const rg_node *nd, int p,
                      const rg_guard *gd, const char *vp) {
  put_slot(sb, g, nd, rg_op_param_slot(nd->op, p), gd, vp);
}

/* Prints a term; variables are prefixed with vp ("" for constants of the rule, "?" for bound
 * variables of an axiom); gd (or NULL) is the axiom's guard. */
static void put_term(rg_strbuf *sb, const rg_graph *g, rg_ref r, const rg_guard *gd, const char *vp) {
  const rg_node *nd = rg_graph_node(g, r.node);
  if (nd->op == RG_OP_INPUT) {
    rg_sb_printf(sb, "%st.%s", vp, rg_graph_tvar_name(g, nd->params[0]));
    return;
  }
  const rg_op_info *oi = rg_op_get(nd->op);
  char name[64];
  fn_name((rg_op)nd->op, nd->n_in, r.out, name, sizeof name);
  bool args = int_args((rg_op)nd->op) > 0 || nd->n_in > 0;
  if (args) rg_sb_puts(sb, "(");
  rg_sb_puts(sb, name);
  for (int p = 0; p < oi->n_params; p++) {
    int slot = rg_op_param_slot(nd->op, p);
    if (oi->params[p].kind == RG_PK_SHAPE) {
      if (shape_erased((rg_op)nd->op)) continue;
      for (int s = 0; s < RG_SHAPE_SLOTS; s++)
        put_slot(sb, g, nd, slot + s, gd, vp);
    } else {
      put_param(sb, g, nd, p, gd, vp);
    }
  }
  for (int i = 0; i < nd->n_in; i++) {
    rg_sb_puts(sb, " ");
    put_term(sb, g, nd->in[i], gd, vp);
  }
  if (args) rg_sb_puts(sb, ")");
}

/* The axiom's antecedent: the domains of its quantified parameters and its guard's conditions
 * (a defined parameter is not quantified: the target uses its definition). */
static int put_antecedent(rg_strbuf *sb, const rg_graph *g, const pvar_domains *d, const rg_guard *gd,
                          const char *vp, bool print) {
  int n = 0;
  for (int32_t v = 0; v < d->n; v++) n += d->has[v] && !(gd && rg_guard_def(gd, v) >= 0);
  int conds = gd ? rg_guard_n_conditions(gd) : 0;
  if (!print) return n + conds;
  if (n + conds > 1) rg_sb_puts(sb, "(and");
  bool sep = n + conds > 1;
  for (int32_t v = 0; v < d->n; v++) {
    if (!d->has[v] || (gd && rg_guard_def(gd, v) >= 0)) continue;
    rg_sb_printf(sb, "%s(<= %d %sp.%s %d)", sep ? " " : "", d->lo[v], vp, rg_graph_pvar_name(g, v), d->hi[v]);
  }
  for (int i = 0; gd && i < gd->n_atoms; i++) {
    if (gd->def_of[i] >= 0) continue;
    if (sep) rg_sb_puts(sb, " ");
    rg_guard_put_expr(sb, gd, g, gd->atom[i], vp);
  }
  if (n + conds > 1) rg_sb_puts(sb, ")");
  return n + conds;
}

/* Whether body names ?K.NAME (K: t or p; followed by a space or a parenthesis). */
static bool names_var(const char *body, char kind, const char *name) {
  const char prefix[4] = {'?', kind, '.', 0};
  size_t n = strlen(name);
  for (const char *s = strstr(body, prefix); s; s = strstr(s + 1, prefix))
    if (!strncmp(s + 3, name, n) && (s[3 + n] == ' ' || s[3 + n] == ')')) return true;
  return false;
}

/* Whether term r of a names every tensor variable of a and every parameter variable its other
 * side names. */
static bool names_all(const rg_rule *a, rg_ref r, rg_ref other) {
  const rg_graph *g = a->g;
  rg_strbuf t, o;
  rg_sb_init(&t);
  rg_sb_init(&o);
  put_term(&t, g, r, NULL, "?");
  put_term(&o, g, other, NULL, "?");
  bool ok = !t.failed && !o.failed;
  for (int32_t v = 0; ok && v < rg_graph_n_tvars(g); v++) ok = names_var(rg_sb_str(&t), 't', rg_graph_tvar_name(g, v));
  for (int32_t v = 0; ok && v < rg_graph_n_pvars(g); v++)
    ok = !names_var(rg_sb_str(&o), 'p', rg_graph_pvar_name(g, v)) || names_var(rg_sb_str(&t), 'p', rg_graph_pvar_name(g, v));
  rg_sb_free(&t);
  rg_sb_free(&o);
  return ok;
}

/* An axiom one side of which is a bare variable (split-whole: (concat ?a (split.0 ?a ?y)
 * (split.1 ?a ?y)) => ?y) has no side a goal's terms match; it is triggered by the first proper
 * subterm of its other side (depth first) that names every variable, (split.0 ?a ?y): a goal
 * holds that term wherever the axiom has something to say. {-1, 0} for any other axiom. */
static rg_ref bare_side_trigger(const rg_rule *a) {
  rg_ref none = {-1, 0};
  if (a->n_src != 1) return none;
  bool src_bare = rg_graph_node(a->g, a->src[0].node)->op == RG_OP_INPUT;
  bool tgt_bare = rg_graph_node(a->g, a->tgt[0].node)->op == RG_OP_INPUT;
  if (src_bare == tgt_bare) return none;
  rg_ref side = src_bare ? a->tgt[0] : a->src[0];
  rg_ref stack[64];
  int n = 0;
  const rg_node *root = rg_graph_node(a->g, side.node);
  for (int k = root->n_in - 1; k >= 0; k--) stack[n++] = root->in[k];
  while (n > 0) {
    rg_ref r = stack[--n];
    const rg_node *nd = rg_graph_node(a->g, r.node);
    if (nd->op == RG_OP_INPUT) continue;
    if (names_all(a, r, side)) return r;
    for (int k = nd->n_in - 1; k >= 0 && n < 64; k--) stack[n++] = nd->in[k];
  }
  return none;
}

/* Appends " :pattern (TERMS)" of one side of a (when target: its target) if those terms name
 * every bound variable (a bare variable is no pattern). */
static void put_side_pattern(rg_strbuf *sb, const rg_rule *a, const rg_guard *gd, const bool *bind,
                             bool target) {
  const rg_graph *g = a->g;
  rg_strbuf t;
  rg_sb_init(&t);
  bool ok = true;
  for (int k = 0; k < a->n_src && ok; k++) {
    rg_ref ref = target ? a->tgt[k] : a->src[k];
    ok = rg_graph_node(g, ref.node)->op != RG_OP_INPUT;
    rg_sb_puts(&t, k ? " " : "");
    put_term(&t, g, ref, gd, "?");
  }
  for (int32_t v = 0; ok && v < rg_graph_n_tvars(g); v++)
    ok = names_var(rg_sb_str(&t), 't', rg_graph_tvar_name(g, v));
  for (int32_t v = 0; ok && v < rg_graph_n_pvars(g); v++)
    ok = !bind[v] || names_var(rg_sb_str(&t), 'p', rg_graph_pvar_name(g, v));
  if (ok && !t.failed) rg_sb_printf(sb, " :pattern (%s)", rg_sb_str(&t));
  if (t.failed) sb->failed = true;
  rg_sb_free(&t);
}

/* The body of axiom a: its sides' equalities, under its guard's antecedent if it has one.
 * Returns whether it has one. */
static bool put_axiom_body(rg_strbuf *body, const rg_rule *a, const pvar_domains *d,
                           const rg_guard *gd) {
  const rg_graph *g = a->g;
  bool guarded = put_antecedent(body, g, d, gd, "?", false) > 0;
  if (guarded) {
    rg_sb_puts(body, "(=> ");
    put_antecedent(body, g, d, gd, "?", true);
    rg_sb_puts(body, " ");
  }
  if (a->n_src > 1) rg_sb_puts(body, "(and");
  for (int k = 0; k < a->n_src; k++) {
    rg_sb_puts(body, a->n_src > 1 ? " (= " : "(= ");
    put_term(body, g, a->src[k], gd, "?");
    rg_sb_puts(body, " ");
    put_term(body, g, a->tgt[k], gd, "?");
    rg_sb_puts(body, ")");
  }
  if (a->n_src > 1) rg_sb_puts(body, ")");
  if (guarded) rg_sb_puts(body, ")");
  return guarded;
}

/* The assertion of axiom a with body: its bound variables (the tensors, and the parameters in
 * bind), the triggers of a guarded one, its name. */
static void put_axiom_assert(rg_strbuf *sb, const rg_rule *a, const rg_guard *gd,
                             const rg_strbuf *body, const bool *bind, int32_t nq, bool guarded) {
  const rg_graph *g = a->g;
  int32_t nt = rg_graph_n_tvars(g), np = rg_graph_n_pvars(g);
  rg_sb_puts(sb, "(assert (! ");
  if (nt + nq > 0) {
    rg_sb_puts(sb, "(forall (");
    for (int32_t v = 0; v < nt; v++)
      rg_sb_printf(sb, "%s(?t.%s T)", v ? " " : "", rg_graph_tvar_name(g, v));
    for (int32_t v = 0, k = nt; v < np; v++)
      if (bind[v]) rg_sb_printf(sb, "%s(?p.%s Int)", k++ ? " " : "", rg_graph_pvar_name(g, v));
    rg_sb_puts(sb, ") ");
  }
  /* A guarded axiom names its triggers, its sides: left to choose, z3 took the guard's
   * (seams ?t.x 0), which no goal term matches, and timed out on ewmul-identity's one-step
   * goals (`(ewmul (matmul ?x ?y) (Iewmul 2x4)) => (matmul ?x ?y)`, 2 s; 25 ms with these). */
  rg_strbuf pat;
  rg_sb_init(&pat);
  if (guarded && gd && nt + nq > 0) {
    put_side_pattern(&pat, a, gd, bind, false);
    put_side_pattern(&pat, a, gd, bind, true);
    rg_ref trig = bare_side_trigger(a);
    if (trig.node >= 0) {
      rg_sb_puts(&pat, " :pattern (");
      put_term(&pat, g, trig, gd, "?");
      rg_sb_puts(&pat, ")");
    }
  }
  if (pat.len)
    rg_sb_printf(sb, "(! %s%s)", rg_sb_str(body), rg_sb_str(&pat));
  else
    rg_sb_puts(sb, rg_sb_str(body));
  if (pat.failed) sb->failed = true;
  rg_sb_free(&pat);
  if (nt + nq > 0) rg_sb_puts(sb, ")");
  rg_sb_printf(sb, " :named %s))\n", a->name);
  if (body->failed) sb->failed = true;
}

static rg_status put_axiom(rg_strbuf *sb, const rg_rule *a, const rg_guard *gd, rg_err *err) {
  const rg_graph *g = a->g;
  pvar_domains d;
  rg_status st = domains_of(g, &d, err);
  if (st) {
    domains_free(&d);
    return st;
  }
  if (gd && !gd->n_atoms) gd = NULL;
  rg_strbuf body;
  rg_sb_init(&body);
  bool guarded = put_axiom_body(&body, a, &d, gd);
  /* Bound: the tensor variables and the parameters the body names (the shape of an erased
   * constant, Iewmul's, is named nowhere: bound, it is a variable no pattern of its sides could
   * cover). */
  int32_t np = rg_graph_n_pvars(g), nq = 0;
  bool *bind = calloc((size_t)np + 1, sizeof *bind);
  if (!bind) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t v = 0; !st && v < np; v++) {
    bind[v] = !(gd && rg_guard_def(gd, v) >= 0) &&
              names_var(rg_sb_str(&body), 'p', rg_graph_pvar_name(g, v));
    nq += bind[v];
  }
  if (!st) put_axiom_assert(sb, a, gd, &body, bind, nq, guarded);
  free(bind);
  rg_sb_free(&body);
  domains_free(&d);
  return st;
}

/* Operators of terms refs[0..n) of g; all of g's where memory runs out. */
static void terms_ops(const rg_graph *g, const rg_ref *refs, int n, bool *ops) {
  memset(ops, 0, sizeof(bool) * RG_OP_COUNT);
  uint8_t *mark = calloc((size_t)rg_graph_size(g) + 1, 1);
  for (int32_t i = 0; i < rg_graph_size(g); i++) /* without memory: every node counts */
    if (!mark) ops[rg_graph_node(g, i)->op] = true;
  if (!mark) return;
  rg_graph_mark_reachable(g, refs, n, mark);
  for (int32_t i = 0; i < rg_graph_size(g); i++)
    if (mark[i]) ops[rg_graph_node(g, i)->op] = true;
  free(mark);
}

static void term_ops(const rg_graph *g, rg_ref r, bool *ops) { terms_ops(g, &r, 1, ops); }

/* Operators of one side of an axiom (its source when target is false). */
static void side_ops(const rg_rule *a, bool target, bool *ops) {
  terms_ops(a->g, target ? a->tgt : a->src, target ? a->n_tgt : a->n_src, ops);
}

/* A side fires on available operators when it has some and all are available (a side that is a
 * bare variable, as in matmul-identity's, matches anything and so is no trigger). */
static bool fires(const bool *side, const bool *avail) {
  bool some = false;
  for (int o = 0; o < RG_OP_COUNT; o++) {
    if (!side[o] || o == RG_OP_INPUT) continue;
    if (!avail[o]) return false;
    some = true;
  }
  return some;
}

/* Whether every operator of side a occurs in side b. */
static bool ops_within(const bool *a, const bool *b) {
  for (int o = 0; o < RG_OP_COUNT; o++)
    if (a[o] && !b[o] && o != RG_OP_INPUT) return false;
  return true;
}

/* An axiom as obligations take it (rg_axioms.smt): its assertion, and the operators of its
 * source (l), its target (r) and, where a side is a bare variable, its trigger (t). */
struct rg_smt_axiom {
  char *text;
  size_t len;
  bool l[RG_OP_COUNT], r[RG_OP_COUNT], t[RG_OP_COUNT];
  bool triggered;
};

static void axiom_ops(const rg_rule *a, struct rg_smt_axiom *x) {
  side_ops(a, false, x->l);
  side_ops(a, true, x->r);
  rg_ref trig = bare_side_trigger(a);
  x->triggered = trig.node >= 0;
  if (x->triggered) term_ops(a->g, trig, x->t);
}

/* Relevant axioms: those that can fire on terms built from the rule's operators, closed under
 * the operators they introduce (conv-concat-sum brings ewadd into a conv/concat goal). An axiom
 * fires when all operators of its source are available, or all of its target's where that
 * brings no operator of its own: read backwards, an axiom that removes an operator (the zero
 * channels of conv-pad-kernel-channels) would bring that operator, and with it all its axioms,
 * into goals that never mention it. One with a bare-variable side fires where its trigger's
 * operators are available (split-whole brings concat into a goal that splits). */
static void select_axioms(const rg_axioms *ax, const bool *rule_ops, bool *take) {
  bool avail[RG_OP_COUNT];
  memcpy(avail, rule_ops, sizeof avail);
  for (bool grew = true; grew;) {
    grew = false;
    for (int i = 0; i < ax->rules.n; i++) {
      if (take[i]) continue;
      struct rg_smt_axiom own;
      const struct rg_smt_axiom *x = ax->smt ? &ax->smt[i] : &own;
      if (!ax->smt) axiom_ops(ax->rules.rules[i], &own);
      if (x->triggered ? !fires(x->t, avail)
                       : !fires(x->l, avail) && !(fires(x->r, avail) && ops_within(x->l, x->r)))
        continue;
      take[i] = grew = true;
      for (int o = 0; o < RG_OP_COUNT; o++)
        avail[o] |= x->l[o] || x->r[o];
    }
  }
}

/* --- sizes: guarded axioms (verify/guard.h) speak of (dim t k), the size of tensor t on axis k.
 * Its facts below hold of every well-typed term (axes past a tensor's rank count as size 1);
 * each is guarded so that it says nothing of an ill-typed one, whose sizes a model may then
 * choose freely. Slice, pad, concat, bias and the elementwise operators have size facts (each
 * axis's size from the operands' sizes on that axis), conv2d, pooling, enlarge and the 2-D
 * transpose on axes 0 and 1; other sizes are unknown to the solver, which makes guarded
 * axioms fire less often, never wrongly. */

/* Whether a taken axiom's guard mentions sizes and ranks (seams: false) or seams (true). */
static bool guards_use(const rg_axioms *ax, const bool *take, bool seams) {
  for (int i = 0; ax->guards && i < ax->rules.n; i++)
    if (take[i] && ax->guards[i].n_atoms &&
        (seams ? rg_guard_uses_seams(&ax->guards[i]) : rg_guard_uses_sizes(&ax->guards[i])))
      return true;
  return false;
}

/* The binders and the term (op q0 .. x w ...) for a fact about output `out` of op applied to
 * n_in tensors x, w, y, z: its Int parameters are quantified, or the single one fixed to
 * `fixed` (>= 0). */
void rg_smt_quantified_term(rg_op op, int n_in, int out, int32_t fixed, rg_strbuf *binders,
                            rg_strbuf *term) {
  static const char *const tensor[RG_MAX_INPUTS] = {"x", "w", "y", "z"};
  char name[64];
  fn_name(op, n_in, out, name, sizeof name);
  bool args = int_args(op) > 0 || n_in > 0; /* an erased constant (Iewmul) is a bare symbol */
  rg_sb_printf(term, "%s%s", args ? "(" : "", name);
  for (int q = 0; q < int_args(op); q++) {
    if (fixed >= 0) {
      rg_sb_printf(term, " %d", (int)fixed);
      continue;
    }
    rg_sb_printf(term, " q%d", q);
    rg_sb_printf(binders, "(q%d Int) ", q);
  }
  for (int i = 0; i < n_in; i++) {
    rg_sb_printf(term, " %s", tensor[i]);
    rg_sb_printf(binders, "(%s T) ", tensor[i]);
  }
  if (args) rg_sb_puts(term, ")");
}

/* The sizes on axes `first` and first+1 of op's result, e0 and e1, in terms of its tensors x (and
 * w) and parameters q0 ..., where `when` (an SMT condition on them) holds. */
static void put_axes_fact(rg_strbuf *sb, rg_op op, int n_in, int32_t fixed, const char *when, int first,
                          const char *e0, const char *e1) {
  rg_strbuf b, t;
  rg_sb_init(&b);
  rg_sb_init(&t);
  rg_smt_quantified_term(op, n_in, 0, fixed, &b, &t);
  rg_sb_printf(sb,
               "(assert (forall (%s(k Int)) (! (=> (and %s (<= %d k) (<= k %d)) (= (dim %s k) (ite (= k "
               "%d) %s %s))) :pattern ((dim %s k)))))\n",
               rg_sb_str(&b), when, first, first + 1, rg_sb_str(&t), first, e0, e1, rg_sb_str(&t));
  if (b.failed || t.failed) sb->failed = true;
  rg_sb_free(&b);
  rg_sb_free(&t);
}

/* Operators over images (N, C, H, W): their operands and results have 4 axes. */
static bool image_op(int op) { return op == RG_OP_CONV2D || op == RG_OP_POOLAVG || op == RG_OP_POOLMAX; }

static bool kernel_constant(int op) { return op == RG_OP_ICONV || op == RG_OP_CPOOL; }

/* Constants whose sizes are their parameters: the kernels, and the identity matrix (n, n). */
static bool sized_constant(int op) { return kernel_constant(op) || op == RG_OP_IMATMUL; }

/* Ranks: images and the constant kernels have 4 axes, a reshape its shape parameter's rank (its
 * slot q0); every other operator with operands keeps its first operand's rank where it types. Where operands must agree
 * in rank (ewadd, concat, ...) the fact is stated only when they do (bias: where its vector is
 * one and its axis is x's): ewadd-comm holds of every
 * pair of terms, and an unguarded fact would then make every two ranks equal (cvc5 found that
 * contradiction between a reshape's rank 1 and an image's 4). */
static void put_rank_facts(rg_strbuf *sb, const fn_set *fs) {
  static const char *const tensor[RG_MAX_INPUTS] = {"x", "w", "y", "z"};
  rg_sb_puts(sb, "(declare-fun rank (T) Int)\n");
  for (int op = 0; op < RG_OP_COUNT; op++)
    for (int n_in = sized_constant(op) ? 0 : 1; n_in <= RG_MAX_INPUTS; n_in++)
      for (int out = 0; out < RG_MAX_OUTPUTS; out++) {
        if (!fs->used[op][n_in][out]) continue;
        rg_strbuf b, t, fact;
        rg_sb_init(&b);
        rg_sb_init(&t);
        rg_sb_init(&fact);
        rg_smt_quantified_term((rg_op)op, n_in, out, -1, &b, &t);
        const char *rank = image_op(op) || kernel_constant(op) ? "4"
                           : op == RG_OP_IMATMUL                ? "2"
                           : op == RG_OP_RESHAPE                ? "q0"
                                                                : "(rank x)";
        rg_sb_printf(&fact, "(= (rank %s) %s)", rg_sb_str(&t), rank);
        if (op == RG_OP_BIAS) { /* a vector along one of x's axes */
          rg_strbuf f = fact;
          rg_sb_init(&fact);
          rg_sb_printf(&fact, "(=> (and (= (rank w) 1) (<= 0 q0) (< q0 (rank x))) %s)", rg_sb_str(&f));
          rg_sb_free(&f);
        } else if (n_in > 1 && !image_op(op) && op != RG_OP_SMUL) { /* smul's second operand is a scalar */
          rg_strbuf f = fact;
          rg_sb_init(&fact);
          rg_sb_puts(&fact, n_in > 2 ? "(=> (and" : "(=>"); /* "and" takes two or more terms */
          for (int i = 1; i < n_in; i++) rg_sb_printf(&fact, " (= (rank x) (rank %s))", tensor[i]);
          rg_sb_printf(&fact, "%s %s)", n_in > 2 ? ")" : "", rg_sb_str(&f));
          rg_sb_free(&f);
        }
        rg_sb_printf(sb, "(assert (forall (%s) (! %s :pattern ((rank %s)))))\n", rg_sb_str(&b), rg_sb_str(&fact),
                     rg_sb_str(&t));
        if (b.failed || t.failed || fact.failed) sb->failed = true;
        rg_sb_free(&b);
        rg_sb_free(&t);
        rg_sb_free(&fact);
      }
}

/* "Where cond holds, axis k of op's term has size value", of every such term: with n_in
 * operands x, w, ... and op's parameters q0 ... bound (rg_smt_quantified_term), and k. */
static void put_dim_fact(rg_strbuf *sb, rg_op op, int n_in, const char *cond, const char *value) {
  rg_strbuf b, t;
  rg_sb_init(&b);
  rg_sb_init(&t);
  rg_smt_quantified_term(op, n_in, 0, -1, &b, &t);
  rg_sb_printf(sb, "(assert (forall (%s(k Int)) (! (=> (and %s) (= (dim %s k) %s)) :pattern ((dim %s k)))))\n",
               rg_sb_str(&b), cond, rg_sb_str(&t), value, rg_sb_str(&t));
  if (b.failed || t.failed) sb->failed = true;
  rg_sb_free(&b);
  rg_sb_free(&t);
}

/* A reshape's sizes are its shape parameter's slots q1 ... (the sizes of axes 0 ...) up to its
 * rank q0; axes past the rank count as 1. */
static void put_reshape_sizes(rg_strbuf *sb) {
  rg_strbuf cond, sizes;
  rg_sb_init(&cond);
  rg_sb_init(&sizes);
  rg_sb_printf(&cond, "(<= 1 q0) (<= q0 %d) (<= 0 k) (< k %d)", RG_MAX_RANK, RG_MAX_RANK);
  rg_sb_puts(&sizes, "(ite (<= q0 k) 1");
  for (int k = 0; k < RG_MAX_RANK - 1; k++) rg_sb_printf(&sizes, " (ite (= k %d) q%d", k, k + 1);
  rg_sb_printf(&sizes, " q%d", RG_MAX_RANK);
  for (int k = 0; k < RG_MAX_RANK; k++) rg_sb_puts(&sizes, ")");
  put_dim_fact(sb, RG_OP_RESHAPE, 1, rg_sb_str(&cond), rg_sb_str(&sizes));
  if (cond.failed || sizes.failed) sb->failed = true;
  rg_sb_free(&cond);
  rg_sb_free(&sizes);
}

/* Elementwise operators (and slice, pad, bias, concat): their sizes from their operands'. */
static void put_elementwise_sizes(rg_strbuf *sb, const fn_set *fs) {
  if (fs->used[RG_OP_SLICE][1][0])
    rg_sb_puts(sb, "(assert (forall ((a Int) (l Int) (h Int) (x T) (k Int)) (! (=> (and (<= 0 l) (< l h) (<= h (dim x a))) "
                   "(= (dim (slice a l h x) k) (ite (= k a) (- h l) (dim x k)))) :pattern ((dim (slice a l h x) k)))))\n");
  if (fs->used[RG_OP_PAD][1][0])
    rg_sb_puts(sb, "(assert (forall ((a Int) (b Int) (c Int) (x T) (k Int)) (! (=> (and (<= 0 b) (<= 0 c)) "
                   "(= (dim (pad a b c x) k) (ite (= k a) (+ (dim x k) b c) (dim x k)))) :pattern ((dim (pad a b c x) k)))))\n");
  /* Elementwise operators keep their operand's sizes (both operands', where those agree). */
  static const rg_op unary[] = {RG_OP_RELU, RG_OP_TANH, RG_OP_SIGMOID};
  for (size_t i = 0; i < sizeof unary / sizeof *unary; i++)
    if (fs->used[unary[i]][1][0])
      rg_sb_printf(sb, "(assert (forall ((x T) (k Int)) (! (= (dim (%s x) k) (dim x k)) :pattern ((dim (%s x) k)))))\n",
                   rg_op_get(unary[i])->name, rg_op_get(unary[i])->name);
  static const rg_op binary[] = {RG_OP_EWADD, RG_OP_EWMUL};
  for (size_t i = 0; i < sizeof binary / sizeof *binary; i++)
    if (fs->used[binary[i]][2][0])
      rg_sb_printf(sb, "(assert (forall ((x T) (y T) (k Int)) (! (=> (= (dim x k) (dim y k)) (= (dim (%s x y) k) (dim x k))) "
                       ":pattern ((dim (%s x y) k)))))\n",
                   rg_op_get(binary[i])->name, rg_op_get(binary[i])->name);
  if (fs->used[RG_OP_SMUL][2][0])
    rg_sb_puts(sb, "(assert (forall ((x T) (s T) (k Int)) (! (= (dim (smul x s) k) (dim x k)) :pattern ((dim (smul x s) k)))))\n");
  /* bias keeps x's sizes where it types: b a vector as long as x's axis */
  if (fs->used[RG_OP_BIAS][2][0])
    rg_sb_puts(sb, "(assert (forall ((a Int) (x T) (b T) (k Int)) (! (=> (and (<= 0 a) (< a (rank x)) (= (rank b) 1) "
                   "(= (dim b 0) (dim x a))) (= (dim (bias a x b) k) (dim x k))) :pattern ((dim (bias a x b) k)))))\n");
  if (fs->used[RG_OP_CONCAT][2][0])
    rg_sb_puts(sb, "(assert (forall ((a Int) (x T) (y T) (k Int)) (! (=> (or (= k a) (= (dim x k) (dim y k))) "
                   "(= (dim (concat a x y) k) (ite (= k a) (+ (dim x k) (dim y k)) (dim x k)))) "
                   ":pattern ((dim (concat a x y) k)))))\n");
}

/* Images, kernels and the constants' sizes. */
static void put_image_sizes(rg_strbuf *sb, const fn_set *fs) {
  /* Images and kernels: batch and channels (axes 0 and 1) follow from the operands. The
   * spatial sizes of a conv2d or pooling with stride 1 and same padding are its input's (the
   * dilated kernel only sets the padding); other strides and paddings leave them unknown.
   * enlarge's are its kernel size. (They were left unstated while matmul-enlarge-left/right
   * were stated of every term: typed only where no size changes, an instance where one would,
   * a matmul with a 4x4x3x1 reshape as its right operand, contradicted the rule's own sizes.
   * Those axioms are now guarded by the sizes that make them type.) */
  if (fs->used[RG_OP_CONV2D][2][0]) {
    put_axes_fact(sb, RG_OP_CONV2D, 2, -1, "true", 0, "(dim x 0)", "(dim w 0)");
    put_axes_fact(sb, RG_OP_CONV2D, 2, -1, "(= q0 1) (= q1 1) (= q2 0)", 2,
                  "(dim x 2)", "(dim x 3)");
    put_axes_fact(sb, RG_OP_CONV2D, 2, -1, "true", 4, "1", "1"); /* past its rank, 4 */
  }
  _Static_assert(RG_PAD_SAME == 0, "the conditions above spell same padding 0");
  static const rg_op pools[] = {RG_OP_POOLAVG, RG_OP_POOLMAX};
  for (size_t i = 0; i < sizeof pools / sizeof *pools; i++)
    if (fs->used[pools[i]][1][0]) {
      put_axes_fact(sb, pools[i], 1, -1, "true", 0, "(dim x 0)", "(dim x 1)");
      put_axes_fact(sb, pools[i], 1, -1, "(= q2 1) (= q3 1) (= q4 0)", 2,
                    "(dim x 2)", "(dim x 3)");
      put_axes_fact(sb, pools[i], 1, -1, "true", 4, "1", "1");
    }
  if (fs->used[RG_OP_ENLARGE][1][0]) {
    put_axes_fact(sb, RG_OP_ENLARGE, 1, -1, "true", 0, "(dim x 0)", "(dim x 1)");
    put_axes_fact(sb, RG_OP_ENLARGE, 1, -1, "true", 2, "q0", "q1");
    put_axes_fact(sb, RG_OP_ENLARGE, 1, -1, "true", 4, "1", "1");
  }
  /* The constant kernels (c, c, kh, kw). */
  for (int op = 0; op < RG_OP_COUNT; op++)
    if (kernel_constant(op) && fs->used[op][0][0]) {
      put_axes_fact(sb, (rg_op)op, 0, -1, "true", 0, "q0", "q0");
      put_axes_fact(sb, (rg_op)op, 0, -1, "true", 2, "q1", "q2");
      put_axes_fact(sb, (rg_op)op, 0, -1, "true", 4, "1", "1");
    }
  if (fs->used[RG_OP_IMATMUL][0][0])
    for (int k = 0; k < RG_MAX_RANK; k += 2)
      put_axes_fact(sb, RG_OP_IMATMUL, 0, -1, "true", k, k ? "1" : "q0", k ? "1" : "q0");
}

/* A matmul that types (one rank r >= 2, the batch axes and the contracted sizes agree) has its
 * left operand's sizes but on the last axis, where it has the right one's: a guard that
 * compares a product with another term ((shape= ?x ?y 1) of split-0 over a concat of two
 * products) needs them of products the rule does not have. */
static void put_matmul_size_fact(rg_strbuf *sb) {
  rg_strbuf cond;
  rg_sb_init(&cond);
  rg_sb_puts(&cond, "(= (rank x) (rank w)) (<= 2 (rank x)) (= (dim x (- (rank x) 1)) (dim w (- (rank x) 2)))");
  for (int j = 0; j < RG_MAX_RANK - 2; j++)
    rg_sb_printf(&cond, " (or (<= (- (rank x) 2) %d) (= (dim x %d) (dim w %d)))", j, j, j);
  rg_sb_printf(&cond, " (<= 0 k) (< k %d)", RG_MAX_RANK);
  put_dim_fact(sb, RG_OP_MATMUL, 2, rg_sb_str(&cond), "(ite (= k (- (rank x) 1)) (dim w k) (dim x k))");
  if (cond.failed) sb->failed = true;
  rg_sb_free(&cond);
}

/* The size facts of the operators fs uses: their ranks, then their axes' sizes (dim). */
static void put_size_facts(rg_strbuf *sb, const fn_set *fs) {
  put_rank_facts(sb, fs);
  rg_sb_puts(sb, "(declare-fun dim (T Int) Int)\n");
  put_elementwise_sizes(sb, fs);
  put_image_sizes(sb, fs);
  if (fs->used[RG_OP_MATMUL][2][0]) put_matmul_size_fact(sb);
  if (fs->used[RG_OP_TRANSPOSE][1][0]) {
    int swap[2] = {1, 0};
    put_axes_fact(sb, RG_OP_TRANSPOSE, 1, rg_perm_pack(swap, 2), "true", 0, "(dim x 1)", "(dim x 0)");
    put_axes_fact(sb, RG_OP_TRANSPOSE, 1, rg_perm_pack(swap, 2), "true", 2, "(dim x 2)", "(dim x 3)");
    put_axes_fact(sb, RG_OP_TRANSPOSE, 1, rg_perm_pack(swap, 2), "true", 4, "(dim x 4)", "(dim x 5)");
  }
  if (fs->used[RG_OP_RESHAPE][1][0]) put_reshape_sizes(sb);
}

/* The rank every tensor operand of nd has wherever nd types, or 0 when it varies: images and
 * kernels have 4 axes, a transpose's operand as many as its permutation. */
static int operand_rank(const rg_node *nd) {
  if (image_op(nd->op) || nd->op == RG_OP_ENLARGE) return 4; /* enlarge pads a 4-D kernel */
  int perm[RG_MAX_RANK];
  int slot = rg_op_param_slot(RG_OP_TRANSPOSE, 0);
  if (nd->op == RG_OP_TRANSPOSE && !(nd->var_mask >> slot & 1))
    return rg_perm_unpack(nd->params[slot], perm);
  return 0;
}

/* A matmul of the rule types: its operands agree in rank (at least 2) and on the batch axes,
 * the left's last axis is the right's second last, and the result has the left's sizes but on
 * the last axis, where it has the right's. */
static void put_matmul_sizes(rg_strbuf *sb, const rg_graph *g, int32_t id) {
  const rg_node *nd = rg_graph_node(g, id);
  rg_ref self = {id, 0};
  rg_strbuf x, y, m;
  rg_sb_init(&x);
  rg_sb_init(&y);
  rg_sb_init(&m);
  put_term(&x, g, nd->in[0], NULL, "");
  put_term(&y, g, nd->in[1], NULL, "");
  put_term(&m, g, self, NULL, "");
  const char *xs = rg_sb_str(&x), *ys = rg_sb_str(&y), *ms = rg_sb_str(&m);
  rg_sb_printf(sb,
               "(assert (and (<= 2 (rank %s)) (= (rank %s) (rank %s)) (= (rank %s) (rank %s))))\n",
               xs, xs, ys, ms, xs);
  rg_sb_printf(sb, "(assert (= (dim %s (- (rank %s) 1)) (dim %s (- (rank %s) 2))))\n", xs, xs, ys,
               xs);
  for (int k = 0; k < RG_MAX_RANK; k++)
    rg_sb_printf(sb,
                 "(assert (and (=> (< %d (- (rank %s) 2)) (= (dim %s %d) (dim %s %d))) "
                 "(= (dim %s %d) (ite (= %d (- (rank %s) 1)) (dim %s %d) (dim %s %d)))))\n",
                 k, xs, xs, k, ys, k, ms, k, k, xs, ys, k, xs, k);
  if (x.failed || y.failed || m.failed) sb->failed = true;
  rg_sb_free(&x);
  rg_sb_free(&y);
  rg_sb_free(&m);
}

/* The outputs agree in fn (dim or seams) on every axis: a rule claims equal values where its
 * sides' output types agree, and seams are part of a type (ir/shape.h) as the sizes are. Where
 * a concat makes seams, this is what rules out ranks at which the sides differ only in them: a
 * 2-D rule that concats matmul columns differs at rank 3, where the concat joins rows. */
static void put_outputs_agree(rg_strbuf *sb, const rg_rule *r, int output, const char *fn) {
  for (int k = 0; k < RG_MAX_RANK; k++) {
    rg_sb_printf(sb, "(assert (= (%s ", fn);
    put_term(sb, r->g, r->src[output], NULL, "");
    rg_sb_printf(sb, " %d) (%s ", k, fn);
    put_term(sb, r->g, r->tgt[output], NULL, "");
    rg_sb_printf(sb, " %d)))\n", k);
  }
}

/* The ranks of the rule's tensor variables that its structure forces (rg_forced_ranks): a
 * constant of a fixed shape, whose shape is erased here (Iewmul), gives its rank only this way
 * ((matmul (Iewmul 4x4) ?w) makes ?w 2-D, where a slice of rows is not one of batches). */
static void put_forced_ranks(rg_strbuf *sb, const rg_rule *r, const int8_t *rk) {
  int32_t nt = rg_graph_n_tvars(r->g);
  int8_t *said = calloc((size_t)nt + 1, 1); /* a variable has an input node on each side */
  if (!said) {
    sb->failed = true;
    return;
  }
  for (int32_t id = 0; id < rg_graph_size(r->g); id++) {
    const rg_node *nd = rg_graph_node(r->g, id);
    if (nd->op != RG_OP_INPUT || rk[id] <= 0 || nd->params[0] >= nt || said[nd->params[0]]) continue;
    said[nd->params[0]] = 1;
    rg_sb_printf(sb, "(assert (= (rank t.%s) %d))\n", rg_graph_tvar_name(r->g, nd->params[0]), rk[id]);
  }
  free(said);
}

/* Most ordered factorizations of a reshape's element count stated (48 into 4 sizes: 140). */
#define MAX_FACTORIZATIONS 512

/* The divisors of a count, ascending, those up to RG_MAX_DIM (sizes bigger are not real). */
typedef struct {
  int64_t d[1024];
  int n;
} divisors;

static void find_divisors(int64_t count, divisors *ds) {
  int64_t high[512];
  int nh = 0;
  ds->n = 0;
  for (int64_t f = 1; f * f <= count && ds->n < 512 && nh < 512; f++) {
    if (count % f) continue;
    if (f <= RG_MAX_DIM) ds->d[ds->n++] = f;
    if (f * f != count && count / f <= RG_MAX_DIM) high[nh++] = count / f;
  }
  while (nh > 0) ds->d[ds->n++] = high[--nh];
}

/* Appends to sb the ordered factorizations of count into `left` sizes from ds, after the sizes
 * dims[0..at), as (and (= (dim x 0) a) ...) terms; counts them in *n and stops past
 * MAX_FACTORIZATIONS. */
static void put_factorizations(rg_strbuf *sb, const char *x, const divisors *ds, int64_t count, int at, int left,
                               int64_t *dims, int *n) {
  if (*n > MAX_FACTORIZATIONS) return;
  if (left == 0) {
    if (count != 1) return;
    if (++*n > MAX_FACTORIZATIONS) return;
    rg_sb_puts(sb, " (and");
    for (int d = 0; d < at; d++) rg_sb_printf(sb, " (= (dim %s %d) %lld)", x, d, (long long)dims[d]);
    rg_sb_puts(sb, ")");
    return;
  }
  if (at >= RG_MAX_RANK) return;
  for (int k = 0; k < ds->n && ds->d[k] <= count; k++) {
    if (count % ds->d[k]) continue;
    dims[at] = ds->d[k];
    put_factorizations(sb, x, ds, count / ds->d[k], at + 1, left - 1, dims, n);
  }
}

/* A reshape to a fixed shape keeps the element count: its operand's sizes, over the operand's
 * rank (which the rule's structure forces), multiply to the target's count. Stated as the
 * disjunction of the count's ordered factorizations, which linear arithmetic can say: as a
 * product (logic UFNIA) z3 proved held-out depth-4 rules 147 and 325 with it, but cvc5 took 0.5
 * to 4 s and lost a reshape rule at 300 ms (stop 20). Left unstated past MAX_FACTORIZATIONS. */
static void put_element_count(rg_strbuf *sb, const rg_graph *g, const rg_node *nd, int rank) {
  int slot = rg_op_param_slot(RG_OP_RESHAPE, 0);
  int64_t count = 1, dims[RG_MAX_RANK];
  for (int d = 0; d < nd->params[slot]; d++) count *= nd->params[slot + 1 + d];
  rg_strbuf x, alts;
  rg_sb_init(&x);
  rg_sb_init(&alts);
  put_term(&x, g, nd->in[0], NULL, "");
  int n = 0;
  divisors ds;
  find_divisors(count, &ds);
  put_factorizations(&alts, rg_sb_str(&x), &ds, count, 0, rank, dims, &n);
  if (n > 0 && n <= MAX_FACTORIZATIONS) rg_sb_printf(sb, "(assert (or%s))\n", rg_sb_str(&alts));
  if (x.failed || alts.failed) sb->failed = true;
  rg_sb_free(&x);
  rg_sb_free(&alts);
}

/* Which nodes of g have a shape-erased constant (Iewmul, a bare symbol here) at or below them
 * (calloc'd, for rg_graph_size(g) nodes; NULL when out of memory). Such a term stands for one
 * tensor per shape: (matmul (Iewmul 4x4) ?w) and (matmul (Iewmul 2x4) ?w) are one term, and a
 * size or rank stated of it in one place would be assumed of it in the other. */
static bool *erased_below(const rg_graph *g) {
  int32_t n = rg_graph_size(g);
  bool *e = calloc((size_t)n + 1, sizeof *e);
  for (int32_t id = 0; e && id < n; id++) { /* operands come before their users */
    const rg_node *nd = rg_graph_node(g, id);
    e[id] = shape_erased((rg_op)nd->op) && int_args((rg_op)nd->op) == 0;
    for (int k = 0; k < nd->n_in; k++) e[id] |= e[nd->in[k].node];
  }
  return e;
}

/* Whether either side of output pair `output` has a shape-erased constant in it (erased, from
 * erased_below): then its type is not stated. */
static bool output_erased(const rg_rule *r, int output, const bool *erased) {
  return erased[r->src[output].node] || erased[r->tgt[output].node];
}

/* The rule's tensors are real ones: every size is 1 to RG_MAX_DIM (axes past the rank count
 * as 1). Stated of them alone: a quantified form would also size the ill-typed terms a search
 * builds, and with the axioms that hold only where they type, that proved a false rule. The
 * bound lets a size plus a pad's width stay inside the axioms' parameter domains. */
static void put_tensor_bounds(rg_strbuf *sb, const rg_rule *r) {
  for (int32_t v = 0; v < rg_graph_n_tvars(r->g); v++)
    for (int k = 0; k < RG_MAX_RANK; k++) {
      rg_sb_printf(sb, "(assert (<= 1 (dim t.%s %d) %d))\n", rg_graph_tvar_name(r->g, v), k, RG_MAX_DIM);
      /* past its rank a size is 1, as the facts say of every operator's result */
      rg_sb_printf(sb, "(assert (or (< %d (rank t.%s)) (= (dim t.%s %d) 1)))\n", k,
                   rg_graph_tvar_name(r->g, v), rg_graph_tvar_name(r->g, v), k);
    }
}

/* Node i's ranks: a reshape's element count, its operands' forced rank, its axis within its
 * operand's rank; and what a pad or concat grows stays a real size. */
static void put_node_ranks(rg_strbuf *sb, const rg_rule *r, int32_t i, const int8_t *rk) {
  const rg_node *nd = rg_graph_node(r->g, i);
  int reshape_to = rg_op_param_slot(RG_OP_RESHAPE, 0);
  if (nd->op == RG_OP_RESHAPE && !(nd->var_mask >> reshape_to & 1) && rk[nd->in[0].node] > 0)
    put_element_count(sb, r->g, nd, rk[nd->in[0].node]);
  int rank = operand_rank(nd);
  for (int k = 0; rank > 0 && k < nd->n_in; k++) {
    rg_sb_printf(sb, "(assert (= (rank ");
    put_term(sb, r->g, nd->in[k], NULL, "");
    rg_sb_printf(sb, ") %d))\n", rank);
  }
  if (nd->op == RG_OP_PAD || nd->op == RG_OP_CONCAT || nd->op == RG_OP_SLICE || nd->op == RG_OP_SPLIT ||
      nd->op == RG_OP_BIAS) {
    /* Their axis is one of their operand's (a guard may say so: (shape= ?x ?y ?a)). */
    rg_sb_puts(sb, "(assert (<");
    put_param(sb, r->g, nd, 0, NULL, "");
    rg_sb_puts(sb, " (rank ");
    put_term(sb, r->g, nd->in[0], NULL, "");
    rg_sb_puts(sb, ")))\n");
  }
  if (nd->op == RG_OP_PAD || nd->op == RG_OP_CONCAT) {
    /* What these grow stays a real size, so their operands are smaller (shape.c refuses more). */
    rg_ref self = {i, 0};
    rg_strbuf t;
    rg_sb_init(&t);
    put_term(&t, r->g, self, NULL, "");
    for (int k = 0; k < RG_MAX_RANK; k++)
      rg_sb_printf(sb, "(assert (<= (dim %s %d) %d))\n", rg_sb_str(&t), k, RG_MAX_DIM);
    if (t.failed) sb->failed = true;
    rg_sb_free(&t);
  }
}

/* A conv of the rule reads all its input's channels: groups times the kernel's, and its groups
 * divide its kernels. (With groups a variable the product is not linear: left unstated.) */
static void put_conv_channels(rg_strbuf *sb, const rg_graph *g, const rg_node *nd) {
  int groups = (int)nd->params[rg_op_param_slot(RG_OP_CONV2D, 6)];
  rg_sb_puts(sb, "(assert (= (dim ");
  put_term(sb, g, nd->in[0], NULL, "");
  rg_sb_printf(sb, " 1) (* %d (dim ", groups);
  put_term(sb, g, nd->in[1], NULL, "");
  rg_sb_puts(sb, " 1))))\n");
  if (groups > 1) {
    rg_sb_puts(sb, "(assert (= (mod (dim ");
    put_term(sb, g, nd->in[1], NULL, "");
    rg_sb_printf(sb, " 0) %d) 0))\n", groups);
  }
}

/* enlarge only grows a kernel. */
static void put_enlarge_bounds(rg_strbuf *sb, const rg_graph *g, const rg_node *nd) {
  for (int k = 0; k < 2; k++) {
    rg_sb_puts(sb, "(assert (<= (dim ");
    put_term(sb, g, nd->in[0], NULL, "");
    rg_sb_printf(sb, " %d)", 2 + k);
    put_param(sb, g, nd, k, NULL, "");
    rg_sb_puts(sb, "))\n");
  }
}

/* A slice of the rule cuts a non-empty range inside its operand's axis. */
static void put_slice_bounds(rg_strbuf *sb, const rg_graph *g, const rg_node *nd) {
  rg_sb_puts(sb, "(assert (and (<= 0");
  put_param(sb, g, nd, 1, NULL, "");
  rg_sb_puts(sb, ") (<");
  put_param(sb, g, nd, 1, NULL, "");
  put_param(sb, g, nd, 2, NULL, "");
  rg_sb_puts(sb, ") (<=");
  put_param(sb, g, nd, 2, NULL, "");
  rg_sb_puts(sb, " (dim ");
  put_term(sb, g, nd->in[0], NULL, "");
  put_param(sb, g, nd, 0, NULL, "");
  rg_sb_puts(sb, "))))\n");
}

/* A bias of the rule is a vector as long as its operand's axis. */
static void put_bias_vector(rg_strbuf *sb, const rg_graph *g, const rg_node *nd) {
  rg_sb_puts(sb, "(assert (and (= (rank ");
  put_term(sb, g, nd->in[1], NULL, "");
  rg_sb_puts(sb, ") 1) (= (dim ");
  put_term(sb, g, nd->in[1], NULL, "");
  rg_sb_puts(sb, " 0) (dim ");
  put_term(sb, g, nd->in[0], NULL, "");
  put_param(sb, g, nd, 0, NULL, "");
  rg_sb_puts(sb, "))))\n");
}

/* The two operands of a concat, ewadd or ewmul have one rank and equal sizes (a concat's but
 * on its axis). */
static void put_operands_agree(rg_strbuf *sb, const rg_graph *g, const rg_node *nd) {
  bool concat = nd->op == RG_OP_CONCAT;
  rg_sb_puts(sb, "(assert (= (rank ");
  put_term(sb, g, nd->in[0], NULL, "");
  rg_sb_puts(sb, ") (rank ");
  put_term(sb, g, nd->in[1], NULL, "");
  rg_sb_puts(sb, ")))\n");
  for (int k = 0; k < RG_MAX_RANK; k++) {
    rg_sb_printf(sb, concat ? "(assert (or (= %d" : "(assert (= (dim ", k);
    if (concat) {
      put_param(sb, g, nd, 0, NULL, "");
      rg_sb_puts(sb, ") (= (dim ");
    }
    put_term(sb, g, nd->in[0], NULL, "");
    rg_sb_printf(sb, " %d) (dim ", k);
    put_term(sb, g, nd->in[1], NULL, "");
    rg_sb_printf(sb, " %d))%s\n", k, concat ? "))" : ")");
  }
}

/* Node i's sizes, by its operator. */
static void put_node_sizes(rg_strbuf *sb, const rg_graph *g, int32_t i) {
  const rg_node *nd = rg_graph_node(g, i);
  if (nd->op == RG_OP_MATMUL)
    put_matmul_sizes(sb, g, i);
  else if (nd->op == RG_OP_CONV2D && !(nd->var_mask >> rg_op_param_slot(RG_OP_CONV2D, 6) & 1))
    put_conv_channels(sb, g, nd);
  else if (nd->op == RG_OP_ENLARGE)
    put_enlarge_bounds(sb, g, nd);
  else if (nd->op == RG_OP_SLICE)
    put_slice_bounds(sb, g, nd);
  else if (nd->op == RG_OP_BIAS)
    put_bias_vector(sb, g, nd);
  else if ((nd->op == RG_OP_CONCAT || nd->op == RG_OP_EWADD || nd->op == RG_OP_EWMUL) && nd->n_in == 2)
    put_operands_agree(sb, g, nd);
}

/* What typing the rule means for sizes: both sides of the output agree in rank and in size on
 * every axis, every matmul's sizes follow from its operands', the operands of conv2d, pooling,
 * enlarge and transpose have the rank these need, every slice of the rule lies inside
 * its operand, the operands of every concat agree in rank and off its axis and those of every
 * ewadd and ewmul in rank and on every axis, every bias's vector is as long as its operand's
 * axis. True wherever the rule type-checks (rulegen prove checks that it does
 * somewhere). Nothing is said of a term with a shape-erased constant in it (erased_below). */
static void put_size_hypotheses(rg_strbuf *sb, const rg_rule *r, int output, const bool *erased) {
  put_tensor_bounds(sb, r);
  int8_t *rk = calloc((size_t)rg_graph_size(r->g) + 1, 1);
  if (!rk) {
    sb->failed = true;
    return;
  }
  rg_forced_ranks(r->g, rk);
  put_forced_ranks(sb, r, rk);
  rg_sb_puts(sb, "(assert (= (rank ");
  put_term(sb, r->g, r->src[output], NULL, "");
  rg_sb_puts(sb, ") (rank ");
  put_term(sb, r->g, r->tgt[output], NULL, "");
  rg_sb_puts(sb, ")))\n");
  if (!output_erased(r, output, erased)) put_outputs_agree(sb, r, output, "dim");
  for (int32_t i = 0; i < rg_graph_size(r->g); i++) {
    const rg_node *nd = rg_graph_node(r->g, i);
    bool skip = false;
    for (int k = 0; k < nd->n_in; k++) skip |= erased[nd->in[k].node];
    if (skip) continue;
    put_node_ranks(sb, r, i, rk);
    put_node_sizes(sb, r->g, i);
  }
  free(rk);
}

/* Whether g has a conv2d of more than one group (a fixed count), whose output seams say where
 * its kernels' parts meet (smt_seams.c). */
static bool grouped_conv(const rg_graph *g) {
  int slot = rg_op_param_slot(RG_OP_CONV2D, 6);
  for (int32_t id = 0; id < rg_graph_size(g); id++) {
    const rg_node *nd = rg_graph_node(g, id);
    if (nd->op == RG_OP_CONV2D && !(nd->var_mask >> slot & 1) && nd->params[slot] > 1) return true;
  }
  return false;
}

/* What one obligation's text is made from. */
typedef struct {
  bool rule_ops[RG_OP_COUNT]; /* the operators of the rule */
  bool *take;                 /* the axioms asserted */
  fn_set *fs;                 /* the functions the rule and those axioms use */
  bool *erased;               /* erased_below: computed once, the size and seams hypotheses ask */
  bool sizes, seams;          /* whether size and seam facts are stated */
  bool seamed;                /* a split takes a variable apart: see put_seam_typing */
} encoding;

/* Picks the axioms (all, or those over the rule's operators) and the functions to declare. */
static void choose_axioms(const rg_rule *r, const rg_axioms *ax, bool all_axioms, encoding *e,
                          rg_obligation *out) {
  mark_fns(r->g, e->fs);
  if (!all_axioms) select_axioms(ax, e->rule_ops, e->take);
  for (int i = 0; i < ax->rules.n; i++) {
    e->take[i] |= all_axioms;
    if (e->take[i]) mark_fns(ax->rules.rules[i]->g, e->fs);
    out->n_axioms += e->take[i];
  }
  e->seams = guards_use(ax, e->take, true);
  /* a concat's seams depend on where its operands join */
  e->sizes = (e->seams && rg_smt_uses_concat(e->fs)) || guards_use(ax, e->take, false);
  uint8_t axes[64], any = 0;
  rg_split_seamed_vars(r->g, axes);
  for (int v = 0; v < 64; v++) any |= axes[v];
  e->seamed = e->seams && rg_smt_uses_concat(e->fs) && any;
}

/* Where a split takes a variable apart, its variables' seams are not those of inputs (none):
 * the rule is claimed where both sides type, so each split's operand has a seam on its axis.
 * Those are the hypotheses then, and no variable is said seamless: where typing needs one to
 * have seams (a bias's vector that meets a seamed tensor's), that would contradict them. */
static void put_seam_typing(rg_strbuf *sb, const rg_rule *r) {
  for (int32_t id = 0; id < rg_graph_size(r->g); id++) {
    const rg_node *nd = rg_graph_node(r->g, id);
    if (nd->op != RG_OP_SPLIT) continue;
    rg_sb_puts(sb, "(assert (not (= (seams ");
    put_term(sb, r->g, nd->in[0], NULL, "");
    if (nd->var_mask & 1) rg_sb_printf(sb, " p.%s) 0)))\n", rg_graph_pvar_name(r->g, nd->params[0]));
    else rg_sb_printf(sb, " %d) 0)))\n", (int)nd->params[0]);
  }
}

/* The script's head: the rule as a comment, the options and logic, the function declarations. */
static void put_header(rg_strbuf *sb, const rg_rule *r, int output, const fn_set *fs) {
  /* The obligation depends on the rule and the axioms only: not on the rule's name or its
   * line in a file, so that its hash identifies it wherever the rule is stored. */
  rg_sb_printf(sb, "; rulegen proof obligation: output %d of %d\n; ", output + 1, r->n_src);
  rg_rule unnamed = *r;
  unnamed.name[0] = 0;
  rg_text_print_rule(&unnamed, sb);
  rg_sb_puts(sb, "\n(set-option :produce-unsat-cores true)\n(set-logic UFLIA)\n(declare-sort T 0)\n");
  for (int op = 0; op < RG_OP_COUNT; op++)
    for (int ni = 0; ni <= RG_MAX_INPUTS; ni++)
      for (int o = 0; o < RG_MAX_OUTPUTS; o++) {
        if (!fs->used[op][ni][o]) continue;
        char name[64];
        fn_name((rg_op)op, ni, o, name, sizeof name);
        rg_sb_printf(sb, "(declare-fun %s (", name);
        int k = int_args((rg_op)op);
        for (int a = 0; a < k + ni; a++) rg_sb_printf(sb, "%s%s", a ? " " : "", a < k ? "Int" : "T");
        rg_sb_puts(sb, ") T)\n");
      }
}

/* The rule's part: its variables and their domains, the hypotheses, the negated goal. */
static void put_rule_part(rg_strbuf *sb, const rg_rule *r, int output, const pvar_domains *d,
                          const encoding *e) {
  for (int32_t v = 0; v < rg_graph_n_tvars(r->g); v++)
    rg_sb_printf(sb, "(declare-const t.%s T)\n", rg_graph_tvar_name(r->g, v));
  for (int32_t v = 0; v < d->n; v++) {
    rg_sb_printf(sb, "(declare-const p.%s Int)\n", rg_graph_pvar_name(r->g, v));
    if (d->has[v])
      rg_sb_printf(sb, "(assert (<= %d p.%s %d))\n", d->lo[v], rg_graph_pvar_name(r->g, v), d->hi[v]);
  }
  if (e->sizes) put_size_hypotheses(sb, r, output, e->erased);
  if (e->seamed) put_seam_typing(sb, r);
  else if (e->seams) rg_smt_put_seam_hypotheses(sb, r);
  /* only where a matmul's rank, a grouped conv's boundary or a split's part matters: elsewhere
   * they cost cvc5 seconds (a transpose of nested concats, test_verify) and rule nothing out. A
   * split's first part keeps whatever seams it had on the split's axis, where a slice of the same
   * positions has none: that the outputs' seams agree is what lets slice-whole equate them
   * ((slice 1 0 4 (ewmul ?y ?y)) => (split.0 1 (ewmul ?y ?y))) */
  if (e->seams && rg_smt_uses_concat(e->fs) &&
      (e->rule_ops[RG_OP_MATMUL] || e->rule_ops[RG_OP_SPLIT] || grouped_conv(r->g)) &&
      !output_erased(r, output, e->erased))
    put_outputs_agree(sb, r, output, "seams");
  rg_sb_puts(sb, "(assert (! (not (= ");
  put_term(sb, r->g, r->src[output], NULL, "");
  rg_sb_puts(sb, " ");
  put_term(sb, r->g, r->tgt[output], NULL, "");
  rg_sb_puts(sb, ")) :named goal))\n(check-sat)\n(get-unsat-core)\n");
}

rg_status rg_smt_axioms_make(rg_axioms *ax, rg_err *err) {
  struct rg_smt_axiom *x = calloc((size_t)ax->rules.n + 1, sizeof *x);
  rg_status st = x ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < ax->rules.n; i++) {
    rg_strbuf sb;
    rg_sb_init(&sb);
    st = put_axiom(&sb, ax->rules.rules[i], ax->guards ? &ax->guards[i] : NULL, err);
    if (!st && (sb.failed || !sb.s)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (st) {
      rg_sb_free(&sb);
    } else {
      x[i].text = sb.s, x[i].len = sb.len;
      axiom_ops(ax->rules.rules[i], &x[i]);
    }
  }
  ax->smt = x;
  if (st) rg_smt_axioms_free(ax);
  return st;
}

void rg_smt_axioms_free(rg_axioms *ax) {
  for (int i = 0; ax->smt && i < ax->rules.n; i++)
    free(ax->smt[i].text);
  free(ax->smt);
  ax->smt = NULL;
}

/* The whole script into sb, its facts named (rg_smt_name_facts) a part at a time: the axioms
 * between are named already, and come written from ax->smt where it is there. */
static rg_status put_obligation(rg_strbuf *sb, const rg_rule *r, int output, const rg_axioms *ax,
                                const encoding *e, rg_err *err) {
  put_header(sb, r, output, e->fs);
  if (e->sizes) put_size_facts(sb, e->fs);
  if (e->seams) rg_smt_put_seam_facts(sb, e->fs, e->seamed);
  int facts = 0;
  rg_status st =
      rg_smt_name_facts_from(sb, &facts) ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  size_t room = 0; /* the buffer grown once, not by doubling through the axioms */
  for (int i = 0; ax->smt && i < ax->rules.n; i++)
    room += e->take[i] ? ax->smt[i].len : 0;
  rg_sb_reserve(sb, room + 4096);
  for (int i = 0; !st && i < ax->rules.n; i++)
    if (e->take[i] && ax->smt)
      rg_sb_append(sb, ax->smt[i].text, ax->smt[i].len);
    else if (e->take[i])
      st = put_axiom(sb, ax->rules.rules[i], ax->guards ? &ax->guards[i] : NULL, err);
  pvar_domains d = {0};
  rg_strbuf rule;
  rg_sb_init(&rule);
  if (!st) st = domains_of(r->g, &d, err);
  if (!st) put_rule_part(&rule, r, output, &d, e);
  if (!st && !rg_smt_name_facts_from(&rule, &facts))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) rg_sb_append(sb, rule.s ? rule.s : "", rule.len);
  if (!st && (sb->failed || rule.failed)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_sb_free(&rule);
  domains_free(&d);
  return st;
}

rg_status rg_smt_encode(const rg_rule *r, int output, const rg_axioms *ax, bool all_axioms,
                        rg_obligation *out, rg_err *err) {
  memset(out, 0, sizeof *out);
  if (r->n_tgt == 0) return rg_err_set(err, RG_ERR_ARG, "a bare graph (no '=>') has nothing to prove");
  if (output < 0 || output >= r->n_src)
    return rg_err_set(err, RG_ERR_ARG, "output %d out of range 0..%d", output, r->n_src - 1);
  encoding e = {.take = calloc((size_t)ax->rules.n + 1, sizeof *e.take),
                .fs = calloc(1, sizeof *e.fs),
                .erased = erased_below(r->g)};
  rg_rule_ops(r, e.rule_ops);
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = (!e.take || !e.fs || !e.erased) ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
  if (!st) choose_axioms(r, ax, all_axioms, &e, out);
  if (!st) st = put_obligation(&sb, r, output, ax, &e, err);
  if (!st) {
    out->text = sb.s;
    out->len = sb.len;
    out->output = output;
    rg_sha256_hex(out->text, out->len, out->sha256);
  } else {
    rg_sb_free(&sb);
  }
  free(e.erased);
  free(e.take);
  free(e.fs);
  return st;
}

void rg_obligation_free(rg_obligation *o) {
  free(o->text);
  o->text = NULL;
}
