/* tests/test_optimizer_pet.c: PET rewrites at a model's shapes (optimizer/pet/). PET's Figure 1
 * convolution at its own shapes: the mutant differs in the columns by the strip border, the
 * corrected mutant is equal on every box, both certificates pass the auditor, and the rewrite
 * computes the original's outputs; a correction one column short is refused by the certificate.
 * Every kind on a small model: found, certified, taken by both searches under a cost that
 * favours it, and the models they make compute the original's outputs; a rewrite never applies
 * at other shapes nor backwards; a model where no mutant types gets none.
 *
 * With --export DIR it also writes, for Figure 1 at its sizes and for each kind, NAME.onnx (the
 * original) and NAME.pet.onnx (the PET rewrite applied): ctest optimizer_pet_ort runs both in
 * onnxruntime and in graphopt's evaluator. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "optimizer/optimizer.h"
#include "optimizer_helpers.h"

static float *values(int64_t n) {
  float *v = malloc(sizeof *v * (size_t)n);
  for (int64_t i = 0; i < n; i++) v[i] = 0.05f * (float)((i * 7919) % 13 - 6);
  return v;
}

static rg_ref var(rg_model *m, const char *name, rg_mvar_kind kind, int32_t a, int32_t b, int32_t c, int32_t d) {
  rg_shape s = rg_shape_make(4, (int32_t[]){a, b, c, d});
  int32_t v = rg_model_add_var(m, name, kind, RG_ELEM_FLOAT, &s,
                               kind == RG_MVAR_WEIGHT ? values((int64_t)a * b * c * d) : NULL);
  return rg_model_var_ref(m, v);
}

/* (conv2d stride 1 SAME none dil dil groups x w) */
static rg_ref conv(rg_model *m, rg_ref x, rg_ref w, int32_t stride, int32_t dil) {
  rg_node n = rg_node_init(RG_OP_CONV2D);
  const rg_op_info *info = rg_op_get(RG_OP_CONV2D);
  for (int k = 0; k < info->n_params; k++) n.params[k] = info->params[k].def;
  n.params[0] = n.params[1] = stride, n.params[4] = n.params[5] = dil;
  n.n_in = 2, n.in[0] = x, n.in[1] = w;
  rg_ref r = {-1, 0};
  rg_err err;
  CHECK_MSG(rg_model_add_node(m, &n, 0, &r, &err) == RG_OK, "%s", err.msg);
  return r;
}

static rg_ref matrix(rg_model *m, const char *name, rg_mvar_kind kind, int32_t rows, int32_t cols) {
  rg_shape s = rg_shape_make(2, (int32_t[]){rows, cols});
  int32_t v = rg_model_add_var(m, name, kind, RG_ELEM_FLOAT, &s, kind == RG_MVAR_WEIGHT ? values((int64_t)rows * cols) : NULL);
  return rg_model_var_ref(m, v);
}

static rg_ref matmul(rg_model *m, rg_ref x, rg_ref w) {
  rg_node n = rg_node_init(RG_OP_MATMUL);
  n.params[0] = RG_ACT_NONE, n.n_in = 2, n.in[0] = x, n.in[1] = w;
  rg_ref r = {-1, 0};
  rg_err err;
  CHECK(rg_model_add_node(m, &n, 0, &r, &err) == RG_OK);
  return r;
}

static rg_ref concat(rg_model *m, int axis, rg_ref a, rg_ref b) {
  rg_node n = rg_node_init(RG_OP_CONCAT);
  n.params[0] = axis, n.n_in = 2, n.in[0] = a, n.in[1] = b;
  rg_ref r = {-1, 0};
  rg_err err;
  CHECK(rg_model_add_node(m, &n, 0, &r, &err) == RG_OK);
  return r;
}
static rg_ref concat_w(rg_model *m, rg_ref a, rg_ref b) { return concat(m, 3, a, b); }

