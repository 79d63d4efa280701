/* tests/test_optimizer_apply.c: rules applied to model graphs built by hand. TASO's merge of two
 * convolutions over one input (a two-output rule) fires where the kernels concatenate and not
 * where they do not (a target that does not type) or where the strides differ (no match); relu
 * through concat (read right to left) fires; every rewritten model computes what the original
 * does; the search finds the merge under a cost that favours fewer convolutions and is
 * deterministic; a merge that would make a cycle in TASO's graphs makes none here. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "check.h"
#include "optimizer/search/search.h"
#include "optimizer/eval/eval.h"
#include "optimizer_helpers.h"

static const char rules_text[] =
    "merge: (conv2d ?x ?w1) ; (conv2d ?x ?w2) => (split.0 1 (conv2d ?x (concat 0 ?w1 ?w2))) ; "
    "(split.1 1 (conv2d ?x (concat 0 ?w1 ?w2)))\n"
    "relu-concat: (concat 1 (relu ?x) (relu ?y)) => (relu (concat 1 ?x ?y))\n"
    "mm-merge: (matmul ?x ?y) ; (matmul ?x ?z) => (split.0 1 (matmul ?x (concat 1 ?y ?z))) ; "
    "(split.1 1 (matmul ?x (concat 1 ?y ?z)))\n";

static float *values(int64_t n, float scale) {
  float *v = malloc(sizeof *v * (size_t)n);
  for (int64_t i = 0; i < n; i++) v[i] = scale * (float)((i * 7919) % 13 - 6);
  return v;
}

static int32_t weight(rg_model *m, const char *name, int32_t o, int32_t c, int32_t kh, int32_t kw) {
  rg_shape s = rg_shape_make(4, (int32_t[]){o, c, kh, kw});
  return rg_model_add_var(m, name, RG_MVAR_WEIGHT, RG_ELEM_FLOAT, &s, values((int64_t)o * c * kh * kw, 0.05f));
}

static rg_ref conv(rg_model *m, rg_ref x, int32_t w, int stride) {
  rg_node n = rg_node_init(RG_OP_CONV2D);
  const rg_op_info *info = rg_op_get(RG_OP_CONV2D);
  for (int k = 0; k < info->n_params; k++) n.params[k] = info->params[k].def; /* (conv2d ?x ?w) */
  n.params[0] = n.params[1] = stride;
  n.n_in = 2, n.in[0] = x, n.in[1] = rg_model_var_ref(m, w);
  rg_ref r = {-1, 0};
  rg_err err;
  CHECK(rg_model_add_node(m, &n, 0, &r, &err) == RG_OK);
  return r;
}

static rg_ref unary(rg_model *m, rg_op op, rg_ref x) {
  rg_node n = rg_node_init(op);
  n.n_in = 1, n.in[0] = x;
  rg_ref r = {-1, 0};
  rg_err err;
  CHECK(rg_model_add_node(m, &n, 0, &r, &err) == RG_OK);
  return r;
}

/* x (1, 4, 6, 6); outputs: relu(conv(x, a)), relu(conv(x, b)) concatenated on channels, and
 * conv(x, c) with c's 1x3 kernel (no merge with a 3x3 one), and conv(x, d) at stride 2. */
