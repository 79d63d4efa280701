/* tests/test_ir_interp.c: the interpreters against each other.
 *  - differential: on small integer inputs, Z_p and float64 agree on every linear and
 *    multilinear op (nothing wraps, so the field value is the integer);
 *  - single-element evaluation equals whole-output evaluation at random positions, for every
 *    op, in both domains;
 *  - single-element evaluation reads only the input elements in the position's cone;
 *  - rule comparison finds the first differing position;
 *  - the wide domain Z_q (q = 2^127-1): its arithmetic against GMP, the same differential
 *    against float64, single elements against whole outputs, fused = standalone activations. */
#include <gmp.h>

#include "check.h"

static rg_eval_ctx ctx;

typedef struct {
  const char *graph, *shapes;
} g_case;

/* Linear and multilinear graphs (no activation, no averaging). */
static const g_case linear[] = {
    {"(ewadd ?x ?y)", "x=3x4 y=3x4"},
    {"(ewmul ?x ?y)", "x=3x4 y=3x4"},
    {"(smul ?x ?s)", "x=3x4 s=scalar"},
    {"(matmul ?x ?y)", "x=3x4 y=4x5"},
    {"(matmul ?x ?y)", "x=2x3x4 y=2x4x2"},
    {"(conv2d ?x ?w)", "x=2x4x5x5 w=4x4x3x3"},
    {"(conv2d 1 1 valid none ?x ?w)", "x=2x4x5x5 w=4x4x3x1"},
    {"(conv2d 2 2 same none ?x ?w)", "x=1x2x6x5 w=3x2x3x3"},
    {"(conv2d 1 1 same none 1 1 2 ?x ?w)", "x=1x4x4x4 w=6x2x1x3"},
    {"(transpose 10 ?x)", "x=3x4"},
    {"(transpose 2031 ?x)", "x=2x3x4x5"},
    {"(enlarge 3 3 ?w)", "w=4x4x1x3"},
    {"(enlarge 5 3 ?w)", "w=2x2x2x1"},
    {"(concat 0 ?x ?y)", "x=2x4 y=3x4"},
    {"(concat 1 ?x ?y ?x)", "x=2x4 y=2x1"},
    {"(split.0 1 (concat 1 ?x ?y))", "x=2x4 y=2x3"},
    {"(split.1 1 (concat 1 ?x ?y))", "x=2x4 y=2x3"},
    {"(reshape 4x3 ?x)", "x=2x6"},
    {"(ewmul ?x (Iewmul 2x3))", "x=2x3"},
    {"(matmul ?x (Imatmul 3))", "x=2x3"},
    {"(conv2d ?x (Iconv 4 3 3))", "x=1x4x5x5"},
    {"(matmul (transpose 10 (matmul ?x ?y)) (concat 1 ?x ?x))", "x=3x4 y=4x3"},
    {"(conv2d 1 1 same none 2 2 ?x ?w)", "x=1x2x7x6 w=3x2x3x3"},
    {"(conv2d 2 1 valid none 2 3 2 ?x ?w)", "x=2x2x9x8 w=2x1x2x3"},
    {"(pad 1 2 1 ?x)", "x=2x3x2"},
    {"(pad 0 0 3 (slice 1 1 3 ?x))", "x=2x4"},
    {"(slice 2 1 4 (conv2d ?x ?w))", "x=1x2x5x5 w=2x2x3x3"},
    {"(bias ?x ?b)", "x=2x3x4x2 b=3"},
    {"(bias 0 (matmul ?x ?y) ?b)", "x=3x4 y=4x5 b=3"},
    {"(bias 2 (concat 2 ?x ?x) ?b)", "x=2x3x2 b=4"},
};

/* The rest: activations, pooling, averaging constants, fused activations. */
static const g_case nonlinear[] = {
    {"(relu ?x)", "x=3x4"},
    {"(tanh ?x)", "x=3x4"},
    {"(sigmoid ?x)", "x=3x4"},
    {"(poolavg 3 3 1 1 same none ?x)", "x=2x3x5x5"},
    {"(poolavg 2 2 2 2 valid relu ?x)", "x=1x2x5x4"},
    {"(poolmax 3 3 1 1 same none ?x)", "x=2x3x5x5"},
    {"(poolmax 3 1 2 1 same tanh ?x)", "x=1x2x5x4"},
    {"(conv2d 1 1 same relu ?x ?w)", "x=2x4x5x5 w=4x4x3x3"},
    {"(matmul sigmoid ?x ?y)", "x=3x4 y=4x2"},
    {"(conv2d ?x (Cpool 4 3 3))", "x=1x4x5x5"},
    {"(relu (split.1 0 (concat 0 (poolmax 3 3 1 1 same none ?x) ?x)))", "x=1x2x4x4"},
};

