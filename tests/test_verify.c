/* tests/test_verify.c: the verify module: axioms are sound and the tempting false properties are
 * rejected by the checker; obligations are deterministic; multi-step true goals are proved by
 * both solvers, false goals by neither, in bounded time; unsat cores name real axioms; bad
 * inputs give clear errors; solver workers give the answers of fresh processes and survive
 * crashes and hangs; z3 runs in its exec'd helper (rulegen-z3), also from several threads at
 * once. Needs the solver helpers (rulegen-z3, rulegen-cvc5, built with these tests) and the
 * cvc5 binary (scripts/setup.sh). The helpers themselves: test_verify_serve.c. */
#define _DEFAULT_SOURCE /* setenv */
#include <dirent.h>
#include <errno.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "verify/child.h"
#include "verify/verify.h"
#include "verify_helpers.h"

static rg_rule *rule(const char *text) {
  rg_rule *r = NULL;
  rg_err err;
  if (rg_text_parse_rule(text, &r, &err)) {
    fprintf(stderr, "cannot parse %s: %s\n", text, err.msg);
    exit(2);
  }
  return r;
}

static void test_axioms_sound(const rg_axioms *ax) {
  rg_axcheck_opts o;
  rg_axcheck_opts_init(&o);
  rg_axiom_verdict *vs = calloc((size_t)ax->rules.n, sizeof *vs);
  int bad = -1;
  rg_err err;
  CHECK(rg_axioms_check(ax, &o, vs, &bad, &err) == RG_OK);
  CHECK_MSG(bad == 0, "%d axioms unsound", bad);
  for (int i = 0; i < ax->rules.n; i++) {
    CHECK_MSG(vs[i].sound, "%s: %s", ax->rules.rules[i]->name, vs[i].why);
    CHECK_MSG(vs[i].assignments >= 1, "%s ran at no shapes", ax->rules.rules[i]->name);
  }
  free(vs);
}

/* Tempting but false properties: the checker must reject every one, with a counterexample. */
static void test_false_properties(void) {
  static const char *props[] = {
      "concat-assoc: (concat ?a ?x (concat ?a ?y ?z)) => (concat ?a (concat ?a ?x ?y) ?z)",
      "relu-ewadd: (relu (ewadd ?x ?y)) => (ewadd (relu ?x) (relu ?y))",
      "matmul-comm: (matmul ?x ?y) => (matmul ?y ?x)",
      "avgpool-window-sum: (poolavg 3 3 1 1 same none ?x) => (conv2d ?x (Iconv 4 3 3))",
      "taso-avgpool-maxpool-iconv: (poolavg 3 3 1 1 same none ?x) => (conv2d ?x (poolmax 3 3 1 1 "
      "same none (Iconv 4 3 3)))",
      "enlarge-any-stride: (conv2d ?h ?w same none ?x (enlarge ?kh ?kw ?y)) => (conv2d ?h ?w same "
      "none ?x ?y)",
      "transpose-involution-any-perm: (transpose ?p (transpose ?p ?x)) => ?x",
      "relu-smul: (relu (smul ?x ?s)) => (smul (relu ?x) ?s)",
      "tanh-sigmoid: (tanh ?x) => (sigmoid ?x)",
      "poolmax-poolavg: (poolmax 2 2 1 1 valid none ?x) => (poolavg 2 2 1 1 valid none ?x)",
      /* next to the slice/pad axioms: slicing a grouped conv's output channels is not slicing
       * its kernels, a slice does not pass through a concat on its own axis, padding is not
       * slicing, and a spatial slice does not pass through a conv's window */
      "slice-conv-out-grouped: (slice 1 ?l ?h (conv2d 1 1 same none 1 1 2 ?x ?w)) => (conv2d 1 1 "
      "same none 1 1 2 ?x (slice 0 ?l ?h ?w))",
      "slice-concat-same-axis: (slice 0 ?l ?h (concat 0 ?x ?y)) => (concat 0 (slice 0 ?l ?h ?x) "
      "(slice 0 ?l ?h ?y))",
      "slice-conv-spatial: (slice 2 ?l ?h (conv2d 1 1 same none ?x ?w)) => (conv2d 1 1 same none "
      "(slice 2 ?l ?h ?x) ?w)",
      /* a reshape (?s a shape variable) sees the row-major order, which a transpose changes and
       * which differs between the axes a concat can join on */
      "reshape-transpose: (reshape ?s (transpose 10 ?x)) => (reshape ?s ?x)",
      "reshape-concat-axis: (reshape ?s (concat 1 ?x ?y)) => (reshape ?s (concat 0 ?x ?y))",
      /* concat-conv-out holds for one group only: with g groups the joined kernel's first
       * outputs read the first input group alone (accepted until the shape solver drew group
       * counts above 1 for such a rule) */
      "concat-conv-out-any-groups: (concat 1 (conv2d ?h ?w ?p ?c 1 1 ?g ?x ?y) (conv2d ?h ?w ?p ?c "
      "1 1 ?g ?x ?z)) => (conv2d ?h ?w ?p ?c 1 1 ?g ?x (concat 0 ?y ?z))",
      /* a conv hides its input's channel seams (conv-concat-assoc-1), not its batch seams */
      "conv-concat-assoc-0: (conv2d ?sh ?sw ?p ?f ?dh ?dw ?g (concat 0 (concat 0 ?x ?y) ?z) ?w) => "
      "(conv2d ?sh ?sw ?p ?f ?dh ?dw ?g (concat 0 ?x (concat 0 ?y ?z)) ?w)",
      /* two groups keep their kernels under zero output channels only as many before as after
       * (pad-conv-out-2-groups), and four groups read the whole input only over four copies of
       * it (conv-grouped-4) */
      "pad-conv-out-2-groups-uneven: (pad 1 ?b ?c (conv2d ?sh ?sw ?p none ?dh ?dw 2 ?x ?w)) => "
      "(conv2d ?sh ?sw ?p none ?dh ?dw 2 ?x (pad 0 ?b ?c ?w))",
      "conv-grouped-4-mixed: (conv2d ?h ?w ?p ?c 1 1 4 (concat 1 (concat 1 ?x ?y) (concat 1 ?x ?y)) "
      "?z) => (conv2d ?h ?w ?p ?c 1 1 2 (concat 1 ?x ?y) ?z)",
  };
  rg_axcheck_opts o;
  rg_axcheck_opts_init(&o);
  for (size_t i = 0; i < sizeof props / sizeof props[0]; i++) {
    rg_rule *r = rule(props[i]);
    rg_axiom_verdict v;
    rg_err err;
    CHECK(rg_axiom_check_one(r, &o, &v, &err) == RG_OK);
    CHECK_MSG(!v.sound, "false property accepted: %s", props[i]);
    CHECK_MSG(v.why[0], "no counterexample for %s", props[i]);
    rg_rule_free(r);
  }
  /* TASO's grouped-conv concat property ("caught with N=[1,3]"). Its literal form (the right
   * conv with one group) never type-checks, so the checker rejects it; its typed form (two
   * groups) is sound, and at TASO's N=[1,3] counterexample its sides differ in type, so it can
   * never be applied where it would be false. */
  rg_rule *lit = rule("(concat 1 (conv2d ?x ?y) (conv2d ?z ?u)) => (conv2d (concat 1 ?x ?z) (concat 0 ?y ?u))");
  rg_axiom_verdict v;
  rg_err err;
  o.base = NULL;
  rg_status st = rg_axiom_check_one(lit, &o, &v, &err);
  CHECK_MSG(st != RG_OK || !v.sound, "literal grouped-conv concat accepted");
  rg_rule_free(lit);
  rg_rule *g = rule("(concat 1 (conv2d ?x ?y) (conv2d ?z ?u)) => (conv2d 1 1 same none 1 1 2 (concat 1 ?x ?z) (concat 0 ?y ?u))");
  /* Unguarded, its target does not type wherever its source does (inputs of other spatial
   * sizes, kernels of other counts); where the kernels are concats themselves, the grouped conv
   * keeps only seams on a group boundary. Sound only where a guard says both, as
   * verify/axioms.rules does; the seams alone are not enough. */
  CHECK(rg_axiom_check_one(g, &o, &v, &err) == RG_OK && !v.sound && v.typed_only);
  rg_guard seamless, typed;
  const char *gtext = "(= (seams ?y 0) 0) (= (seams ?u 0) 0)";
  const char *ttext = "(= (dim ?x 1) (dim ?z 1)) (= (dim ?x 2) (dim ?z 2)) (= (dim ?x 3) (dim ?z 3)) (= (dim ?y 0) "
                      "(dim ?u 0)) (= (dim ?y 2) (dim ?u 2)) (= (dim ?y 3) (dim ?u 3))";
  CHECK(rg_guard_parse(gtext, strlen(gtext), g, 1, 1, &seamless, &err) == RG_OK);
  o.guard = &seamless;
  CHECK_MSG(rg_axiom_check_one(g, &o, &v, &err) == RG_OK && !v.sound, "seams-guarded grouped-conv concat sound");
  CHECK(rg_guard_parse(ttext, strlen(ttext), g, 1, 1, &typed, &err) == RG_OK);
  o.guard = &typed;
  CHECK_MSG(rg_axiom_check_one(g, &o, &v, &err) == RG_OK && !v.sound && strstr(v.why, "types differ"),
            "size-guarded grouped-conv concat without seams: %s", v.why);
  char both[512];
  snprintf(both, sizeof both, "%s %s", ttext, gtext);
  CHECK(rg_guard_parse(both, strlen(both), g, 1, 1, &typed, &err) == RG_OK);
  CHECK_MSG(rg_axiom_check_one(g, &o, &v, &err) == RG_OK && v.sound, "guarded grouped-conv concat: %s", v.why);
  o.guard = NULL;
  rg_shape sx, sy, sz, su;
  CHECK(rg_shape_parse("1x2x3x3", 7, &sx, &err) == RG_OK);
  CHECK(rg_shape_parse("1x2x1x1", 7, &sy, &err) == RG_OK);
  CHECK(rg_shape_parse("1x2x3x3", 7, &sz, &err) == RG_OK);
  CHECK(rg_shape_parse("3x2x1x1", 7, &su, &err) == RG_OK);
  const rg_shape *shapes[4];
  shapes[rg_graph_find_tvar(g->g, "x")] = &sx;
  shapes[rg_graph_find_tvar(g->g, "y")] = &sy;
  shapes[rg_graph_find_tvar(g->g, "z")] = &sz;
  shapes[rg_graph_find_tvar(g->g, "u")] = &su;
  rg_binding b = {shapes, NULL, NULL};
  CHECK_MSG(!rg_rule_well_typed(g, &b), "grouped-conv concat typed at N=[1,3]");
  rg_rule_free(g);
  /* transpose-ones with the target's shape defined as the source's unswapped: all-ones again,
   * but of the other type wherever rows and columns differ (the shape solver draws the
   * constant's shape, so the checker finds one) */
  const char *unswapped = "transpose-ones-unswapped: (transpose 10 (Iewmul ?s)) => (Iewmul ?t) if (= ?t ?s) "
                          "(= ?t.1 ?s.1) (= ?t.2 ?s.2) (= ?t.3 ?s.3) (= ?t.4 ?s.4) (= ?t.5 ?s.5) (= ?t.6 ?s.6)\n";
  rg_axioms ones;
  CHECK(rg_axioms_parse(unswapped, strlen(unswapped), "t", &ones, &err) == RG_OK && ones.rules.n == 1);
  o.guard = &ones.guards[0];
  CHECK_MSG(rg_axiom_check_one(ones.rules.rules[0], &o, &v, &err) == RG_OK && !v.sound &&
                strstr(v.why, "types differ"),
            "unswapped transpose-ones: %s", v.why);
  o.guard = NULL;
  rg_axioms_free(&ones);
}

