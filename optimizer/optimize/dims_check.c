/* optimizer/optimize/dims_check.c: rewrites checked at other values of a model's symbolic
 * dimensions, and those that hold only at the values imported dropped (dims_check.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "dims_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numcheck.h"
#include "optimizer/eval/eval.h"
#include "optimizer/onnx/onnx.h"
#include "onnx.pb-c.h"

struct rg_dims_checker {
  int n_names;
  const char **names;                  /* the distinct named dims (the model's strings) */
  int64_t *value[RG_DIMS_OTHER];       /* [set][name] */
  int64_t fallback[RG_DIMS_OTHER];     /* past the unnamed dims planned */
  int n_unnamed;
  int64_t *unnamed[RG_DIMS_OTHER];     /* [set][k]: the k-th dim without a name, each its own value */
  char what[RG_DIMS_OTHER][256];       /* "N=2, S=3" */
  rg_model *orig[RG_DIMS_OTHER];       /* the file read at each set */
  double **in[RG_DIMS_OTHER], **out[RG_DIMS_OTHER];
  char no_eval[RG_DIMS_OTHER][sizeof(rg_err){0}.msg]; /* why the original is not evaluated there (then types only) */
};

/* Another value than v for the k-th dim in set j, apart from the others' (1 .. RG_MAX_DIM). */
static int64_t other_value(int64_t v, int k, int j) {
  int64_t step = j ? 4 + 2 * (int64_t)k : 1 + (int64_t)k, w = v + step;
  return w <= RG_MAX_DIM ? w : v - step >= 1 ? v - step : v + 1 > RG_MAX_DIM ? v : v + 1;
}

static rg_import_opts set_opts(const rg_dims_checker *c, int j) {
  return (rg_import_opts){c->n_names, c->names, c->value[j], c->fallback[j], c->n_unnamed, c->unnamed[j]};
}

void rg_dims_checker_free(rg_dims_checker *c) {
  if (!c) return;
  for (int j = 0; j < RG_DIMS_OTHER; j++) {
    if (c->orig[j]) {
      for (int32_t i = 0; c->out[j] && i < c->orig[j]->n_out; i++) free(c->out[j][i]);
      rg_model_inputs_free(c->orig[j], c->in[j]);
    }
    free(c->out[j]), free(c->value[j]), free(c->unnamed[j]);
    rg_model_free(c->orig[j]);
  }
  free(c->names), free(c);
}

const char *rg_dims_checker_values(const rg_dims_checker *c, int j) { return c->what[j]; }

/* "N=2, S=3, unnamed dims 4, 5" for set j. */
static void describe_set(rg_dims_checker *c, int j) {
  size_t len = 0, room = sizeof c->what[j] - 40;
  for (int k = 0; k < c->n_names && len < room; k++)
    len += (size_t)snprintf(c->what[j] + len, sizeof c->what[j] - len, "%s%s=%lld", k ? ", " : "", c->names[k],
                            (long long)c->value[j][k]);
  for (int u = 0; u < c->n_unnamed && len < room; u++)
    len += (size_t)snprintf(c->what[j] + len, sizeof c->what[j] - len, "%s%lld", u ? ", " : len ? ", unnamed dims " :
                            "unnamed dims ", (long long)c->unnamed[j][u]);
}

/* The values of every set: named dims by name, each dim without a name its own (they are
 * unknowns apart: a rewrite that holds only where two of them are equal fails the check). */
static rg_status plan_values(rg_dims_checker *c, const rg_model *m, rg_err *err) {
  c->names = calloc((size_t)m->n_dims + 1, sizeof *c->names);
  for (int j = 0; j < RG_DIMS_OTHER; j++) {
    c->value[j] = calloc((size_t)m->n_dims + 1, sizeof *c->value[j]);
    c->unnamed[j] = calloc((size_t)m->n_dims + 1, sizeof *c->unnamed[j]);
    if (!c->value[j] || !c->unnamed[j]) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  if (!c->names) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t d = 0; d < m->n_dims; d++) {
    const rg_model_dim *md = &m->dims[d];
    bool seen = false;
    for (int k = 0; md->name[0] && !seen && k < c->n_names; k++) seen = !strcmp(c->names[k], md->name);
    if (seen) continue;
    int place = c->n_names + c->n_unnamed; /* values apart from every other dim's */
    for (int j = 0; j < RG_DIMS_OTHER; j++)
      *(md->name[0] ? &c->value[j][c->n_names] : &c->unnamed[j][c->n_unnamed]) = other_value(md->value, place, j);
    if (md->name[0]) c->names[c->n_names++] = md->name;
    else c->n_unnamed++;
  }
  for (int j = 0; j < RG_DIMS_OTHER; j++) {
    c->fallback[j] = other_value(RG_IMPORT_DIM_DEFAULT, c->n_names + c->n_unnamed, j);
    describe_set(c, j);
  }
  return RG_OK;
}