static void test_differential(void) {
  for (size_t c = 0; c < sizeof linear / sizeof *linear; c++) {
    t_graph t;
    if (t_graph_open(&t, linear[c].graph, linear[c].shapes)) {
      CHECK_MSG(0, "%s did not plan", linear[c].graph);
      continue;
    }
    int64_t *ins[16] = {0};
    for (int32_t v = 0; v < rg_graph_n_tvars(t.r->g); v++) {
      int64_t n = rg_shape_numel(t.shape_ptr[v]);
      ins[v] = malloc(sizeof(int64_t) * (size_t)n);
      for (int64_t i = 0; i < n; i++) ins[v][i] = (int64_t)(rg_random_value(RG_DOM_ZP, c, v, i).z % 7) - 3;
    }
    rg_value *f = t_eval_ints(&t, RG_DOM_F64, &ctx, (const int64_t *const *)ins, 0);
    rg_value *z = t_eval_ints(&t, RG_DOM_ZP, &ctx, (const int64_t *const *)ins, 0);
    int64_t n = rg_shape_numel(rg_plan_shape(t.plan, t.r->src[0]));
    int bad = 0;
    for (int64_t i = 0; f && z && i < n; i++) bad += z[i].z != rg_zp_from_int(llround(f[i].f)) || f[i].f != llround(f[i].f);
    CHECK_MSG(f && z && bad == 0, "%s: %d of %lld elements differ between Z_p and float64", linear[c].graph, bad,
              (long long)n);
    free(f), free(z);
    for (int v = 0; v < 16; v++) free(ins[v]);
    t_graph_close(&t);
  }
}

typedef struct {
  rg_domain dom;
  uint64_t seed;
  long reads[16];
  int64_t max_flat[16];
} rand_inputs;

static rg_value rand_input(void *user, int32_t tvar, int64_t flat) {
  rand_inputs *ri = user;
  ri->reads[tvar]++;
  if (flat > ri->max_flat[tvar]) ri->max_flat[tvar] = flat;
  return rg_random_value(ri->dom, ri->seed, tvar, flat);
}

static void elem_vs_full(const g_case *gc) {
  t_graph t;
  if (t_graph_open(&t, gc->graph, gc->shapes)) {
    CHECK_MSG(0, "%s did not plan", gc->graph);
    return;
  }
  for (int d = 0; d < 2; d++) {
    rg_domain dom = (rg_domain)d;
    rg_value *in[16] = {0};
    for (int32_t v = 0; v < rg_graph_n_tvars(t.r->g); v++) {
      int64_t n = rg_shape_numel(t.shape_ptr[v]);
      in[v] = malloc(sizeof(rg_value) * (size_t)n);
      for (int64_t i = 0; i < n; i++) in[v][i] = rg_random_value(dom, 99, v, i);
    }
    rg_value *full = NULL;
    rg_err err;
    CHECK(rg_eval_full(t.plan, dom, &ctx, (const rg_value *const *)in, t.r->src, 1, &full, &err) == RG_OK);
    rand_inputs ri = {dom, 99, {0}, {0}};
    rg_elem_eval *e = rg_elem_eval_new(t.plan, dom, &ctx, rand_input, &ri);
    const rg_shape *os = rg_plan_shape(t.plan, t.r->src[0]);
    int64_t n = rg_shape_numel(os);
    int bad = 0;
    for (int k = 0; full && e && k < 25; k++) {
      int64_t flat = (int64_t)(rg_random_value(RG_DOM_ZP, 5, k, 0).z % (uint64_t)n);
      int32_t pos[RG_MAX_RANK];
      rg_shape_unflat(os, flat, pos);
      rg_value v;
      CHECK(rg_elem_eval_at(e, t.r->src[0], pos, &v, &err) == RG_OK);
      bad += dom == RG_DOM_ZP ? v.z != full[flat].z : v.f != full[flat].f;
    }
    CHECK_MSG(bad == 0, "%s: %d single elements differ from the full evaluation in %s", gc->graph, bad,
              rg_domain_name(dom));
    rg_elem_eval_free(e);
    free(full);
    for (int v = 0; v < 16; v++) free(in[v]);
  }
  t_graph_close(&t);
}

