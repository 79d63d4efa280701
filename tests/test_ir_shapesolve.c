/* tests/test_ir_shapesolve.c: the shape solver returns only well-typed assignments, varies the
 * dimensions that need not be equal (breaking the base's coincidences), finds bases for axioms
 * with parameter variables, is deterministic, and reports rules that can never type-check. */
#include "check.h"

static rg_rule *parse(const char *text) {
  rg_rule *r = NULL;
  rg_err err;
  if (rg_text_parse_rule(text, &r, &err)) fprintf(stderr, "%s: %s\n", text, err.msg);
  return r;
}

static int32_t dim_of(const rg_assignment *a, const rg_rule *r, const char *var, int d) {
  return a->shapes[rg_graph_find_tvar(r->g, var)].dim[d];
}

static void test_matmul_chain(void) {
  rg_rule *r = parse("(matmul (matmul ?x ?w) ?v) => (matmul ?x (matmul ?w ?v))");
  rg_shape x = rg_shape_make(2, (int32_t[]){2, 4}), sq = rg_shape_make(2, (int32_t[]){4, 4});
  const rg_shape *sp[3] = {&x, &sq, &sq};
  rg_binding base = {sp, NULL, NULL};
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, &base, 1, 6, &l, &err) == RG_OK);
  CHECK(l.n == 6);
  bool non_square = false;
  for (int i = 0; i < l.n; i++) {
    CHECK(rg_rule_well_typed(r, &l.items[i].binding));
    non_square |= dim_of(&l.items[i], r, "w", 0) != dim_of(&l.items[i], r, "w", 1);
    /* the one real constraint: inner dimensions agree */
    CHECK(dim_of(&l.items[i], r, "x", 1) == dim_of(&l.items[i], r, "w", 0));
  }
  CHECK(non_square); /* the base's 4x4 coincidence does not survive */
  CHECK(l.n > 0 && rg_shape_dims_eq(&l.items[0].shapes[0], &x)); /* the base comes first */
  rg_assignment_list l2;
  CHECK(rg_shapes_solve(r, &base, 1, 6, &l2, &err) == RG_OK && l2.n == l.n);
  for (int i = 0; i < l.n && i < l2.n; i++)
    for (int v = 0; v < 3; v++) CHECK(rg_shape_dims_eq(&l.items[i].shapes[v], &l2.items[i].shapes[v]));
  rg_assignment_list_free(&l);
  rg_assignment_list_free(&l2);
  rg_rule_free(r);
}

/* Without a base: axioms with parameter variables get shapes and parameter values. */
static void test_axioms(void) {
  const char *axioms[] = {
      "(split.0 ?a (concat ?a ?x ?y)) => ?x",
      "(conv2d ?sh ?sw ?p ?c ?x (smul ?w ?k)) => (conv2d ?sh ?sw ?p ?c (smul ?x ?k) ?w)",
      "(conv2d ?x (Iconv 4 3 3)) => ?x",
      "(transpose 10 (matmul ?x ?y)) => (matmul (transpose 10 ?y) (transpose 10 ?x))",
      "(poolavg ?k ?k ?s ?s ?p none ?x) => (conv2d ?s ?s ?p none ?x (Cpool 3 ?k ?k))",
      "(concat 0 (concat 1 ?x ?y) (concat 1 ?z ?u)) => (concat 1 (concat 0 ?x ?z) (concat 0 ?y "
      "?u))",
      /* shape variables take the element count of their operand, a concat's included */
      "(reshape ?s (reshape ?t (concat 1 ?x ?y))) => (reshape ?s (concat 1 ?x ?y))",
  };
  for (size_t i = 0; i < sizeof axioms / sizeof *axioms; i++) {
    rg_rule *r = parse(axioms[i]);
    if (!r) {
      CHECK_MSG(0, "%s did not parse", axioms[i]);
      continue;
    }
    rg_assignment_list l;
    rg_err err = {0};
    rg_status st = rg_shapes_solve(r, NULL, 7, 20, &l, &err);
    CHECK_MSG(st == RG_OK && l.n >= 10, "%s: status %d, %d assignments (%s)", axioms[i], st, l.n, err.msg);
    int distinct_params = 0;
    for (int k = 0; k < l.n; k++) {
      CHECK(rg_rule_well_typed(r, &l.items[k].binding));
      if (k && l.items[k].n_pvars &&
          memcmp(l.items[k].pvar_values, l.items[0].pvar_values, sizeof(int32_t) * (size_t)l.items[k].n_pvars))
        distinct_params++;
    }
    if (rg_graph_n_pvars(r->g)) CHECK_MSG(distinct_params > 0, "%s: parameters never vary", axioms[i]);
    rg_assignment_list_free(&l);
    rg_rule_free(r);
  }
}