static void outputs(rg_model *m, int n, const rg_ref *outs) {
  m->n_out = n;
  m->out = malloc(sizeof *m->out * (size_t)n), m->out_name = malloc(sizeof *m->out_name * (size_t)n);
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "y%d", i);
    m->out[i] = outs[i], m->out_name[i] = strdup(name);
  }
  m->opset = 13, m->ir_version = 8;
}

/* Every output of m seen from roots against m's own on the same inputs, relative to its scale. */
static double difference(const rg_model *m, const rg_ref *roots) {
  CHECK(m->n_out <= 8);
  rg_model *v = rg_model_view(m, roots);
  double **in = rg_model_random_inputs(m, 3, 100), *a[8] = {0}, *b[8] = {0}, worst = INFINITY;
  rg_err err;
  if (v && in && rg_model_eval(m, (const double *const *)in, a, &err) == RG_OK &&
      rg_model_eval(v, (const double *const *)in, b, &err) == RG_OK) {
    worst = 0;
    for (int o = 0; o < m->n_out; o++) {
      double scale = 0, diff = 0;
      for (int64_t i = 0; i < rg_shape_numel(rg_model_shape(m, m->out[o])); i++)
        scale = fmax(scale, fabs(a[o][i])), diff = fmax(diff, fabs(a[o][i] - b[o][i]));
      worst = fmax(worst, diff / (scale > 0 ? scale : 1));
    }
  }
  for (int o = 0; o < 8; o++) free(a[o]), free(b[o]);
  rg_model_inputs_free(m, in);
  rg_model_view_free(v);
  return worst;
}

typedef struct {
  rg_model *m;
  int applied;
  double worst;
  rg_ref *first; /* the roots of the first application's model (owned) */
} seen;

static bool count(void *ctx, const rg_application *a, const rg_ref *roots) {
  seen *s = ctx;
  (void)a;
  if (!s->applied++) {
    size_t n = sizeof *roots * (size_t)rg_model_n_roots(s->m);
    s->first = malloc(n);
    memcpy(s->first, roots, n);
  }
  s->worst = fmax(s->worst, difference(s->m, roots));
  return false;
}

/* Applications of rules to m, each checked against the original. */
static seen apply_rules(rg_model *m, const rg_ruleset *rules) {
  rg_apply_set *set = NULL;
  rg_err err;
  CHECK(rg_apply_set_new(rules, &set, &err) == RG_OK);
  rg_ref *roots = malloc(sizeof *roots * (size_t)rg_model_n_roots(m));
  rg_model_roots(m, roots);
  seen s = {m, 0, 0, NULL};
  CHECK(rg_apply_all(set, m, roots, count, &s, &err) == RG_OK);
  free(roots);
  rg_apply_set_free(set);
  return s;
}

static int64_t certificate_neq(const char *text) {
  int64_t n = 0;
  for (const char *p = text; (p = strstr(p, " NEQ ")); p++) n++;
  return n;
}

/* The auditor (certify/audit.h) on a certificate's text against the programs it names; says why
 * when it rejects one it should not (expect). */
static bool audits(const char *cert, const char *original, const char *program, const char *shapes, bool expect) {
  rg_cert c;
  rg_pet_pair *pp = NULL;
  rg_audit a = {0};
  rg_err err;
  CHECK(rg_cert_parse(cert, strlen(cert), &c, &err) == RG_OK);
  CHECK_MSG(rg_pet_pair_new(original, program, shapes, &pp, &err) == RG_OK, "%s", err.msg);
  CHECK(rg_cert_audit(&c, pp, NULL, &a, &err) == RG_OK);
  if (a.valid != expect) fprintf(stderr, "audit: %s\n", a.valid ? "valid" : a.why);
  rg_pet_pair_free(pp);
  rg_cert_free(&c);
  return a.valid;
}

static void export_pair(const char *dir, const char *kind, rg_model *m, const rg_ref *roots) {
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s/%s.onnx", dir, kind), snprintf(b, sizeof b, "%s/%s.pet.onnx", dir, kind);
  rg_model *v = rg_model_view(m, roots);
  rg_err err;
  CHECK_MSG(rg_model_export(m, a, &err) == RG_OK, "%s", err.msg);
  CHECK_MSG(v && rg_model_export(v, b, &err) == RG_OK, "%s", err.msg);
  rg_model_view_free(v);
}