static void test_determinism(const rg_axioms *ax) {
  rg_rule *r = rule("t: (transpose 10 (matmul ?x ?y)) => (matmul (transpose 10 ?y) (transpose 10 ?x))");
  rg_obligation a, b;
  rg_err err;
  CHECK(rg_smt_encode(r, 0, ax, false, &a, &err) == RG_OK);
  CHECK(rg_smt_encode(r, 0, ax, false, &b, &err) == RG_OK);
  CHECK(a.len == b.len && !strcmp(a.text, b.text) && !strcmp(a.sha256, b.sha256));
  CHECK(strlen(a.sha256) == 64);
  CHECK(strstr(a.text, ":named goal") && strstr(a.text, "(declare-sort T 0)"));
  CHECK(strstr(a.text, ":named transpose-matmul"));
  CHECK(!strstr(a.text, ":named conv-relu")); /* no conv in the rule or its axioms */
  rg_obligation_free(&a);
  rg_obligation_free(&b);
  CHECK(rg_smt_encode(r, 1, ax, false, &a, &err) == RG_ERR_ARG);
  rg_rule_free(r);
}

/* An obligation copies each axiom's assertion from ax->smt (made when the axioms were parsed):
 * the same text, facts numbered the same, as writing every axiom again (ax->smt NULL), for rules
 * whose facts come before and after the axioms (sizes, seams, guards) and with every axiom. */
static void test_axiom_texts_copied(rg_axioms *ax) {
  const char *texts[] = {
      "(transpose 10 (matmul ?x ?y)) => (matmul (transpose 10 ?y) (transpose 10 ?x))",
      "(split.0 1 (concat 1 (matmul ?x ?w) (matmul ?x ?v))) => (matmul ?x ?w)",
      "(conv2d 1 1 same relu (concat 0 ?w4 ?w5) ?i1) => (concat 1 (conv2d 1 1 same relu ?w4 ?i1) "
      "(conv2d 1 1 same relu ?w5 ?i1))",
      "(reshape 8x2 (transpose 10 (concat 1 ?x1 ?x2))) => (reshape 8x2 (transpose 10 (concat 1 ?x1 "
      "?x2)))"};
  CHECK(ax->smt != NULL);
  for (size_t k = 0; k < sizeof texts / sizeof *texts; k++)
    for (int all = 0; all < 2; all++) {
      rg_rule *r = rule(texts[k]);
      rg_obligation a, b;
      rg_err err;
      CHECK(rg_smt_encode(r, 0, ax, all, &a, &err) == RG_OK);
      struct rg_smt_axiom *kept = ax->smt;
      ax->smt = NULL;
      CHECK(rg_smt_encode(r, 0, ax, all, &b, &err) == RG_OK);
      ax->smt = kept;
      CHECK_MSG(a.len == b.len && !strcmp(a.text, b.text) && !strcmp(a.sha256, b.sha256),
                "%s (all %d)", texts[k], all);
      /* fact.1 .. fact.M, each once, across the parts named apart */
      int m = 0;
      for (int f = 1; f < 400; f++) {
        char name[32];
        snprintf(name, sizeof name, ":named " RG_SMT_FACT "%d)", f);
        const char *at = strstr(a.text, name);
        if (!at) break;
        CHECK_MSG(!strstr(at + 1, name), "%s named twice in %s", name, texts[k]);
        m = f;
      }
      CHECK(m >= 1 && !strstr(a.text, ":named " RG_SMT_FACT "0)"));
      char next[32];
      snprintf(next, sizeof next, ":named " RG_SMT_FACT "%d)", m + 1);
      CHECK(!strstr(a.text, next));
      rg_obligation_free(&a);
      rg_obligation_free(&b);
      rg_rule_free(r);
    }
}