static void test_elem_vs_full(void) {
  for (size_t c = 0; c < sizeof linear / sizeof *linear; c++) elem_vs_full(&linear[c]);
  for (size_t c = 0; c < sizeof nonlinear / sizeof *nonlinear; c++) elem_vs_full(&nonlinear[c]);
}

/* Counts the input reads of one element; *max_flat gets the largest index read. */
static long reads_of_max(const char *graph, const char *shapes, const int32_t *pos, int32_t tvar,
                         int64_t *max_flat) {
  t_graph t;
  if (t_graph_open(&t, graph, shapes)) return -1;
  rand_inputs ri = {RG_DOM_ZP, 1, {0}, {0}};
  rg_elem_eval *e = rg_elem_eval_new(t.plan, RG_DOM_ZP, &ctx, rand_input, &ri);
  rg_value v;
  rg_err err;
  long n = e && rg_elem_eval_at(e, t.r->src[0], pos, &v, &err) == RG_OK ? ri.reads[tvar] : -1;
  *max_flat = ri.max_flat[tvar];
  rg_elem_eval_free(e);
  t_graph_close(&t);
  return n;
}

static long reads_of(const char *graph, const char *shapes, const int32_t *pos, int32_t tvar) {
  int64_t unused;
  return reads_of_max(graph, shapes, pos, tvar, &unused);
}

static void test_dependency_cone(void) {
  /* an interior conv output reads Cin/groups * KH * KW elements of x and as many of w */
  const int32_t mid[4] = {0, 1, 2, 2}, corner[4] = {0, 0, 0, 0};
  CHECK(reads_of("(conv2d ?x ?w)", "x=1x4x5x5 w=4x4x3x3", mid, 0) == 36);
  CHECK(reads_of("(conv2d ?x ?w)", "x=1x4x5x5 w=4x4x3x3", mid, 1) == 36);
  /* at a SAME-padded corner only the 2x2 in-bounds cells are read */
  CHECK(reads_of("(conv2d ?x ?w)", "x=1x4x5x5 w=4x4x3x3", corner, 0) == 16);
  /* the second half of a split reads nothing of the first concat operand */
  const int32_t p2[2] = {0, 1};
  CHECK(reads_of("(split.1 0 (concat 0 ?a ?b))", "a=100x100 b=2x100", p2, 0) == 0);
  CHECK(reads_of("(split.1 0 (concat 0 ?a ?b))", "a=100x100 b=2x100", p2, 1) == 1);
  /* one element of a matmul chain reads only row 0 of x (indices 0..7), not the other 49 rows */
  int64_t max_flat;
  CHECK(reads_of_max("(matmul (matmul ?x ?y) ?z)", "x=50x8 y=8x8 z=8x8", p2, 0, &max_flat) > 0);
  CHECK(max_flat == 7);
}

/* Compares the two sides of rule at shapes in the domains of dom_mask (bit 0 float64, bit 1
 * Z_p) and checks the verdict; returns the last result. */
static rg_cmp_result expect_verdict(const char *rule, const char *shapes, int dom_mask,
                                    rg_cmp_verdict want) {
  rg_cmp_result res;
  memset(&res, 0, sizeof res);
  t_graph t;
  if (t_graph_open(&t, rule, shapes)) {
    CHECK_MSG(0, "%s did not plan", rule);
    return res;
  }
  for (int d = 0; d < 2; d++) {
    if (!(dom_mask >> d & 1)) continue;
    rg_err err;
    CHECK(rg_rule_compare(t.r, &t.b, (rg_domain)d, &ctx, 1, 3, &res, &err) == RG_OK);
    CHECK_MSG(res.verdict == want, "%s: verdict %d in %s, want %d", rule, res.verdict,
              rg_domain_name((rg_domain)d), want);
  }
  t_graph_close(&t);
  return res;
}