/* PET's Figure 1 at its sizes: 1x64x56x56 input, 64x64x3x3 kernel, two strips. */
static void test_fig1(const char *export_dir) {
  rg_pet_candidate cand = {RG_MUTANT_FIG1, rg_mutant_default(), 1};
  rg_pet_find_opts o = {.trials = 3};
  rg_pet_rewrite rw;
  rg_err err;
  CHECK(rg_pet_certify(&cand, &o, &rw, &err) == RG_OK);
  CHECK_MSG(!rw.refused, "refused: %s\n", rw.why);
  CHECK_MSG(rw.neq_boxes == 6 && rw.boxes == 18 && rw.regions == 1, "%lld of %lld boxes, %lld regions\n",
            (long long)rw.neq_boxes, (long long)rw.boxes, (long long)rw.regions);
  CHECK(certificate_neq(rw.cert) == 6 && certificate_neq(rw.checked) == 0 && strlen(rw.digest) == 64);
  CHECK(strstr(rw.cert, "region 0 0:1,0:64,0:56,27:29") != NULL); /* the two columns by the border */
  CHECK(audits(rw.cert, rw.original, rw.mutant, rw.shapes, true));
  CHECK(audits(rw.checked, rw.original, rw.corrected, rw.shapes, true));
  CHECK(!audits(rw.checked, rw.original, rw.mutant, rw.shapes, false)); /* not the mutant's */

  rg_model *m = rg_model_new();
  rg_ref x = var(m, "x", RG_MVAR_INPUT, 1, 64, 56, 56), w = var(m, "w", RG_MVAR_WEIGHT, 64, 64, 3, 3);
  outputs(m, 1, (rg_ref[]){conv(m, x, w, 1, 1)});
  rg_pet_set set = {.rw = &rw, .n = 1};
  rg_ruleset rules;
  rg_ruleset_init(&rules);
  CHECK(rg_pet_rules(&set, &rules, &err) == RG_OK && rules.n == 1 && rules.rules[0]->at);
  CHECK(rg_pet_of_rule(&set, rules.rules[0]) == &rw);
  seen s = apply_rules(m, &rules);
  CHECK_MSG(s.applied == 1 && s.worst < 1e-12, "applied %d, differs by %g\n", s.applied, s.worst);
  if (export_dir && s.first) export_pair(export_dir, "fig1_pet_sizes", m, s.first);
  free(s.first);
  rg_ruleset_free(&rules);
  rg_model_free(m);

  /* one column short: the corrected mutant's certificate has a NEQ box, so it is refused */
  rg_pet_rewrite short_rw;
  o.shrink = 1;
  CHECK(rg_pet_certify(&cand, &o, &short_rw, &err) == RG_OK);
  CHECK_MSG(short_rw.refused && strstr(short_rw.why, "differs from the original"), "%s\n", short_rw.why);
  CHECK(!short_rw.checked && !short_rw.digest[0]);
  rg_pet_rewrite_free(&short_rw);
  rg_pet_rewrite_free(&rw);
}

/* Every kind: x (1,4,6,8) through a 3x3 conv (fig1), z (1,4,8,8) through a dilated one (dilated,
 * and fig1 not: dilation 2), b (2,4,6,6) through a 3x3 one (fold and fig1), and p, q (1,4,6,6)
 * through one kernel, concatenated along the width (merged; fig1 at each); r, s (6,8) through one
 * weight (8,5), stacked along the rows (mmrows), and t (6,8) through two, side by side (mmcols). */
