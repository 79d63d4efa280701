/* tests/test_ir_ops.c: every operator on small hand-computed examples, in float64 and in Z_p
 * (integer inputs, so the expected values are exact in both); shape inference and its
 * messages; the op table itself. */
#include "check.h"

static rg_eval_ctx ctx;

/* Checks output `out` of graph text against expected integers in both domains. For Z_p the
 * expected integer is multiplied by zp_scale (1 unless an averaging op divides). */
static void expect_ints(const char *text, const char *shapes, const int64_t *const *ins, int out,
                        const char *want_shape, const int64_t *want, double f64_div,
                        uint64_t zp_div) {
  t_graph t;
  if (t_graph_open(&t, text, shapes)) {
    CHECK_MSG(0, "%s did not plan", text);
    return;
  }
  char buf[96];
  const rg_shape *s = rg_plan_shape(t.plan, t.r->src[out]);
  CHECK_MSG(strcmp(rg_shape_format(s, buf, sizeof buf), want_shape) == 0, "%s: shape %s, want %s",
            text, buf, want_shape);
  int64_t n = rg_shape_numel(s);
  rg_value *f = t_eval_ints(&t, RG_DOM_F64, &ctx, ins, out);
  rg_value *z = t_eval_ints(&t, RG_DOM_ZP, &ctx, ins, out);
  uint64_t inv = zp_div > 1 ? rg_zp_inv(zp_div) : 1;
  for (int64_t i = 0; f && z && i < n; i++) {
    CHECK_MSG(fabs(f[i].f - (double)want[i] / f64_div) < 1e-12, "%s: float64 [%lld] = %g, want %g",
              text, (long long)i, f[i].f, (double)want[i] / f64_div);
    uint64_t wz = rg_zp_mul(rg_zp_from_int(want[i]), inv);
    CHECK_MSG(z[i].z == wz, "%s: Z_p [%lld] = %llu, want %llu", text, (long long)i,
              (unsigned long long)z[i].z, (unsigned long long)wz);
  }
  free(f);
  free(z);
  t_graph_close(&t);
}

#define INS(...) ((const int64_t *const[]){__VA_ARGS__})
#define V(...) ((const int64_t[]){__VA_ARGS__})

static void test_elementwise(void) {
  expect_ints("(ewadd ?x ?y)", "x=2x2 y=2x2", INS(V(1, 2, 3, 4), V(10, 20, 30, 40)), 0, "2x2",
              V(11, 22, 33, 44), 1, 1);
  expect_ints("(ewmul ?x ?y)", "x=2x2 y=2x2", INS(V(1, 2, 3, 4), V(10, 20, 30, -40)), 0, "2x2",
              V(10, 40, 90, -160), 1, 1);
  expect_ints("(smul ?x ?s)", "x=3 s=scalar", INS(V(1, -2, 3), V(3)), 0, "3", V(3, -6, 9), 1, 1);
}

static void test_matmul(void) {
  /* [1 2 3; 4 5 6] x [1 0; 0 1; 1 1] = [4 5; 10 11] */
  expect_ints("(matmul ?a ?b)", "a=2x3 b=3x2", INS(V(1, 2, 3, 4, 5, 6), V(1, 0, 0, 1, 1, 1)), 0,
              "2x2", V(4, 5, 10, 11), 1, 1);
  /* batched: two 2x2 products */
  expect_ints("(matmul ?a ?b)", "a=2x2x2 b=2x2x2",
              INS(V(1, 2, 3, 4, 1, 0, 0, 1), V(1, 1, 1, 1, 5, 6, 7, 8)), 0, "2x2x2",
              V(3, 3, 7, 7, 5, 6, 7, 8), 1, 1);
}

