/* verify/guard.c: axiom guards (format in guard.h). */
#include "guard.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *s, *end;
  const rg_rule *r;
  int line, col0;
  const char *start;
  rg_guard *gd;
  rg_err *err;
} gparser;

static rg_status fail(gparser *p, const char *fmt, const char *what) {
  return rg_err_at(p->err, RG_ERR_PARSE, p->line, p->col0 + (int)(p->s - p->start) + 1, fmt, what);
}

/* A limit's value as text, for fail(). */
#define RG_GUARD_STR_(x) #x
#define RG_GUARD_STR(x) RG_GUARD_STR_(x)

static void skip_space(gparser *p) {
  while (p->s < p->end && isspace((unsigned char)*p->s)) p->s++;
}

/* A word: up to whitespace or a parenthesis; returns its length. */
static size_t word(gparser *p) {
  size_t n = 0;
  while (p->s + n < p->end && !isspace((unsigned char)p->s[n]) && p->s[n] != '(' && p->s[n] != ')') n++;
  return n;
}

static int32_t add_node(gparser *p, rg_gx_kind k, int32_t a, int32_t b, int64_t v) {
  if (p->gd->n_nodes >= RG_GUARD_MAX_NODES) return -1;
  p->gd->node[p->gd->n_nodes] = (rg_gx){.kind = (uint8_t)k, .a = a, .b = b, .v = v};
  return p->gd->n_nodes++;
}

/* A variable ?NAME of the rule: its index (tensor or parameter), or a parse error. */
static rg_status variable(gparser *p, bool tensor, int32_t *idx) {
  size_t n = word(p);
  char name[64];
  if (n < 2 || p->s[0] != '?' || n - 1 >= sizeof name) return fail(p, "expected a variable ?name %s", "here");
  memcpy(name, p->s + 1, n - 1);
  name[n - 1] = 0;
  *idx = tensor ? rg_graph_find_tvar(p->r->g, name) : rg_graph_find_pvar(p->r->g, name);
  if (*idx < 0)
    return fail(p, tensor ? "guard: ?%s is not a tensor variable of the axiom" : "guard: ?%s is not a parameter variable of the axiom",
                name);
  p->s += n;
  return RG_OK;
}

static rg_status expr(gparser *p, int32_t *out);

static rg_status atom(gparser *p, int32_t *out);

/* The rest of a parenthesised form after its operator: two operands (expressions, or atoms for
 * or) and ')'. */
static rg_status binary(gparser *p, rg_gx_kind k, int32_t *out) {
  rg_status (*operand)(gparser *, int32_t *) = k == RG_GX_OR ? atom : expr;
  int32_t a, b;
  rg_status st = operand(p, &a);
  if (!st) st = operand(p, &b);
  if (st) return st;
  skip_space(p);
  if (p->s >= p->end || *p->s != ')') return fail(p, "guard: expected ')' %s", "after two operands");
  p->s++;
  *out = add_node(p, k, a, b, 0);
  return *out < 0 ? fail(p, "guard: more than %s nodes", RG_GUARD_STR(RG_GUARD_MAX_NODES)) : RG_OK;
}

