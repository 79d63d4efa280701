/* tools/eval_cmd.c: `rulegen eval`: evaluate rules (or bare graphs) on random inputs in float64
 * and Z_p and say whether the two sides agree, with the first differing position if not.
 *
 * Exit status: 0 every rule agrees in both domains, 1 some rule differs, 2 bad input.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

/* Options, declared once for getopt and --help. */
static const rg_cli_option eval_options[] = {
    {"expr", 'e', 1, "RULE", "evaluate this rule (or graph) text instead of a file"},
    {"shape", 's', 1, "NAME=DIMS", "shape of tensor variable ?NAME, e.g. x=2x4; a bare DIMS is the " "default for the rest; repeatable"},
    {"param", 'p', 1, "NAME=N", "value of parameter variable ?NAME; repeatable"},
    {"trials", 't', 1, "N", "random trials per domain (default 3)"},
    {"shape-sets", 'n', 1, "N", "also evaluate at up to N shape sets found by the shape solver " "(the given shapes are their base; without -s, shapes are found)"},
    {"seed", 'S', 1, "N", "seed of inputs and keyed functions (default 1)"},
    {"quiet", 'q', 0, "", "print only rules that differ, and errors"},
    {"help", 'h', 0, "", "show this help"},
};

/* The embedded default: a few true rules of TASO's kind at TASO's shapes. */
static const struct {
  const char *rule, *shapes;
} demo[] = {
    {"matmul-assoc: (matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))",
     "x=2x4 y=4x4 z=4x4"},
    {"conv-relu: (relu (conv2d ?i ?w)) => (conv2d 1 1 same relu ?i ?w)",
     "i=2x4x5x5 w=4x4x3x3"},
    {"concat-matmul: (matmul ?x ?w1) ; (matmul ?x ?w2) => "
     "(split.0 1 (matmul ?x (concat 1 ?w1 ?w2))) ; (split.1 1 (matmul ?x (concat 1 ?w1 ?w2)))",
     "x=2x4 w1=4x4 w2=4x4"},
    {"enlarge: (conv2d ?i ?w) => (conv2d ?i (enlarge 3 3 ?w))",
     "i=2x4x5x5 w=4x4x1x3"},
    {"pool-by-conv: (poolavg 3 3 1 1 same none ?i) => (conv2d ?i (Cpool 4 3 3))",
     "i=2x4x5x5"},
    {"grouped-conv: (concat 1 (conv2d ?i ?w) (conv2d ?j ?v)) => "
     "(conv2d 1 1 same none 1 1 2 (concat 1 ?i ?j) (concat 0 ?w ?v))",
     "i=2x4x5x5 j=2x4x5x5 w=4x4x3x3 v=4x4x3x3"},
    {"transpose-matmul: (transpose 10 (matmul ?x ?y)) => (matmul (transpose 10 ?y) (transpose 10 ?x))",
     "x=2x4 y=4x4"},
};

typedef struct {
  int trials;
  int shape_sets; /* 0: only the shapes given on the command line */
  uint64_t seed;
  bool quiet;
} eval_opts;

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen eval [options] [FILE]\n"
          "\n"
          "Evaluates every rule of FILE (one rule per line, see ir/text.h) on random inputs, in\n"
          "float64 (real semantics) and in Z_p (p = 2^61-1, nonlinear ops as keyed random\n"
          "functions), and reports whether source and target agree; if not, the first differing\n"
          "output position. A line without '=>' is a graph: its output shapes and first values\n"
          "are printed. Without FILE or -e, evaluates a built-in set of TASO-style rules.\n"
          "\n"
          "options:\n");
  rg_cli_print_options(out, eval_options, RG_CLI_COUNT(eval_options), 8, 10);
  fprintf(out, "\n"
               "example:\n"
               "  rulegen eval -s 4x4 -e '(matmul ?x ?y) => (matmul ?y ?x)'\n"
               "  rulegen eval -n 5 -e '(split.0 ?a (concat ?a ?x ?y)) => ?x'\n"
               "exit status: 0 all agree, 1 some rule differs, 2 bad input\n");
}

static void print_pos(const rg_shape *s, const int32_t *pos) {
  printf("[");
  for (int d = 0; d < s->rank; d++) printf("%s%d", d ? "," : "", pos[d]);
  printf("]");
}

static void print_shapes(const rg_graph *g, const rg_binding *b) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_binding_put(&sb, g, b);
  printf("  shapes: %s\n", rg_sb_str(&sb));
  rg_sb_free(&sb);
}