static void test_conv(void) {
  const int64_t *x9 = V(1, 2, 3, 4, 5, 6, 7, 8, 9);
  const int64_t *ones9 = V(1, 1, 1, 1, 1, 1, 1, 1, 1);
  /* SAME stride 1 with a 3x3 ones kernel: neighbourhood sums */
  expect_ints("(conv2d ?x ?w)", "x=1x1x3x3 w=1x1x3x3", INS(x9, ones9), 0, "1x1x3x3",
              V(12, 21, 16, 27, 45, 33, 24, 39, 28), 1, 1);
  /* VALID with a 2x2 ones kernel */
  expect_ints("(conv2d 1 1 valid none ?x ?w)", "x=1x1x3x3 w=1x1x2x2", INS(x9, V(1, 1, 1, 1)), 0,
              "1x1x2x2", V(12, 16, 24, 28), 1, 1);
  /* SAME stride 2 on 4x4: total padding 1, all of it after */
  expect_ints("(conv2d 2 2 same none ?x ?w)", "x=1x1x4x4 w=1x1x3x3",
              INS(V(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16), ones9), 0, "1x1x2x2",
              V(54, 45, 72, 54), 1, 1);
  /* grouped: 2 channels, weight (2, 1, 1, 1), 2 groups of one channel each */
  expect_ints("(conv2d 1 1 same none 1 1 2 ?x ?w)", "x=1x2x1x1 w=2x1x1x1", INS(V(2, 3), V(5, 7)), 0,
              "1x2x1x1", V(10, 21), 1, 1);
  /* 2 groups of 2 channels, 2 outputs per group: output 2 reads channels 2-3 only */
  expect_ints("(conv2d 1 1 same none 1 1 2 ?x ?w)", "x=1x4x1x1 w=4x2x1x1",
              INS(V(1, 2, 3, 4), V(1, 1, 1, -1, 1, 1, 1, -1)), 0, "1x4x1x1", V(3, -1, 7, -1), 1, 1);
  /* two output channels over two input channels, 1x1 kernel: a channel mix */
  expect_ints("(conv2d ?x ?w)", "x=1x2x1x2 w=2x2x1x1", INS(V(1, 2, 3, 4), V(1, 1, 1, -1)), 0,
              "1x2x1x2", V(4, 6, -2, -2), 1, 1);
}

/* Dilation 2 on a 5x5 input (SAME: the 3x3 kernel spans 5 cells, so 2 padding cells before):
 * a ones kernel sums x at rows and columns {h-2, h, h+2} that exist. x = 0..24 row-major. */
static void test_conv_dilated(void) {
  int64_t x25[25], ones9[9];
  for (int i = 0; i < 25; i++) x25[i] = i;
  for (int i = 0; i < 9; i++) ones9[i] = 1;
  /* by hand: (0,0) reads rows {0,2} x cols {0,2}: 0+2+10+12 = 24; (0,1) reads cols {1,3}:
   * 1+3+11+13 = 28; (2,2) reads rows and cols {0,2,4}: 3*(0+2+4) + 5*3*(0+2+4) = 108 */
  int64_t want[25];
  for (int h = 0; h < 5; h++)
    for (int w = 0; w < 5; w++) {
      int64_t acc = 0;
      for (int a = -2; a <= 2; a += 2)
        for (int b = -2; b <= 2; b += 2)
          if (h + a >= 0 && h + a < 5 && w + b >= 0 && w + b < 5) acc += (h + a) * 5 + (w + b);
      want[h * 5 + w] = acc;
    }
  CHECK(want[0] == 24 && want[1] == 28 && want[12] == 108);
  expect_ints("(conv2d 1 1 same none 2 2 ?x ?w)", "x=1x1x5x5 w=1x1x3x3", INS(x25, ones9), 0,
              "1x1x5x5", want, 1, 1);
  /* VALID, dilation 2 in w only, kernel 1x2: out[h][w] = x[h][w] + 2*x[h][w+2], width 5-2 = 3 */
  expect_ints("(conv2d 1 1 valid none 1 2 ?x ?w)", "x=1x1x2x5 w=1x1x1x2",
              INS(V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), V(1, 2)), 0, "1x1x2x3", V(4, 7, 10, 19, 22, 25),
              1, 1);
}

static void test_pad_slice(void) {
  const int64_t *x6 = V(1, 2, 3, 4, 5, 6); /* 2x3 */
  expect_ints("(pad 1 1 2 ?x)", "x=2x3", INS(x6), 0, "2x6", V(0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 0, 0), 1, 1);
  expect_ints("(pad 0 0 1 ?x)", "x=2x3", INS(x6), 0, "3x3", V(1, 2, 3, 4, 5, 6, 0, 0, 0), 1, 1);
  expect_ints("(slice 1 1 3 ?x)", "x=2x3", INS(x6), 0, "2x2", V(2, 3, 5, 6), 1, 1);
  expect_ints("(slice 0 1 2 ?x)", "x=2x3", INS(x6), 0, "1x3", V(4, 5, 6), 1, 1);
  /* slicing a pad back out is the identity */
  expect_ints("(slice 1 2 5 (pad 1 2 4 ?x))", "x=2x3", INS(x6), 0, "2x3", x6, 1, 1);
}