static rg_status expr(gparser *p, int32_t *out) {
  skip_space(p);
  if (p->s >= p->end) return fail(p, "guard: expected an expression %s", "here");
  if (*p->s == '?') {
    int32_t v;
    rg_status st = variable(p, false, &v);
    if (st) return st;
    *out = add_node(p, RG_GX_PVAR, 0, 0, v);
  } else if (*p->s == '-' || isdigit((unsigned char)*p->s)) {
    size_t n = word(p);
    char buf[24];
    if (n >= sizeof buf) return fail(p, "guard: number %s too long", "is");
    memcpy(buf, p->s, n);
    buf[n] = 0;
    char *e;
    long long v = strtoll(buf, &e, 10);
    if (*e || e == buf) return fail(p, "guard: '%s' is not an integer", buf);
    p->s += n;
    *out = add_node(p, RG_GX_INT, 0, 0, v);
  } else if (*p->s == '(') {
    p->s++;
    skip_space(p);
    size_t n = word(p);
    const char *op = p->s;
    p->s += n;
    if (n == 1 && *op == '+') return binary(p, RG_GX_ADD, out);
    if (n == 1 && *op == '-') return binary(p, RG_GX_SUB, out);
    if (n == 3 && !memcmp(op, "mod", 3)) {
      rg_status st = binary(p, RG_GX_MOD, out);
      if (!st && (p->gd->node[p->gd->node[*out].b].kind != RG_GX_INT || p->gd->node[p->gd->node[*out].b].v < 1))
        return fail(p, "guard: (mod E N) needs a positive integer N %s", "");
      return st;
    }
    bool dim = n == 3 && !memcmp(op, "dim", 3), rank = n == 4 && !memcmp(op, "rank", 4);
    bool seams = n == 5 && !memcmp(op, "seams", 5);
    if (dim || rank || seams) { /* (dim ?x AXIS), (seams ?x AXIS), (rank ?x) */
      int32_t t, axis = 0;
      skip_space(p);
      rg_status st = variable(p, true, &t);
      if (!st && !rank) st = expr(p, &axis);
      if (st) return st;
      skip_space(p);
      if (p->s >= p->end || *p->s != ')')
        return fail(p, "guard: expected ')' %s", rank ? "after (rank ?x" : "after (dim ?x AXIS or (seams ?x AXIS");
      p->s++;
      *out = add_node(p, dim ? RG_GX_DIM : seams ? RG_GX_SEAMS : RG_GX_RANK, t, axis, 0);
    } else {
      p->s = op;
      return fail(p, "guard: unknown function (expected +, -, mod, dim, seams or rank) %s", "here");
    }
  } else {
    return fail(p, "guard: expected an integer, ?param or (...) %s", "here");
  }
  return *out < 0 ? fail(p, "guard: more than %s nodes", RG_GUARD_STR(RG_GUARD_MAX_NODES)) : RG_OK;
}

/* The rest of (shape= ?x ?y [AXIS]) after its operator. */
static rg_status shape_eq(gparser *p, int32_t *out) {
  int32_t x, y, axis = -1;
  skip_space(p);
  rg_status st = variable(p, true, &x);
  skip_space(p);
  if (!st) st = variable(p, true, &y);
  skip_space(p);
  if (!st && p->s < p->end && *p->s != ')') st = expr(p, &axis);
  if (st) return st;
  skip_space(p);
  if (p->s >= p->end || *p->s != ')') return fail(p, "guard: expected ')' %s", "after (shape= ?x ?y [AXIS]");
  p->s++;
  *out = add_node(p, RG_GX_SHAPE_EQ, x, y, axis);
  return *out < 0 ? fail(p, "guard: more than %s nodes", RG_GUARD_STR(RG_GUARD_MAX_NODES)) : RG_OK;
}

#define ATOM_FORMS "(<= E E), (< E E), (= E E), (or ATOM ATOM) or (shape= ?x ?y [AXIS])"

/* An atom: one of ATOM_FORMS. */
static rg_status atom(gparser *p, int32_t *out) {
  skip_space(p);
  if (p->s >= p->end || *p->s != '(') return fail(p, "guard: expected an atom " ATOM_FORMS " %s", "here");
  p->s++;
  skip_space(p);
  size_t n = word(p);
  rg_gx_kind k;
  if (n == 2 && !memcmp(p->s, "<=", 2)) k = RG_GX_LE;
  else if (n == 1 && *p->s == '<') k = RG_GX_LT;
  else if (n == 1 && *p->s == '=') k = RG_GX_EQ;
  else if (n == 2 && !memcmp(p->s, "or", 2)) k = RG_GX_OR;
  else if (n == 6 && !memcmp(p->s, "shape=", 6)) return p->s += n, shape_eq(p, out);
  else return fail(p, "guard: an atom is " ATOM_FORMS " %s", "");
  p->s += n;
  return binary(p, k, out);
}

/* Whether parameter variable v occurs in the nodes reachable from refs. */
static bool pvar_in(const rg_graph *g, const rg_ref *refs, int n, int32_t v) {
  uint8_t mark[4096] = {0};
  if (rg_graph_size(g) > (int32_t)sizeof mark) return true; /* too big to tell: never a definition */
  rg_graph_mark_reachable(g, refs, n, mark);
  for (int32_t i = 0; i < rg_graph_size(g); i++) {
    const rg_node *nd = rg_graph_node(g, i);
    if (!mark[i]) continue;
    for (int s = 0; s < RG_MAX_PARAMS; s++)
      if ((nd->var_mask >> s & 1) && nd->params[s] == v) return true;
  }
  return false;
}

bool rg_rule_source_binds_pvar(const rg_rule *r, int32_t v) { return pvar_in(r->g, r->src, r->n_src, v); }