static void test_true_goals(const rg_axioms *ax) {
  const char *goals =
      "transpose-chain: (transpose 10 (matmul (matmul ?a ?b) (matmul ?c ?d))) => "
      "(matmul (matmul (transpose 10 ?d) (transpose 10 ?c)) (matmul (transpose 10 ?b) (transpose "
      "10 ?a)))\n"
      "expand: (ewmul (ewadd ?a ?b) (ewadd ?c ?d)) => "
      "(ewadd (ewadd (ewmul ?d ?b) (ewmul ?a ?d)) (ewadd (ewmul ?c ?b) (ewmul ?c ?a)))\n"
      "split-concat-matmul: (split.1 1 (concat 1 (matmul ?x ?w) (matmul ?x ?v))) => (matmul ?x "
      "?v)\n"
      "split-matmul-concat: (matmul ?x ?w) ; (matmul ?x ?v) => "
      "(split.0 1 (matmul ?x (concat 1 ?w ?v))) ; (split.1 1 (matmul ?x (concat 1 ?w ?v)))\n"
      /* through a reshape: reshape-reshape, then matmul's distributivity and reshape-ewadd */
      "reshape-matmul: (ewadd (matmul (reshape 4x4 (reshape 2x8 ?w)) ?y) "
      "(matmul (reshape 4x4 ?w) ?y)) => (matmul (reshape 4x4 (ewadd ?w ?w)) ?y)\n"
      /* a depth-4 candidate: a grouped conv's input concats regrouped (conv-concat-assoc-1). (All-ones
       * through a transpose of nested concats is no longer proved: transpose-involution types only at
       * rank 2, and nothing says the rank of a term with all-ones in it.) */
      "conv-regroup: (conv2d 1 1 same none 1 1 2 (concat 1 (concat 1 (slice 1 0 2 ?w7) (slice 1 0 2 "
      "?w7)) ?w9) ?w8) => (conv2d 1 1 same none 1 1 2 (concat 1 (slice 1 0 2 ?w7) (concat 1 (slice 1 "
      "0 2 ?w7) ?w9)) ?w8)\n";
  rg_ruleset rs;
  rg_prove_summary sum;
  rg_rule_proof *p = prove(ax, goals, 10000, &rs, &sum);
  for (int i = 0; i < rs.n; i++)
    CHECK_MSG(p[i].status == RG_PROOF_VERIFIED && p[i].shipped, "%s: %s", rs.rules[i]->name,
              rg_proof_status_name(p[i].status));
  CHECK(sum.verified == rs.n && sum.disagreements == 0);
  CHECK(strstr(sum.version[0], "z3") && strstr(sum.version[1], "cvc5"));
  /* where the time went: every obligation's unsat from each solver, and nothing else */
  int obligations = 0;
  for (int i = 0; i < rs.n; i++) obligations += p[i].n_obl;
  for (int k = 0; k < RG_SOLVER_COUNT; k++) {
    CHECK_MSG(sum.answers[k][RG_SMT_UNSAT] == obligations && sum.answer_ms[k][RG_SMT_UNSAT] > 0, "%s: %d of %d",
              rg_solver_kind_name(k), sum.answers[k][RG_SMT_UNSAT], obligations);
    for (int r = RG_SMT_UNSAT + 1; r < RG_SMT_RESULTS; r++) CHECK(sum.answers[k][r] == 0);
  }
  proofs_free(p, rs.n);
  rg_ruleset_free(&rs);
}

/* False goals: never unsat for either solver; a tight timeout ends them in bounded time. */
static void test_false_goals(const rg_axioms *ax) {
  const char *goals = "matmul-comm: (matmul ?x ?y) => (matmul ?y ?x)\n"
                      "relu-ewadd: (relu (ewadd ?x ?y)) => (ewadd (relu ?x) (relu ?y))\n"
                      "concat-swap: (concat 0 (concat 1 ?x ?y) (concat 1 ?z ?u)) => "
                      "(concat 1 (concat 0 ?y ?z) (concat 0 ?x ?u))\n";
  rg_ruleset rs;
  rg_prove_summary sum;
  double t0 = now_s();
  rg_rule_proof *p = prove(ax, goals, 300, &rs, &sum);
  double took = now_s() - t0;
  for (int i = 0; i < rs.n; i++) {
    CHECK_MSG(p[i].status == RG_PROOF_UNPROVED && !p[i].shipped, "%s: %s", rs.rules[i]->name,
              rg_proof_status_name(p[i].status));
    for (int s = 0; s < RG_SOLVER_COUNT; s++) CHECK(p[i].obl[0].ans[s].result != RG_SMT_UNSAT);
  }
  /* 6 queries of at most 300 ms (+ the kill grace), on however few cores */
  CHECK_MSG(took < 6 * (0.3 + 2.0), "false goals took %.1f s", took);
  proofs_free(p, rs.n);
  rg_ruleset_free(&rs);
}

/* Parses text into rs; proof options with the given timeout, the axioms not re-checked. */
static void setup_rules(const char *text, int timeout_ms, rg_ruleset *rs, rg_prove_opts *o) {
  rg_err err;
  rg_ruleset_init(rs);
  CHECK_MSG(rg_text_parse(text, strlen(text), rs, &err) == RG_OK, "%s", err.msg);
  rg_prove_opts_init(o);
  o->check_axioms = false;
  o->timeout_ms = timeout_ms;
}

/* A rule whose sides differ at some shapes gets that counterexample and never reaches the
 * solvers; a true rule is not refuted. */