/* bias: out[i] = x[i] + b[i_axis], here by hand in float64 and Z_p (test_ir_interp: Z_q). */
static void test_bias(void) {
  const int64_t *x6 = V(1, 2, 3, 4, 5, 6); /* 2x3 */
  expect_ints("(bias ?x ?b)", "x=2x3 b=3", INS(x6, V(10, 20, -30)), 0, "2x3", V(11, 22, -27, 14, 25, -24), 1, 1);
  expect_ints("(bias 0 ?x ?b)", "x=2x3 b=2", INS(x6, V(10, -20)), 0, "2x3", V(11, 12, 13, -16, -15, -14), 1, 1);
  /* a conv's bias: axis 1 of 1x2x1x2, one value per channel */
  expect_ints("(bias ?x ?b)", "x=1x2x1x2 b=2", INS(V(1, 2, 3, 4), V(100, -100)), 0, "1x2x1x2",
              V(101, 102, -97, -96), 1, 1);
  /* the last axis of a rank-3 tensor, and a rank-1 tensor (two vectors added) */
  expect_ints("(bias 2 ?x ?b)", "x=2x1x2 b=2", INS(V(1, 2, 3, 4), V(5, 7)), 0, "2x1x2", V(6, 9, 8, 11), 1, 1);
  expect_ints("(bias 0 ?x ?b)", "x=3 b=3", INS(V(1, 2, 3), V(-1, -2, -3)), 0, "3", V(0, 0, 0), 1, 1);
}

static void test_pool(void) {
  const int64_t *x9 = V(1, 2, 3, 4, 5, 6, 7, 8, 9);
  /* average pooling divides by 9 everywhere, padded cells count as zero */
  expect_ints("(poolavg 3 3 1 1 same none ?x)", "x=1x1x3x3", INS(x9), 0, "1x1x3x3",
              V(12, 21, 16, 27, 45, 33, 24, 39, 28), 9, 9);
  expect_ints("(poolavg 2 2 2 2 valid none ?x)", "x=1x1x2x2", INS(V(1, 2, 3, 6)), 0, "1x1x1x1",
              V(12), 4, 4);
  /* max pooling ignores padded cells: with all-negative inputs a corner stays negative */
  t_graph t;
  if (t_graph_open(&t, "(poolmax 3 3 1 1 same none ?x)", "x=1x1x3x3") == 0) {
    rg_value *f = t_eval_ints(&t, RG_DOM_F64, &ctx, INS(V(-1, -2, -3, -4, -5, -6, -7, -8, -9)), 0);
    const double want[9] = {-1, -1, -2, -1, -1, -2, -4, -4, -5};
    for (int i = 0; f && i < 9; i++) CHECK_MSG(f[i].f == want[i], "poolmax[%d] = %g", i, f[i].f);
    free(f);
    t_graph_close(&t);
  }
  if (t_graph_open(&t, "(poolmax 2 2 1 1 valid none ?x)", "x=1x1x2x3") == 0) {
    rg_value *f = t_eval_ints(&t, RG_DOM_F64, &ctx, INS(V(1, 5, 2, 3, 0, 7)), 0);
    CHECK(f && f[0].f == 5 && f[1].f == 7);
    free(f);
    t_graph_close(&t);
  }
}

