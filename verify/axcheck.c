/* verify/axcheck.c: random testing of axioms (see axcheck.h). */
#include "axcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "ir/plan.h"
#include "ir/shapesolve.h"

void rg_axcheck_opts_init(rg_axcheck_opts *o) {
  o->seed = 1;
  o->assignments = 24;
  o->trials = 2;
  o->threads = 0;
  o->base = NULL;
  o->guard = NULL;
  o->source_only = true;
  o->kernel = NULL;
}

static void explain_untyped(const rg_rule *r, const rg_axcheck_opts *o, const char *solver_msg,
                            rg_axiom_verdict *v) {
  rg_rule src_only = *r; /* shares the graph; never freed */
  src_only.n_tgt = 0;
  rg_assignment_list sets;
  rg_err e;
  rg_strbuf sb;
  rg_sb_init(&sb);
  if (rg_shapes_solve(&src_only, NULL, o->seed, 1, &sets, &e) == RG_OK && sets.n > 0) {
    const rg_binding *b = &sets.items[0].binding;
    rg_eval_ctx ctx;
    rg_eval_ctx_init(&ctx, o->seed);
    rg_cmp_result c;
    rg_status cs = rg_rule_compare(r, b, RG_DOM_ZP, &ctx, o->seed, 1, &c, &e);
    if (cs) {
      rg_sb_printf(&sb, "%s; at ", e.msg);
      rg_binding_put(&sb, r->g, b);
    } else if (c.verdict != RG_CMP_AGREE) {
      rg_cmp_put_counterexample(&sb, r, b, RG_DOM_ZP, &c);
    }
  }
  if (!sb.len) rg_sb_printf(&sb, "no well-typed shapes and parameters found: %s", solver_msg);
  snprintf(v->why, sizeof v->why, "%s", rg_sb_str(&sb));
  rg_sb_free(&sb);
  rg_assignment_list_free(&sets);
}

/* Runs one assignment in both domains; on a disagreement v->why gets the counterexample. */
static rg_status run_assignment(const rg_rule *r, const rg_binding *b, const rg_axcheck_opts *o, uint64_t seed,
                                rg_axiom_verdict *v, rg_err *err) {
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, o->seed);
  ctx.kernel = o->kernel;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = RG_OK;
  for (int d = 0; v->sound && d < 2; d++) {
    rg_cmp_result c;
    rg_err cerr;
    rg_status cs = rg_rule_compare(r, b, (rg_domain)d, &ctx, seed, o->trials, &c, &cerr);
    if (cs == RG_ERR_NOMEM) {
      st = rg_err_set(err, cs, "%s", cerr.msg);
      v->sound = false;
    } else if (cs == RG_ERR_LIMIT) {
      break; /* a limit of the representation (seams nested past RG_MAX_SEAMS), not of typing */
    } else if (cs) {
      v->sound = false;
      /* rg_rule_compare prefixes the side that does not type */
      v->typed_only = !strncmp(cerr.msg, "target:", 7);
      rg_sb_printf(&sb, "%s; at ", cerr.msg);
      rg_binding_put(&sb, r->g, b);
    } else if (c.verdict == RG_CMP_TYPE && !o->source_only) {
      break; /* a rule claims nothing where its outputs differ in type */
    } else if (c.verdict != RG_CMP_AGREE) {
      v->sound = false;
      rg_cmp_put_counterexample(&sb, r, b, (rg_domain)d, &c);
    }
  }
  if (!v->sound) snprintf(v->why, sizeof v->why, "%s", rg_sb_str(&sb));
  rg_sb_free(&sb);
  return st;
}

/* Runs r at the tensor shapes `shapes` (b's, changed) and b's parameters, counting the run in
 * *runs. Skipped where the source does not type or the guard does not hold (and, without
 * source_only, where the target does not type). */