static void test_refuted(const rg_axioms *ax) {
  const char *text =
      "seam: (relu (slice 0 1 2 (concat 0 ?x ?y))) => (slice 0 1 2 (concat 0 (relu ?x) ?y))\n"
      "matmul-comm: (matmul ?x ?y) => (matmul ?y ?x)\n"
      "ewadd-comm: (ewadd ?x ?y) => (ewadd ?y ?x)\n";
  rg_ruleset rs;
  rg_prove_opts o;
  rg_err err;
  setup_rules(text, 2000, &rs, &o);
  CHECK(o.refute_sets > 0); /* on by default */
  rg_rule_proof p[3];
  rg_prove_summary sum;
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  for (int i = 0; i < 2; i++) {
    CHECK_MSG(p[i].refuted && p[i].status == RG_PROOF_UNPROVED && !p[i].shipped, "%s",
              rs.rules[i]->name);
    const char *why = p[i].refutation ? p[i].refutation : ""; /* NULL when not refuted */
    CHECK_MSG(strstr(why, "output 1: ") && strstr(why, "; at x="), "%s: '%s'", rs.rules[i]->name, why);
    CHECK(!p[i].obl[0].done[0] && !p[i].obl[0].done[1]); /* no solver query */
  }
  CHECK(!p[2].refuted && p[2].status == RG_PROOF_VERIFIED);
  CHECK(sum.refuted == 2 && sum.unproved == 2 && sum.verified == 1);
  CHECK(sum.answers[0][RG_SMT_UNSAT] == p[2].n_obl); /* the refuted rules were never asked */
  /* Off: the seam rule goes to the solvers, which cannot prove it. */
  o.refute_sets = 0;
  o.timeout_ms = 300;
  rg_ruleset one = {.rules = rs.rules, .n = 1};
  rg_rule_proofs_free(p, 3);
  CHECK(rg_prove_rules(&one, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(!p[0].refuted && p[0].obl[0].done[0] && p[0].obl[0].done[1] &&
        p[0].status == RG_PROOF_UNPROVED);
  rg_rule_proofs_free(p, 3);
  rg_ruleset_free(&rs);
}

/* ewadd-comm, which both solvers prove, and matmul-comm, false: with the shape comparison off it
 * goes to the solvers and times out (300 ms). */
static void setup_comm_pair(rg_ruleset *rs, rg_prove_opts *o) {
  setup_rules("ewadd-comm: (ewadd ?x ?y) => (ewadd ?y ?x)\n"
              "matmul-comm: (matmul ?x ?y) => (matmul ?y ?x)\n",
              300, rs, o);
  o->refute_sets = 0;
}

static int count_lines(const char *path) {
  FILE *f = fopen(path, "r");
  int n = 0, c;
  while (f && (c = fgetc(f)) != EOF)
    n += c == '\n';
  if (f) fclose(f);
  return n;
}

/* Answers kept in a journal are reused by a later run: the same statuses, no solver asked;
 * timeouts only for a time limit no longer than theirs; a line cut short by a crash is dropped. */
static void test_journal(const rg_axioms *ax) {
  char dir[] = "/tmp/rg_journal_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[64];
  snprintf(path, sizeof path, "%s/j.proofs", dir);
  rg_ruleset rs;
  rg_prove_opts o;
  rg_err err;
  setup_comm_pair(&rs, &o);
  o.journal = path;
  rg_rule_proof p[2], q[2];
  rg_prove_summary sum;
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(sum.reused == 0 && count_lines(path) == 5); /* the header and 4 answers */
  CHECK(rg_prove_rules(&rs, ax, &o, q, &sum, &err) == RG_OK);
  CHECK(sum.reused == 4 && count_lines(path) == 5);
  for (int i = 0; i < 2; i++) {
    CHECK(q[i].status == p[i].status);
    CHECK(q[i].obl[0].ans[0].result == p[i].obl[0].ans[0].result);
  }
  CHECK(q[0].status == RG_PROOF_VERIFIED &&
        !strcmp(q[0].obl[0].ans[1].core, p[0].obl[0].ans[1].core));
  /* A longer time limit asks again what timed out (or was unknown) before. */
  o.timeout_ms = 600;
  rg_rule_proofs_free(q, 2);
  CHECK(rg_prove_rules(&rs, ax, &o, q, &sum, &err) == RG_OK);
  CHECK(sum.reused == 2 && count_lines(path) == 7);
  /* A crash in the middle of a line: that line is dropped, the next answer starts a new one. */
  FILE *f = fopen(path, "a");
  if (f) {
    fputs("a7ddc29cc", f);
    fclose(f);
  }
  o.timeout_ms = 900;
  rg_rule_proofs_free(q, 2);
  CHECK(rg_prove_rules(&rs, ax, &o, q, &sum, &err) == RG_OK);
  CHECK(sum.reused == 2 && count_lines(path) == 9); /* the cut line went */
  rg_rule_proofs_free(q, 2);
  CHECK(rg_prove_rules(&rs, ax, &o, q, &sum, &err) == RG_OK);
  CHECK_MSG(sum.reused == 4, "reused %d", sum.reused);
  rg_rule_proofs_free(p, 2);
  rg_rule_proofs_free(q, 2);
  unlink(path);
  rmdir(dir);
  rg_ruleset_free(&rs);
}

/* fail_fast: cvc5 answers only what z3 proved; a rule z3 misses is unproved without a cvc5
 * query; a journaled unsat of z3 still sends the obligation to cvc5; require any is refused. */
/* Obligations are encoded and asked a chunk of rules at a time: the same verdicts as all at
 * once; and a stop before the queries leaves every rule skipped, none taken for proved. */
static void test_chunks(const rg_axioms *ax) {
  rg_ruleset rs;
  rg_prove_opts o;
  rg_err err;
  setup_rules("ewadd-comm: (ewadd ?x ?y) => (ewadd ?y ?x)\n"
              "matmul-comm: (matmul ?x ?y) => (matmul ?y ?x)\n"
              "ewmul-comm: (ewmul ?x ?y) => (ewmul ?y ?x)\n"
              "relu-twice: (relu (relu ?x)) => (relu ?x)\n"
              "assoc: (matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))\n",
              1000, &rs, &o);
  o.refute_sets = 0;
  o.chunk_rules = 2;
  rg_rule_proof p[5];
  rg_prove_summary sum;
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  const rg_proof_status want[5] = {RG_PROOF_VERIFIED, RG_PROOF_UNPROVED, RG_PROOF_VERIFIED,
                                   RG_PROOF_UNPROVED, RG_PROOF_VERIFIED};
  for (int i = 0; i < 5; i++)
    CHECK_MSG(p[i].status == want[i], "rule %d: %s", i, rg_proof_status_name(p[i].status));
  CHECK(sum.verified == 3 && sum.unproved == 2);
  volatile sig_atomic_t stop = 1;
  o.stop = &stop;
  rg_rule_proofs_free(p, 5);
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(sum.skipped == 5 && sum.verified == 0 && sum.shipped == 0);
  for (int i = 0; i < 5; i++)
    CHECK(p[i].n_obl == 1 && !p[i].shipped);
  rg_rule_proofs_free(p, 5);
  rg_ruleset_free(&rs);
}

/* Words of a space-separated list. */
static int n_words(const char *s) {
  int n = 0;
  for (; *s; s += strcspn(s, " "), s += *s == ' ')
    n += *s != ' ';
  return n;
}

/* Lines of an SMT-LIB text that assert something unnamed. */
static int unnamed_asserts(const char *text) {
  int n = 0;
  for (const char *l = text; *l;) {
    size_t len = strcspn(l, "\n");
    char line[8192];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), l);
    n += !strncmp(line, "(assert ", 8) && !strstr(line, ":named ");
    l += len + (l[len] == '\n');
  }
  return n;
}

/* core_hint (fail_fast): cvc5 is given the obligation cut down to z3's core: the goal kept, of
 * the axioms and the named facts only those the core names; its answer is journaled
 * under the cut obligation, so a rerun asks nothing; without the hint, the whole obligation. */