static rg_model *two_convs(void) {
  rg_model *m = rg_model_new();
  rg_shape xs = rg_shape_make(4, (int32_t[]){1, 4, 6, 6});
  int32_t x = rg_model_add_var(m, "x", RG_MVAR_INPUT, RG_ELEM_FLOAT, &xs, NULL);
  int32_t a = weight(m, "a", 4, 4, 3, 3), b = weight(m, "b", 4, 4, 3, 3), c = weight(m, "c", 4, 4, 1, 3),
          d = weight(m, "d", 4, 4, 3, 3);
  rg_ref xr = rg_model_var_ref(m, x);
  rg_node cat = rg_node_init(RG_OP_CONCAT);
  cat.params[0] = 1, cat.n_in = 2;
  cat.in[0] = unary(m, RG_OP_RELU, conv(m, xr, a, 1)), cat.in[1] = unary(m, RG_OP_RELU, conv(m, xr, b, 1));
  rg_ref joined;
  rg_err err;
  CHECK(rg_model_add_node(m, &cat, 0, &joined, &err) == RG_OK);
  m->n_out = 3;
  m->out = malloc(3 * sizeof *m->out), m->out_name = malloc(3 * sizeof *m->out_name);
  m->out[0] = joined, m->out[1] = conv(m, xr, c, 1), m->out[2] = conv(m, xr, d, 2);
  m->out_name[0] = strdup("joined"), m->out_name[1] = strdup("narrow"), m->out_name[2] = strdup("strided");
  m->opset = 13, m->ir_version = 8;
  return m;
}

/* Every output of m seen from roots against m's own, on the same inputs. */
static double largest_difference(const rg_model *m, const rg_ref *roots) {
  rg_model *v = rg_model_view(m, roots);
  double **in = rg_model_random_inputs(m, 3, 100), *a[3] = {0}, *b[3] = {0}, worst = INFINITY;
  rg_err err;
  if (v && in && rg_model_eval(m, (const double *const *)in, a, &err) == RG_OK &&
      rg_model_eval(v, (const double *const *)in, b, &err) == RG_OK) {
    worst = 0;
    for (int o = 0; o < m->n_out; o++)
      for (int64_t i = 0; i < rg_shape_numel(rg_model_shape(m, m->out[o])); i++)
        worst = fmax(worst, fabs(a[o][i] - b[o][i]));
  }
  for (int o = 0; o < 3; o++) free(a[o]), free(b[o]);
  rg_model_inputs_free(m, in);
  rg_model_view_free(v);
  return worst;
}

typedef struct {
  rg_model *m;
  int by_rule[3];
  double worst;
} seen;

static bool count(void *ctx, const rg_application *a, const rg_ref *roots) {
  seen *s = ctx;
  s->by_rule[a->rule]++;
  s->worst = fmax(s->worst, largest_difference(s->m, roots));
  return false;
}

/* Cost: 10 per convolution, 1 per other operator, weight-only ones free. */
static rg_status conv_cost(void *ctx, const rg_model *m, const rg_ref *roots, double *cost, int64_t *ops,
                           rg_err *err) {
  (void)ctx, (void)err;
  int32_t size = rg_graph_size(m->g), n_roots = rg_model_n_roots(m);
  uint32_t *seen = calloc((size_t)size, sizeof *seen);
  int32_t *stack = calloc((size_t)size, sizeof *stack), *order = calloc((size_t)size, sizeof *order);
  uint8_t *w = calloc((size_t)size, 1);
  int32_t n = rg_graph_reach(m->g, roots, n_roots, seen, 1, stack, order);
  rg_model_weight_only(m, order, n, w);
  for (int32_t i = 0; i < n; i++) stack[order[i]] = i; /* each node's place in the order */
  *cost = 0, *ops = 0;
  for (int32_t i = 0; i < n; i++) {
    const rg_node *nd = rg_graph_node(m->g, order[i]);
    for (int k = 0; k < nd->n_in; k++) /* reached, and before its reader */
      CHECK(seen[nd->in[k].node] == 1 && stack[nd->in[k].node] < i);
    if (w[order[i]] || nd->op == RG_OP_INPUT) continue;
    *cost += nd->op == RG_OP_CONV2D ? 10 : 1;
    (*ops)++;
  }
  free(seen), free(stack), free(order), free(w);
  return RG_OK;
}