static void test_compare_positions(void) {
  /* transpose swaps off-diagonal elements: the first difference is at [0,1] */
  rg_cmp_result res = expect_verdict("(transpose 10 ?x) => ?x", "x=3x3", 3, RG_CMP_VALUE);
  CHECK(res.pos[0] == 0 && res.pos[1] == 1 && res.trial == 0);
  /* concat associativity: equal values, different split trees: a type difference */
  expect_verdict("(concat 0 (concat 0 ?x ?y) ?z) => (concat 0 ?x (concat 0 ?y ?z))",
                 "x=1x2 y=1x2 z=1x2", 2, RG_CMP_TYPE);
  /* relu does not distribute over ewadd in float64, nor (keyed function) in Z_p */
  expect_verdict("(relu (ewadd ?x ?y)) => (ewadd (relu ?x) (relu ?y))", "x=4x4 y=4x4", 3, RG_CMP_VALUE);
  /* average pooling is not a window sum: float64 and Z_p both see it */
  expect_verdict("(poolavg 3 3 1 1 same none ?i) => (conv2d ?i (poolmax 3 3 1 1 same none (Iconv 4 3 3)))",
                 "i=2x4x5x5", 3, RG_CMP_VALUE);
}

static void test_random_values(void) {
  /* addressable and deterministic; floats in [-1, 1); residues below p */
  CHECK(rg_random_value(RG_DOM_ZP, 3, 1, 17).z == rg_random_value(RG_DOM_ZP, 3, 1, 17).z);
  CHECK(rg_random_value(RG_DOM_ZP, 3, 1, 17).z != rg_random_value(RG_DOM_ZP, 3, 2, 17).z);
  double lo = 1, hi = -1;
  for (int i = 0; i < 10000; i++) {
    double f = rg_random_value(RG_DOM_F64, 1, 0, i).f;
    lo = f < lo ? f : lo, hi = f > hi ? f : hi;
    CHECK(rg_random_value(RG_DOM_ZP, 1, 0, i).z < RG_ZP_P);
  }
  CHECK(lo >= -1 && lo < -0.99 && hi < 1 && hi > 0.99);
  rg_value a = {.f = 1.0}, b = {.f = 1.0 + 1e-13}, c = {.f = 1.001};
  CHECK(rg_value_eq(RG_DOM_F64, a, b) && !rg_value_eq(RG_DOM_F64, a, c));
}

/* ---- the wide domain ---- */