static void test_core_hint(const rg_axioms *ax) {
  rg_ruleset rs;
  rg_prove_opts o;
  rg_err err;
  setup_rules("relu-out: (concat 1 (relu ?x) (relu ?y)) => (relu (concat 1 ?x ?y))\n", 2000, &rs, &o);
  o.refute_sets = 0;
  o.fail_fast = true;
  char dir[] = "/tmp/rg_corehint_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[64];
  snprintf(path, sizeof path, "%s/j.proofs", dir);
  o.journal = path;
  rg_rule_proof p[1];
  rg_prove_summary sum;
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  const rg_obligation_record *r = &p[0].obl[0];
  CHECK_MSG(p[0].status == RG_PROOF_VERIFIED, "%s", rg_proof_status_name(p[0].status));
  CHECK(r->core_sha256[0] && strcmp(r->core_sha256, r->sha256));
  CHECK_MSG(r->core_axioms == n_words(r->ans[0].core) && r->core_axioms < r->n_axioms, "core %d of %d: %s",
            r->core_axioms, r->n_axioms, r->ans[0].core);
  rg_rule_proofs_free(p, 1);
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(sum.asked == 0 && sum.reused == 2 && p[0].status == RG_PROOF_VERIFIED);
  unlink(path);
  rmdir(dir);
  /* the cut itself: named axioms outside the core gone, all else kept in order */
  rg_obligation full, cut;
  CHECK(rg_smt_encode(rs.rules[0], 0, ax, false, &full, &err) == RG_OK);
  CHECK(rg_obligation_within_core(&full, "concat-relu", &cut, &err) == RG_OK);
  CHECK(cut.n_axioms == 1 && strstr(cut.text, ":named concat-relu))") && strstr(full.text, ":named concat-geometry))") &&
        !strstr(cut.text, ":named concat-geometry))"));
  CHECK(strstr(cut.text, ":named goal))") && strstr(cut.text, "(check-sat)\n(get-unsat-core)\n"));
  /* every fact named, none but those the core names kept */
  CHECK(unnamed_asserts(full.text) == 0 && strstr(full.text, ":named fact.1))") && strstr(full.text, ":named fact.2))"));
  CHECK(unnamed_asserts(cut.text) == 0 && !strstr(cut.text, ":named fact."));
  rg_obligation_free(&cut);
  CHECK(rg_obligation_within_core(&full, "fact.2 concat-relu", &cut, &err) == RG_OK && cut.n_axioms == 1);
  CHECK(strstr(cut.text, ":named fact.2))") && !strstr(cut.text, ":named fact.1))") && strstr(cut.text, ":named concat-relu))"));
  rg_obligation_free(&cut);
  CHECK(rg_obligation_within_core(&full, "", &cut, &err) == RG_OK && cut.n_axioms == 0);
  rg_obligation_free(&cut);
  rg_obligation_free(&full);
  o.journal = NULL;
  o.core_hint = false;
  rg_rule_proofs_free(p, 1);
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(p[0].status == RG_PROOF_VERIFIED && !p[0].obl[0].core_sha256[0] && p[0].obl[0].core_axioms == 0);
  rg_rule_proofs_free(p, 1);
  rg_ruleset_free(&rs);
}

static void test_fail_fast(const rg_axioms *ax) {
  rg_ruleset rs;
  rg_prove_opts o;
  rg_err err;
  setup_comm_pair(&rs, &o);
  o.fail_fast = true;
  rg_rule_proof p[2];
  rg_prove_summary sum;
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(p[0].status == RG_PROOF_VERIFIED && p[0].obl[0].done[1] && !p[0].obl[0].not_asked[RG_SOLVER_CVC5]);
  CHECK(p[1].status == RG_PROOF_UNPROVED && p[1].obl[0].done[0] && !p[1].obl[0].done[1] &&
        p[1].obl[0].not_asked[RG_SOLVER_CVC5]);
  CHECK(sum.verified == 1 && sum.unproved == 1 && sum.skipped == 0);
  /* z3's unsat from a journal, cvc5's answer missing: cvc5 is asked. */
  char dir[] = "/tmp/rg_failfast_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[64];
  snprintf(path, sizeof path, "%s/j.proofs", dir);
  o.journal = path;
  rg_ruleset one = {.rules = rs.rules, .n = 1};
  rg_rule_proofs_free(p, 2);
  CHECK(rg_prove_rules(&one, ax, &o, p, &sum, &err) == RG_OK);
  FILE *f = fopen(path, "r+");
  char line[4096], z3_line[4096] = "", head[4096] = "";
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      memcpy(head, line, sizeof line);
    else if (strstr(line, " z3 unsat "))
      memcpy(z3_line, line, sizeof line);
  }
  if (f) fclose(f);
  f = fopen(path, "w");
  CHECK(f && z3_line[0] && head[0]);
  if (f) {
    fputs(head, f);
    fputs(z3_line, f);
    fclose(f);
  }
  rg_rule_proofs_free(p, 2);
  CHECK(rg_prove_rules(&one, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(sum.reused == 1 && p[0].status == RG_PROOF_VERIFIED && p[0].obl[0].done[1]);
  unlink(path);
  rmdir(dir);
  o.journal = NULL;
  o.require = RG_REQUIRE_ANY;
  rg_rule_proofs_free(p, 2);
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_ERR_ARG && strstr(err.msg, "fail-fast"));
  rg_rule_proofs_free(p, 2);
  rg_ruleset_free(&rs);
}

static void test_bad_inputs(const rg_axioms *ax) {
  rg_axioms bad;
  rg_err err;
  const char *syntax = "ok: (ewadd ?x ?y) => (ewadd ?y ?x)\nbroken: (ewadd ?x => ?x\n";
  CHECK(rg_axioms_parse(syntax, strlen(syntax), "t", &bad, &err) == RG_ERR_PARSE && err.line == 2);
  rg_axioms_free(&bad);
  const char *unnamed = "(ewadd ?x ?y) => (ewadd ?y ?x)\n";
  CHECK(rg_axioms_parse(unnamed, strlen(unnamed), "t", &bad, &err) == RG_ERR_PARSE);
  CHECK(strstr(err.msg, "without a name") != NULL);
  rg_axioms_free(&bad);
  const char *dup = "a: (ewadd ?x ?y) => (ewadd ?y ?x)\na: (ewmul ?x ?y) => (ewmul ?y ?x)\n";
  CHECK(rg_axioms_parse(dup, strlen(dup), "t", &bad, &err) == RG_ERR_PARSE);
  CHECK(strstr(err.msg, "already used on line 1") != NULL);
  rg_axioms_free(&bad);
  rg_solver s;
  CHECK(rg_solver_init(&s, RG_SOLVER_CVC5, "/nonexistent/cvc5", &err) == RG_ERR_IO);
  CHECK(strstr(err.msg, "/nonexistent/cvc5") && strstr(err.msg, "not found"));
  /* a script a solver rejects is an answer (error), not a crash of ours */
  CHECK(rg_solver_init(&s, RG_SOLVER_Z3, NULL, &err) == RG_OK);
  rg_solver_answer a;
  const char *junk = "(assert (frobnicate))\n(check-sat)\n";
  CHECK(rg_solver_prove(&s, junk, strlen(junk), 1000, &a, &err) == RG_OK);
  CHECK(a.result == RG_SMT_ERROR);
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  CHECK(rg_text_parse("(ewadd ?x ?y)\n", 14, &rs, &err) == RG_OK);
  rg_rule_proof p[1];
  rg_prove_summary sum;
  rg_prove_opts o;
  rg_prove_opts_init(&o);
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_ERR_ARG);
  rg_rule_proofs_free(p, 1);
  rg_ruleset_free(&rs);
}

/* Broken solvers (tests/data/fake_solver.sh standing in for cvc5): a crash and a hang are
 * answers, in bounded time; a solver that refutes what z3 proves is a disagreement. */