static rg_model *every_kind(void) {
  rg_model *m = rg_model_new();
  rg_ref x = var(m, "x", RG_MVAR_INPUT, 1, 4, 6, 8), z = var(m, "z", RG_MVAR_INPUT, 1, 4, 8, 8);
  rg_ref b = var(m, "b", RG_MVAR_INPUT, 2, 4, 6, 6), p = var(m, "p", RG_MVAR_INPUT, 1, 4, 6, 6);
  rg_ref q = var(m, "q", RG_MVAR_INPUT, 1, 4, 6, 6);
  rg_ref w1 = var(m, "w1", RG_MVAR_WEIGHT, 4, 4, 3, 3), w2 = var(m, "w2", RG_MVAR_WEIGHT, 4, 4, 3, 3);
  rg_ref w3 = var(m, "w3", RG_MVAR_WEIGHT, 4, 4, 3, 3), w4 = var(m, "w4", RG_MVAR_WEIGHT, 4, 4, 3, 3);
  rg_ref r = matrix(m, "r", RG_MVAR_INPUT, 6, 8), s = matrix(m, "s", RG_MVAR_INPUT, 6, 8);
  rg_ref t = matrix(m, "t", RG_MVAR_INPUT, 6, 8), w5 = matrix(m, "w5", RG_MVAR_WEIGHT, 8, 5);
  rg_ref w6 = matrix(m, "w6", RG_MVAR_WEIGHT, 8, 5), w7 = matrix(m, "w7", RG_MVAR_WEIGHT, 8, 5);
  outputs(m, 6, (rg_ref[]){conv(m, x, w1, 1, 1), conv(m, z, w2, 1, 2), conv(m, b, w3, 1, 1),
                           concat_w(m, conv(m, p, w4, 1, 1), conv(m, q, w4, 1, 1)),
                           concat(m, 0, matmul(m, r, w5), matmul(m, s, w5)),
                           concat(m, 1, matmul(m, t, w6), matmul(m, t, w7))});
  return m;
}

/* The search's costs: 10 per SAME convolution, except over the input shape favoured (the
 * mutant's), 1 per other convolution (the corrections'); 10 per product, 1 where either operand
 * has the shape favoured; 0.01 per other operator. */
static rg_shape favoured;
static rg_status node_cost(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err) {
  (void)ctx, (void)err;
  const rg_node *nd = rg_graph_node(m->g, id);
  bool mutant = nd->op == RG_OP_CONV2D && rg_shape_dims_eq(rg_model_shape(m, nd->in[0]), &favoured);
  if (nd->op == RG_OP_MATMUL) {
    mutant = rg_shape_dims_eq(rg_model_shape(m, nd->in[0]), &favoured) ||
             rg_shape_dims_eq(rg_model_shape(m, nd->in[1]), &favoured);
    *us = mutant ? 1 : 10;
    return RG_OK;
  }
  *us = nd->op != RG_OP_CONV2D ? 0.01 : nd->params[2] == RG_PAD_SAME && !mutant ? 10 : 1;
  return RG_OK;
}

static rg_status model_cost(void *ctx, const rg_model *m, const rg_ref *roots, double *cost, int64_t *ops, rg_err *err) {
  return t_model_cost(node_cost, ctx, m, roots, cost, ops, err);
}

/* One output of every_kind alone (its others dropped), for one kind's search. */
static rg_model *only_output(int k) {
  rg_model *m = every_kind();
  m->out[0] = m->out[k];
  for (int i = 1; i < m->n_out; i++) free(m->out_name[i]);
  m->n_out = 1;
  return m;
}

/* Both searches over kind k's PET rewrites (and nothing else) under costs that favour its
 * mutant: each takes it, and computes the original's outputs. */