static void test_movement(void) {
  const int64_t *x6 = V(1, 2, 3, 4, 5, 6);
  expect_ints("(transpose 10 ?x)", "x=2x3", INS(x6), 0, "3x2", V(1, 4, 2, 5, 3, 6), 1, 1);
  /* 2x2x3 with perm 021 -> 2x3x2; perm 201 -> 3x2x2 */
  const int64_t *x12 = V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  expect_ints("(transpose 021 ?x)", "x=2x2x3", INS(x12), 0, "2x3x2",
              V(0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11), 1, 1);
  expect_ints("(transpose 201 ?x)", "x=2x2x3", INS(x12), 0, "3x2x2",
              V(0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11), 1, 1);
  expect_ints("(reshape 3x2 ?x)", "x=2x3", INS(x6), 0, "3x2", x6, 1, 1);
  const int64_t *a = V(1, 2, 3, 4), *b = V(5, 6, 7, 8);
  expect_ints("(concat 0 ?a ?b)", "a=2x2 b=2x2", INS(a, b), 0, "4x2", V(1, 2, 3, 4, 5, 6, 7, 8), 1, 1);
  expect_ints("(concat 1 ?a ?b)", "a=2x2 b=2x2", INS(a, b), 0, "2x4", V(1, 2, 5, 6, 3, 4, 7, 8), 1, 1);
  expect_ints("(concat 1 ?a ?b ?a)", "a=2x2 b=2x2", INS(a, b), 0, "2x6",
              V(1, 2, 5, 6, 1, 2, 3, 4, 7, 8, 3, 4), 1, 1);
  /* split undoes the concat on each axis, even with unequal halves */
  const int64_t *c = V(9, 8);
  expect_ints("(split.0 0 (concat 0 ?a ?c))", "a=2x2 c=1x2", INS(a, c), 0, "2x2", a, 1, 1);
  expect_ints("(split.1 0 (concat 0 ?a ?c))", "a=2x2 c=1x2", INS(a, c), 0, "1x2", c, 1, 1);
  expect_ints("(split.0 1 (concat 1 ?a ?d))", "a=2x2 d=2x1", INS(a, V(9, 8)), 0, "2x2", a, 1, 1);
  expect_ints("(split.1 1 (concat 1 ?a ?d))", "a=2x2 d=2x1", INS(a, V(9, 8)), 0, "2x1", V(9, 8), 1, 1);
  /* split of a 3-way concat cuts at the outermost seam */
  expect_ints("(split.1 0 (concat 0 (concat 0 ?a ?c) ?c))", "a=2x2 c=1x2", INS(a, c), 0, "1x2", c, 1, 1);
  expect_ints("(split.1 0 (split.0 0 (concat 0 (concat 0 ?a ?c) ?c)))", "a=2x2 c=1x2", INS(a, c), 0,
              "1x2", c, 1, 1);
  /* enlarge centres the kernel */
  expect_ints("(enlarge 3 3 ?w)", "w=1x1x1x3", INS(V(1, 2, 3)), 0, "1x1x3x3",
              V(0, 0, 0, 1, 2, 3, 0, 0, 0), 1, 1);
  expect_ints("(enlarge 3 3 ?w)", "w=1x1x1x1", INS(V(5)), 0, "1x1x3x3",
              V(0, 0, 0, 0, 5, 0, 0, 0, 0), 1, 1);
}

static void test_constants(void) {
  expect_ints("(Iewmul 2x2)", "", INS(NULL), 0, "2x2", V(1, 1, 1, 1), 1, 1);
  expect_ints("(Imatmul 3)", "", INS(NULL), 0, "3x3", V(1, 0, 0, 0, 1, 0, 0, 0, 1), 1, 1);
  expect_ints("(Iconv 2 3 3)", "", INS(NULL), 0, "2x2x3x3",
              V(0, 0, 0, 0, 1, 0, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 0, 0, 0, 0, /**/ 0, 0, 0, 0, 0, 0, 0, 0, 0,
                /**/ 0, 0, 0, 0, 1, 0, 0, 0, 0),
              1, 1);
  expect_ints("(Cpool 1 3 3)", "", INS(NULL), 0, "1x1x3x3", V(1, 1, 1, 1, 1, 1, 1, 1, 1), 9, 9);
}

static void test_activations(void) {
  t_graph t;
  if (t_graph_open(&t, "(relu ?x) ; (tanh ?x) ; (sigmoid ?x)", "x=3") == 0) {
    const int64_t *x = V(-2, 0, 3);
    rg_value *r = t_eval_ints(&t, RG_DOM_F64, &ctx, INS(x), 0);
    rg_value *th = t_eval_ints(&t, RG_DOM_F64, &ctx, INS(x), 1);
    rg_value *sg = t_eval_ints(&t, RG_DOM_F64, &ctx, INS(x), 2);
    CHECK(r && r[0].f == 0 && r[1].f == 0 && r[2].f == 3);
    CHECK(th && th[1].f == 0 && fabs(th[2].f - tanh(3.0)) < 1e-15);
    CHECK(sg && sg[1].f == 0.5 && fabs(sg[0].f - 1 / (1 + exp(2.0))) < 1e-15);
    /* In Z_p the three are different keyed functions, none the identity. */
    rg_value *zr = t_eval_ints(&t, RG_DOM_ZP, &ctx, INS(x), 0);
    rg_value *zt = t_eval_ints(&t, RG_DOM_ZP, &ctx, INS(x), 1);
    CHECK(zr && zt && zr[2].z != 3 && zr[2].z != zt[2].z);
    free(r), free(th), free(sg), free(zr), free(zt);
    t_graph_close(&t);
  }
}