static void test_broken_solvers(const rg_axioms *ax) {
  rg_solver s;
  rg_err err;
  rg_solver_answer a;
  const char *q = "(check-sat)\n";
  CHECK(rg_solver_init(&s, RG_SOLVER_CVC5, "data/fake_solver_crash.sh", &err) == RG_OK);
  CHECK(rg_solver_prove(&s, q, strlen(q), 1000, &a, &err) == RG_OK);
  CHECK_MSG(a.result == RG_SMT_CRASH, "crash gave %s", rg_smt_result_name(a.result));
  CHECK(rg_solver_init(&s, RG_SOLVER_CVC5, "data/fake_solver_hang.sh", &err) == RG_OK);
  double t0 = now_s();
  CHECK(rg_solver_prove(&s, q, strlen(q), 100, &a, &err) == RG_OK);
  double took = now_s() - t0;
  CHECK_MSG(a.result == RG_SMT_TIMEOUT, "hang gave %s", rg_smt_result_name(a.result));
  CHECK_MSG(took < 5.0, "a hanging solver held us %.1f s", took);

  rg_ruleset rs;
  rg_ruleset_init(&rs);
  const char *text = "comm: (ewadd ?x ?y) => (ewadd ?y ?x)\n";
  CHECK(rg_text_parse(text, strlen(text), &rs, &err) == RG_OK);
  rg_prove_opts o;
  rg_prove_opts_init(&o);
  o.binary[RG_SOLVER_CVC5] = "data/fake_solver_sat.sh";
  o.check_axioms = false;
  rg_rule_proof p[1];
  rg_prove_summary sum;
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(p[0].status == RG_PROOF_Z3_ONLY && p[0].disagree && !p[0].shipped);
  CHECK(sum.disagreements == 1 && sum.only[RG_SOLVER_Z3] == 1 && sum.shipped == 0);
  o.require = RG_REQUIRE_ANY;
  rg_rule_proofs_free(p, 1);
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK(p[0].shipped && p[0].disagree); /* shipped under --require any, still flagged */
  rg_rule_proofs_free(p, 1);
  rg_ruleset_free(&rs);
}

static bool same_answer(const rg_solver_answer *a, const rg_solver_answer *b) {
  /* near the limit "unknown" is counted as a timeout: both mean "not proved in time" */
  bool a_out = a->result == RG_SMT_UNKNOWN || a->result == RG_SMT_TIMEOUT;
  bool b_out = b->result == RG_SMT_UNKNOWN || b->result == RG_SMT_TIMEOUT;
  if (a_out || b_out) return a_out && b_out;
  return a->result == b->result && !strcmp(a->core, b->core);
}

/* The same obligations (true goals, false goals that time out, a script the solver rejects)
 * through a pool of workers and through a fresh process each: the same results and cores, and
 * each solver served by one worker throughout. */
static void test_workers_match_oneshot(const rg_axioms *ax) {
  static const struct {
    const char *text;
    int timeout_ms; /* true goals: ample; false ones end in a timeout, kept short */
  } rules[] = {
      {"(transpose 10 (matmul (matmul ?a ?b) ?c)) => (matmul (transpose 10 ?c) (matmul (transpose 10 ?b) (transpose 10 ?a)))", 5000},
      {"(matmul ?x ?y) => (matmul ?y ?x)", 300},
      {"(ewmul (ewadd ?a ?b) ?c) => (ewadd (ewmul ?c ?b) (ewmul ?a ?c))", 5000},
      {"(split.1 1 (concat 1 (matmul ?x ?w) (matmul ?x ?v))) => (matmul ?x ?v)", 5000},
      {"(relu (ewadd ?x ?y)) => (ewadd (relu ?x) (relu ?y))", 300},
      {"(ewadd ?x ?y) => (ewadd ?y ?x)", 5000},
  };
  enum { N = sizeof rules / sizeof rules[0] };
  rg_solver sv[RG_SOLVER_COUNT];
  rg_err err;
  CHECK(rg_solver_init(&sv[0], RG_SOLVER_Z3, NULL, &err) == RG_OK);
  CHECK(rg_solver_init(&sv[1], RG_SOLVER_CVC5, NULL, &err) == RG_OK);
  int fds = open_fds();
  rg_solver_pool *pool = rg_solver_pool_new();
  CHECK(pool && rg_solver_pool_pid(pool, RG_SOLVER_Z3) == 0);
  int pid[RG_SOLVER_COUNT] = {0, 0}, proved = 0;
  double prev_ms[RG_SOLVER_COUNT] = {0, 0};
  for (int i = 0; i < N; i++) {
    rg_rule *r = rule(rules[i].text);
    rg_obligation ob;
    CHECK(rg_smt_encode(r, 0, ax, false, &ob, &err) == RG_OK);
    for (int s = 0; s < RG_SOLVER_COUNT; s++) {
      rg_solver_answer w, f;
      int tl = rules[i].timeout_ms;
      CHECK(rg_solver_prove_in(pool, &sv[s], ob.text, ob.len, tl, &w, &err) == RG_OK);
      CHECK(rg_solver_prove(&sv[s], ob.text, ob.len, tl, &f, &err) == RG_OK);
      CHECK_MSG(same_answer(&w, &f), "%s on %s: worker %s [%s], fresh %s [%s]", sv[s].name, rules[i].text,
                rg_smt_result_name(w.result), w.core, rg_smt_result_name(f.result), f.core);
      proved += w.result == RG_SMT_UNSAT;
      /* the limit is per query: after 5000 ms ones, a 300 ms one ends by the solver's own limit */
      CHECK_MSG(!strstr(w.detail, "killed"), "%s worker: %s", sv[s].name, w.detail);
      /* A helper worker serves query after query, slow ones too (each runs in a fork). */
      int now = rg_solver_pool_pid(pool, sv[s].kind);
      CHECK_MSG(!pid[s] || now == pid[s], "%s worker restarted after a %.0f ms query", sv[s].name,
                prev_ms[s]);
      pid[s] = now;
      prev_ms[s] = w.ms;
    }
    rg_obligation_free(&ob);
    rg_rule_free(r);
  }
  CHECK_MSG(proved == 2 * 4, "%d of 8 true-goal queries proved", proved);
  /* Each helper answers a script it rejects and goes on: the worker stays. */
  const char *junk = "(assert (frobnicate))\n(check-sat)\n";
  int junk_pid[RG_SOLVER_COUNT];
  for (int s = 0; s < RG_SOLVER_COUNT; s++) {
    rg_solver_answer w;
    CHECK(rg_solver_prove_in(pool, &sv[s], junk, strlen(junk), 1000, &w, &err) == RG_OK);
    CHECK_MSG(w.result == RG_SMT_ERROR && w.detail[0], "%s on junk: %s", sv[s].name,
              rg_smt_result_name(w.result));
    junk_pid[s] = rg_solver_pool_pid(pool, sv[s].kind);
    CHECK_MSG(junk_pid[s] > 0, "%s worker gone after an error", sv[s].name);
  }
  rg_solver_pool_free(pool);
  for (int k = 0; k < 2 * RG_SOLVER_COUNT; k++) {
    int x = k < RG_SOLVER_COUNT ? pid[k] : junk_pid[k - RG_SOLVER_COUNT];
    CHECK_MSG(x == 0 || reaped(x), "worker %d not reaped", x);
  }
  CHECK_MSG(open_fds() == fds, "%d descriptors open before the pool, %d after", fds, open_fds());
}

/* A worker that crashes or hangs mid-batch (the fake solver in mixed mode) is an answer; the
 * queries after it get answers from a fresh worker; nothing is left behind. */