static void test_searches(int k, rg_mutant_kind kind, rg_shape mutant_in, const char *export_dir) {
  rg_model *m = only_output(k);
  rg_pet_set set;
  rg_err err;
  CHECK(rg_pet_find(m, &(rg_pet_find_opts){.trials = 3}, &set, &err) == RG_OK);
  rg_ruleset rules;
  rg_ruleset_init(&rules);
  CHECK(rg_pet_rules(&set, &rules, &err) == RG_OK && rules.n >= 1);
  favoured = mutant_in;
  rg_search_opts so = {1.05, 100, 0, 50.0, model_cost, NULL, false, NULL, 0, {0, NULL}}; /* a lone conv grows */
  rg_search_result r;
  CHECK(rg_search_rules(m, &rules, &so, &r, &err) == RG_OK);
  CHECK_MSG(r.n_steps >= 1 && r.cost_after < r.cost_before, "%s: backtracking %d steps\n", rg_mutant_name(kind), r.n_steps);
  const rg_pet_rewrite *rw = r.n_steps ? rg_pet_of_rule(&set, rules.rules[r.steps[0].app.rule]) : NULL;
  CHECK(rw && rw->cand.kind == kind);
  CHECK_MSG(difference(m, r.roots) < 1e-12, "%s: the searched model differs\n", rg_mutant_name(kind));
  if (export_dir) export_pair(export_dir, rg_mutant_name(kind), m, r.roots);
  rg_search_result_free(&r);
  rg_cost_iface iface = {"test", node_cost, NULL, NULL, NULL};
  rg_cost_model *cm = rg_cost_model_new(&iface, NULL);
  rg_eqsat_opts eo = {.max_enodes = 20000, .iterations = 4, .multi_rounds = 2, .cost = cm, .model_cost = model_cost,
                      .check = true};
  rg_eqsat_stats es;
  CHECK(rg_eqsat_rules(m, &rules, &eo, &r, &es, &err) == RG_OK);
  CHECK_MSG(r.n_steps >= 1 && r.cost_after < r.cost_before, "%s: eqsat %d steps\n", rg_mutant_name(kind), r.n_steps);
  CHECK(difference(m, r.roots) < 1e-12);
  rg_search_result_free(&r);
  rg_cost_model_free(cm);
  rg_ruleset_free(&rules);
  rg_pet_set_free(&set);
  rg_model_free(m);
}

static void test_every_kind(const char *export_dir) {
  rg_model *m = every_kind();
  rg_pet_candidate *c = NULL;
  int n = 0, by_kind[RG_MUTANT_COUNT] = {0};
  rg_err err;
  CHECK(rg_pet_candidates(m, &c, &n, &err) == RG_OK);
  for (int i = 0; i < n; i++) by_kind[c[i].kind]++;
  /* fig1 at x, at b, and once for p and q (one shape: two places); no fig1 at the dilated z */
  CHECK_MSG(by_kind[RG_MUTANT_FIG1] == 3 && by_kind[RG_MUTANT_DILATED] == 1 && by_kind[RG_MUTANT_FOLD] == 1 &&
                by_kind[RG_MUTANT_MERGED] == 1 && by_kind[RG_MUTANT_MMROWS] == 1 && by_kind[RG_MUTANT_MMCOLS] == 1,
            "fig1 %d dilated %d fold %d merged %d mmrows %d mmcols %d\n", by_kind[0], by_kind[1], by_kind[3], by_kind[2],
            by_kind[4], by_kind[5]);
  free(c);
  rg_pet_set set;
  CHECK(rg_pet_find(m, &(rg_pet_find_opts){.trials = 3}, &set, &err) == RG_OK && set.n == 8);
  for (int i = 0; i < set.n; i++) CHECK_MSG(!set.rw[i].refused, "%s refused: %s\n", rg_mutant_name(set.rw[i].cand.kind), set.rw[i].why);
  rg_ruleset rules;
  rg_ruleset_init(&rules);
  CHECK(rg_pet_rules(&set, &rules, &err) == RG_OK && rules.n == 8);
  for (int i = 0; i < set.n; i++) /* a product's mutant is equal everywhere: nothing to correct */
    CHECK(!rg_mutant_is_product(set.rw[i].cand.kind) || (set.rw[i].neq_boxes == 0 && set.rw[i].regions == 0));
  seen s = apply_rules(m, &rules);
  free(s.first);
  /* one place each, fig1 at p and q twice; every rewritten model computes the original's */
  CHECK_MSG(s.applied == 9 && s.worst < 1e-12, "applied %d, differs by %g\n", s.applied, s.worst);
  rg_apply_set *as = NULL;
  CHECK(rg_apply_set_new(&rules, &as, &err) == RG_OK && rg_apply_set_size(as) == 8); /* forward only */
  rg_apply_set_free(as);
  rg_ruleset_free(&rules);
  rg_pet_set_free(&set);
  rg_model_free(m);
  test_searches(0, RG_MUTANT_FIG1, rg_shape_make(4, (int32_t[]){2, 4, 6, 4}), export_dir);
  test_searches(1, RG_MUTANT_DILATED, rg_shape_make(4, (int32_t[]){4, 4, 4, 4}), export_dir);
  test_searches(2, RG_MUTANT_FOLD, rg_shape_make(4, (int32_t[]){1, 4, 6, 12}), export_dir);
  test_searches(3, RG_MUTANT_MERGED, rg_shape_make(4, (int32_t[]){1, 4, 6, 12}), export_dir);
  test_searches(4, RG_MUTANT_MMROWS, rg_shape_make(2, (int32_t[]){12, 8}), export_dir);
  test_searches(5, RG_MUTANT_MMCOLS, rg_shape_make(2, (int32_t[]){8, 10}), export_dir);
}