/* A fused activation is the very same function as the standalone op, in both domains. */
static void test_fused_equals_standalone(void) {
  const char *rules[] = {
      "(relu (conv2d ?x ?w)) => (conv2d 1 1 same relu ?x ?w)",
      "(tanh (conv2d ?x ?w)) => (conv2d 1 1 same tanh ?x ?w)",
      "(sigmoid (poolavg 3 3 1 1 same none ?x)) => (poolavg 3 3 1 1 same sigmoid ?x)",
      "(relu (poolmax 3 3 1 1 same none ?x)) => (poolmax 3 3 1 1 same relu ?x)",
  };
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
    t_graph t;
    if (t_graph_open(&t, rules[i], "x=2x4x5x5 w=4x4x3x3")) {
      CHECK_MSG(0, "%s did not plan", rules[i]);
      continue;
    }
    for (int d = 0; d < 2; d++) {
      rg_cmp_result res;
      rg_err err;
      CHECK(rg_rule_compare(t.r, &t.b, (rg_domain)d, &ctx, 7, 2, &res, &err) == RG_OK);
      CHECK_MSG(res.verdict == RG_CMP_AGREE, "%s differs in %s", rules[i], rg_domain_name((rg_domain)d));
    }
    t_graph_close(&t);
  }
  t_graph t;
  if (t_graph_open(&t, "(relu (matmul ?x ?y)) => (matmul relu ?x ?y)", "x=2x4 y=4x4") == 0) {
    rg_cmp_result res;
    rg_err err;
    CHECK(rg_rule_compare(t.r, &t.b, RG_DOM_ZP, &ctx, 7, 2, &res, &err) == RG_OK);
    CHECK(res.verdict == RG_CMP_AGREE);
    t_graph_close(&t);
  }
}

/* Shape inference returns a status and a message naming the op and the dimensions. */
static void expect_shape_error(const char *text, const char *shapes, const char *needle) {
  rg_rule *r;
  rg_err err;
  if (rg_text_parse_rule(text, &r, &err)) {
    CHECK_MSG(0, "%s did not parse: %s", text, err.msg);
    return;
  }
  rg_shape sh[8];
  const rg_shape *sp[8] = {0};
  const char *p = shapes;
  for (int32_t v = 0; v < rg_graph_n_tvars(r->g) && *p; v++) {
    const char *end = strchr(p, ' ');
    if (!end) end = p + strlen(p);
    CHECK(rg_shape_parse(p, (int)(end - p), &sh[v], &err) == RG_OK);
    sp[v] = &sh[v];
    p = *end ? end + 1 : end;
  }
  rg_plan *plan;
  rg_status st = rg_plan_new(r->g, r->src, r->n_src, sp, NULL, NULL, &plan, &err);
  CHECK_MSG(st == RG_ERR_SHAPE && strstr(err.msg, needle), "%s: status %d msg '%s', want '%s'", text,
            st, st ? err.msg : "", needle);
  if (st == RG_OK) rg_plan_free(plan);
  rg_rule_free(r);
}