/* Prints a bare graph's outputs: shapes and the first few values in both domains. */
static rg_status show_graph(const rg_rule *r, const rg_binding *b, const eval_opts *o, rg_err *err) {
  rg_plan *plan;
  rg_status st = rg_rule_plan_side(r, b, false, &plan, err);
  if (st) return st;
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, o->seed);
  for (int d = 0; d < 2 && st == RG_OK; d++) {
    rg_domain dom = (rg_domain)d;
    rg_value *outv[RG_RULE_MAX_OUTPUTS] = {0};
    st = rg_plan_eval_random(plan, r->src, r->n_src, dom, &ctx, o->seed, outv, err);
    for (int k = 0; st == RG_OK && k < r->n_src; k++) {
      const rg_shape *s = rg_plan_shape(plan, r->src[k]);
      char buf[128];
      printf("  %-7s output %d: %s =", rg_domain_name(dom), k + 1, rg_shape_format_seams(s, buf, sizeof buf));
      int64_t cnt = rg_shape_numel(s);
      for (int64_t i = 0; i < cnt && i < 4; i++) {
        rg_value_format(dom, outv[k][i], buf, sizeof buf);
        printf(" %s", buf);
      }
      printf("%s\n", cnt > 4 ? " ..." : "");
    }
    for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++) free(outv[k]);
  }
  rg_plan_free(plan);
  return st;
}

/* Evaluates one rule in both domains; *differs is set when a domain sees a difference. */
static rg_status eval_rule(const rg_rule *r, const rg_binding *b, const eval_opts *o, bool *differs,
                           rg_err *err) {
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, o->seed);
  rg_cmp_result res[2];
  for (int d = 0; d < 2; d++) {
    rg_status st = rg_rule_compare(r, b, (rg_domain)d, &ctx, o->seed, o->trials, &res[d], err);
    if (st) return st;
  }
  *differs = res[0].verdict != RG_CMP_AGREE || res[1].verdict != RG_CMP_AGREE;
  if (o->quiet && !*differs) return RG_OK;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  printf("%s\n", rg_sb_str(&sb));
  rg_sb_free(&sb);
  print_shapes(r->g, b);
  for (int d = 0; d < 2; d++) {
    rg_domain dom = (rg_domain)d;
    const rg_cmp_result *c = &res[d];
    printf("  %-8s ", rg_domain_name(dom));
    if (c->verdict == RG_CMP_AGREE) {
      printf("agree (%d trial%s)\n", o->trials, o->trials == 1 ? "" : "s");
    } else if (c->verdict == RG_CMP_TYPE) {
      char a[128], t[128];
      printf("differ: output %d is %s on the source but %s on the target\n", c->output + 1,
             rg_shape_format_seams(&c->src_shape, a, sizeof a),
             rg_shape_format_seams(&c->tgt_shape, t, sizeof t));
    } else {
      char a[64], t[64];
      rg_value_format(dom, c->src_val, a, sizeof a);
      rg_value_format(dom, c->tgt_val, t, sizeof t);
      printf("differ: output %d at position ", c->output + 1);
      print_pos(&c->src_shape, c->pos);
      printf(" (trial %d): source %s, target %s\n", c->trial + 1, a, t);
    }
  }
  printf("  => %s\n", *differs ? "DIFFER" : "agree");
  return RG_OK;
}

static int run_set(const rg_ruleset *rs, const rg_cli_bindings *cb, const eval_opts *o,
                   const char *file, int *n_differ) {
  for (int i = 0; i < rs->n; i++) {
    const rg_rule *r = rs->rules[i];
    rg_cli_bound bd;
    rg_err err = {0};
    rg_status st = rg_cli_bind(cb, r->g, &bd, &err);
    bool differs = false;
    if (!st && o->shape_sets > 0) {
      rg_assignment_list sets;
      st = rg_shapes_solve(r, &bd.binding, o->seed, o->shape_sets, &sets, &err);
      for (int k = 0; !st && k < sets.n && !differs; k++)
        st = r->n_tgt ? eval_rule(r, &sets.items[k].binding, o, &differs, &err)
                      : show_graph(r, &sets.items[k].binding, o, &err);
      rg_assignment_list_free(&sets);
    } else if (!st) {
      st = r->n_tgt ? eval_rule(r, &bd.binding, o, &differs, &err) : show_graph(r, &bd.binding, o, &err);
    }
    rg_cli_bound_free(&bd);
    if (st) {
      if (!err.line) err.line = r->line, err.col = 1;
      rg_cli_report("rulegen eval", file, &err);
      return 2;
    }
    *n_differ += differs;
  }
  return 0;
}

