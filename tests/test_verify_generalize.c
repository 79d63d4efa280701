/* tests/test_verify_generalize.c: splitting repeated variables of tested candidates. The
 * repeated-operand instance of ewadd distributing over two concats generalizes to the law over
 * four tensors (what TASO's rules 103 and 104 need); a law true only because of the repetition
 * is not generalized; a generalization is split again (three variables from one); the bounds
 * on occurrences and tries hold; every rule returned passes random testing itself; a split more
 * general than one refuted in Z_p is refuted with it, where its own trials missed it. */
#include "check.h"
#include "verify/generalize.h"

/* The text of r with variables renamed ?v0, ?v1, ... by first occurrence (equal for renamings). */
static void renamed_text(const rg_rule *r, char *out, size_t cap) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  const char *s = rg_sb_str(&sb);
  char names[16][RG_RULE_MAX_NAME];
  int n = 0;
  size_t o = 0;
  while (*s && o + 8 < cap) {
    if (*s != '?') {
      out[o++] = *s++;
      continue;
    }
    size_t len = strcspn(s + 1, " ()");
    char name[RG_RULE_MAX_NAME];
    snprintf(name, sizeof name, "%.*s", (int)len, s + 1);
    int k = 0;
    while (k < n && strcmp(names[k], name))
      k++;
    if (k == n && n < 16) strcpy(names[n++], name);
    o += (size_t)snprintf(out + o, cap - o, "?v%d", k);
    s += len + 1;
  }
  out[o] = 0;
  rg_sb_free(&sb);
}

typedef struct {
  rg_ruleset out;
  rg_generalize_stats stats;
  rg_status st;
} result;

static result generalize(const char *rule, const char *shapes, int other_shapes,
                         const rg_generalize_limits *lim) {
  result res = {.st = RG_ERR_ARG};
  rg_ruleset_init(&res.out);
  t_graph t;
  if (t_graph_open(&t, rule, shapes)) return res;
  rg_randtest_opts o;
  rg_randtest_opts_default(&o);
  o.other_shapes = other_shapes;
  rg_randtest_verdict v;
  rg_err err;
  /* the candidate itself must pass, as every candidate handed over has */
  CHECK_MSG(!rg_randtest_rule(t.r, &t.b, &o, &v, &err) && v == RG_RANDTEST_PASS, "%s", rule);
  rg_generalize_limits def = rg_generalize_limits_default();
  res.st = rg_generalize_rule(t.r, &t.b, RG_GENERALIZE_ALL, &o, NULL, lim ? lim : &def, &res.out,
                              &res.stats, &err);
  if (res.st) fprintf(stderr, "%s: %s\n", rule, err.msg);
  t_graph_close(&t);
  return res;
}

/* Does out hold a renaming of want? */
static bool holds(const rg_ruleset *out, const char *want) {
  rg_rule *w = NULL;
  rg_err err;
  if (rg_text_parse_rule(want, &w, &err)) return false;
  char a[1024], b[1024];
  renamed_text(w, a, sizeof a);
  rg_rule_free(w);
  for (int i = 0; i < out->n; i++) {
    renamed_text(out->rules[i], b, sizeof b);
    if (!strcmp(a, b)) return true;
  }
  return false;
}

/* Every returned rule has n variables and passes random testing at equal shapes `dims`. */
static void check_all(const rg_ruleset *out, int n, const char *dims) {
  for (int i = 0; i < out->n; i++) {
    rg_rule *r = out->rules[i];
    CHECK(rg_graph_n_tvars(r->g) == n);
    rg_shape s;
    rg_err err;
    CHECK(!rg_shape_parse(dims, (int)strlen(dims), &s, &err));
    const rg_shape *shapes[16];
    for (int k = 0; k < 16; k++)
      shapes[k] = &s;
    rg_binding b = {shapes, NULL, NULL};
    rg_randtest_opts o;
    rg_randtest_opts_default(&o);
    o.seed = 99; /* other trials than the search's */
    rg_randtest_verdict v = RG_RANDTEST_COUNT;
    CHECK(!rg_randtest_rule(r, &b, &o, &v, &err) && v == RG_RANDTEST_PASS);
  }
}

