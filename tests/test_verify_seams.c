/* tests/test_verify_seams.c: seams in guards and in the SMT encoding (verify/guard.h,
 * verify/smt_seams.c), and the axioms that type only where both sides do. Axioms whose sides differ in seams where a tensor variable is a concat
 * (conv-identity, slice-whole, split-0 with unshared seams, ...) are rejected by the checker with
 * a seamed counterexample; false rules that such axioms once proved through a contradiction
 * (both solvers, every axiom asserted, no counterexample search) are proved by neither; true
 * goals that need the guards still are. Needs z3 and cvc5 (scripts/setup.sh). */
#include "check.h"
#include "verify_helpers.h"

static void test_parse_and_eval(void) {
  const char *text = "g: (split.0 ?a (concat ?a ?x ?y)) => ?x if (or (= ?a 0) (= (seams ?x 0) (seams ?y 0))) "
                     "(= (seams ?x 1) 0)\n";
  rg_axioms ax;
  rg_err err;
  CHECK_MSG(rg_axioms_parse(text, strlen(text), "t", &ax, &err) == RG_OK, "%s", err.msg);
  const rg_guard *gd = &ax.guards[0];
  CHECK(gd->n_atoms == 2 && rg_guard_uses_seams(gd) && !rg_guard_uses_sizes(gd));
  const rg_graph *g = ax.rules.rules[0]->g;
  int32_t a = rg_graph_find_pvar(g, "a");
  int32_t values[4] = {0};
  uint8_t bound[4] = {0};
  bound[a] = 1;
  /* x cut at 2 on axis 0, y too: same seams; then y cut at 1: different, unless the axis is 0 */
  rg_shape x = {.rank = 2, .dim = {4, 3}, .nseam = {1, 0}, .seam = {{2}}};
  rg_shape y = x, y1 = x, plain = {.rank = 2, .dim = {4, 3}};
  y1.seam[0][0] = 1;
  const rg_shape *same[] = {&x, &y}, *differ[] = {&x, &y1}, *none[] = {&plain, &plain};
  values[a] = 1;
  CHECK(rg_guard_apply(gd, same, values, bound) == 1);
  CHECK(rg_guard_apply(gd, differ, values, bound) == 0);
  CHECK(rg_guard_apply(gd, none, values, bound) == 1);
  values[a] = 0; /* on the concat's own axis the operands' seams may differ */
  CHECK(rg_guard_apply(gd, differ, values, bound) == 1);
  x.nseam[1] = 1; /* (= (seams ?x 1) 0) fails */
  x.seam[1][0] = 1;
  CHECK(rg_guard_apply(gd, same, values, bound) == 0);
  rg_axioms_free(&ax);

  const char *sized = "g: (slice ?a 0 ?h ?x) => ?x if (= ?h (dim ?x ?a)) (= (seams ?x ?a) 0)\n";
  CHECK(rg_axioms_parse(sized, strlen(sized), "t", &ax, &err) == RG_OK && rg_guard_uses_sizes(&ax.guards[0]));
  rg_axioms_free(&ax);
  const char *bad[][2] = {
      {"g: (split.0 ?a (concat ?a ?x ?y)) => ?x if (= (seams ?x) 0)\n", "expected an integer"},
      {"g: (split.0 ?a (concat ?a ?x ?y)) => ?x if (or (= ?a 0))\n", "expected an atom"},
      {"g: (split.0 ?a (concat ?a ?x ?y)) => ?x if (or (= ?a 0) (= ?a 1) (= ?a 2))\n", "after two operands"},
      {"g: (split.0 ?a (concat ?a ?x ?y)) => ?x if (= (seams ?q 0) 0)\n", "?q is not a tensor variable"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    rg_status st = rg_axioms_parse(bad[i][0], strlen(bad[i][0]), "t", &ax, &err);
    CHECK_MSG(st == RG_ERR_PARSE && strstr(err.msg, bad[i][1]), "%s: got '%s'", bad[i][0], err.msg);
    rg_axioms_free(&ax);
  }
}

/* Tempting axioms that hold in values and at seamless shapes but not where a tensor variable
 * has seams: the checker finds each, and says so with the seams ("8[4]x3"). */
static void test_checker_rejects_seam_changes(void) {
  const char *text =
      "conv-identity-untyped: (conv2d 1 1 same none ?x (Iconv ?n ?kh ?kw)) => ?x\n"
      "ewmul-identity-untyped: (ewmul ?x (Iewmul ?s)) => ?x\n"
      "slice-whole-untyped: (slice ?a 0 ?h ?x) => ?x if (= ?h (dim ?x ?a))\n"
      "split-0-untyped: (split.0 ?a (concat ?a ?x ?y)) => ?x\n"
      "concat-ewadd-untyped: (concat ?a (ewadd ?x ?y) (ewadd ?z ?u)) => (ewadd (concat ?a ?x ?z) (concat ?a ?y ?u))\n";
  rg_axioms ax;
  rg_err err;
  CHECK_MSG(rg_axioms_parse(text, strlen(text), "t", &ax, &err) == RG_OK, "%s", err.msg);
  rg_axcheck_opts o;
  rg_axcheck_opts_init(&o);
  rg_axiom_verdict vs[5];
  int bad = 0;
  CHECK(rg_axioms_check(&ax, &o, vs, &bad, &err) == RG_OK);
  for (int i = 0; i < ax.rules.n; i++)
    CHECK_MSG(!vs[i].sound && strstr(vs[i].why, "types differ") && strchr(vs[i].why, '['), "%s: %s",
              ax.rules.rules[i]->name, vs[i].sound ? "accepted" : vs[i].why);
  rg_axioms_free(&ax);
}

/* The checker tries an axiom wherever its source types (source_only, the default; off, as for
 * a candidate rule, only where both sides do): unguarded, enlarge-ewadd's target does not type
 * where the kernels differ in size (it is "typed only"); guarded by those sizes, as
 * verify/axioms.rules has it, it is sound there, both ways round. */
static void test_typed_only(void) {
  const char *text =
      "enlarge-ewadd-untyped: (ewadd (enlarge ?kh ?kw ?x) (enlarge ?kh ?kw ?y)) => (enlarge ?kh ?kw (ewadd ?x ?y))\n"
      "enlarge-ewadd: (ewadd (enlarge ?kh ?kw ?x) (enlarge ?kh ?kw ?y)) => (enlarge ?kh ?kw (ewadd ?x ?y)) if (= (dim "
      "?x 2) (dim ?y 2)) (= (dim ?x 3) (dim ?y 3))\n";
  rg_axioms ax;
  rg_err err;
  CHECK_MSG(rg_axioms_parse(text, strlen(text), "t", &ax, &err) == RG_OK, "%s", err.msg);
  rg_axcheck_opts o;
  rg_axcheck_opts_init(&o);
  rg_axiom_verdict vs[2];
  int bad = 0;
  o.source_only = false;
  CHECK(rg_axioms_check(&ax, &o, vs, &bad, &err) == RG_OK && bad == 0); /* both hold where both sides type */
  o.source_only = true;
  CHECK(rg_axioms_check(&ax, &o, vs, &bad, &err) == RG_OK && bad == 1);
  CHECK_MSG(!vs[0].sound && vs[0].typed_only && strstr(vs[0].why, "target:"), "untyped: %s", vs[0].why);
  CHECK_MSG(vs[1].sound && vs[1].assignments >= 20, "guarded: %d assignments, %s", vs[1].assignments, vs[1].why);
  rg_axioms_free(&ax);
}

/* Every rule here is false, and each was "verified" by both solvers with every axiom asserted
 * before seams were guards (commit e253f99, `rulegen prove -A -R 0 -Y`: s1 to s3 in under 0.5 s
 * through slice-whole, reshape-same-2 or ewmul-identity equating a concat with one of another
 * association, then split-0). b11 cvc5 proved in 5.1 s through conv-identity. */
static void test_false_rules_stay_unproved(const rg_axioms *ax) {
  const char *text =
      "s1: (ewadd (slice 1 0 8 (concat 1 (concat 1 ?x ?y) ?z)) (concat 1 (split.0 1 (concat 1 (concat 1 ?x ?y) ?z)) ?z)) => "
      "(relu (slice 1 0 8 (concat 1 (concat 1 ?x ?y) ?z)))\n"
      "s2: (ewadd (reshape 2x8 (concat 1 (concat 1 ?x ?y) ?z)) (concat 1 (split.0 1 (concat 1 (concat 1 ?x ?y) ?z)) ?z)) => "
      "(relu (slice 1 0 8 (concat 1 (concat 1 ?x ?y) ?z)))\n"
      "s3: (ewadd (ewmul (concat 1 (concat 1 ?x ?y) ?z) (Iewmul 2x8)) (concat 1 (split.0 1 (concat 1 (concat 1 ?x ?y) ?z)) ?z)) => "
      "(relu (slice 1 0 8 (concat 1 (concat 1 ?x ?y) ?z)))\n"
      "b11: (ewadd (conv2d ?x (Iconv 4 3 3)) ?z) => (ewadd ?x ?x)\n"
      /* near the matmul and concat seams facts: the operands' order, and a split that reads them */
      "m1: (matmul ?x (concat 1 ?y ?z)) => (concat 1 (matmul ?x ?z) (matmul ?x ?y))\n"
      "m2: (split.0 1 (matmul ?x (concat 1 ?y ?z))) => (matmul ?x ?z)\n";
  expect_unproved(ax, text, 3000, false, false);
  expect_unproved(ax, text, 3000, false, true);
}

/* True goals whose proofs pass through seam guards: a conv by the identity kernel (its
 * operand's channels and seams follow from the rule), a split of a concat whose operands share
 * seams off its axis, a sum of two equal concats taken apart, and 2-D matmul laws where the
 * seams rule out the other ranks. */
static void test_true_goals(const rg_axioms *ax) {
  const char *text =
      "t1: (conv2d 1 1 same none (relu ?x) (Iconv 4 3 3)) => (relu ?x)\n"
      "t2: (split.1 0 (concat 1 (concat 0 ?w2 ?w1) (concat 0 ?w2 ?w1))) => (concat 1 ?w1 ?w1)\n"
      "t3: (ewadd (concat 1 (concat 1 ?w ?w) ?w) (concat 1 (concat 1 ?w ?w) ?w)) => (concat 1 (concat 1 (ewadd ?w ?w) "
      "(ewadd ?w ?w)) (ewadd ?w ?w))\n"
      "t4: (slice 1 0 2 (concat 1 (concat 0 ?x ?y) (concat 0 ?x ?y))) => (concat 0 ?x ?y)\n"
      /* held-out depth-4 candidates true only at rank 2 among the ranks where both sides have
       * the same sizes: at rank 3 or 4 the concat joins rows or batches, and the sides differ
       * in seams (the outputs' seams are equal by hypothesis, a concat has a seam, a matmul's
       * rows come from its left operand) */
      "t5: (matmul ?w1 (concat 1 (slice 1 2 4 ?w2) (ewadd (slice 1 2 4 ?w2) (slice 1 2 4 ?w2)))) => (concat 1 "
      "(slice 1 2 4 (matmul ?w1 ?w2)) (ewadd (slice 1 2 4 (matmul ?w1 ?w2)) (slice 1 2 4 (matmul ?w1 ?w2))))\n"
      "t6: (matmul (concat 0 (slice 0 0 1 ?x1) (slice 0 0 1 ?x1)) (ewadd ?w1 ?w1)) => (concat 0 (slice 0 0 1 "
      "(matmul (ewadd ?x1 ?x1) ?w1)) (slice 0 0 1 (matmul (ewadd ?x1 ?x1) ?w1)))\n"
      /* one step of ewmul-identity, whose guard is all seams: z3 timed out (2 s) while it chose
       * the guard's seams terms as triggers; a guarded axiom now names its sides */
      "t7: (ewmul (matmul ?x1 ?w1) (Iewmul 2x4)) => (matmul ?x1 ?w1)\n";
  expect_verified(ax, text, true);
}

/* The seams function is declared where a seams guard is asserted, with the rule's tensors
 * seamless, and not elsewhere. */
static void test_encoding(const rg_axioms *ax) {
  const char *rules[2] = {"(split.0 0 (concat 0 ?x ?y)) => ?x", "(ewadd ?x ?y) => (ewadd ?y ?x)"};
  for (int k = 0; k < 2; k++) {
    rg_rule *r = NULL;
    rg_err err;
    rg_obligation o;
    CHECK(rg_text_parse_rule(rules[k], &r, &err) == RG_OK);
    CHECK(rg_smt_encode(r, 0, ax, false, &o, &err) == RG_OK);
    bool seams = strstr(o.text, "(declare-fun seams (T Int) Int)") != NULL;
    CHECK_MSG(seams == !k, "%s: seams %s", rules[k], seams ? "declared" : "missing");
    if (!k) CHECK(strstr(o.text, "(assert (! (= (seams t.y 3) 0) :named fact.") && strstr(o.text, "(seams ?t.x 1) (seams ?t.y 1)"));
    rg_obligation_free(&o);
    rg_rule_free(r);
  }
}

/* A split of a rule variable (the halves of a merged product, which the input sets' xs and is
 * model): split-whole takes the variable apart where a goal splits it, the variables' seams are
 * then what typing says (each split's operand has some), not none. The merge family's steps are
 * proved; rules that swap the halves, split along the other axis or mix the halves of two
 * variables are proved by neither solver, with every axiom asserted too and no shape search
 * to refute them first (a contradiction between the seams hypotheses would prove them all). */
static void test_split_of_a_variable(const rg_axioms *ax) {
  const char *true_rules =
      "w1: (concat 1 (split.0 1 ?y) (split.1 1 ?y)) => ?y\n"
      "w2: (relu (split.0 1 ?y)) => (split.0 1 (relu ?y))\n"
      "w3: (bias (split.0 1 ?y) ?b1) ; (bias (split.1 1 ?y) ?b2) => (split.0 1 (bias ?y (concat 0 "
      "?b1 ?b2))) ; "
      "(split.1 1 (bias ?y (concat 0 ?b1 ?b2)))\n"
      "w4: (split.1 1 (bias ?y (concat 0 ?b1 ?b2))) => (bias (split.1 1 ?y) ?b2)\n"
      /* a slice of the first part's positions is the part where the outputs' types agree: the
       * part keeps any seams it had on the axis, the slice none (the hypothesis that the
       * outputs' seams agree is what proves these) */
      "w5: (slice 1 0 4 (ewmul ?y ?y)) => (split.0 1 (ewmul ?y ?y))\n"
      "w6: (concat 0 (slice 1 0 4 ?y) (relu (slice 1 0 4 ?y))) => (split.0 1 (concat 0 ?y (relu "
      "?y)))\n";
  expect_verified(ax, true_rules, true);
  const char *false_rules =
      "f1: (relu (split.0 1 ?y)) => (split.1 1 (relu ?y))\n"
      "f3: (bias (split.0 1 ?y) ?b1) ; (bias (split.1 1 ?y) ?b2) => (split.0 1 (bias ?y (concat 0 "
      "?b2 ?b1))) ; "
      "(split.1 1 (bias ?y (concat 0 ?b2 ?b1)))\n"
      "f4: (split.0 1 (ewadd ?y ?z)) => (ewadd (split.0 1 ?y) (split.1 1 ?z))\n"
      "f5: (concat 1 (split.1 1 ?y) (split.0 1 ?y)) => ?y\n"
      "f6: (slice 1 1 5 (relu ?y)) => (split.0 1 (relu ?y))\n"
      "f7: (slice 1 0 4 (ewmul ?y ?y)) => (split.1 1 (ewmul ?y ?y))\n";
  expect_unproved(ax, false_rules, 1500, false, false); /* a contradiction proves in milliseconds */
  expect_unproved(ax, false_rules, 1500, false, true);
  /* the encoding: the typing hypothesis, and no seamless variable */
  rg_rule *r = NULL;
  rg_err err;
  rg_obligation o;
  CHECK(rg_text_parse_rule("(relu (split.0 1 ?y)) => (split.0 1 (relu ?y))", &r, &err) == RG_OK);
  CHECK(rg_smt_encode(r, 0, ax, false, &o, &err) == RG_OK);
  CHECK_MSG(strstr(o.text, "(not (= (seams t.y 1) 0))") && !strstr(o.text, "(= (seams t.y 0) 0)") &&
                strstr(o.text, ":named split-whole"),
            "%s", o.text);
  CHECK_MSG(strstr(o.text, "(= (seams (relu (split.0 1 t.y)) 1) (seams (split.0 1 (relu t.y)) 1))"),
            "the outputs' seams agree: %s", o.text);
  rg_obligation_free(&o);
  rg_rule_free(r);
}

int main(void) {
  rg_axioms ax;
  load_axioms(&ax);
  test_parse_and_eval();
  test_checker_rejects_seam_changes();
  test_typed_only();
  test_encoding(&ax);
  test_true_goals(&ax);
  test_false_rules_stay_unproved(&ax);
  test_split_of_a_variable(&ax);
  rg_axioms_free(&ax);
  return check_done("test_verify_seams");
}