static void test_shape_errors(void) {
  expect_shape_error("(ewadd ?x ?y)", "2x4 4x4", "ewadd: operands 2x4 and 4x4 differ in shape");
  expect_shape_error("(matmul ?x ?y)", "2x4 2x4", "matmul: inner dimensions differ: 2x4 has 4 columns");
  expect_shape_error("(conv2d ?x ?w)", "2x4x5x5 4x3x3x3",
                     "conv2d: with 1 group, input 2x4x5x5 (4 channels) needs a weight with 4 input channels");
  expect_shape_error("(conv2d 1 1 same none 1 1 3 ?x ?w)", "2x4x5x5 3x1x3x3", "with 3 groups, input 2x4x5x5");
  expect_shape_error("(conv2d 1 1 valid none ?x ?w)", "2x4x2x2 4x4x3x3", "window does not fit");
  expect_shape_error("(concat 1 ?x ?y)", "2x4 3x4", "concat: input 2 (3x4) does not match input 1 (2x4) outside axis 1");
  expect_shape_error("(split.0 0 ?x)", "4x4", "split: input 4x4 was not produced by a concat on axis 0");
  expect_shape_error("(transpose 021 ?x)", "4x4", "transpose: permutation has 3 entries but input 4x4 has rank 2");
  expect_shape_error("(smul ?x ?s)", "4x4 4", "smul: second operand 4 must be a scalar");
  expect_shape_error("(reshape 3x3 ?x)", "2x4", "cannot reshape 2x4");
  expect_shape_error("(enlarge 3 3 ?w)", "4x4x5x5", "enlarge: kernel 4x4x5x5");
  expect_shape_error("(concat 2 ?x ?y)", "2x4 2x4", "concat: axis is out of range");
  expect_shape_error("(poolmax 3 3 1 1 same none ?x)", "2x4", "poolmax: input 2x4 is not 4-D");
  expect_shape_error("(conv2d 1 1 valid none 3 3 ?x ?w)", "1x1x6x6 1x1x3x3", "window does not fit");
  expect_shape_error("(slice 1 2 5 ?x)", "2x4", "slice: range 2..5 is not inside axis 1 of input 2x4");
  expect_shape_error("(slice 1 3 3 ?x)", "2x4", "slice: range 3..3");
  expect_shape_error("(slice 2 0 1 ?x)", "2x4", "slice: axis is out of range for input 2x4");
  expect_shape_error("(pad 2 1 1 ?x)", "2x4", "pad: axis is out of range for input 2x4");
  expect_shape_error("(bias ?x ?b)", "2x4 2", "bias: the bias 2 must be a vector of the 4 elements of axis 1 of input 2x4");
  expect_shape_error("(bias ?x ?b)", "2x4 1x4", "bias: the bias 1x4 must be a vector");
  expect_shape_error("(bias ?x ?b)", "4 4", "bias: axis is out of range for input 4");
  expect_shape_error("(bias 0 ?x ?s)", "4 scalar", "bias: the bias scalar must be a vector");
}

/* The window arithmetic itself: SAME and VALID sizes, and no division when there is no window
 * (a stride or kernel of 0 from an internal caller: false, not SIGFPE). */
static void test_window_geometry(void) {
  int32_t out = -1, before = -1;
  CHECK(rg_window_geometry(7, 3, 2, RG_PAD_SAME, &out, &before) && out == 4 && before == 1);
  CHECK(rg_window_geometry(7, 3, 2, RG_PAD_VALID, &out, &before) && out == 3 && before == 0);
  CHECK(!rg_window_geometry(2, 3, 1, RG_PAD_VALID, &out, &before));
  CHECK(!rg_window_geometry(7, 3, 0, RG_PAD_SAME, &out, &before));
  CHECK(!rg_window_geometry(7, 3, 0, RG_PAD_VALID, &out, &before));
  CHECK(!rg_window_geometry(7, 0, 1, RG_PAD_VALID, &out, &before));
}

/* Seams: concat records them, elementwise ops keep equal ones, split divides them. */
static void test_seams(void) {
  t_graph t;
  if (t_graph_open(&t, "(ewadd (concat 0 ?a ?b) (concat 0 ?b ?a)) ; (ewadd (concat 0 ?a ?b) (concat 0 ?a ?b)) ; "
                       "(concat 0 (concat 0 ?a ?b) ?a) ; (concat 0 ?a (concat 0 ?b ?a))",
                   "a=1x2 b=3x2") == 0) {
    char buf[96];
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[0]), buf, sizeof buf), "4x2") == 0);
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[1]), buf, sizeof buf), "4[1]x2") == 0);
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[2]), buf, sizeof buf), "5[1,4]x2") == 0);
    /* concat is not associative as a typed value: the split tree differs */
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[3]), buf, sizeof buf), "5[4,1]x2") == 0);
    CHECK(!rg_shape_type_eq(rg_plan_shape(t.plan, t.r->src[2]), rg_plan_shape(t.plan, t.r->src[3])));
    t_graph_close(&t);
  }
}