/* A constant of fixed shape pins its partner: exactly one assignment exists. */
static void test_pinned(void) {
  rg_rule *r = parse("(ewmul ?x (Iewmul 2x4)) => ?x");
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, NULL, 1, 5, &l, &err) == RG_OK && l.n == 1);
  CHECK(l.n == 1 && l.items[0].shapes[0].rank == 2 && l.items[0].shapes[0].dim[0] == 2 &&
        l.items[0].shapes[0].dim[1] == 4);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* Two convs concatenated into one grouped conv (TASO's rule 99): it holds exactly when both
 * kernels have as many output channels, which is when the grouped conv's output seam falls on
 * its group boundary, i.e. when the rule type-checks. The solver must vary everything else, and
 * the rule must agree at every shape set it finds. */
static void test_grouped_conv(void) {
  rg_rule *r = parse("(concat 1 (conv2d ?i ?k) (conv2d ?j ?v)) => "
                     "(conv2d 1 1 same none 1 1 2 (concat 1 ?i ?j) (concat 0 ?k ?v))");
  rg_shape img = rg_shape_make(4, (int32_t[]){2, 4, 5, 5}), ker = rg_shape_make(4, (int32_t[]){4, 4, 3, 3});
  const rg_shape *sp[4] = {&img, &ker, &img, &ker};
  rg_binding base = {sp, NULL, NULL};
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, &base, 5, 12, &l, &err) == RG_OK && l.n >= 6);
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, 3);
  bool channels_vary = false;
  for (int k = 0; k < l.n; k++) {
    CHECK(dim_of(&l.items[k], r, "k", 0) == dim_of(&l.items[k], r, "v", 0));
    channels_vary |= dim_of(&l.items[k], r, "k", 0) != 4;
    for (int d = 0; d < 2; d++) {
      rg_cmp_result res;
      CHECK(rg_rule_compare(r, &l.items[k].binding, (rg_domain)d, &ctx, 1, 2, &res, &err) == RG_OK);
      CHECK(res.verdict == RG_CMP_AGREE);
    }
  }
  CHECK(channels_vary);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* A group count that is a parameter variable takes values above 1 too, with the channels to
 * match (input g times the kernel's, kernel outputs a multiple of g), also where two variables
 * must share their shapes besides (an axiom over (ewadd ?y ?z) as the kernel). */
static void test_group_variable(void) {
  rg_rule *r =
      parse("(conv2d 1 1 same none 1 1 ?g ?x (ewadd ?y ?z)) => "
            "(ewadd (conv2d 1 1 same none 1 1 ?g ?x ?y) (conv2d 1 1 same none 1 1 ?g ?x ?z))");
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK && l.n >= 12);
  int grouped = 0;
  for (int k = 0; k < l.n; k++) {
    int32_t g = l.items[k].pvar_values[rg_graph_find_pvar(r->g, "g")];
    CHECK(rg_rule_well_typed(r, &l.items[k].binding));
    CHECK(dim_of(&l.items[k], r, "x", 1) == g * dim_of(&l.items[k], r, "y", 1));
    grouped += g > 1;
  }
  CHECK_MSG(grouped >= l.n / 4, "%d of %d assignments with more than one group", grouped, l.n);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* Scalars: a variable with no rank hint may be rank 0. */
static void test_scalars(void) {
  rg_rule *r = parse("(smul ?s ?t) => (smul ?t ?s)");
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, NULL, 1, 3, &l, &err) == RG_OK && l.n >= 1);
  for (int k = 0; k < l.n; k++) CHECK(l.items[k].shapes[0].rank == 0 && l.items[k].shapes[1].rank == 0);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* Constants: an all-ones factor's shape variable takes its partner's shape, so the axiom is
 * tried at as many shapes as its variable takes; a rule with only an Int (the identity's size)
 * draws it from a range wider than four values, and a constant alone draws its own shape. */
static void test_constants(void) {
  rg_rule *r = parse("(ewmul ?x (Iewmul ?s)) => ?x");
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK && l.n >= 20);
  for (int k = 0; k < l.n; k++) CHECK(rg_rule_well_typed(r, &l.items[k].binding));
  rg_assignment_list_free(&l);
  rg_rule_free(r);
  r = parse("(transpose 10 (Imatmul ?n)) => (Imatmul ?n)");
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK && l.n >= 20);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
  /* with no tensor variable to copy, the constant draws a shape of its own */
  r = parse("(transpose 10 (transpose 10 (Iewmul ?s))) => (Iewmul ?s)");
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK && l.n >= 20);
  for (int k = 0; k < l.n; k++) CHECK(l.items[k].pvar_values[rg_graph_find_pvar(r->g, "s")] == 2);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
  /* the kernel's sizes fix every shape (?y is n x n x 1 x k): they draw from six values each,
   * not four, or 16 assignments would be all there are */
  r = parse("(matmul ?y (Iconv ?n ?k ?k)) => (ewmul ?y (Iconv ?n 1 ?k))");
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK && l.n >= 20);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* A reshape's shape variable takes an order of its operand's sizes where the hashed
 * factorization does not type: a row reshaped to a column (the dot-row axiom's shapes). */
static void test_reshape_orders(void) {
  rg_rule *r = parse("(matmul ?a (reshape ?s ?b)) => (matmul ?b (reshape ?s ?a))");
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK && l.n >= 20);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* Ranks a rule's structure forces: a fixed reshape's, and through matmul to its other operand. */
static void test_forced_ranks(void) {
  rg_rule *r = parse("(matmul ?w (reshape 4x4x3x1 (relu ?x))) => (matmul ?w (reshape 4x4x3x1 ?x))");
  int8_t rk[32];
  CHECK(rg_graph_size(r->g) <= 32);
  rg_forced_ranks(r->g, rk);
  for (int32_t id = 0; id < rg_graph_size(r->g); id++) {
    const rg_node *nd = rg_graph_node(r->g, id);
    bool is_x = nd->op == RG_OP_INPUT && !strcmp(rg_graph_tvar_name(r->g, nd->params[0]), "x");
    CHECK_MSG(rk[id] == (is_x || nd->op == RG_OP_RELU ? 0 : 4), "node %d (%s): rank %d", id,
              rg_op_get((rg_op)nd->op)->name, rk[id]);
  }
  rg_rule_free(r);
}

static void test_impossible(void) {
  rg_rule *r = parse("(ewadd ?x (Imatmul 3)) => (ewadd ?x (Imatmul 4))");
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, NULL, 1, 5, &l, &err) == RG_ERR_SHAPE);
  CHECK(strstr(err.msg, "found no shapes") != NULL);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* Solves a rule of one 4-D tensor variable from the base dims. */
