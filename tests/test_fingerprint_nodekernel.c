/* tests/test_fingerprint_nodekernel.c: whole-output evaluation with rg_fp_node_kernel set in the
 * context (as random testing of candidates runs it) gives exactly the interpreter's values, in
 * float64 (real activations, summation order) and in Z_p (lazily reduced sums of products), for
 * every operator the kernels cover and for their parameters (activations, strides, paddings,
 * pooling windows, dilation, groups, permutations, split at a concat seam, enlarge, pad and
 * slice on every axis), at the given shapes
 * and at shape sets
 * the solver finds (sizes up to RG_SOLVE_MAX_DIM, long sums included). */
#include "check.h"
#include "fingerprint/fingerprint.h"

/* Evaluates every output of t's rule at binding b both ways in dom and compares bit for bit. */
static void same_both_ways(const char *text, const rg_rule *r, const rg_binding *b, rg_domain dom) {
  rg_ref outs[2 * RG_RULE_MAX_OUTPUTS];
  int n = 0;
  for (int i = 0; i < r->n_src; i++) outs[n++] = r->src[i];
  for (int i = 0; i < r->n_tgt; i++) outs[n++] = r->tgt[i];
  rg_plan *plan = NULL;
  rg_err err;
  if (rg_plan_new(r->g, outs, n, b->tvar_shapes, NULL, NULL, &plan, &err)) {
    CHECK_MSG(0, "%s: %s", text, err.msg);
    return;
  }
  int32_t nt = rg_graph_n_tvars(r->g);
  rg_value *in[16] = {0};
  for (int32_t v = 0; v < nt; v++) {
    int64_t cnt = rg_shape_numel(b->tvar_shapes[v]);
    in[v] = malloc(sizeof(rg_value) * (size_t)(cnt ? cnt : 1));
    for (int64_t i = 0; i < cnt; i++) in[v][i] = rg_random_value(dom, 99, v, i);
  }
  rg_eval_ctx plain, fast;
  rg_eval_ctx_init(&plain, 7);
  rg_eval_ctx_init(&fast, 7);
  fast.kernel = rg_fp_node_kernel;
  rg_value *ra[2 * RG_RULE_MAX_OUTPUTS] = {0}, *rb[2 * RG_RULE_MAX_OUTPUTS] = {0};
  const rg_value *const *cin = (const rg_value *const *)in;
  CHECK(rg_eval_full(plan, dom, &plain, cin, outs, n, ra, &err) == RG_OK);
  CHECK(rg_eval_full(plan, dom, &fast, cin, outs, n, rb, &err) == RG_OK);
  for (int i = 0; i < n && ra[i] && rb[i]; i++) {
    int64_t cnt = rg_shape_numel(rg_plan_shape(plan, outs[i]));
    CHECK_MSG(!memcmp(ra[i], rb[i], sizeof(rg_value) * (size_t)cnt), "%s: output %d differs in %s",
              text, i, rg_domain_name(dom));
  }
  for (int i = 0; i < n; i++) free(ra[i]), free(rb[i]);
  for (int32_t v = 0; v < nt; v++) free(in[v]);
  rg_plan_free(plan);
}

static void check_rule(const char *text, const char *shapes) {
  t_graph t;
  if (t_graph_open(&t, text, shapes)) {
    CHECK_MSG(0, "cannot open %s", text);
    return;
  }
  rg_assignment_list sets;
  rg_err err;
  if (rg_shapes_solve(t.r, &t.b, 5, 4, &sets, &err)) {
    CHECK_MSG(0, "%s: %s", text, err.msg);
    sets.n = 0;
  }
  CHECK_MSG(sets.n >= 1, "%s: %d shape sets", text, sets.n);
  for (int d = 0; d < 2; d++)
    same_both_ways(text, t.r, &t.b, (rg_domain)d); /* the given shapes */
  for (int k = 0; k < sets.n; k++)
    for (int d = 0; d < 2; d++) same_both_ways(text, t.r, &sets.items[k].binding, (rg_domain)d);
  rg_assignment_list_free(&sets);
  t_graph_close(&t);
}