static rg_status run_variant(const rg_rule *r, const rg_binding *b, const rg_shape **ptrs, const rg_axcheck_opts *o,
                             uint64_t seed, int *runs, rg_axiom_verdict *v, rg_err *err) {
  int32_t np = rg_graph_n_pvars(r->g);
  int32_t *values = malloc(((size_t)np + 1) * sizeof *values);
  uint8_t *bound = malloc((size_t)np + 1);
  rg_status st = RG_OK;
  if (!values || !bound) {
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    goto done;
  }
  memcpy(values, b->pvar_values, (size_t)np * sizeof *values);
  memcpy(bound, b->pvar_bound, (size_t)np);
  rg_binding changed = {ptrs, values, bound};
  if (o->guard && rg_guard_apply(o->guard, ptrs, values, bound) != 1) goto done;
  for (int side = 0; side < (o->source_only ? 1 : 2); side++) {
    rg_plan *plan = NULL;
    rg_err e;
    rg_status ps = rg_rule_plan_side(r, &changed, side == 1, &plan, &e);
    rg_plan_free(plan);
    if (ps == RG_ERR_NOMEM) st = rg_err_set(err, ps, "%s", e.msg);
    if (ps) goto done;
  }
  (*runs)++;
  st = run_assignment(r, &changed, o, seed, v, err);
done:
  free(values);
  free(bound);
  return st;
}

/* A change to a binding's tensor shapes (nt of them, shapes[t] valid where ptrs[t] is set):
 * false where it does not apply. */
typedef bool (*shape_change)(rg_shape *shapes, const rg_shape **ptrs, int32_t nt, int a, int pick);

/* Runs r again at b's tensor shapes changed by `change` (a, pick its arguments), counting the
 * run in *runs; skipped where the change does not apply (and as run_variant skips). */
static rg_status run_changed(const rg_rule *r, const rg_binding *b, shape_change change, int a, int pick,
                             const rg_axcheck_opts *o, uint64_t seed, int *runs, rg_axiom_verdict *v, rg_err *err) {
  int32_t nt = rg_graph_n_tvars(r->g);
  rg_shape *shapes = malloc(((size_t)nt + 1) * sizeof *shapes);
  const rg_shape **ptrs = malloc(((size_t)nt + 1) * sizeof *ptrs);
  rg_status st = RG_OK;
  if (!shapes || !ptrs) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t t = 0; !st && t < nt; t++) {
    ptrs[t] = b->tvar_shapes[t] ? &shapes[t] : NULL;
    if (b->tvar_shapes[t]) shapes[t] = *b->tvar_shapes[t];
  }
  if (!st && change(shapes, ptrs, nt, a, pick)) st = run_variant(r, b, ptrs, o, seed, runs, v, err);
  free(shapes);
  free(ptrs);
  return st;
}

/* Seams added: with `axis` >= 0, every tensor variable that has 2 or more positions on that
 * axis is cut (where two variables meet, their seams then agree only where they are cut alike);
 * otherwise only the pick-th (variable, axis) of 2 or more positions is, counting round (then
 * they differ). Where a cut falls is drawn from `pick`: anywhere, not only in the middle (a
 * grouped conv keeps an output seam only on a group boundary, which the middle always is), and
 * on axes of 3 or more positions sometimes two cuts, in either order (the order is the split
 * tree's). Does not apply where nothing can be cut. */
static bool add_seams(rg_shape *shapes, const rg_shape **ptrs, int32_t nt, int axis, int pick) {
  int places = 0, cuts = 0;
  uint64_t h = rg_mix64((uint64_t)pick * 0x9e3779b97f4a7c15u + (uint64_t)(axis + 1));
  for (int32_t t = 0; t < nt; t++)
    for (int d = 0; ptrs[t] && d < shapes[t].rank; d++) places += shapes[t].dim[d] >= 2;
  for (int32_t t = 0, k = 0; t < nt; t++) {
    for (int d = 0; ptrs[t] && d < shapes[t].rank; d++) {
      int32_t n = shapes[t].dim[d];
      if (n < 2 || shapes[t].nseam[d]) continue;
      if (axis >= 0 ? d != axis : k++ != pick % (places ? places : 1)) continue;
      /* one draw for all variables cut on `axis` (so that equal sizes get equal cuts) */
      uint64_t r = axis >= 0 ? h : rg_mix64(h + (uint64_t)t);
      int32_t at = 1 + (int32_t)(r % (uint64_t)(n - 1));
      shapes[t].nseam[d] = 1;
      shapes[t].seam[d][0] = at;
      if (n >= 3 && (r >> 20) % 3 == 0) { /* a second cut, inner or outer */
        int32_t at2 = 1 + (int32_t)((r >> 24) % (uint64_t)(n - 1));
        if (at2 != at) {
          shapes[t].nseam[d] = 2;
          shapes[t].seam[d][(r >> 40) & 1] = at2;
          shapes[t].seam[d][!((r >> 40) & 1)] = at;
        }
      }
      cuts++;
    }
  }
  return cuts > 0;
}

