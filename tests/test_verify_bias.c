/* tests/test_verify_bias.c: the channel bias (ir/ops.def) through the prover. A bias moves
 * through merged convolutions and matmuls (a concat of two biased convs over one input is the
 * biased conv of the concatenated kernels, with the concatenated biases), through splits of
 * them, batch concats, sums and transposes: each proved by both solvers from
 * verify/axioms.rules; their false neighbours (biases swapped, a bias on the wrong part) by
 * neither, even with every axiom asserted. Needs z3 and cvc5 (scripts/setup.sh). */
#include "check.h"
#include "verify_helpers.h"

/* What a graph optimizer merges: two convs or products over one input, each with its bias. */
static const char merged[] =
    "conv: (concat 1 (bias 1 (conv2d ?x ?w1) ?b1) (bias 1 (conv2d ?x ?w2) ?b2)) => "
    "(bias 1 (conv2d ?x (concat 0 ?w1 ?w2)) (concat 0 ?b1 ?b2))\n"
    "matmul: (concat 1 (bias 1 (matmul ?x ?w1) ?b1) (bias 1 (matmul ?x ?w2) ?b2)) => "
    "(bias 1 (matmul ?x (concat 1 ?w1 ?w2)) (concat 0 ?b1 ?b2))\n";

/* The merged conv taken apart again, and a bias through other joins. */
static const char moved[] =
    "split-0: (split.0 1 (bias (conv2d ?x (concat 0 ?w1 ?w2)) (concat 0 ?b1 ?b2))) => (bias (conv2d ?x ?w1) ?b1)\n"
    "split-1: (split.1 1 (bias (conv2d ?x (concat 0 ?w1 ?w2)) (concat 0 ?b1 ?b2))) => (bias (conv2d ?x ?w2) ?b2)\n"
    "batch: (concat 0 (bias (conv2d ?x ?w) ?b) (bias (conv2d ?y ?w) ?b)) => (bias (conv2d (concat 0 ?x ?y) ?w) ?b)\n"
    "rows: (concat 0 (bias 1 (matmul ?x ?w) ?b) (bias 1 (matmul ?y ?w) ?b)) => (bias 1 (matmul (concat 0 ?x ?y) ?w) ?b)\n"
    "sum: (ewadd (bias ?x ?b) (bias ?y ?c)) => (bias (ewadd ?x ?y) (ewadd ?b ?c))\n"
    "transpose: (transpose 10 (bias 1 (matmul ?x ?w) ?b)) => (bias 0 (matmul (transpose 10 ?w) (transpose 10 ?x)) ?b)\n"
    "vectors: (bias 0 ?b (bias 0 ?c ?d)) => (ewadd (ewadd ?d ?b) ?c)\n";

/* Each differs from a true rule above by where a bias goes; with shapes where both sides type. */
static const struct {
  const char *rule, *shapes;
} false_neighbours[] = {
    {"conv-swapped: (concat 1 (bias 1 (conv2d ?x ?w1) ?b1) (bias 1 (conv2d ?x ?w2) ?b2)) => "
     "(bias 1 (conv2d ?x (concat 0 ?w1 ?w2)) (concat 0 ?b2 ?b1))",
     "x=1x2x3x3 w1=2x2x1x1 w2=2x2x1x1 b1=2 b2=2"},
    {"matmul-swapped: (concat 1 (bias 1 (matmul ?x ?w1) ?b1) (bias 1 (matmul ?x ?w2) ?b2)) => "
     "(bias 1 (matmul ?x (concat 1 ?w1 ?w2)) (concat 0 ?b2 ?b1))",
     "x=2x3 w1=3x2 w2=3x2 b1=2 b2=2"},
    {"split-other: (split.0 1 (bias (conv2d ?x (concat 0 ?w1 ?w2)) (concat 0 ?b1 ?b2))) => (bias (conv2d ?x ?w1) ?b2)",
     "x=1x2x3x3 w1=2x2x1x1 w2=2x2x1x1 b1=2 b2=2"},
    {"sum-once: (ewadd (bias ?x ?b) (bias ?y ?c)) => (bias (ewadd ?x ?y) ?b)", "x=2x3 y=2x3 b=3 c=3"},
};
#define N_FALSE (sizeof false_neighbours / sizeof *false_neighbours)

/* The sides of each false neighbour differ where both type: false indeed, not just unproved. */
static void test_false_neighbours_differ(void) {
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, 3);
  for (size_t i = 0; i < N_FALSE; i++) {
    t_graph t;
    if (t_graph_open(&t, false_neighbours[i].rule, false_neighbours[i].shapes)) {
      CHECK_MSG(0, "%s did not type at %s", false_neighbours[i].rule, false_neighbours[i].shapes);
      continue;
    }
    rg_cmp_result res;
    rg_err err;
    CHECK(rg_rule_compare(t.r, &t.b, RG_DOM_F64, &ctx, 5, 2, &res, &err) == RG_OK);
    CHECK_MSG(res.verdict == RG_CMP_VALUE, "%s: verdict %d at %s", false_neighbours[i].rule, (int)res.verdict,
              false_neighbours[i].shapes);
    t_graph_close(&t);
  }
}

/* The false neighbours reach the solvers (no refutation first, no search for typed shapes), and
 * neither proves one, with the relevant axioms or with every axiom. */
static void test_false_neighbours_unproved(const rg_axioms *ax) {
  char text[4096] = "";
  for (size_t i = 0; i < N_FALSE; i++) {
    strncat(text, false_neighbours[i].rule, sizeof text - strlen(text) - 2);
    strcat(text, "\n");
  }
  expect_unproved(ax, text, 2000, false, false);
  expect_unproved(ax, text, 2000, false, true);
}

int main(void) {
  rg_axioms ax;
  load_axioms(&ax);
  expect_verified(&ax, merged, true);
  expect_verified(&ax, moved, true);
  test_false_neighbours_differ();
  test_false_neighbours_unproved(&ax);
  rg_axioms_free(&ax);
  return check_done("test_verify_bias");
}