int main(void) {
  /* the repeated-operand instance at depth 3 (?a twice on each side) -> the 4-tensor law */
  result r = generalize(
      "(ewadd (concat 0 ?a ?b) (concat 0 ?c ?a)) => (concat 0 (ewadd ?a ?c) (ewadd ?b ?a))",
      "a=2x4 b=2x4 c=2x4", 2, NULL);
  CHECK(r.st == RG_OK);
  CHECK(
      holds(&r.out,
            "(ewadd (concat 0 ?a ?b) (concat 0 ?c ?d)) => (concat 0 (ewadd ?a ?c) (ewadd ?b ?d))"));
  CHECK(r.out.n == 1 && r.stats.kept == 1);
  /* 2^(4-1) - 1 splits, less those that are renamings of one tried */
  CHECK(r.stats.tried >= 1 && r.stats.tried <= 7 && r.stats.passed == 1 && !r.stats.capped);
  check_all(&r.out, 4, "2x4");
  rg_ruleset_free(&r.out);

  /* the same for ewmul, with both operands repeated: two splits, each of its own variable */
  r = generalize(
      "(ewmul (concat 1 ?a ?a) (concat 1 ?b ?b)) => (concat 1 (ewmul ?a ?b) (ewmul ?a ?b))",
      "a=2x4 b=2x4", 2, NULL);
  CHECK(r.st == RG_OK);
  CHECK(
      holds(&r.out,
            "(ewmul (concat 1 ?a ?c) (concat 1 ?b ?d)) => (concat 1 (ewmul ?a ?b) (ewmul ?c ?d))"));
  CHECK(r.out.n == 1);
  check_all(&r.out, 4, "2x4");
  rg_ruleset_free(&r.out);

  /* true only because the operand repeats: x + x = x * (1 + 1). Of the three splits, (ewadd ?x
   * ?x_1) => ... and (ewadd ?x ?x_1) => (ewmul ?x_1 ...) are false, and the third puts the fresh
   * variable in the target only with ?x in the source only: no rule, not tested */
  r = generalize("(ewadd ?x ?x) => (ewmul ?x (ewadd (Iewmul 2x4) (Iewmul 2x4)))", "x=2x4", 0, NULL);
  CHECK(r.st == RG_OK && r.out.n == 0 && r.stats.kept == 0);
  CHECK(r.stats.tried == 2 && r.stats.passed == 0);
  rg_ruleset_free(&r.out);

  /* one variable six times: split, then split again, into associativity over three tensors
   * (and its renamings by commutativity); nothing with two variables is left */
  r = generalize("(ewadd (ewadd ?x ?x) ?x) => (ewadd ?x (ewadd ?x ?x))", "x=2x4", 2, NULL);
  CHECK(r.st == RG_OK && r.out.n >= 1);
  CHECK(holds(&r.out, "(ewadd (ewadd ?a ?b) ?c) => (ewadd ?a (ewadd ?b ?c))"));
  check_all(&r.out, 3, "2x4");
  CHECK(r.stats.tried <= RG_GENERALIZE_MAX_TRIES);
  rg_ruleset_free(&r.out);

  /* the bounds: at most max_tries tests; a variable occurring more than max_occurrences times is
   * not split at all */
  rg_generalize_limits lim = {RG_GENERALIZE_MAX_OCCURRENCES, 3};
  r = generalize("(ewadd (ewadd ?x ?x) ?x) => (ewadd ?x (ewadd ?x ?x))", "x=2x4", 2, &lim);
  CHECK(r.st == RG_OK && r.stats.tried == 3 && r.stats.capped);
  rg_ruleset_free(&r.out);
  lim = (rg_generalize_limits){5, RG_GENERALIZE_MAX_TRIES};
  r = generalize("(ewadd (ewadd ?x ?x) ?x) => (ewadd ?x (ewadd ?x ?x))", "x=2x4", 2, &lim);
  CHECK(r.st == RG_OK && r.stats.tried == 0 && r.out.n == 0);
  rg_ruleset_free(&r.out);
  /* nine occurrences: over the default bound */
  r = generalize("(ewadd (ewadd (ewadd ?x ?x) (ewadd ?x ?x)) ?x) => (ewadd ?x (ewadd (ewadd ?x ?x) "
                 "(ewadd ?x ?x)))",
                 "x=2x4", 0, NULL);
  CHECK(r.st == RG_OK && r.stats.tried == 0 && r.out.n == 0);
  rg_ruleset_free(&r.out);

  /* a generalization false at shapes its own trials missed (?w6 and ?w6_1 of different sizes
   * permute the channels differently), found by --ops all at depth 3: one of its instances was
   * refuted in Z_p first, which refutes it without a trial; the one keeping ?w6 shared is true */
  r = generalize(
      "(conv2d 1 1 same relu (conv2d 1 1 same relu ?w5 (concat 0 ?w6 ?w4)) (conv2d 1 1 same relu "
      "?w5 (concat 0 ?w6 ?w4))) => (conv2d 1 1 same relu (conv2d 1 1 same relu ?w5 (concat 0 ?w4 "
      "?w6)) (conv2d 1 1 same relu ?w5 (concat 0 ?w4 ?w6)))",
      "w4=4x4x3x3 w5=4x4x3x3 w6=4x4x3x3", 3, NULL);
  CHECK(r.st == RG_OK);
  CHECK(!holds(
      &r.out,
      "(conv2d 1 1 same relu (conv2d 1 1 same relu ?a (concat 0 ?b ?c)) (conv2d 1 1 same relu ?d "
      "(concat 0 ?e ?f))) => (conv2d 1 1 same relu (conv2d 1 1 same relu ?a (concat 0 ?c ?b)) "
      "(conv2d 1 1 same relu ?d (concat 0 ?f ?e)))"));
  CHECK(holds(
      &r.out,
      "(conv2d 1 1 same relu (conv2d 1 1 same relu ?a (concat 0 ?b ?c)) (conv2d 1 1 same relu ?d "
      "(concat 0 ?b ?f))) => (conv2d 1 1 same relu (conv2d 1 1 same relu ?a (concat 0 ?c ?b)) "
      "(conv2d 1 1 same relu ?d (concat 0 ?f ?b)))"));
  rg_ruleset_free(&r.out);

  /* nothing repeated: nothing to do */
  r = generalize("(ewadd ?x ?y) => (ewadd ?y ?x)", "x=2x4 y=2x4", 2, NULL);
  CHECK(r.st == RG_OK && r.stats.tried == 0 && r.out.n == 0);
  rg_ruleset_free(&r.out);
  return check_done("test_verify_generalize");
}