/* Whether node e mentions parameter variable v. */
static bool mentions(const rg_guard *gd, int32_t e, int32_t v) {
  const rg_gx *x = &gd->node[e];
  switch (x->kind) {
  case RG_GX_INT:
  case RG_GX_RANK: return false;
  case RG_GX_PVAR: return x->v == v;
  case RG_GX_DIM:
  case RG_GX_SEAMS: return mentions(gd, x->b, v);
  case RG_GX_SHAPE_EQ: return x->v >= 0 && mentions(gd, (int32_t)x->v, v);
  default: return mentions(gd, x->a, v) || mentions(gd, x->b, v);
  }
}

rg_status rg_guard_parse(const char *text, size_t len, const rg_rule *r, int line, int col, rg_guard *out,
                         rg_err *err) {
  memset(out, 0, sizeof *out);
  gparser p = {.s = text, .end = text + len, .r = r, .line = line, .col0 = col, .start = text, .gd = out, .err = err};
  for (skip_space(&p); p.s < p.end; skip_space(&p)) {
    if (out->n_atoms >= RG_GUARD_MAX_ATOMS) return fail(&p, "guard: more than %s atoms", RG_GUARD_STR(RG_GUARD_MAX_ATOMS));
    int32_t root;
    rg_status st = atom(&p, &root);
    if (st) return st;
    rg_gx_kind k = out->node[root].kind;
    out->atom[out->n_atoms] = root;
    out->def_of[out->n_atoms] = -1;
    const rg_gx *x = &out->node[root];
    const rg_gx *lhs = &out->node[x->a];
    if (k == RG_GX_EQ && lhs->kind == RG_GX_PVAR && !rg_rule_source_binds_pvar(r, (int32_t)lhs->v)) {
      if (mentions(out, x->b, (int32_t)lhs->v) || rg_guard_def(out, (int32_t)lhs->v) >= 0)
        return fail(&p, "guard: ?%s is defined twice or by itself", rg_graph_pvar_name(r->g, (int32_t)lhs->v));
      out->def_of[out->n_atoms] = (int32_t)lhs->v;
    }
    out->n_atoms++;
  }
  if (out->n_atoms == 0) return fail(&p, "guard: 'if' needs at least one atom %s", "");
  for (int32_t v = 0; v < rg_graph_n_pvars(r->g); v++)
    if (rg_guard_def(out, v) < 0 && !rg_rule_source_binds_pvar(r, v))
      return rg_err_at(err, RG_ERR_PARSE, line, col + 1,
                       "guard: ?%s occurs only in the target: define it with (= ?%s E)",
                       rg_graph_pvar_name(r->g, v), rg_graph_pvar_name(r->g, v));
  return RG_OK;
}

/* Whether some node of the guard is of kind a or b. */
static bool has_kind(const rg_guard *gd, rg_gx_kind a, rg_gx_kind b) {
  for (int i = 0; i < gd->n_nodes; i++)
    if (gd->node[i].kind == a || gd->node[i].kind == b) return true;
  return false;
}

bool rg_guard_uses_sizes(const rg_guard *gd) {
  return has_kind(gd, RG_GX_DIM, RG_GX_RANK) || has_kind(gd, RG_GX_SHAPE_EQ, RG_GX_SHAPE_EQ);
}

bool rg_guard_uses_seams(const rg_guard *gd) { return has_kind(gd, RG_GX_SEAMS, RG_GX_SEAMS); }

int rg_guard_def(const rg_guard *gd, int32_t v) {
  for (int i = 0; i < gd->n_atoms; i++)
    if (gd->def_of[i] == v) return i;
  return -1;
}

int rg_guard_n_conditions(const rg_guard *gd) {
  int n = 0;
  for (int i = 0; i < gd->n_atoms; i++) n += gd->def_of[i] < 0;
  return n;
}

/* What (seams ?x AXIS) stands for: 0 when s has no seams on the axis, otherwise a number
 * that two shapes share exactly when their seams there are the same (a hash of the seam
 * positions: a collision would need 2^-62 luck). */
static int64_t seam_id(const rg_shape *s, int axis) {
  if (s->nseam[axis] == 0) return 0;
  uint64_t h = 1469598103934665603ull;
  for (int k = 0; k < s->nseam[axis]; k++) h = (h ^ (uint64_t)(uint32_t)s->seam[axis][k]) * 1099511628211ull;
  return (int64_t)((h >> 2) | 1);
}