static void test_applications(rg_model *m, const rg_apply_set *set) {
  rg_ref *roots = malloc(sizeof *roots * (size_t)rg_model_n_roots(m));
  rg_model_roots(m, roots);
  seen s = {m, {0, 0, 0}, 0};
  rg_err err;
  CHECK(rg_apply_all(set, m, roots, count, &s, &err) == RG_OK);
  /* a with b, both ways round; neither with c (kernels do not concatenate) nor d (stride 2) */
  CHECK_MSG(s.by_rule[0] == 2, "merge applied %d times\n", s.by_rule[0]);
  CHECK_MSG(s.by_rule[1] == 1, "relu-concat applied %d times\n", s.by_rule[1]);
  CHECK_MSG(s.worst < 1e-12, "a rewritten model differs by %g\n", s.worst);
  free(roots);
}

static void test_search(rg_model *m, const rg_apply_set *set) {
  rg_search_opts o = {1.05, 100, 0, 2.0, conv_cost, NULL, false, NULL, 0, {0, NULL}};
  rg_search_result r[2];
  rg_err err;
  for (int run = 0; run < 2; run++) CHECK(rg_search(m, set, &o, &r[run], &err) == RG_OK);
  /* 4 convs and relu, relu, concat (43) -> a and b merged: 3 convs, a concat of kernels (free),
   * two slices, relus and the concat (or relu after it) */
  CHECK_MSG(r[0].cost_before == 43 && r[0].cost_after < 43, "cost %g -> %g\n", r[0].cost_before, r[0].cost_after);
  CHECK(r[0].n_steps >= 1 && r[0].steps[0].app.rule == 0);
  CHECK(largest_difference(m, r[0].roots) < 1e-12);
  CHECK(r[1].cost_after == r[0].cost_after && r[1].n_steps == r[0].n_steps && r[1].explored == r[0].explored);
  for (int k = 0; k < r[0].n_steps && k < r[1].n_steps; k++) CHECK(r[0].steps[k].app.rule == r[1].steps[k].app.rule);
  /* the budget its best needs: found after the original, and that budget alone finds it */
  CHECK(r[0].explored_to_best > 1 && r[0].explored_to_best <= r[0].explored);
  CHECK(r[0].seconds_to_best > 0 && r[0].seconds_to_best <= r[0].seconds);
  rg_search_result less;
  o.budget = r[0].explored_to_best;
  CHECK(rg_search(m, set, &o, &less, &err) == RG_OK);
  CHECK(less.cost_after == r[0].cost_after && less.explored == r[0].explored_to_best);
  o.budget = r[0].explored_to_best - 1; /* one fewer: not found */
  rg_search_result_free(&less);
  CHECK(rg_search(m, set, &o, &less, &err) == RG_OK);
  CHECK(less.cost_after > r[0].cost_after);
  rg_search_result_free(&less);
  for (int run = 0; run < 2; run++) rg_search_result_free(&r[run]);
}

/* TASO's cycle: merging matmul(x, W) with matmul(x, relu(matmul(x, W))) would make the merged
 * product read its own output. Here the target reads the old product instead (the graph is
 * hash-consed: no value can read itself), so the rewrite still computes what the original does,
 * costs more (the product twice), and the search keeps the original. */
