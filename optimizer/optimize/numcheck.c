/* optimizer/optimize/numcheck.c: rewritten models against the original (numcheck.h). */
#include "numcheck.h"

#include <stdlib.h>
#include <string.h>

#include "optimizer/eval/eval.h"
#include "optimizer/proto/proto.h"

#define INT_MAX_DRAWN 100 /* int64 inputs no table bounds: [0, 100), as graphopt eval draws them */

const double rg_numcheck_scales[RG_NUMCHECK_SCALES] = {1, 255, 1e-3};

/* Operators whose output holds the values of their first operand (so an index keeps its range). */
static bool passes_values(const char *op) {
  static const char *const ops[] = {"Identity", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Cast", NULL};
  for (int i = 0; ops[i]; i++)
    if (!strcmp(op, ops[i])) return true;
  return false;
}

/* The input variable whose values reach r unchanged (through passes_values operators), or -1. */
static int32_t source_input(const rg_model *m, rg_ref r) {
  for (int hops = 0; hops < 64 && r.node >= 0; hops++) {
    int32_t v = rg_model_var_of(m, r);
    if (v < 0) return -1;
    if (m->var[v].kind == RG_MVAR_INPUT) return v;
    if (m->var[v].kind != RG_MVAR_OPAQUE) return -1;
    const rg_opaque *o = &m->op[m->var[v].opaque];
    if (!passes_values(o->node->op_type) || o->n_in < 1) return -1;
    r = o->in[0];
  }
  return -1;
}

int64_t *rg_numcheck_index_bounds(const rg_model *m) {
  int64_t *b = calloc((size_t)m->n_var + 1, sizeof *b);
  for (int32_t k = 0; b && k < m->n_op; k++) {
    const rg_opaque *o = &m->op[k];
    const char *op = o->node->op_type;
    if ((strcmp(op, "Gather") && strcmp(op, "GatherElements")) || o->n_in < 2 || o->in[0].node < 0) continue;
    int32_t v = source_input(m, o->in[1]);
    const rg_shape *t = rg_model_shape(m, o->in[0]);
    int64_t axis = rg_onnx_attr_int(o->node, "axis", 0);
    if (axis < 0) axis += t->rank;
    if (v < 0 || axis < 0 || axis >= t->rank) continue;
    int64_t rows = t->dim[axis];
    if (rows > 0 && (!b[v] || rows < b[v])) b[v] = rows;
  }
  return b;
}

double **rg_numcheck_inputs(const rg_model *m, uint32_t seed, int scale) {
  int64_t *bounds = rg_numcheck_index_bounds(m);
  double **in = bounds ? rg_model_random_inputs_scaled(m, seed, rg_numcheck_scales[scale], INT_MAX_DRAWN, bounds) : NULL;
  free(bounds);
  return in;
}

/* The largest relative difference between each a[i] and b[i] (n values each, shapes of refs). */
static double worst_of(const rg_model *m, const rg_ref *refs, int n, double **a, double **b) {
  double worst = 0;
  for (int i = 0; i < n; i++) {
    double d = rg_values_rel_diff(b[i], a[i], rg_shape_numel(rg_model_shape(m, refs[i])));
    if (!(d <= worst)) worst = d; /* NaN counts as the worst */
  }
  return worst;
}

static void values_free(double **v, int n) {
  for (int i = 0; v && i < n; i++) free(v[i]);
  free(v);
}

/* The relative difference of m seen from roots against m at one input scale. */
static rg_status check_at(const rg_model *m, const rg_model *v, uint32_t seed, int scale, double *worst, rg_err *err) {
  double **in = rg_numcheck_inputs(m, seed, scale);
  double **a = calloc((size_t)m->n_out + 1, sizeof *a), **b = calloc((size_t)m->n_out + 1, sizeof *b);
  rg_status st = in && a && b ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = rg_model_eval(m, (const double *const *)in, a, err);
  if (!st) st = rg_model_eval(v, (const double *const *)in, b, err);
  *worst = st ? 0 : worst_of(m, m->out, m->n_out, a, b);
  values_free(a, m->n_out), values_free(b, m->n_out);
  rg_model_inputs_free(m, in);
  return st;
}

rg_status rg_numcheck(const rg_model *m, const rg_ref *roots, uint32_t seed, double *worst, rg_err *err) {
  rg_model *v = rg_model_view(m, roots);
  rg_status st = v ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *worst = 0;
  if (!st) st = check_at(m, v, seed, 0, worst, err); /* the other scales: at each region, below */
  rg_model_view_free(v);
  return st;
}

rg_status rg_numcheck_steps(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                            int *step, double *worst, rg_err *err) {
  *step = -1, *worst = 0;
  for (int k = 0; k < r->n_steps; k++) {
    rg_status st = rg_numcheck(m, r->steps[k].roots, seed, worst, err);
    if (st) return st;
    if (!(*worst <= tolerance)) {
      *step = k;
      return RG_OK;
    }
  }
  return RG_OK;
}

/* Every step's replaced values (at) and their replacements (by), in step order, into refs;
 * returns how many (2 x the outputs of every step). */
static int region_refs(const rg_search_result *r, rg_ref *refs) {
  int n = 0;
  for (int k = 0; k < r->n_steps; k++) {
    const rg_application *a = &r->steps[k].app;
    for (int o = 0; o < a->n; o++) refs[n++] = a->at[o], refs[n++] = a->by[o];
  }
  return n;
}

/* The values of refs[0..n) into v (n slots, NULL) on the inputs drawn at one scale; alone: the
 * values opaque nodes make drawn too (numcheck.h). */
static rg_status eval_at(const rg_model *m, const rg_ref *refs, int n, uint32_t seed, int scale, bool alone, double **v,
                         rg_err *err) {
  double **in = rg_numcheck_inputs(m, seed, scale);
  bool drawn = in && (!alone || rg_model_random_opaque(m, in, seed, rg_numcheck_scales[scale]));
  rg_status st = drawn ? rg_model_eval_refs(m, (const double *const *)in, refs, n, v, err)
                       : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_model_inputs_free(m, in);
  return st;
}

/* The relative difference of the pair refs[i] (the original's value, in v[i]) and refs[i + 1]. */
static double pair_diff(const rg_model *m, const rg_ref *refs, double *const *v, int i) {
  return rg_values_rel_diff(v[i + 1], v[i], rg_shape_numel(rg_model_shape(m, refs[i])));
}

/* At one input scale: the first step whose replacement differs from what it replaced by more
 * than tolerance (*step, else left as it is) and that difference (*worst: else the largest). */
static rg_status regions_at(const rg_model *m, const rg_search_result *r, const rg_ref *refs, int n, uint32_t seed,
                            int scale, double tolerance, bool alone, int *step, double *worst, rg_err *err) {
  double **v = calloc((size_t)n + 1, sizeof *v);
  rg_status st = v ? eval_at(m, refs, n, seed, scale, alone, v, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int k = 0, i = 0; !st && k < r->n_steps && (*step < 0 || k < *step); k++) {
    int outs = r->steps[k].app.n;
    double w = 0;
    for (int o = 0; o < outs; o++, i += 2) {
      double d = pair_diff(m, refs, v, i);
      if (!(d <= w)) w = d;
    }
    if (!(w <= tolerance)) *step = k, *worst = w;
    else if (*step < 0 && w > *worst) *worst = w;
  }
  values_free(v, n);
  return st;
}

/* Regions alone leave how they compose unchecked (equality saturation reports the rewrites its
 * extraction uses, not those that led to their operands): every value m seen from roots hands
 * its outputs and opaque nodes against the original's, opaque values drawn, at every scale; the
 * largest difference into *worst when larger. */
static rg_status roots_alone(const rg_model *m, const rg_ref *roots, uint32_t seed, double *worst, rg_err *err) {
  int32_t nr = rg_model_n_roots(m);
  rg_ref *orig = malloc(sizeof *orig * ((size_t)nr + 1)), *refs = malloc(sizeof *refs * (2 * (size_t)nr + 1));
  double **v = calloc(2 * (size_t)nr + 1, sizeof *v);
  rg_status st = orig && refs && v ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int n = 0;
  if (!st) rg_model_roots(m, orig);
  for (int32_t i = 0; !st && i < nr; i++)
    if (orig[i].node != roots[i].node || orig[i].out != roots[i].out) refs[n++] = orig[i], refs[n++] = roots[i];
  for (int s = 0; !st && n && s < RG_NUMCHECK_SCALES; s++) {
    st = eval_at(m, refs, n, seed, s, true, v, err);
    for (int i = 0; !st && i < n; i += 2) {
      double d = pair_diff(m, refs, v, i);
      if (!(d <= *worst)) *worst = d;
    }
    for (int i = 0; i < n; i++) free(v[i]), v[i] = NULL;
  }
  free(orig), free(refs), free(v);
  return st;
}

rg_status rg_numcheck_regions(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance, bool alone,
                              int *step, double *worst, rg_err *err) {
  *step = -1, *worst = 0;
  int n_refs = 0;
  for (int k = 0; k < r->n_steps; k++) n_refs += 2 * r->steps[k].app.n;
  rg_ref *refs = malloc(sizeof *refs * ((size_t)n_refs + 1));
  rg_status st = refs ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) region_refs(r, refs);
  for (int s = 0; !st && n_refs && s < RG_NUMCHECK_SCALES; s++)
    st = regions_at(m, r, refs, n_refs, seed, s, tolerance, alone, step, worst, err);
  free(refs);
  if (!st && alone && *step < 0 && r->n_steps) st = roots_alone(m, r->roots, seed, worst, err);
  return st;
}