/* optarg as a number of lo..hi into *v: 0, or 2 after saying what --opt wants. */
static int number_arg(const char *opt, const char *want, int64_t lo, int64_t hi, int64_t *v) {
  *v = lo;
  if (rg_cli_parse_i64(optarg, lo, hi, v)) return 0;
  fprintf(stderr, "rulegen eval: --%s wants %s, not '%s'\n", opt, want, optarg);
  return 2;
}

/* Parses the options into o and cb; *expr is -e's text. Returns 0, or 2 after reporting. */
static int parse_args(int argc, char **argv, eval_opts *o, rg_cli_bindings *cb, const char **expr) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, eval_options, RG_CLI_COUNT(eval_options));
  rg_err err = {0};
  int c, rc = 0;
  while (rc == 0 && (c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    int64_t v;
    switch (c) {
    case 'e': *expr = optarg; break;
    case 's':
      if (rg_cli_add_shapes(cb, optarg, &err)) rg_cli_report("rulegen eval", NULL, &err), rc = 2;
      break;
    case 'p':
      if (rg_cli_add_param(cb, optarg, &err)) rg_cli_report("rulegen eval", NULL, &err), rc = 2;
      break;
    case 't':
      rc = number_arg("trials", "a number from 1 to 1000000", 1, 1000000, &v);
      o->trials = (int)v;
      break;
    case 'n':
      rc = number_arg("shape-sets", "a number from 1 to 1000", 1, 1000, &v);
      o->shape_sets = (int)v;
      break;
    case 'S':
      rc = number_arg("seed", "a non-negative number", 0, INT64_MAX, &v);
      o->seed = (uint64_t)v;
      break;
    case 'q': o->quiet = true; break;
    case 'h': usage(stdout); return -1;
    default: usage(stderr); rc = 2; break;
    }
  }
  return rc;
}

/* The built-in examples, each at its own shapes. */
static int run_demo(const eval_opts *o, int *n_differ) {
  printf("no FILE given: evaluating the built-in examples (see rulegen eval --help)\n\n");
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < sizeof demo / sizeof demo[0]; i++) {
    rg_cli_bindings *db = calloc(1, sizeof *db);
    rg_ruleset rs;
    rg_ruleset_init(&rs);
    rg_err err = {0};
    if (!db || rg_cli_add_shapes(db, demo[i].shapes, &err) ||
        rg_text_parse(demo[i].rule, strlen(demo[i].rule), &rs, &err)) {
      rg_cli_report("rulegen eval", "<built-in>", &err);
      rc = 2;
    } else {
      rc = run_set(&rs, db, o, "<built-in>", n_differ);
    }
    rg_ruleset_free(&rs);
    free(db);
  }
  return rc;
}

/* The rules of -e's text or of a file. */
static int run_text(const char *expr, const char *path, const rg_cli_bindings *cb, const eval_opts *o, int *n_differ) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err = {0};
  const char *file = expr ? "<expr>" : path;
  rg_status st = expr ? rg_text_parse(expr, strlen(expr), &rs, &err) : rg_text_parse_file(path, &rs, &err);
  if (st == RG_OK && rs.n == 0) st = rg_err_set(&err, RG_ERR_PARSE, "no rule given");
  int rc = 2;
  if (st) rg_cli_report("rulegen eval", file, &err);
  else rc = run_set(&rs, cb, o, file, n_differ);
  rg_ruleset_free(&rs);
  return rc;
}

int rg_cmd_eval(int argc, char **argv) {
  eval_opts o = {3, 0, 1, false};
  rg_cli_bindings *cb = calloc(1, sizeof *cb);
  const char *expr = NULL;
  if (!cb) {
    fprintf(stderr, "rulegen eval: out of memory\n");
    return 2;
  }
  int rc = parse_args(argc, argv, &o, cb, &expr);
  if (rc < 0) {
    free(cb);
    return 0;
  }
  if (rc == 0 && expr && optind < argc) {
    fprintf(stderr, "rulegen eval: give either -e RULE or a FILE, not both\n");
    rc = 2;
  }
  if (rc == 0 && optind + 1 < argc) {
    fprintf(stderr, "rulegen eval: one FILE at a time (got %d)\n", argc - optind);
    rc = 2;
  }
  int n_differ = 0;
  if (rc == 0 && (expr || optind < argc)) rc = run_text(expr, optind < argc ? argv[optind] : NULL, cb, &o, &n_differ);
  else if (rc == 0) rc = run_demo(&o, &n_differ);
  free(cb);
  if (rc == 0 && n_differ) {
    printf("\n%d rule%s differ%s\n", n_differ, n_differ == 1 ? "" : "s", n_differ == 1 ? "s" : "");
    rc = 1;
  }
  return rc;
}