/* A rewrite certified at x (1,4,6,8) does not apply to a convolution of another shape whose
 * mutant would still type (1,4,4,12: the same elements), and a model with no eligible
 * convolution (stride 2, an odd width) has no candidate. */
static void test_other_shapes(void) {
  rg_model *m = every_kind();
  rg_pet_set set;
  rg_err err;
  CHECK(rg_pet_find(m, &(rg_pet_find_opts){.trials = 3}, &set, &err) == RG_OK);
  rg_ruleset rules;
  rg_ruleset_init(&rules);
  CHECK(rg_pet_rules(&set, &rules, &err) == RG_OK);
  rg_model *o = rg_model_new();
  rg_ref x = var(o, "x", RG_MVAR_INPUT, 1, 4, 4, 12), w = var(o, "w", RG_MVAR_WEIGHT, 4, 4, 3, 3);
  rg_ref y = var(o, "y", RG_MVAR_INPUT, 1, 4, 7, 7);
  outputs(o, 3, (rg_ref[]){conv(o, x, w, 1, 1), conv(o, x, w, 2, 1), conv(o, y, w, 1, 1)});
  seen s = apply_rules(o, &rules);
  free(s.first);
  CHECK_MSG(s.applied == 0, "applied %d times at other shapes\n", s.applied);
  rg_pet_set none;
  CHECK(rg_pet_find(o, &(rg_pet_find_opts){.trials = 3}, &none, &err) == RG_OK);
  CHECK_MSG(none.n == 1 && none.rw[0].cand.kind == RG_MUTANT_FIG1, "%d candidates\n", none.n); /* x's, of its own */
  rg_pet_set_free(&none);
  rg_model_free(o);
  o = rg_model_new();
  y = var(o, "y", RG_MVAR_INPUT, 1, 4, 7, 7), w = var(o, "w", RG_MVAR_WEIGHT, 4, 4, 3, 3);
  outputs(o, 2, (rg_ref[]){conv(o, y, w, 1, 1), conv(o, y, w, 2, 1)});
  CHECK(rg_pet_find(o, &(rg_pet_find_opts){.trials = 3}, &none, &err) == RG_OK && none.n == 0);
  rg_pet_set_free(&none);
  rg_model_free(o);
  rg_ruleset_free(&rules);
  rg_pet_set_free(&set);
  rg_model_free(m);
}

/* A candidate certified, and its rewrite applied to a model of that one convolution: it must
 * compute the original's output. */
