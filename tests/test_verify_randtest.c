/* tests/test_verify_randtest.c: random testing of candidates keeps true rules and drops false
 * ones for the right reason: window-sum average pooling (field-only truth of TASO's generator),
 * a width-1 coincidence (true at the enumeration shapes only), a slice true from two rows on, a
 * reshape true at one factorization, differing output seams, and a rule that is false outright. */
#include "check.h"
#include "verify/randtest.h"

static rg_randtest_verdict verdict(const char *rule, const char *shapes) {
  t_graph t;
  if (t_graph_open(&t, rule, shapes)) return RG_RANDTEST_COUNT;
  rg_randtest_opts o;
  rg_randtest_opts_default(&o);
  rg_randtest_verdict v = RG_RANDTEST_COUNT;
  rg_err err;
  if (rg_randtest_rule(t.r, &t.b, &o, &v, &err)) fprintf(stderr, "%s: %s\n", rule, err.msg);
  t_graph_close(&t);
  return v;
}

#define EXPECT(rule, shapes, want)                                                               \
  do {                                                                                           \
    rg_randtest_verdict v_ = verdict(rule, shapes);                                              \
    CHECK_MSG(v_ == (want), "%s: got %s, want %s", rule, rg_randtest_verdict_name(v_),          \
              rg_randtest_verdict_name(want));                                                   \
  } while (0)

/* rg_randtest_other_shapes with no base binding. */
static rg_randtest_verdict verdict_alone(const char *text) {
  rg_rule *r = NULL;
  rg_err err;
  if (rg_text_parse_rule(text, &r, &err)) return fprintf(stderr, "%s: %s\n", text, err.msg), RG_RANDTEST_COUNT;
  rg_randtest_opts o;
  rg_randtest_opts_default(&o);
  rg_randtest_verdict v = RG_RANDTEST_COUNT;
  if (rg_randtest_other_shapes(r, NULL, &o, &v, &err)) fprintf(stderr, "%s: %s\n", text, err.msg);
  rg_rule_free(r);
  return v;
}

#define EXPECT_ALONE(rule, want)                                                                 \
  do {                                                                                           \
    rg_randtest_verdict v_ = verdict_alone(rule);                                                \
    CHECK_MSG(v_ == (want), "%s (no base): got %s, want %s", rule, rg_randtest_verdict_name(v_), \
              rg_randtest_verdict_name(want));                                                   \
  } while (0)