static void test_worker_recovery(void) {
  rg_solver s;
  rg_err err;
  CHECK(rg_solver_init(&s, RG_SOLVER_CVC5, "data/fake_solver_mixed.sh", &err) == RG_OK);
  int fds = open_fds();
  rg_solver_pool *pool = rg_solver_pool_new();
  static const struct {
    const char *q;
    rg_smt_result want;
  } batch[] = {
      {"(check-sat)\n", RG_SMT_UNSAT},   {"(check-sat) ; crash-me\n", RG_SMT_CRASH},
      {"(check-sat)\n", RG_SMT_UNSAT},   {"(check-sat) ; hang-me\n", RG_SMT_TIMEOUT},
      {"(check-sat)\n", RG_SMT_UNSAT},   {"(check-sat)\n", RG_SMT_UNSAT},
  };
  int pids[6], n = (int)(sizeof batch / sizeof batch[0]);
  for (int i = 0; i < n; i++) {
    rg_solver_answer a;
    double t0 = now_s();
    CHECK(rg_solver_prove_in(pool, &s, batch[i].q, strlen(batch[i].q), 200, &a, &err) == RG_OK);
    CHECK_MSG(a.result == batch[i].want, "query %d: %s, wanted %s", i, rg_smt_result_name(a.result),
              rg_smt_result_name(batch[i].want));
    CHECK_MSG(now_s() - t0 < 5.0, "query %d held us %.1f s", i, now_s() - t0);
    if (a.result == RG_SMT_UNSAT) CHECK(!strcmp(a.core, "fake-axiom"));
    pids[i] = rg_solver_pool_pid(pool, RG_SOLVER_CVC5);
  }
  CHECK(pids[0] > 0 && pids[1] == 0 && reaped(pids[0])); /* the crashed one, reaped */
  CHECK(pids[2] > 0 && pids[2] != pids[0] && pids[3] == 0 && reaped(pids[2])); /* the hung one, killed */
  CHECK(pids[4] > 0 && pids[5] == pids[4]);
  /* No worker lives for ever (cvc5 keeps memory across (reset)): after 200 queries, a new one. */
  int changes = 0, prev = pids[5];
  for (int i = 0; i < 200; i++) {
    rg_solver_answer a;
    CHECK(rg_solver_prove_in(pool, &s, "(check-sat)\n", 12, 1000, &a, &err) == RG_OK && a.result == RG_SMT_UNSAT);
    int now = rg_solver_pool_pid(pool, RG_SOLVER_CVC5);
    changes += now != prev;
    prev = now;
  }
  CHECK_MSG(changes >= 1 && changes <= 4, "%d worker changes in 200 queries", changes);
  pids[5] = prev;
  /* Another binary in the same pool replaces the worker. */
  rg_solver sat;
  CHECK(rg_solver_init(&sat, RG_SOLVER_CVC5, "data/fake_solver_sat.sh", &err) == RG_OK);
  rg_solver_answer a;
  CHECK(rg_solver_prove_in(pool, &sat, "(check-sat)\n", 12, 200, &a, &err) == RG_OK);
  CHECK(a.result == RG_SMT_SAT);
  CHECK(pids[5] == 0 || reaped(pids[5])); /* 0: a slow last query retired it already */
  int last = rg_solver_pool_pid(pool, RG_SOLVER_CVC5);
  rg_solver_pool_free(pool);
  CHECK(reaped(last));
  CHECK_MSG(open_fds() == fds, "%d descriptors open before the pool, %d after", fds, open_fds());
  CHECK(rg_solver_prove_in(NULL, &s, "", 0, 0, &a, &err) == RG_ERR_ARG);
}

/* z3 from several threads at once, as rulegen prove and rulesdb audit query it: every query
 * answers unsat long before its timeout, one-shot and through per-thread pools. z3 once ran in
 * plain forks of rulegen, and a fork taken while another thread held a lock (the ASan
 * allocator's) hung in its first malloc until killed at the timeout plus grace; the exec'd
 * helper inherits no lock. */
/* An unsat whose core does not name the goal comes from contradictory hypotheses and axioms: it
 * would prove any rule, so it proves none. A script whose premises contradict each other, and a
 * rule that types at no shapes (its size hypotheses contradict) asked without the type check,
 * are "vacuous" for both solvers and leave the rule unproved. */
static void test_vacuous(const rg_axioms *ax) {
  static const char q[] = "(set-option :produce-unsat-cores true)\n(set-logic QF_LIA)\n(declare-const a Int)\n"
                          "(assert (< a 0))\n(assert (> a 0))\n(assert (! (= a a) :named goal))\n(check-sat)\n"
                          "(get-unsat-core)\n";
  rg_err err;
  for (int k = 0; k < RG_SOLVER_COUNT; k++) {
    rg_solver s;
    rg_solver_answer a;
    CHECK_MSG(rg_solver_init(&s, (rg_solver_kind)k, NULL, &err) == RG_OK, "%s", err.msg);
    CHECK(rg_solver_prove(&s, q, sizeof q - 1, 5000, &a, &err) == RG_OK);
    CHECK_MSG(a.result == RG_SMT_VACUOUS && strstr(a.detail, "contradict"), "solver %d: %s (%s)", k,
              rg_smt_result_name(a.result), a.detail);
  }
  rg_solver_answer parsed;
  rg_solver_parse_answer("unsat\n( goal ewadd-comm )\n", 3.0, 1000, &parsed);
  CHECK(parsed.result == RG_SMT_UNSAT && !strcmp(parsed.core, "ewadd-comm"));
  rg_solver_parse_answer("unsat\n( ewadd-comm )\n", 3.0, 1000, &parsed);
  CHECK(parsed.result == RG_SMT_VACUOUS && !strcmp(parsed.core, "ewadd-comm"));

  rg_ruleset rs;
  rg_prove_opts o;
  setup_rules("(split.1 0 (concat 0 ?x1 (slice 0 2 4 (reshape 4x4 ?y)))) => (reshape 2x4 (slice 0 0 8 ?x1))\n", 5000,
              &rs, &o);
  o.check_typed = false;
  o.refute_sets = 0;
  rg_rule_proof p[1];
  rg_prove_summary sum;
  CHECK(rg_prove_rules(&rs, ax, &o, p, &sum, &err) == RG_OK);
  CHECK_MSG(p[0].status == RG_PROOF_UNPROVED && !p[0].shipped, "an ill-typed rule got status %d", p[0].status);
  rg_rule_proofs_free(p, 1);
  rg_ruleset_free(&rs);
}

static void test_z3_threads(void) {
  enum { THREADS = 4, PER_THREAD = 20, N = THREADS * PER_THREAD, TIMEOUT_MS = 10000 };
  rg_solver s;
  rg_err err;
  CHECK_MSG(rg_solver_init(&s, RG_SOLVER_Z3, NULL, &err) == RG_OK, "%s", err.msg);
  static const char q[] = "(set-option :produce-unsat-cores true)\n"
                          "(assert (! false :named goal))\n(check-sat)\n(get-unsat-core)\n";
  static rg_status st[2][N];
  static rg_solver_answer ans[2][N];
  double t0 = now_s();
#pragma omp parallel for num_threads(THREADS) schedule(dynamic, 1)
  for (int i = 0; i < N; i++) {
    rg_err e;
    st[0][i] = rg_solver_prove(&s, q, sizeof q - 1, TIMEOUT_MS, &ans[0][i], &e);
  }
  double oneshot_s = now_s() - t0;
  t0 = now_s();
#pragma omp parallel num_threads(THREADS)
  {
    rg_solver_pool *pool = rg_solver_pool_new();
#pragma omp for schedule(dynamic, 1)
    for (int i = 0; i < N; i++) {
      rg_err e;
      st[1][i] = pool ? rg_solver_prove_in(pool, &s, q, sizeof q - 1, TIMEOUT_MS, &ans[1][i], &e)
                      : RG_ERR_NOMEM;
    }
    rg_solver_pool_free(pool);
  }
  double pool_s = now_s() - t0;
  for (int w = 0; w < 2; w++)
    for (int i = 0; i < N; i++) {
      const rg_solver_answer *a = &ans[w][i];
      CHECK_MSG(st[w][i] == RG_OK && a->result == RG_SMT_UNSAT && a->ms < TIMEOUT_MS / 2,
                "%s query %d: status %d, %s after %.0f ms (%s)", w ? "pool" : "one-shot", i,
                (int)st[w][i], rg_smt_result_name(a->result), a->ms, a->detail);
    }
  printf("z3 from %d threads: %d one-shot queries in %.2f s, %d through pools in %.2f s\n", THREADS,
         N, oneshot_s, N, pool_s);
}