static rg_rule *solve_4d(const char *text, const int32_t *dims, uint64_t seed, int max,
                         rg_assignment_list *l, rg_status *st) {
  rg_rule *r = parse(text);
  rg_shape v = rg_shape_make(4, dims);
  const rg_shape *sp[1] = {&v};
  rg_binding base = {sp, NULL, NULL};
  rg_err err;
  *st = rg_shapes_solve(r, &base, seed, max, l, &err);
  return r;
}

/* A base with width 1 is generalised away from 1. */
static void test_width_one(void) {
  rg_assignment_list l;
  rg_status st;
  rg_rule *r = solve_4d("(poolmax 3 3 1 1 same none ?i) => (poolmax 3 3 1 1 same none ?i)",
                        (int32_t[]){2, 4, 5, 1}, 3, 4, &l, &st);
  CHECK(st == RG_OK && l.n == 4);
  bool wider = false;
  for (int k = 1; k < l.n; k++) wider |= l.items[k].shapes[0].dim[3] > 1;
  CHECK(wider);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* Under a reshape to a constant shape, sets that keep the element count but change its
 * factorization (a 4x2x1x3 weight becomes 4x2x3x1) are found. */
static void test_trade_factors(void) {
  rg_assignment_list l;
  rg_status st;
  rg_rule *r = solve_4d("(reshape 4x8x1x3 ?w) => (reshape 4x8x1x3 ?w)", (int32_t[]){4, 8, 1, 3}, 1,
                        6, &l, &st);
  CHECK(st == RG_OK && l.n >= 2);
  bool traded = false;
  for (int k = 1; k < l.n; k++) {
    const rg_shape *s = &l.items[k].shapes[0];
    CHECK(s->rank == 4 && s->dim[0] * s->dim[1] * s->dim[2] * s->dim[3] == 96);
    traded |= s->dim[2] != 1 || s->dim[3] != 3;
  }
  CHECK(traded);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

/* Skewed walks: two channel concats meeting in a conv are split out of line with each other
 * (x's channels are not the kernel part y's), which refine() alone never gives; a grouped
 * conv's kernel count leaves the walk's sizes 1..6. */
static void test_skew(void) {
  rg_rule *r = parse("(conv2d (concat 1 ?x ?z) (concat 1 ?y ?u)) => (conv2d (concat 1 ?z ?x) (concat 1 ?u ?y))");
  rg_assignment_list l;
  rg_err err;
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK && l.n >= 12);
  int misaligned = 0;
  for (int k = 0; k < l.n; k++) {
    CHECK(rg_rule_well_typed(r, &l.items[k].binding));
    misaligned += dim_of(&l.items[k], r, "x", 1) != dim_of(&l.items[k], r, "y", 1);
  }
  CHECK_MSG(misaligned > 0, "no out-of-line split in %d assignments", l.n);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
  r = parse("(conv2d 1 1 same none 1 1 4 ?x ?w) => (conv2d 1 1 same none 1 1 4 ?x ?w)");
  CHECK(rg_shapes_solve(r, NULL, 1, 24, &l, &err) == RG_OK);
  int many = 0;
  for (int k = 0; k < l.n; k++) many += dim_of(&l.items[k], r, "w", 0) > 6;
  CHECK_MSG(many > 0, "no grouped conv with more than 6 kernels in %d assignments", l.n);
  rg_assignment_list_free(&l);
  rg_rule_free(r);
}

int main(void) {
  test_skew();
  test_matmul_chain();
  test_axioms();
  test_pinned();
  test_grouped_conv();
  test_group_variable();
  test_scalars();
  test_constants();
  test_reshape_orders();
  test_forced_ranks();
  test_impossible();
  test_width_one();
  test_trade_factors();
  return check_done("test_ir_shapesolve");
}