int main(void) {
  /* true rules pass at their shapes and at the shapes the solver finds */
  EXPECT("(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))", "x=2x4 y=4x4 z=4x4",
         RG_RANDTEST_PASS);
  EXPECT("(ewadd ?x ?y) => (ewadd ?y ?x)", "x=2x4 y=2x4", RG_RANDTEST_PASS);
  EXPECT("(ewmul ?x (ewadd ?y ?z)) => (ewadd (ewmul ?x ?y) (ewmul ?x ?z))", "x=2x4 y=2x4 z=2x4",
         RG_RANDTEST_PASS);
  EXPECT("(transpose 10 (transpose 10 ?x)) => ?x", "x=2x4", RG_RANDTEST_PASS);
  EXPECT("(poolavg 3 3 1 1 same none ?i) => (conv2d ?i (Cpool 4 3 3))", "i=2x4x5x5",
         RG_RANDTEST_PASS);
  EXPECT("(relu (conv2d ?i ?w)) => (conv2d 1 1 same relu ?i ?w)", "i=2x4x5x5 w=4x4x3x3",
         RG_RANDTEST_PASS);
  EXPECT("(split.0 0 (concat 0 ?x ?y)) => ?x", "x=2x4 y=2x4", RG_RANDTEST_PASS);
  EXPECT("(relu ?x) ; (relu ?y) => (split.0 0 (relu (concat 0 ?x ?y))) ; "
         "(split.1 0 (relu (concat 0 ?x ?y)))",
         "x=2x4 y=2x4", RG_RANDTEST_PASS);
  /* average pooling as a window sum (TASO's integer generator): the window sum is a conv with
   * an all-ones depthwise kernel; real and Z_p pooling divide by 9 */
  EXPECT("(poolavg 3 3 1 1 same none ?i) => (conv2d 1 1 same none 1 1 4 ?i (Iewmul 4x1x3x3))", "i=2x4x5x5",
         RG_RANDTEST_ZP);
  /* width-1 coincidences: a transpose of a 1x1 matrix, and matmul commuting on 1x1 matrices;
   * both hold at the shapes they were found at, not at others */
  EXPECT("(transpose 10 ?x) => ?x", "x=1x1", RG_RANDTEST_SHAPES_ZP);
  EXPECT("(matmul ?x ?y) => (matmul ?y ?x)", "x=1x1 y=1x1", RG_RANDTEST_SHAPES_ZP);
  /* outputs differing in seams are not interchangeable */
  EXPECT("(concat 0 ?x ?y) => (concat 0 ?y ?x)", "x=2x4 y=4x4", RG_RANDTEST_TYPE);
  /* false outright, and true in reals but not for every choice of relu (Z_p is stricter) */
  EXPECT("(ewadd ?x ?y) => (ewmul ?x ?y)", "x=2x4 y=2x4", RG_RANDTEST_ZP);
  EXPECT("(relu (relu ?x)) => (relu ?x)", "x=2x4", RG_RANDTEST_ZP);
  /* depth-4 candidates that held at the enumeration shapes only: a slice of the row x has
   * beyond its first (none where x has one row), and weights reshaped to 4x4x1x3 from a tensor
   * that could as well be 4x4x3x1 (the same element count: the solver trades a factor) */
  EXPECT("(relu (slice 0 1 2 (concat 0 ?x ?y))) => (slice 0 1 2 (concat 0 (relu ?x) ?y))",
         "x=2x3 y=2x3", RG_RANDTEST_SHAPES_ZP);
  EXPECT("(conv2d ?i (reshape 4x4x1x3 (concat 1 (slice 1 0 2 ?w) (slice 1 0 2 ?w)))) => "
         "(conv2d ?i (concat 1 (slice 1 0 2 ?w) (slice 1 0 2 ?w)))",
         "i=1x4x5x5 w=4x2x1x3", RG_RANDTEST_SHAPES_ZP);
  /* a rule that no other shape set types: the solver cannot vary anything */
  EXPECT("(ewadd ?x (Iewmul 2x4)) => (ewadd (Iewmul 2x4) ?x)", "x=2x4", RG_RANDTEST_NO_SHAPES);
  /* the other-shapes half alone, with no base: the sets come from the rule itself, so a rule
   * true only at 1x1 is caught without knowing where it was found */
  EXPECT_ALONE("(matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))", RG_RANDTEST_PASS);
  EXPECT_ALONE("(transpose 10 ?x) => ?x", RG_RANDTEST_SHAPES_ZP);
  EXPECT_ALONE("(matmul ?x ?y) => (matmul ?y ?x)", RG_RANDTEST_SHAPES_ZP);
  EXPECT_ALONE("(ewadd ?x (Iewmul 2x4)) => (ewadd (Iewmul 2x4) ?x)", RG_RANDTEST_NO_SHAPES);
  /* a slice true only where a concat's first operand has two rows, at the base the depth-4
   * test stage grows other sets from (every size one common size), and with none */
  EXPECT("(matmul (relu (slice 0 1 2 (concat 0 ?w2 ?w1))) ?w3) => "
         "(slice 0 1 2 (concat 0 (matmul (relu ?w2) ?w3) ?w1))",
         "w2=4x4 w1=4x4 w3=4x4", RG_RANDTEST_SHAPES_ZP);
  EXPECT_ALONE("(matmul (relu (slice 0 1 2 (concat 0 ?w2 ?w1))) ?w3) => "
               "(slice 0 1 2 (concat 0 (matmul (relu ?w2) ?w3) ?w1))",
               RG_RANDTEST_SHAPES_ZP);
  EXPECT_ALONE("(conv2d (slice 0 0 2 (concat 0 ?w5 (sigmoid ?w4))) ?w6) => "
               "(slice 0 0 2 (concat 0 (conv2d ?w5 ?w6) ?w4))",
               RG_RANDTEST_SHAPES_ZP);
  return check_done("test_verify_randtest");
}