static void to_mpz(mpz_t z, rg_z127 v) {
  uint64_t w[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
  mpz_import(z, 2, -1, sizeof w[0], 0, 0, w);
}

static bool mpz_is(const mpz_t z, rg_z127 v) {
  mpz_t t;
  mpz_init(t);
  to_mpz(t, v);
  bool eq = mpz_cmp(z, t) == 0;
  mpz_clear(t);
  return eq;
}

/* Products, sums, differences, inverses and text of Z_q against GMP, on random operands and
 * on the edges (0, 1, q-1, values with all high bits set). */
static void test_z127_arith(void) {
  mpz_t q, a, b, r;
  mpz_inits(q, a, b, r, NULL);
  to_mpz(q, RG_Z127_Q);
  CHECK(mpz_probab_prime_p(q, 30) && mpz_sizeinbase(q, 2) == 127);
  const rg_z127 edge[] = {0, 1, 2, RG_Z127_Q - 1, RG_Z127_Q - 2, (rg_z127)UINT64_MAX, ((rg_z127)1 << 126) + 5};
  int bad = 0;
  for (int i = 0; i < 2000; i++) {
    rg_z127 x = i < 49 ? edge[i / 7] : rg_random_z127(7, 0, i), y = i < 49 ? edge[i % 7] : rg_random_z127(7, 1, i);
    to_mpz(a, x), to_mpz(b, y);
    mpz_mul(r, a, b), mpz_mod(r, r, q);
    bad += !mpz_is(r, rg_z127_mul(x, y));
    mpz_add(r, a, b), mpz_mod(r, r, q);
    bad += !mpz_is(r, rg_z127_add(x, y));
    mpz_sub(r, a, b), mpz_mod(r, r, q);
    bad += !mpz_is(r, rg_z127_sub(x, y));
    if (x) bad += rg_z127_mul(x, rg_z127_inv(x)) != 1;
    char buf[48];
    rg_z127 back = 0;
    rg_z127_format(x, buf, sizeof buf);
    bad += !rg_z127_parse(buf, &back) || back != x || x >= RG_Z127_Q;
  }
  CHECK_MSG(bad == 0, "%d Z_q operations disagree with GMP", bad);
  CHECK(rg_z127_from_int(-1) == RG_Z127_Q - 1 && rg_z127_from_int(5) == 5);
  CHECK(rg_z127_add(rg_z127_from_int(INT64_MIN), (rg_z127)1 << 63) == 0);
  rg_z127 v;
  CHECK(rg_z127_parse("170141183460469231731687303715884105727", &v) && v == RG_Z127_Q);
  CHECK(rg_z127_parse("340282366920938463463374607431768211455", &v) && v == ~(rg_z127)0);
  CHECK(!rg_z127_parse("340282366920938463463374607431768211456", &v) && !rg_z127_parse("", &v) &&
        !rg_z127_parse("12a", &v) && !rg_z127_parse("-1", &v));
  mpz_clears(q, a, b, r, NULL);
}

typedef struct {
  const int64_t *const *ints; /* integer inputs, or NULL for random ones */
  uint64_t seed;
} z127_inputs;

static rg_z127 z127_input(void *user, int32_t tvar, int64_t flat) {
  const z127_inputs *zi = user;
  return zi->ints ? rg_z127_from_int(zi->ints[tvar][flat]) : rg_random_z127(zi->seed, tvar, flat);
}

static rg_z127 *z127_full(t_graph *t, z127_inputs *zi, int out) {
  rg_z127 *in[16] = {0}, *res = NULL;
  for (int32_t v = 0; v < rg_graph_n_tvars(t->r->g); v++) {
    int64_t n = rg_shape_numel(t->shape_ptr[v]);
    in[v] = malloc(sizeof(rg_z127) * (size_t)n);
    for (int64_t i = 0; i < n; i++) in[v][i] = z127_input(zi, v, i);
  }
  rg_err err;
  if (rg_eval_full_z127(t->plan, &ctx, (const rg_z127 *const *)in, &t->r->src[out], 1, &res, &err))
    fprintf(stderr, "Z_q evaluation failed: %s\n", err.msg);
  for (int v = 0; v < 16; v++) free(in[v]);
  return res;
}

/* On small integers nothing wraps, so Z_q holds float64's integer; averaging ops (window size
 * count) hold count^-1 times the integer window sum, which float64 gives as sum / count. */
static void z127_differential(const char *graph, const char *shapes, int64_t count) {
  t_graph t;
  if (t_graph_open(&t, graph, shapes)) {
    CHECK_MSG(0, "%s did not plan", graph);
    return;
  }
  int64_t *ins[16] = {0};
  for (int32_t v = 0; v < rg_graph_n_tvars(t.r->g); v++) {
    int64_t n = rg_shape_numel(t.shape_ptr[v]);
    ins[v] = malloc(sizeof(int64_t) * (size_t)n);
    for (int64_t i = 0; i < n; i++) ins[v][i] = (int64_t)(rg_random_value(RG_DOM_ZP, 3, v, i).z % 7) - 3;
  }
  rg_value *f = t_eval_ints(&t, RG_DOM_F64, &ctx, (const int64_t *const *)ins, 0);
  z127_inputs zi = {(const int64_t *const *)ins, 0};
  rg_z127 *z = z127_full(&t, &zi, 0);
  int64_t n = rg_shape_numel(rg_plan_shape(t.plan, t.r->src[0]));
  int bad = 0;
  for (int64_t i = 0; f && z && i < n; i++) {
    double whole = f[i].f * (double)count;
    bad += rg_z127_mul(z[i], (rg_z127)count) != rg_z127_from_int(llround(whole)) || fabs(whole - (double)llround(whole)) > 1e-9;
  }
  CHECK_MSG(f && z && bad == 0, "%s: %d of %lld elements differ between Z_q and float64", graph, bad, (long long)n);
  free(f), free(z);
  for (int v = 0; v < 16; v++) free(ins[v]);
  t_graph_close(&t);
}

static void test_z127_differential(void) {
  for (size_t c = 0; c < sizeof linear / sizeof *linear; c++) z127_differential(linear[c].graph, linear[c].shapes, 1);
  z127_differential("(poolavg 3 3 1 1 same none ?x)", "x=2x3x5x5", 9);
  z127_differential("(poolavg 2 2 2 2 valid none ?x)", "x=1x2x5x4", 4);
  z127_differential("(conv2d ?x (Cpool 4 3 3))", "x=1x4x5x5", 9);
}

/* Single elements at random positions equal the whole output. */
static void z127_elem_vs_full(const g_case *gc) {
  t_graph t;
  if (t_graph_open(&t, gc->graph, gc->shapes)) {
    CHECK_MSG(0, "%s did not plan", gc->graph);
    return;
  }
  z127_inputs zi = {NULL, 99};
  rg_z127 *full = z127_full(&t, &zi, 0);
  rg_elem_eval *e = rg_elem_eval_new_z127(t.plan, &ctx, z127_input, &zi);
  const rg_shape *os = rg_plan_shape(t.plan, t.r->src[0]);
  int64_t n = rg_shape_numel(os);
  int bad = 0, wide = 0;
  for (int k = 0; full && e && k < 25; k++) {
    int64_t flat = (int64_t)(rg_random_value(RG_DOM_ZP, 5, k, 0).z % (uint64_t)n);
    int32_t pos[RG_MAX_RANK];
    rg_shape_unflat(os, flat, pos);
    rg_z127 v;
    rg_err err;
    CHECK(rg_elem_eval_at_z127(e, t.r->src[0], pos, &v, &err) == RG_OK);
    bad += v != full[flat];
    wide += v >> 64 != 0 && v < RG_Z127_Q; /* values use the whole field */
  }
  CHECK_MSG(full && bad == 0, "%s: %d single elements differ from the full evaluation in Z_q", gc->graph, bad);
  CHECK_MSG(wide > 0, "%s: no Z_q value above 2^64 among 25", gc->graph);
  rg_elem_eval_free(e);
  free(full);
  t_graph_close(&t);
}

/* The activation fused into conv2d/matmul is the standalone one, in Z_q too. */
static void z127_same(const char *a, const char *b, const char *shapes) {
  t_graph ta, tb;
  if (t_graph_open(&ta, a, shapes) || t_graph_open(&tb, b, shapes)) {
    CHECK_MSG(0, "%s or %s did not plan", a, b);
    return;
  }
  z127_inputs zi = {NULL, 4};
  rg_z127 *va = z127_full(&ta, &zi, 0), *vb = z127_full(&tb, &zi, 0);
  int64_t n = rg_shape_numel(rg_plan_shape(ta.plan, ta.r->src[0])), bad = 0;
  for (int64_t i = 0; va && vb && i < n; i++) bad += va[i] != vb[i];
  CHECK_MSG(va && vb && bad == 0, "%s and %s differ at %lld elements in Z_q", a, b, (long long)bad);
  free(va), free(vb);
  t_graph_close(&ta), t_graph_close(&tb);
}

static void test_z127_elem(void) {
  for (size_t c = 0; c < sizeof linear / sizeof *linear; c++) z127_elem_vs_full(&linear[c]);
  for (size_t c = 0; c < sizeof nonlinear / sizeof *nonlinear; c++) z127_elem_vs_full(&nonlinear[c]);
  z127_same("(relu (conv2d ?x ?w))", "(conv2d 1 1 same relu ?x ?w)", "x=1x2x4x4 w=3x2x3x3");
  z127_same("(sigmoid (matmul ?x ?y))", "(matmul sigmoid ?x ?y)", "x=3x4 y=4x2");
}

/* bias by hand in Z_q: a conv's bias on axis 1 of 1x2x1x2 (x + b[channel]). */
static void test_z127_bias(void) {
  t_graph t;
  if (t_graph_open(&t, "(bias ?x ?b)", "x=1x2x1x2 b=2")) {
    CHECK_MSG(0, "bias did not plan");
    return;
  }
  const int64_t x[4] = {1, 2, 3, 4}, b[2] = {100, -100}, want[4] = {101, 102, -97, -96};
  const int64_t *const ints[2] = {x, b};
  z127_inputs zi = {ints, 0};
  rg_z127 *z = z127_full(&t, &zi, 0);
  for (int i = 0; z && i < 4; i++) CHECK_MSG(z[i] == rg_z127_from_int(want[i]), "bias in Z_q: [%d] wrong", i);
  CHECK(z != NULL);
  free(z);
  t_graph_close(&t);
}

int main(void) {
  rg_eval_ctx_init(&ctx, 11);
  test_random_values();
  test_differential();
  test_elem_vs_full();
  test_dependency_cone();
  test_compare_positions();
  test_z127_arith();
  test_z127_differential();
  test_z127_elem();
  test_z127_bias();
  return check_done("test_ir_interp");
}