static void certified_and_exact(rg_pet_candidate cand) {
  rg_pet_rewrite rw;
  rg_err err;
  CHECK(rg_pet_certify(&cand, &(rg_pet_find_opts){.trials = 3}, &rw, &err) == RG_OK);
  CHECK_MSG(!rw.refused, "%s refused: %s\n", rg_mutant_name(cand.kind), rw.why);
  const rg_mutant_dims *d = &cand.dims;
  rg_model *m = rg_model_new();
  rg_ref x = var(m, "x", RG_MVAR_INPUT, d->n, d->c, d->h, d->w);
  rg_ref w = var(m, "w", RG_MVAR_WEIGHT, d->o, d->c / (d->groups ? d->groups : 1), d->k, d->kw ? d->kw : d->k);
  rg_node n = rg_node_init(RG_OP_CONV2D);
  const rg_op_info *info = rg_op_get(RG_OP_CONV2D);
  for (int k = 0; k < info->n_params; k++) n.params[k] = info->params[k].def;
  n.params[4] = n.params[5] = d->dilation ? d->dilation : 1, n.params[6] = d->groups ? d->groups : 1;
  n.n_in = 2, n.in[0] = x, n.in[1] = w;
  rg_ref y = {-1, 0};
  CHECK_MSG(rg_model_add_node(m, &n, 0, &y, &err) == RG_OK, "%s\n", err.msg);
  outputs(m, 1, &y);
  rg_pet_set set = {.rw = &rw, .n = 1};
  rg_ruleset rules;
  rg_ruleset_init(&rules);
  CHECK(rg_pet_rules(&set, &rules, &err) == RG_OK && rules.n == 1);
  seen s = apply_rules(m, &rules);
  free(s.first);
  CHECK_MSG(s.applied == 1 && s.worst < 1e-12, "%s: applied %d, differs by %g\n", rg_mutant_name(cand.kind), s.applied,
            s.worst);
  rg_ruleset_free(&rules);
  rg_model_free(m);
  rg_pet_rewrite_free(&rw);
}

static const char *refusal(rg_pet_candidate cand, double seconds, char *why, size_t n) {
  rg_pet_rewrite rw;
  rg_err err;
  CHECK(rg_pet_certify(&cand, &(rg_pet_find_opts){.trials = 3, .seconds = seconds}, &rw, &err) == RG_OK);
  snprintf(why, n, "%s", rw.refused ? rw.why : "");
  rg_pet_rewrite_free(&rw);
  return why;
}

/* Corrections of many pieces (a 5x5 kernel's strips, a depthwise convolution's, a batch of 6
 * folded: more pieces than one concat takes), which are nested; a depthwise 5x5 kernel's regions,
 * corrected as whole strips; a mutant that differs
 * everywhere (its correction would be the original), and a certification past its time, refused. */
static void test_wide_corrections(void) {
  certified_and_exact((rg_pet_candidate){RG_MUTANT_FIG1, {1, 4, 16, 16, 4, 5, 2, 5, 1, 1}, 1});
  certified_and_exact((rg_pet_candidate){RG_MUTANT_FIG1, {1, 16, 14, 14, 16, 3, 2, 3, 1, 16}, 1});
  certified_and_exact((rg_pet_candidate){RG_MUTANT_FIG1, {1, 16, 14, 14, 16, 5, 2, 5, 1, 16}, 1}); /* strips */
  certified_and_exact((rg_pet_candidate){RG_MUTANT_FOLD, {6, 2, 4, 4, 2, 3, 2, 3, 1, 1}, 1});
  certified_and_exact((rg_pet_candidate){RG_MUTANT_FIG1, {1, 2, 6, 8, 2, 1, 2, 3, 2, 2}, 1}); /* 1x3, dilated, grouped */
  char why[600];
  CHECK_MSG(strstr(refusal((rg_pet_candidate){RG_MUTANT_FIG1, {1, 4, 6, 2, 4, 3, 2, 3, 1, 1}, 1}, 0, why, sizeof why),
                   "differs everywhere"), "width 2: '%s'\n", why);
  CHECK_MSG(strstr(refusal((rg_pet_candidate){RG_MUTANT_FIG1, {1, 8, 16, 16, 8, 3, 2, 3, 1, 1}, 1}, 1e-9, why, sizeof why),
                   "took more than"), "no time: '%s'\n", why);
}

int main(int argc, char **argv) {
  const char *export_dir = argc == 3 && !strcmp(argv[1], "--export") ? argv[2] : NULL;
  test_fig1(export_dir);
  test_every_kind(export_dir);
  test_other_shapes();
  test_wide_corrections();
  return check_done("test_optimizer_pet");
}