/* `extra` trailing axes (of size 2, then 3; with `vary` set, 2 and 3 from one variable to the
 * next, so that a guard equating them is put to the test) on every tensor variable but scalars:
 * the shape solver draws ranks up to 4, and an axiom that claims ranks 5 and 6 (pad-zeros-0's
 * (or (<= (rank ?x) 4) (= (dim ?x 4) (dim ?y 4)))) is tested there only this way. Does not
 * apply where a variable would pass rank 6 (a conv's operands, which must stay 4-D, make the
 * run skip: they no longer type). */
static bool add_axes(rg_shape *shapes, const rg_shape **ptrs, int32_t nt, int extra, int vary) {
  for (int32_t t = 0; t < nt; t++)
    if (ptrs[t] && shapes[t].rank + extra > RG_MAX_RANK) return false;
  for (int32_t t = 0; t < nt; t++) {
    if (!ptrs[t] || shapes[t].rank == 0) continue; /* a scalar (smul's) stays one */
    int32_t dims[RG_MAX_RANK];
    int rank = shapes[t].rank;
    for (int d = 0; d < rank + extra; d++) dims[d] = d < rank ? shapes[t].dim[d] : 2 + (d - rank + (vary ? t : 0)) % 2;
    rg_shape lifted = rg_shape_make(rank + extra, dims);
    for (int d = 0; d < rank; d++) {
      lifted.nseam[d] = shapes[t].nseam[d];
      memcpy(lifted.seam[d], shapes[t].seam[d], sizeof lifted.seam[d]);
    }
    shapes[t] = lifted;
  }
  return true;
}

/* The shape solver's base rank depends on its seed, and one base may allow only a few distinct
 * assignments (ewadd-assoc: one dimension group; ewadd-comm got 9 of 24 with 8 seeds): further
 * seeds add more, up to this many. */
#define SEED_TRIES 64

/* One direction's run: the rule, its options and verdict, the two rules shapes are solved for,
 * and what the assignments share. */
typedef struct {
  const rg_rule *r;
  const rg_axcheck_opts *o;
  rg_axiom_verdict *v;
  /* An axiom is tried wherever its source types and its guard holds: there its target must
   * type too, with the same output type, and agree (the SMT encoding relies on the guard alone,
   * verify/guard.h). Shapes solved for the source alone are the ones that find a target that
   * does not type; a guard relating several sizes (concat-conv-grouped: seven) rarely holds
   * there, so every other seed solves for both sides, where it holds more often. */
  rg_rule source, both; /* share r's graph; never freed */
  int32_t n_pvars;
  int32_t *values; /* the guard's parameter values */
  uint8_t *bound;
  rg_strbuf seen; /* "\n" + binding text + "\n" of each assignment run */
} direction;

/* Whether the guard (if any) holds at *b, with its defined parameters set (b then points at
 * dr's values); counts the assignments it skips. */
static bool guard_admits(direction *dr, rg_binding *b, const rg_rule *solve_for) {
  const rg_guard *g = dr->o->guard;
  if (!g || !g->n_atoms) return true;
  /* Defined parameters take their values from the others; a guard that fails skips. */
  memcpy(dr->values, b->pvar_values, (size_t)dr->n_pvars * sizeof *dr->values);
  memcpy(dr->bound, b->pvar_bound, (size_t)dr->n_pvars);
  int holds = rg_guard_apply(g, b->tvar_shapes, dr->values, dr->bound);
  b->pvar_values = dr->values;
  b->pvar_bound = dr->bound;
  /* A guard that pins a parameter to sizes (reshape-same-4: ?s.1 is x's size on axis 0)
   * rarely holds at random: move the parameters there, where the source still types. */
  if (holds == 0 && rg_guard_steer(g, b->tvar_shapes, dr->values, dr->bound) &&
      rg_rule_well_typed(solve_for, b))
    holds = rg_guard_apply(g, b->tvar_shapes, dr->values, dr->bound);
  if (holds != 1) {
    dr->v->guard_skipped++;
    return false;
  }
  /* Defined parameters are the target's, read left to right; right to left they are the
   * source's, and their defined values may not type it. */
  return rg_rule_well_typed(&dr->source, b);
}