/* Evaluates node e; false when it cannot be. */
static bool eval(const rg_guard *gd, const rg_shape *const *shapes, const int32_t *values, const uint8_t *bound,
                 int32_t e, int64_t *out) {
  const rg_gx *x = &gd->node[e];
  int64_t a, b;
  switch (x->kind) {
  case RG_GX_INT: *out = x->v; return true;
  case RG_GX_PVAR:
    if (!bound[x->v]) return false;
    *out = values[x->v];
    return true;
  case RG_GX_DIM:
  case RG_GX_SEAMS:
    if (!shapes[x->a] || !eval(gd, shapes, values, bound, x->b, &b)) return false;
    if (x->kind == RG_GX_SEAMS && b >= shapes[x->a]->rank && b < RG_MAX_RANK) {
      *out = 0; /* no seams past the rank, as the encoder states of the rule's tensors */
      return true;
    }
    if (b < 0 || b >= shapes[x->a]->rank) return false;
    *out = x->kind == RG_GX_DIM ? shapes[x->a]->dim[b] : seam_id(shapes[x->a], (int)b);
    return true;
  case RG_GX_RANK:
    if (!shapes[x->a]) return false;
    *out = shapes[x->a]->rank;
    return true;
  case RG_GX_SHAPE_EQ: {
    const rg_shape *sx = shapes[x->a], *sy = shapes[x->b];
    if (!sx || !sy) return false;
    int64_t axis = -1;
    if (x->v >= 0 && (!eval(gd, shapes, values, bound, (int32_t)x->v, &axis) || axis < 0 || axis >= sx->rank))
      return false;
    *out = sx->rank == sy->rank;
    for (int k = 0; *out && k < sx->rank; k++) *out = k == axis || sx->dim[k] == sy->dim[k];
    return true;
  }
  case RG_GX_OR: {
    /* Short-circuit: a true disjunct settles it even where the other names an axis past the
     * tensor's rank ((or (<= (rank ?x) 4) (= (dim ?x 4) (dim ?y 4)))). */
    bool has_a = eval(gd, shapes, values, bound, x->a, &a), has_b;
    if (has_a && a) return *out = 1, true;
    has_b = eval(gd, shapes, values, bound, x->b, &b);
    if (has_b && b) return *out = 1, true;
    if (!has_a || !has_b) return false;
    *out = 0;
    return true;
  }
  default:
    if (!eval(gd, shapes, values, bound, x->a, &a) || !eval(gd, shapes, values, bound, x->b, &b)) return false;
    switch (x->kind) {
    case RG_GX_ADD: *out = a + b; break;
    case RG_GX_SUB: *out = a - b; break;
    case RG_GX_MOD: *out = (a % b + b) % b; break; /* b > 0 (parsed so) */
    case RG_GX_LE: *out = a <= b; break;
    case RG_GX_LT: *out = a < b; break;
    default: *out = a == b; break;
    }
    return true;
  }
}

int rg_guard_apply(const rg_guard *gd, const rg_shape *const *tvar_shapes, int32_t *values, uint8_t *bound) {
  /* Definitions may use each other in any written order: settle them in rounds. */
  for (int round = 0; round < gd->n_atoms; round++)
    for (int i = 0; i < gd->n_atoms; i++) {
      if (gd->def_of[i] < 0) continue;
      int64_t v;
      if (!eval(gd, tvar_shapes, values, bound, gd->node[gd->atom[i]].b, &v)) continue;
      values[gd->def_of[i]] = (int32_t)v;
      bound[gd->def_of[i]] = 1;
    }
  for (int i = 0; i < gd->n_atoms; i++) {
    int64_t v;
    if (gd->def_of[i] >= 0) {
      if (!bound[gd->def_of[i]]) return -1;
      continue;
    }
    if (!eval(gd, tvar_shapes, values, bound, gd->atom[i], &v)) return -1;
    if (!v) return 0;
  }
  return 1;
}

int rg_guard_steer(const rg_guard *gd, const rg_shape *const *tvar_shapes, int32_t *values, uint8_t *bound) {
  int changed = 0;
  for (int i = 0; i < gd->n_atoms; i++) {
    const rg_gx *atom = &gd->node[gd->atom[i]];
    if (gd->def_of[i] >= 0 || atom->kind != RG_GX_EQ || gd->node[atom->a].kind != RG_GX_PVAR) continue;
    int64_t v;
    int32_t p = (int32_t)gd->node[atom->a].v;
    if (!eval(gd, tvar_shapes, values, bound, atom->b, &v) || (bound[p] && values[p] == v)) continue;
    values[p] = (int32_t)v;
    bound[p] = 1;
    changed++;
  }
  return changed;
}