/* bias keeps x's seams; on its axis only those its vector has too (they meet as ewadd's). */
static void test_bias_seams(void) {
  t_graph t;
  bool ok = t_graph_open(&t, "(bias (concat 1 ?x ?y) (concat 0 ?b ?c)) ; (bias (concat 1 ?x ?y) (concat 0 ?c ?b)) ; "
                            "(bias (concat 1 ?x ?y) ?d) ; (split.1 1 (bias (concat 1 ?x ?y) (concat 0 ?b ?c)))",
                            "x=2x1 y=2x3 b=1 c=3 d=4") == 0;
  CHECK(ok);
  if (ok) {
    char buf[96];
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[0]), buf, sizeof buf), "2x4[1]") == 0);
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[1]), buf, sizeof buf), "2x4") == 0);
    /* a vector without seams: none on the axis, so nothing there for a split to cut */
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[2]), buf, sizeof buf), "2x4") == 0);
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[3]), buf, sizeof buf), "2x3") == 0);
    t_graph_close(&t);
  }
  /* off the axis x's seams stay: a concat of rows under a bias of columns */
  ok = t_graph_open(&t, "(bias (concat 0 ?x ?y) ?d)", "x=1x4 y=3x4 d=4") == 0;
  CHECK(ok);
  if (ok) {
    char buf[96];
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[0]), buf, sizeof buf), "4[1]x4") == 0);
    t_graph_close(&t);
  }
}

static void test_grouped_seams(void) {
  t_graph t;
  /* weights 2+2 rows, 2 groups of 2 outputs: the seam at 2 is a group boundary and survives;
   * 1+3 rows put the seam inside group 0, so it is dropped; one group keeps any seam */
  if (t_graph_open(&t, "(conv2d 1 1 same none 1 1 2 ?x (concat 0 ?a ?b)) ; (conv2d 1 1 same none 1 1 2 ?x (concat 0 ?c ?d)) ; "
                       "(conv2d ?y (concat 0 ?c ?d))",
                   "x=1x4x3x3 a=2x2x1x1 b=2x2x1x1 c=1x2x1x1 d=3x2x1x1 y=1x2x3x3") == 0) {
    char buf[96];
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[0]), buf, sizeof buf), "1x4[2]x3x3") == 0);
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[1]), buf, sizeof buf), "1x4x3x3") == 0);
    CHECK(strcmp(rg_shape_format_seams(rg_plan_shape(t.plan, t.r->src[2]), buf, sizeof buf), "1x4[1]x3x3") == 0);
    t_graph_close(&t);
  }
}

static void test_op_table(void) {
  CHECK(rg_op_by_name("conv2d", 6) == RG_OP_CONV2D);
  CHECK(rg_op_by_name("conv", 4) == -1);
  CHECK(rg_op_get(RG_OP_CONV2D)->n_params == 7 && rg_op_get(RG_OP_CONV2D)->n_slots == 7);
  CHECK(rg_op_get(RG_OP_RESHAPE)->n_slots == RG_SHAPE_SLOTS);
  CHECK(rg_op_get(RG_OP_SPLIT)->n_outputs == 2);
  CHECK(rg_op_min_inputs(RG_OP_CONCAT) == 2 && rg_op_max_inputs(RG_OP_CONCAT) == RG_MAX_INPUTS);
  CHECK(rg_op_required_params(RG_OP_MATMUL) == 0 && rg_op_required_params(RG_OP_POOLAVG) == 6);
  for (int i = 0; i < RG_OP_COUNT; i++) {
    const rg_op_info *info = rg_op_get((rg_op)i);
    CHECK(info->name && info->n_slots <= RG_MAX_PARAMS && info->n_outputs <= RG_MAX_OUTPUTS);
    CHECK(rg_op_by_name(info->name, (int)strlen(info->name)) == i);
  }
  int perm[RG_MAX_RANK] = {2, 0, 1}, back[RG_MAX_RANK];
  CHECK(rg_perm_unpack(rg_perm_pack(perm, 3), back) == 3 && back[0] == 2 && back[2] == 1);
  int bad[3] = {1, 1, 0};
  CHECK(rg_perm_unpack(rg_perm_pack(bad, 3), back) == -1);
}

static void test_zp_arith(void) {
  CHECK(rg_zp_mul(RG_ZP_P - 1, RG_ZP_P - 1) == 1); /* (-1)^2 */
  CHECK(rg_zp_add(RG_ZP_P - 1, 1) == 0);
  CHECK(rg_zp_from_int(-1) == RG_ZP_P - 1);
  CHECK(rg_zp_mul(rg_zp_inv(9), 9) == 1);
  uint64_t a = 0x123456789abcdefULL % RG_ZP_P, b = 0xfedcba987654321ULL % RG_ZP_P;
  unsigned __int128 prod = (unsigned __int128)a * b;
  CHECK(rg_zp_mul(a, b) == (uint64_t)(prod % RG_ZP_P));
}