/* Runs assignment b, unless it ran before: as drawn, with seams cut, with axes added. */
static rg_status run_new(direction *dr, const rg_binding *b, rg_err *err) {
  const rg_axcheck_opts *o = dr->o;
  rg_axiom_verdict *v = dr->v;
  rg_strbuf key;
  rg_sb_init(&key);
  rg_sb_puts(&key, "\n");
  rg_binding_put(&key, dr->r->g, b);
  rg_sb_puts(&key, "\n");
  rg_status st = RG_OK;
  if (!strstr(rg_sb_str(&dr->seen), rg_sb_str(&key))) {
    rg_sb_puts(&dr->seen, rg_sb_str(&key) + 1);
    uint64_t seed = o->seed + (uint64_t)v->assignments * 7919;
    v->assignments++;
    st = run_assignment(dr->r, b, o, seed, v, err);
    int nth = v->assignments - 1; /* picks the axis, then the (variable, axis), to cut */
    if (!st && v->sound) st = run_changed(dr->r, b, add_seams, nth % RG_MAX_RANK, 0, o, seed + 1, &v->seamed, v, err);
    if (!st && v->sound) st = run_changed(dr->r, b, add_seams, -1, nth, o, seed + 2, &v->seamed, v, err);
    if (!st && v->sound)
      st = run_changed(dr->r, b, add_axes, 1 + nth % 2, nth / 2 % 2, o, seed + 3, &v->lifted, v, err);
  }
  rg_sb_free(&key);
  return st;
}

/* Draws the assignments of seed try t and runs those the guard admits; the solver's error on
 * try 0 into *first_err. */
static rg_status run_seed(direction *dr, int t, rg_err *first_err, rg_err *err) {
  const rg_axcheck_opts *o = dr->o;
  rg_axiom_verdict *v = dr->v;
  rg_assignment_list sets;
  rg_err serr;
  rg_status st = RG_OK;
  const rg_rule *solve_for = o->source_only && t / 2 % 2 == 0 ? &dr->source : &dr->both;
  /* Every other seed draws small sizes (1 and 2, where a rule true only from some size on
   * differs), and every other pair walks from a base of its own rather than the one given
   * (which keeps the given one's structure); the first four seeds give at most a quarter of
   * the assignments each, so that every kind is drawn. */
  rg_status (*draw)(const rg_rule *, const rg_binding *, uint64_t, int, rg_assignment_list *, rg_err *) =
      t % 2 ? rg_shapes_solve_small : rg_shapes_solve;
  int per_seed = t < 4 && o->assignments >= 16 ? o->assignments / 4 : o->assignments;
  rg_status ss = draw(solve_for, t / 2 % 2 == 0 ? o->base : NULL, o->seed + (uint64_t)t, per_seed, &sets, &serr);
  if (ss == RG_ERR_NOMEM) st = rg_err_set(err, ss, "%s", serr.msg);
  if (ss && t == 0) *first_err = serr;
  for (int k = 0; !ss && !st && v->sound && k < sets.n && v->assignments < o->assignments; k++) {
    rg_binding b = sets.items[k].binding;
    if (guard_admits(dr, &b, solve_for)) st = run_new(dr, &b, err);
  }
  rg_assignment_list_free(&sets);
  return st;
}