void rg_guard_put_expr(rg_strbuf *sb, const rg_guard *gd, const rg_graph *g, int32_t e, const char *vp) {
  static const char *const ops[] = {[RG_GX_ADD] = "+", [RG_GX_SUB] = "-", [RG_GX_LE] = "<=", [RG_GX_LT] = "<", [RG_GX_EQ] = "=",
                                     [RG_GX_OR] = "or", [RG_GX_MOD] = "mod"};
  const rg_gx *x = &gd->node[e];
  switch (x->kind) {
  case RG_GX_INT:
    if (x->v < 0) rg_sb_printf(sb, "(- %lld)", -(long long)x->v);
    else rg_sb_printf(sb, "%lld", (long long)x->v);
    return;
  case RG_GX_PVAR: {
    int d = rg_guard_def(gd, (int32_t)x->v);
    if (d >= 0) rg_guard_put_expr(sb, gd, g, gd->node[gd->atom[d]].b, vp);
    else rg_sb_printf(sb, "%sp.%s", vp, rg_graph_pvar_name(g, (int32_t)x->v));
    return;
  }
  case RG_GX_DIM:
  case RG_GX_SEAMS:
    rg_sb_printf(sb, "(%s %st.%s ", x->kind == RG_GX_DIM ? "dim" : "seams", vp, rg_graph_tvar_name(g, x->a));
    rg_guard_put_expr(sb, gd, g, x->b, vp);
    rg_sb_puts(sb, ")");
    return;
  case RG_GX_RANK: rg_sb_printf(sb, "(rank %st.%s)", vp, rg_graph_tvar_name(g, x->a)); return;
  case RG_GX_SHAPE_EQ: {
    /* One rank, and each axis (but the one given) of one size: past the rank too, where the
     * encoder's facts make every size 1 (verify/smt.c), so that no disjunction over the rank is
     * needed (with one per axis, cvc5 timed out on goals it had proved in 0.1 s). */
    const char *tx = rg_graph_tvar_name(g, x->a), *ty = rg_graph_tvar_name(g, x->b);
    const rg_gx *ax = x->v >= 0 ? &gd->node[x->v] : NULL;
    rg_sb_printf(sb, "(and (= (rank %st.%s) (rank %st.%s))", vp, tx, vp, ty);
    if (ax) {
      rg_sb_puts(sb, " (< ");
      rg_guard_put_expr(sb, gd, g, (int32_t)x->v, vp);
      rg_sb_printf(sb, " (rank %st.%s))", vp, tx);
    }
    for (int k = 0; k < RG_MAX_RANK; k++) {
      if (ax && ax->kind == RG_GX_INT && ax->v == k) continue;
      bool var_axis = ax && ax->kind != RG_GX_INT;
      if (var_axis) {
        rg_sb_printf(sb, " (or (= %d ", k);
        rg_guard_put_expr(sb, gd, g, (int32_t)x->v, vp);
        rg_sb_puts(sb, ")");
      }
      rg_sb_printf(sb, " (= (dim %st.%s %d) (dim %st.%s %d))%s", vp, tx, k, vp, ty, k, var_axis ? ")" : "");
    }
    rg_sb_puts(sb, ")");
    return;
  }
  default:
    rg_sb_printf(sb, "(%s ", ops[x->kind]);
    rg_guard_put_expr(sb, gd, g, x->a, vp);
    rg_sb_puts(sb, " ");
    rg_guard_put_expr(sb, gd, g, x->b, vp);
    rg_sb_puts(sb, ")");
  }
}

void rg_guard_put_conditions(rg_strbuf *sb, const rg_guard *gd, const rg_graph *g, const char *vp) {
  int n = rg_guard_n_conditions(gd);
  if (n > 1) rg_sb_puts(sb, "(and");
  for (int i = 0; i < gd->n_atoms; i++) {
    if (gd->def_of[i] >= 0) continue;
    if (n > 1) rg_sb_puts(sb, " ");
    rg_guard_put_expr(sb, gd, g, gd->atom[i], vp);
  }
  if (n > 1) rg_sb_puts(sb, ")");
}