rg_status rg_dims_checker_new(const rg_model *m, const char *path, uint32_t seed,
                              rg_dims_checker **out, rg_err *err) {
  *out = NULL;
  if (!m->n_dims) return rg_err_set(err, RG_ERR_ARG, "%s has no symbolic dimensions", path);
  rg_dims_checker *c = calloc(1, sizeof *c);
  rg_status st = c ? plan_values(c, m, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int j = 0; !st && j < RG_DIMS_OTHER; j++) {
    rg_import_opts o = set_opts(c, j);
    rg_err e = {0};
    if ((st = rg_model_import(path, &o, &c->orig[j], &e))) {
      st = rg_err_set(err, st, "the model does not import at %s: %s", c->what[j], e.msg);
      break;
    }
    c->in[j] = rg_numcheck_inputs(c->orig[j], seed, 0);
    c->out[j] = calloc((size_t)c->orig[j]->n_out + 1, sizeof *c->out[j]);
    if (!c->in[j] || !c->out[j]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else if (rg_model_eval(c->orig[j], (const double *const *)c->in[j], c->out[j], &e)) {
      if (e.status == RG_ERR_NOMEM) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      snprintf(c->no_eval[j], sizeof c->no_eval[j], "%s", e.msg); /* then the written model is typed there only */
    }
  }
  if (st) rg_dims_checker_free(c);
  else *out = c;
  return st;
}

/* The written model w against the original at set j: the largest relative difference of the
 * outputs into *worst, the output it is at into *at; false where the inputs do not match. */
static rg_status compare(const rg_dims_checker *c, int j, const rg_model *w, double *worst, int32_t *at, rg_err *err) {
  const rg_model *o = c->orig[j];
  double **in = NULL, **wout = calloc((size_t)w->n_out + 1, sizeof *wout);
  rg_status st = wout ? rg_model_inputs_for(w, o, c->in[j], &in, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = rg_model_eval(w, (const double *const *)in, wout, err);
  *worst = 0, *at = -1;
  for (int32_t i = 0; !st && i < o->n_out; i++) {
    int32_t k = rg_model_output_match(w, o, i);
    double d = k < 0 ? INFINITY : rg_values_rel_diff(wout[k], c->out[j][i], rg_shape_numel(rg_model_shape(o, o->out[i])));
    if (!(d <= *worst)) *worst = d, *at = i;
  }
  for (int32_t i = 0; i < w->n_out; i++) free(wout[i]);
  free(wout), free(in);
  return st;
}

rg_status rg_dims_check(rg_dims_checker *c, const rg_model *m, const rg_ref *roots, double tolerance, bool *ok,
                        char *why, size_t len, rg_err *err) {
  uint8_t *buf = NULL;
  size_t n = 0;
  *ok = true, why[0] = 0;
  rg_status st = rg_model_to_bytes(m, roots, &buf, &n, err);
  for (int j = 0; !st && *ok && j < RG_DIMS_OTHER; j++) {
    rg_import_opts o = set_opts(c, j);
    rg_model *w = NULL;
    rg_err e = {0};
    if (rg_model_import_bytes("the model written", buf, n, &o, &w, &e)) {
      if (e.status == RG_ERR_NOMEM) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      else *ok = false, snprintf(why, len, "at %s %s", c->what[j], e.msg);
      continue;
    }
    double worst = 0;
    int32_t at = -1;
    if (!c->no_eval[j][0] && (st = compare(c, j, w, &worst, &at, &e))) {
      st = e.status == RG_ERR_NOMEM ? rg_err_set(err, st, "out of memory") : RG_OK;
      if (!st) *ok = false, snprintf(why, len, "at %s the model written does not run: %s", c->what[j], e.msg);
    } else if (!(worst <= tolerance))
      *ok = false, snprintf(why, len, "at %s output '%s' differs from the original's by %.3g (tolerance %g)", c->what[j],
                            c->orig[j]->out_name[at], worst, tolerance);
    rg_model_free(w);
  }
  free(buf);
  return st;
}

/* The verdict where the check passed: at each set, the outputs compared, or (the original not
 * evaluated there) the model written typed only, saying why. */
static void say_held(const rg_dims_checker *c, rg_strbuf *report) {
  for (int j = 0; j < RG_DIMS_OTHER; j++)
    if (c->no_eval[j][0])
      rg_sb_printf(report, "symbolic dims: the model written types at %s (its outputs not compared there: the original "
                   "is not evaluated: %s)\n", c->what[j], c->no_eval[j]);
    else
      rg_sb_printf(report, "symbolic dims: the model written computes the original's outputs at %s too\n", c->what[j]);
}

/* ---- the rules that hold only at the values imported, dropped ---- */

/* The search over rules less the excluded ones, into out, its steps naming rules by their index in
 * rules. */
static rg_status search_without(const rg_ruleset *rules, const bool *excluded, rg_dims_search_fn search, void *ctx,
                                rg_search_result *out, rg_err *err) {
  rg_ruleset sub = {malloc(sizeof *sub.rules * ((size_t)rules->n + 1)), 0, rules->n};
  int *index = malloc(sizeof *index * ((size_t)rules->n + 1));
  if (!sub.rules || !index) return free(sub.rules), free(index), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; i < rules->n; i++)
    if (!excluded[i]) index[sub.n] = i, sub.rules[sub.n++] = rules->rules[i];
  memset(out, 0, sizeof *out);
  rg_status st = search(ctx, &sub, out, err);
  for (int k = 0; !st && k < out->n_steps; k++) out->steps[k].app.rule = index[out->steps[k].app.rule];
  free(sub.rules), free(index); /* the rules are rules's */
  return st;
}

static void say_dropped(const rg_ruleset *rules, int rule, const char *why, rg_strbuf *report) {
  const rg_rule *r = rules->rules[rule];
  if (r->name[0]) rg_sb_printf(report, "symbolic dims: rule '%s'", r->name);
  else rg_sb_printf(report, "symbolic dims: rule %d", rule + 1);
  if (r->line) rg_sb_printf(report, " (line %d)", r->line);
  rg_sb_printf(report, " rewrote the model only at the values it was imported at (%s): its rewrites are dropped, the "
               "search run again without it\n", why);
}

/* Whether r's steps are the models of its derivation (backtracking), not each the final one. */
static bool derivation(const rg_model *m, const rg_search_result *r) {
  return r->n_steps == 1 || memcmp(r->steps[0].roots, r->roots, sizeof *r->roots * (size_t)rg_model_n_roots(m));
}

/* The rule to leave out, when r fails the check (why): the first step's that fails it, else
 * (equality saturation) the first rule used whose leaving out passes it (*next: that search's
 * result, adopted), else the first rule used. */
static rg_status culprit(rg_dims_checker *c, const rg_model *m, const rg_ruleset *rules, bool *excluded,
                         rg_dims_search_fn search, void *ctx, double tol, const rg_search_result *r, int *rule,
                         rg_search_result *next, bool *have_next, rg_err *err) {
  char why[600];
  bool ok = true;
  *rule = r->steps[0].app.rule, *have_next = false;
  if (derivation(m, r)) {
    for (int k = 0; k < r->n_steps; k++) {
      rg_status st = rg_dims_check(c, m, r->steps[k].roots, tol, &ok, why, sizeof why, err);
      if (st || !ok) return *rule = r->steps[k].app.rule, st;
    }
    return RG_OK;
  }
  for (int k = 0; k < r->n_steps; k++) {
    int rl = r->steps[k].app.rule;
    bool tried = excluded[rl];
    for (int i = 0; !tried && i < k; i++) tried = r->steps[i].app.rule == rl;
    if (tried) continue;
    excluded[rl] = true;
    rg_status st = search_without(rules, excluded, search, ctx, next, err);
    excluded[rl] = false;
    if (!st) st = rg_dims_check(c, m, next->roots, tol, &ok, why, sizeof why, err);
    if (st) return rg_search_result_free(next), st;
    if (ok) return *rule = rl, *have_next = true, RG_OK;
    rg_search_result_free(next);
  }
  return RG_OK;
}

/* r without any rewrite: the original model. */
static rg_status keep_none(const rg_model *m, rg_search_result *r, rg_err *err) {
  rg_ref *roots = malloc(sizeof *roots * ((size_t)rg_model_n_roots(m) + 1));
  if (!roots) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_model_roots(m, roots);
  for (int k = 0; k < r->n_steps; k++) free(r->steps[k].roots);
  free(r->steps), free(r->roots);
  r->steps = NULL, r->n_steps = 0, r->roots = roots, r->cost_after = r->cost_before;
  return RG_OK;
}

/* r made to hold at c's values (rg_dims_keep). */
static rg_status keep_with(rg_dims_checker *c, const rg_model *m, const rg_ruleset *rules, rg_dims_search_fn search,
                           void *ctx, double tolerance, rg_search_result *r, rg_strbuf *report, rg_err *err) {
  int dropped = 0;
  bool *excluded = calloc((size_t)rules->n + 1, sizeof *excluded);
  rg_status st = excluded ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  char why[600];
  for (int round = 0; !st && r->n_steps; round++) {
    bool ok = true, have_next = false;
    if ((st = rg_dims_check(c, m, r->roots, tolerance, &ok, why, sizeof why, err)) || ok) break;
    if (round == RG_DIMS_ROUNDS) {
      rg_sb_printf(report, "symbolic dims: after %d rules dropped the model still differs (%s): no rewrite is kept\n",
                   dropped, why);
      st = keep_none(m, r, err);
      break;
    }
    int rule;
    rg_search_result next;
    if ((st = culprit(c, m, rules, excluded, search, ctx, tolerance, r, &rule, &next, &have_next, err))) break;
    excluded[rule] = true, dropped++;
    say_dropped(rules, rule, why, report);
    if (!have_next && (st = search_without(rules, excluded, search, ctx, &next, err))) break;
    rg_search_result_free(r);
    *r = next;
  }
  free(excluded);
  return st;
}

rg_status rg_dims_keep(const rg_model *m, const char *path, uint32_t seed,
                       const rg_ruleset *rules, rg_dims_search_fn search, void *ctx, double tolerance,
                       rg_search_result *r, rg_strbuf *report, rg_err *err) {
  rg_dims_checker *c = NULL;
  rg_err e = {0};
  if (!m->n_dims || !r->n_steps) return RG_OK;
  rg_status st = rg_dims_checker_new(m, path, seed, &c, &e);
  if (st && st != RG_ERR_NOMEM)
    rg_sb_printf(report, "symbolic dims: the model written cannot be checked at other values of them (%s): no rewrite "
                 "is kept\n", e.msg);
  if (st) {
    st = st == RG_ERR_NOMEM ? rg_err_set(err, st, "%s", e.msg) : keep_none(m, r, err);
    if (st) rg_search_result_free(r);
    return st;
  }
  /* A rewrite is kept only where it is checked at the other values numerically: typing there
   * does not show that a size written at the values imported (a reshape's) is right. */
  for (int j = 0; j < RG_DIMS_OTHER; j++)
    if (c->no_eval[j][0]) {
      rg_sb_printf(report, "symbolic dims: the original is not evaluated at %s (%s), so no rewrite can be checked at "
                   "other values of them: no rewrite is kept\n", c->what[j], c->no_eval[j]);
      rg_dims_checker_free(c);
      if ((st = keep_none(m, r, err))) rg_search_result_free(r);
      return st;
    }
  st = keep_with(c, m, rules, search, ctx, tolerance, r, report, err);
  if (!st && r->n_steps) say_held(c, report);
  rg_dims_checker_free(c);
  if (st) rg_search_result_free(r);
  return st;
}

bool rg_dims_verify(const rg_model *m, const char *path, double tolerance,
                    rg_strbuf *report) {
  rg_dims_checker *c = NULL;
  rg_err e = {0};
  char why[600];
  bool ok = true;
  rg_status st = rg_dims_checker_new(m, path, 1, &c, &e);
  if (st && st != RG_ERR_NOMEM) {
    rg_sb_printf(report, "symbolic dims: note: the model written is not checked at other values of them: %s\n", e.msg);
    return true;
  }
  rg_ref *roots = st ? NULL : malloc(sizeof *roots * ((size_t)rg_model_n_roots(m) + 1));
  if (!roots) st = rg_err_set(&e, RG_ERR_NOMEM, "out of memory");
  if (!st) rg_model_roots(m, roots), st = rg_dims_check(c, m, roots, tolerance, &ok, why, sizeof why, &e);
  if (st) snprintf(why, sizeof why, "%s", e.msg), ok = false;
  if (ok) say_held(c, report);
  else
    rg_sb_printf(report, "graphopt convert: %s: the model written would not compute what it does at other values of its "
                 "symbolic dims (%s): nothing written (graphopt cannot keep them symbolic here; give them fixed values "
                 "in the model to convert it at those)\n", path, why);
  free(roots);
  rg_dims_checker_free(c);
  return ok;
}

void rg_dims_notes(const rg_model *m, rg_strbuf *sb) {
  for (int32_t k = 0; k < m->n_dims; k++) {
    const rg_model_dim *d = &m->dims[k];
    bool said = d->given;
    for (int32_t i = 0; !said && d->name[0] && i < k; i++) said = !strcmp(m->dims[i].name, d->name);
    if (said) continue;
    if (d->name[0])
      rg_sb_printf(sb, "graphopt: note: dimension '%s' (input '%s', axis %d) has no --dim: imported and optimized at "
                   "%s=%lld; the model written keeps it symbolic\n", d->name, d->input, d->axis, d->name, (long long)d->value);
    else
      rg_sb_printf(sb, "graphopt: note: input '%s' has a dimension without value or name on axis %d: imported and "
                   "optimized at %lld; the model written keeps it symbolic\n", d->input, d->axis, (long long)d->value);
  }
}