/* Runs r as rg_axiom_check_one does in one direction (source to target), into v. */
static rg_status check_direction(const rg_rule *r, const rg_axcheck_opts *o, rg_axiom_verdict *v, rg_err *err) {
  direction dr = {.r = r, .o = o, .v = v, .source = *r, .both = *r, .n_pvars = rg_graph_n_pvars(r->g)};
  dr.source.n_tgt = 0;
  rg_sb_init(&dr.seen);
  rg_sb_puts(&dr.seen, "\n");
  rg_status st = RG_OK;
  rg_err first_err = {0};
  dr.values = calloc((size_t)dr.n_pvars + 1, sizeof *dr.values);
  dr.bound = calloc((size_t)dr.n_pvars + 1, 1);
  if (!dr.values || !dr.bound) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int t = 0; !st && v->sound && t < SEED_TRIES && v->assignments < o->assignments; t++)
    st = run_seed(&dr, t, &first_err, err);
  if (!st && v->sound && v->assignments == 0 && v->guard_skipped > 0) {
    v->sound = false;
    snprintf(v->why, sizeof v->why, "its guard held at none of the %d well-typed assignments found", v->guard_skipped);
  } else if (!st && v->sound && v->assignments == 0) {
    v->sound = false;
    explain_untyped(r, o, first_err.msg, v);
  }
  free(dr.values);
  free(dr.bound);
  rg_sb_free(&dr.seen);
  return st;
}

/* Whether g has a constant whose shape is a parameter (Iewmul's, erased in SMT). */
static bool has_erased_shape(const rg_graph *g) {
  for (int32_t id = 0; id < rg_graph_size(g); id++) {
    const rg_node *nd = rg_graph_node(g, id);
    const rg_op_info *oi = rg_op_get(nd->op);
    for (int p = 0; (oi->flags & RG_OPF_CONSTANT) && p < oi->n_params; p++)
      if (oi->params[p].kind == RG_PK_SHAPE) return true;
  }
  return false;
}

rg_status rg_axiom_check_one(const rg_rule *r, const rg_axcheck_opts *o, rg_axiom_verdict *v,
                             rg_err *err) {
  memset(v, 0, sizeof *v);
  v->sound = true;
  if (r->n_tgt == 0) {
    v->sound = false;
    snprintf(v->why, sizeof v->why, "no '=> target' to compare");
    return RG_OK;
  }
  rg_status st = check_direction(r, o, v, err);
  if (st || !v->sound || !o->source_only) return st;
  /* An axiom is an equation: a solver uses it either way round, so where its target types (and
   * its guard holds) its source must type too. concat-ewmul read backwards made a product of
   * two concats split at different places a concat of products (of operands whose shapes
   * differ), and both solvers proved a false rule from it. */
  rg_rule reversed = *r; /* shares the graph; never freed */
  memcpy(reversed.src, r->tgt, sizeof reversed.src);
  memcpy(reversed.tgt, r->src, sizeof reversed.tgt);
  rg_axcheck_opts ro = *o;
  ro.base = NULL;
  /* An all-ones of an erased shape (Iewmul) is one SMT symbol, all-ones of whatever shape
   * types its term: right to left, it is checked where both sides type. */
  ro.source_only = !has_erased_shape(r->g);
  rg_axiom_verdict back;
  memset(&back, 0, sizeof back);
  back.sound = true;
  st = check_direction(&reversed, &ro, &back, err);
  v->assignments += back.assignments;
  v->guard_skipped += back.guard_skipped;
  v->seamed += back.seamed;
  v->lifted += back.lifted;
  if (!st && !back.sound) {
    v->sound = false;
    v->typed_only = back.typed_only;
    snprintf(v->why, sizeof v->why, "read right to left: %.740s", back.why);
  }
  return st;
}

rg_status rg_axioms_check(const rg_axioms *ax, const rg_axcheck_opts *o, rg_axiom_verdict *verdicts,
                          int *n_unsound, rg_err *err) {
  int n = ax->rules.n, bad = 0;
  rg_status st = RG_OK;
  int nth = o->threads > 0 ? o->threads : 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nth > 0 ? nth : omp_get_max_threads()) reduction(+ : bad)
  for (int i = 0; i < n; i++) {
    rg_err e;
    rg_axcheck_opts oi = *o;
    oi.guard = ax->guards && ax->guards[i].n_atoms ? &ax->guards[i] : NULL;
    rg_status s = rg_axiom_check_one(ax->rules.rules[i], &oi, &verdicts[i], &e);
    if (s) {
#pragma omp critical(rg_axcheck_err)
      if (!st) {
        st = s;
        if (err) *err = e;
      }
    }
    bad += !verdicts[i].sound;
  }
  *n_unsound = bad;
  return st;
}