int main(void) {
  check_rule("(ewadd ?x (smul ?y ?s)) => (smul (relu (ewmul ?x ?y)) ?s)", "x=2x4 y=2x4 s=scalar");
  check_rule("(tanh ?x) => (sigmoid ?x)", "x=2x4");
  const char *acts[] = {"none", "relu", "sigmoid", "tanh"};
  for (int a = 0; a < 4; a++) {
    char text[160];
    snprintf(text, sizeof text, "(matmul %s ?x ?y) => (matmul %s (transpose 10 ?y) ?x)", acts[a],
             acts[a]);
    check_rule(text, "x=4x4 y=4x4");
  }
  check_rule("(matmul (matmul ?a ?b) ?c) => ?a", "a=2x3x4 b=2x4x5 c=2x5x40");
  const char *convs[] = {"(conv2d ?i ?w)", "(conv2d 2 1 valid relu ?i ?w)",
                         "(conv2d 1 2 same tanh 2 1 ?i ?w)", "(conv2d 1 1 same sigmoid 1 2 ?i ?w)"};
  for (int k = 0; k < 4; k++) {
    char text[200];
    snprintf(text, sizeof text, "%s => (relu %s)", convs[k], convs[k]);
    check_rule(text, "i=2x4x5x5 w=4x4x3x3");
    check_rule(text, "i=2x4x5x5 w=4x4x1x3");
  }
  check_rule("(conv2d 1 1 same none 1 1 2 ?i ?w) => (relu (conv2d 1 1 same none 1 1 2 ?i ?w))",
             "i=2x4x5x5 w=4x2x3x3");
  check_rule("(conv2d ?i ?w) => ?i", "i=1x40x3x3 w=2x40x3x3"); /* 360-term sums */
  /* Z_p planes of several strips (the last one short), strided and dilated across strips, and a
   * row longer than a strip (output by output) */
  check_rule("(conv2d ?i ?w) => ?i", "i=1x2x60x40 w=2x2x3x3");
  check_rule("(conv2d 2 1 valid relu 2 1 ?i ?w) => ?i", "i=1x5x75x41 w=3x5x3x3");
  check_rule("(conv2d ?i ?w) => ?i", "i=1x1x2x1100 w=1x1x1x3");
  /* Z_p accumulators folded in the middle of a channel's taps: kernel rows of 20, 32 and 36
   * columns */
  check_rule("(conv2d ?i ?w) => ?i", "i=1x6x4x24 w=2x6x3x20");
  check_rule("(conv2d ?i ?w) => ?i", "i=1x3x2x40 w=1x3x2x32");
  check_rule("(conv2d ?i ?w) => ?i", "i=1x2x3x40 w=2x2x1x36");
  check_rule("(transpose 0213 ?i) => (transpose 3210 ?i)", "i=2x4x5x5");
  const char *pools[] = {"poolavg 3 3 1 1 same none", "poolavg 2 3 2 1 valid relu",
                         "poolmax 3 3 1 1 same none", "poolmax 3 2 1 2 same tanh",
                         "poolmax 2 2 2 2 valid sigmoid"};
  for (int k = 0; k < 5; k++) {
    char text[200];
    snprintf(text, sizeof text, "(%s ?i) => (%s (relu ?i))", pools[k], pools[k]);
    check_rule(text, "i=2x4x5x5");
  }
  check_rule("(split.1 0 (concat 0 ?x ?y)) => ?y", "x=2x4 y=3x4");
  check_rule("(split.0 1 (concat 1 ?x ?z)) => ?x", "x=2x4 z=2x3");
  check_rule("(reshape 2x8 ?x) => (reshape 2x8 (relu ?x))", "x=4x4");
  check_rule("(enlarge 5 5 ?w) => (enlarge 5 5 (relu ?w))", "w=4x4x1x3");
  check_rule("(enlarge 4 4 ?w) => (enlarge 4 4 (relu ?w))", "w=4x2x3x2");
  for (int axis = 0; axis < 4; axis++) {
    char text[200];
    snprintf(text, sizeof text, "(pad %d 1 2 ?i) => (pad %d 1 2 (relu ?i))", axis, axis);
    check_rule(text, "i=2x4x5x5");
    snprintf(text, sizeof text, "(slice %d 1 2 ?i) => (slice %d 1 2 (relu ?i))", axis, axis);
    check_rule(text, "i=2x4x5x5");
  }
  return check_done("test_fingerprint_nodekernel");
}