/* Answers are read strictly: exactly one verdict, after unsat exactly one complete core of
 * names, nothing after (but a solver's refusal of the core after sat or unknown); anything
 * else is an error that says what was wrong, with the text escaped, and never a proof. */
static void test_strict_answers(void) {
  static const struct {
    const char *out;
    size_t len; /* 0: strlen */
    rg_smt_result want;
    const char *says;
  } cases[] = {
      {"unsat\n(goal ax-1 ax.2)\n", 0, RG_SMT_UNSAT, ""},
      {"  unsat ( goal )", 0, RG_SMT_UNSAT, ""},
      {"sat\n(error \"line 5 column 15: unsat core is not available\")\n", 0, RG_SMT_SAT, ""},
      {"unknown\n(error \"no core\")\n", 0, RG_SMT_UNKNOWN, ""},
      {"(error \"line 1: bad\")\nunsat\n(goal)\n", 0, RG_SMT_ERROR, "(error \"line 1: bad\")"},
      {"unsat\n( goal", 0, RG_SMT_ERROR, "unsat without one complete unsat core of names"},
      {"unsat\n", 0, RG_SMT_ERROR, "unsat without one complete unsat core"},
      {"unsat\n(goal (x))\n", 0, RG_SMT_ERROR, "unsat without one complete unsat core"},
      {"unsat\n(error \"no\")\n", 0, RG_SMT_ERROR, "unsat without one complete unsat core"},
      {"unsat (goal) ... sat", 0, RG_SMT_ERROR, "text after the unsat core: ' ... sat'"},
      {"unsat\n(goal)\nunsat\n(goal)\n", 0, RG_SMT_ERROR, "text after the unsat core"},
      {"sat\nunsat\n(goal)\n", 0, RG_SMT_ERROR, "text after the answer: '\\x0aunsat"},
      {"sat\n(error \"x\")\n(error \"y\")\n", 0, RG_SMT_ERROR, "text after the answer"},
      {"unsat\n(goal)\n\0sat\n", 18, RG_SMT_ERROR, "a NUL byte in the answer"},
      {"unsat\n(goal \033[2Jax)\n", 0, RG_SMT_ERROR, "\\x1b[2Jax)"},
      {"WARNING: x\nunsat\n(goal)\n", 0, RG_SMT_ERROR, "not a solver answer: 'WARNING: x\\x0aunsat"},
      {"(goal)\n", 0, RG_SMT_ERROR, "not a solver answer"},
      {" \n", 0, RG_SMT_ERROR, "no answer"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    rg_solver_answer a;
    size_t len = cases[i].len ? cases[i].len : strlen(cases[i].out);
    rg_solver_parse_answer_n(cases[i].out, len, 3.0, 1000, &a);
    CHECK_MSG(a.result == cases[i].want && strstr(a.detail, cases[i].says) &&
                  !strchr(a.detail, '\033') && !strchr(a.detail, '\n'),
              "case %zu: %s (%s)", i, rg_smt_result_name(a.result), a.detail);
  }
  char buf[16];
  rg_solver_escape(buf, sizeof buf, "a\033[2J\\b\x80xyz", 11);
  CHECK_MSG(!strcmp(buf, "a\\x1b[2J\\\\b..."), "%s", buf);
  rg_solver_escape(buf, sizeof buf, "ok\n", 3);
  CHECK_MSG(!strcmp(buf, "ok\\x0a"), "%s", buf);

  /* The cvc5 binary (tests/data/fake_solver_reply.sh standing in): its output up to the end
   * marker of the query is read the same way, and nothing may follow the marker. */
  static const struct {
    const char *fake;
    bool pool_only; /* one-shot, without a marker, the same output is a whole answer */
    rg_smt_result want;
    const char *says;
  } fakes[] = {
      {"data/fake_solver_reply_good.sh", false, RG_SMT_UNSAT, ""},
      {"data/fake_solver_reply_unclosed.sh", false, RG_SMT_ERROR, "unsat without one complete"},
      {"data/fake_solver_reply_twice.sh", false, RG_SMT_ERROR, "text after the unsat core"},
      {"data/fake_solver_reply_escape.sh", false, RG_SMT_ERROR, "evil \\x1b[2J\\x1b]0;pwned\\x07"},
      {"data/fake_solver_reply_flood.sh", false, RG_SMT_ERROR, "wrote more than 65536 bytes to stderr"},
      {"data/fake_solver_reply_after.sh", true, RG_SMT_ERROR, "text after the end marker: 'unsat"},
      {"data/fake_solver_reply_nomarker.sh", true, RG_SMT_ERROR, "ended before its end marker"},
  };
  rg_err err;
  for (size_t i = 0; i < sizeof fakes / sizeof *fakes; i++) {
    rg_solver s;
    CHECK_MSG(rg_solver_init(&s, RG_SOLVER_CVC5, fakes[i].fake, &err) == RG_OK, "%s", err.msg);
    for (int pool = fakes[i].pool_only; pool < 2; pool++) {
      rg_solver_pool *p = pool ? rg_solver_pool_new() : NULL;
      rg_solver_answer a;
      double t0 = now_s();
      CHECK(p ? rg_solver_prove_in(p, &s, "(check-sat)\n", 12, 5000, &a, &err) == RG_OK
              : rg_solver_prove(&s, "(check-sat)\n", 12, 5000, &a, &err) == RG_OK);
      CHECK_MSG(a.result == fakes[i].want && strstr(a.detail, fakes[i].says) &&
                    !strchr(a.detail, '\033') && now_s() - t0 < 4.0,
                "%s (%s): %s (%s) after %.1f s", fakes[i].fake, pool ? "worker" : "one-shot",
                rg_smt_result_name(a.result), a.detail, now_s() - t0);
      if (a.result == RG_SMT_UNSAT) CHECK(!strcmp(a.core, "fake-axiom"));
      rg_solver_pool_free(p);
    }
  }
}

int main(void) {
  rg_axioms ax;
  load_axioms(&ax);
  CHECK(ax.rules.n >= 44);
  test_axioms_sound(&ax);
  test_false_properties();
  test_determinism(&ax);
  test_axiom_texts_copied(&ax);
  test_true_goals(&ax);
  test_false_goals(&ax);
  test_refuted(&ax);
  test_journal(&ax);
  test_fail_fast(&ax);
  test_core_hint(&ax);
  test_chunks(&ax);
  test_bad_inputs(&ax);
  test_z3_threads();
  test_broken_solvers(&ax);
  test_vacuous(&ax);
  test_workers_match_oneshot(&ax);
  test_worker_recovery();
  test_strict_answers();
  rg_axioms_free(&ax);
  return check_done("test_verify");
}