static void test_no_cycle(const rg_apply_set *set) {
  rg_model *m = rg_model_new();
  rg_shape s = rg_shape_make(2, (int32_t[]){4, 4});
  int32_t x = rg_model_add_var(m, "x", RG_MVAR_INPUT, RG_ELEM_FLOAT, &s, NULL);
  int32_t w = rg_model_add_var(m, "W", RG_MVAR_WEIGHT, RG_ELEM_FLOAT, &s, values(16, 0.1f));
  rg_node mm = rg_node_init(RG_OP_MATMUL);
  mm.n_in = 2, mm.in[0] = rg_model_var_ref(m, x), mm.in[1] = rg_model_var_ref(m, w);
  rg_ref a, b;
  rg_err err;
  CHECK(rg_model_add_node(m, &mm, 0, &a, &err) == RG_OK);
  mm.in[1] = unary(m, RG_OP_RELU, a);
  CHECK(rg_model_add_node(m, &mm, 0, &b, &err) == RG_OK);
  m->n_out = 2;
  m->out = malloc(2 * sizeof *m->out), m->out_name = malloc(2 * sizeof *m->out_name);
  m->out[0] = a, m->out[1] = b, m->out_name[0] = strdup("a"), m->out_name[1] = strdup("b");
  rg_ref roots[2] = {a, b};
  seen sn = {m, {0, 0, 0}, 0};
  CHECK(rg_apply_all(set, m, roots, count, &sn, &err) == RG_OK);
  CHECK_MSG(sn.by_rule[2] == 2, "mm-merge applied %d times\n", sn.by_rule[2]);
  CHECK_MSG(sn.worst < 1e-12, "a rewritten model differs by %g\n", sn.worst);
  rg_search_opts o = {1.05, 100, 0, 2.0, conv_cost, NULL, false, NULL, 0, {0, NULL}};
  rg_search_result r;
  CHECK(rg_search(m, set, &o, &r, &err) == RG_OK);
  CHECK(r.n_steps == 0 && r.cost_after == r.cost_before);
  rg_search_result_free(&r);
  rg_model_free(m);
}

/* conv_cost less a rounding-sized amount that falls as node ids grow: each rewrite looks a
 * hair cheaper, as a sum of the same costs in another order can. */
static rg_status rounding_cost(void *ctx, const rg_model *m, const rg_ref *roots, double *cost, int64_t *ops,
                               rg_err *err) {
  rg_status st = conv_cost(ctx, m, roots, cost, ops, err);
  *cost -= 1e-13 * *cost * (double)roots[0].node;
  return st;
}

/* A model only rounding makes cheaper is no improvement: with nothing but a commutation to
 * apply, the search keeps the original. */
static void test_rounding_is_no_gain(void) {
  rg_ruleset rules;
  rg_apply_set *set = apply_set_of("(ewadd ?x ?y) => (ewadd ?y ?x)\n", &rules);
  rg_err err;
  rg_model *m = rg_model_new();
  rg_shape s = rg_shape_make(2, (int32_t[]){1, 4});
  rg_node add = rg_node_init(RG_OP_EWADD);
  add.n_in = 2;
  add.in[0] = rg_model_var_ref(m, rg_model_add_var(m, "p", RG_MVAR_INPUT, RG_ELEM_FLOAT, &s, NULL));
  add.in[1] = rg_model_var_ref(m, rg_model_add_var(m, "q", RG_MVAR_INPUT, RG_ELEM_FLOAT, &s, NULL));
  m->n_out = 1;
  m->out = malloc(sizeof *m->out), m->out_name = malloc(sizeof *m->out_name);
  CHECK(rg_model_add_node(m, &add, 0, &m->out[0], &err) == RG_OK);
  m->out_name[0] = strdup("sum");
  rg_search_opts o = {1.05, 50, 0, 2.0, rounding_cost, NULL, false, NULL, 0, {0, NULL}};
  rg_search_result r;
  if (set) {
    CHECK(rg_search(m, set, &o, &r, &err) == RG_OK);
    CHECK_MSG(r.n_steps == 0 && r.explored >= 2, "%d steps, %lld explored", r.n_steps, (long long)r.explored);
    rg_search_result_free(&r);
  }
  rg_model_free(m);
  rg_apply_set_free(set);
  rg_ruleset_free(&rules);
}

int main(void) {
  rg_ruleset rules;
  rg_apply_set *set = apply_set_of(rules_text, &rules);
  CHECK(set && rg_apply_set_size(set) == 6);
  rg_model *m = two_convs();
  if (set) {
    test_applications(m, set);
    test_search(m, set);
    test_no_cycle(set);
  }
  test_rounding_is_no_gain();
  rg_model_free(m);
  rg_apply_set_free(set);
  rg_ruleset_free(&rules);
  return check_done("test_optimizer_apply");
}