rg_status rg_numcheck_preflight(const rg_model *m, uint32_t seed, rg_numcheck_plan *plan, rg_err *err) {
  *plan = (rg_numcheck_plan){RG_NUMCHECK_WHOLE, ""};
  bool ints = false, kept = false; /* int64 inputs; values or nodes graphopt keeps without evaluating them */
  for (int32_t v = 0; v < m->n_var; v++) {
    ints |= m->var[v].kind == RG_MVAR_INPUT && m->var[v].elem != RG_ELEM_FLOAT;
    kept |= !m->var[v].typed;
  }
  for (int32_t k = 0; k < m->n_op; k++) kept |= m->op[k].why != NULL;
  if (!ints && !kept) return RG_OK; /* floats in [-1, 1) are inputs every model takes */
  double **in = rg_numcheck_inputs(m, seed, 0), **out = calloc((size_t)m->n_out + 1, sizeof *out);
  rg_err e = {0};
  rg_status st = in && out ? rg_model_eval(m, (const double *const *)in, out, &e) : RG_ERR_NOMEM;
  values_free(out, m->n_out);
  rg_model_inputs_free(m, in);
  if (st == RG_ERR_NOMEM) return rg_err_set(err, st, "out of memory");
  if (!st) return RG_OK;
  plan->mode = RG_NUMCHECK_REGIONS;
  if (kept) /* what it cannot evaluate, not the inputs it draws */
    snprintf(plan->why, sizeof plan->why, "%s", e.msg);
  else
    snprintf(plan->why, sizeof plan->why, "it cannot run the model on the inputs it draws (int64 inputs in [0, %d), or "
             "within the rows of a table a Gather reads with them directly): %s", INT_MAX_DRAWN, e.msg);
  return RG_OK;
}