/* Every operator of ops.def has an instance here that shapes and evaluates in all three
 * domains: a new operator fails this test until it has a sample, and then until shape
 * inference and every interpreter handle it (the rest of the checklist at the top of ops.def is
 * checked by ctest ir_ops_checklist). */
static void test_every_op_evaluates(void) {
  static const char *const sample[RG_OP_COUNT] = {
      [RG_OP_EWADD] = "(ewadd ?x ?x)",
      [RG_OP_EWMUL] = "(ewmul ?x ?x)",
      [RG_OP_SMUL] = "(smul ?x ?s)",
      [RG_OP_MATMUL] = "(matmul relu ?x ?x)",
      [RG_OP_CONV2D] = "(conv2d 1 1 same tanh ?i ?w)",
      [RG_OP_RELU] = "(relu ?x)",
      [RG_OP_TANH] = "(tanh ?x)",
      [RG_OP_SIGMOID] = "(sigmoid ?x)",
      [RG_OP_POOLAVG] = "(poolavg 3 3 1 1 same none ?i)",
      [RG_OP_POOLMAX] = "(poolmax 3 3 1 1 valid relu ?i)",
      [RG_OP_TRANSPOSE] = "(transpose 10 ?x)",
      [RG_OP_ENLARGE] = "(enlarge 5 5 ?w)",
      [RG_OP_CONCAT] = "(concat 0 ?x ?x ?x)",
      [RG_OP_SPLIT] = "(split.1 0 (concat 0 ?x ?x))",
      [RG_OP_RESHAPE] = "(reshape 16 ?x)",
      [RG_OP_IEWMUL] = "(Iewmul 4x4)",
      [RG_OP_IMATMUL] = "(Imatmul 4)",
      [RG_OP_ICONV] = "(Iconv 2 3 3)",
      [RG_OP_CPOOL] = "(Cpool 2 3 3)",
      [RG_OP_PAD] = "(pad 1 1 2 ?x)",
      [RG_OP_SLICE] = "(slice 0 1 3 ?x)",
      [RG_OP_BIAS] = "(bias ?i ?b)",
  };
  const char *shapes = "x=4x4 s=scalar i=1x2x5x5 w=2x2x3x3 b=2";
  for (int op = RG_OP_INPUT + 1; op < RG_OP_COUNT; op++) {
    const char *name = rg_op_get((rg_op)op)->name;
    CHECK_MSG(sample[op], "operator %s has no sample in test_every_op_evaluates: add one, and its "
              "case in every file of the checklist at the top of ir/ops.def", name);
    t_graph t;
    if (!sample[op] || t_graph_open(&t, sample[op], shapes)) {
      CHECK_MSG(!sample[op], "%s: %s did not shape", name, sample[op]);
      continue;
    }
    rg_err err;
    for (int d = 0; d < 2; d++) {
      rg_value *out = NULL;
      CHECK_MSG(rg_plan_eval_random(t.plan, t.r->src, 1, (rg_domain)d, &ctx, 7, &out, &err) == RG_OK,
                "%s does not evaluate in %s", name, rg_domain_name((rg_domain)d));
      free(out);
    }
    int32_t nt = rg_graph_n_tvars(t.r->g);
    rg_z127 *in[16] = {0}, *out = NULL;
    for (int32_t v = 0; v < nt; v++) {
      int64_t n = rg_shape_numel(t.shape_ptr[v]);
      in[v] = malloc(sizeof *in[v] * (size_t)(n ? n : 1));
      for (int64_t k = 0; k < n; k++) in[v][k] = rg_random_z127(7, v, k);
    }
    CHECK_MSG(rg_eval_full_z127(t.plan, &ctx, (const rg_z127 *const *)in, t.r->src, 1, &out, &err) == RG_OK,
              "%s does not evaluate in Z_q", name);
    free(out);
    for (int32_t v = 0; v < nt; v++) free(in[v]);
    t_graph_close(&t);
  }
}

int main(void) {
  rg_eval_ctx_init(&ctx, 42);
  test_op_table();
  test_zp_arith();
  test_elementwise();
  test_matmul();
  test_conv();
  test_conv_dilated();
  test_pad_slice();
  test_bias();
  test_bias_seams();
  test_pool();
  test_movement();
  test_constants();
  test_activations();
  test_fused_equals_standalone();
  test_shape_errors();
  test_window_geometry();
  test_seams();
  test_grouped_seams();
  test_every_op_evaluates();
  return check_done("test_ir_ops");
}
