/* tools/eval_cmd.c: `rulegen eval`: evaluate rules (or bare graphs) on random inputs in float64
 * and Z_p and say whether the two sides agree, with the first differing position if not
 * (verify/sides.h). Exit statuses: cli/docs_rulegen.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "verify/verify.h"

#define PROG "rulegen eval"

/* What the command line asked for. */
typedef struct {
  rg_sides_opts o;
  int shape_sets; /* 0: only the shapes given on the command line */
  const char *expr;
  rg_cli_bindings cb;
} eval_args;

static const rg_cli_field fields[] = {
    RG_CLI_STORE(RG_OPT_EXPR, RG_CLI_TEXT, eval_args, expr),
    RG_CLI_NUM(RG_OPT_TRIALS, RG_CLI_INT, eval_args, o.trials, 1, 1000000, NULL),
    RG_CLI_NUM(RG_OPT_SHAPE_SETS, RG_CLI_INT, eval_args, shape_sets, 1, 1000, NULL),
    RG_CLI_NUM(RG_OPT_SEED, RG_CLI_U64, eval_args, o.seed, 0, INT64_MAX, "a non-negative number"),
    RG_CLI_STORE(RG_OPT_QUIET, RG_CLI_SET, eval_args, o.quiet),
};

/* -s and -p: variable bindings. */
static int bind_option(int c, const char *arg, void *base) {
  eval_args *a = base;
  rg_err err = {0};
  if (c != RG_OPT_SHAPE && c != RG_OPT_PARAM) return RG_CLI_NOT_MINE;
  if (!(c == RG_OPT_SHAPE ? rg_cli_add_shapes(&a->cb, arg, &err) : rg_cli_add_param(&a->cb, arg, &err))) return RG_CLI_GO_ON;
  rg_cli_report(PROG, NULL, &err);
  return 2;
}

/* One rule (or graph) at b: compared, or its outputs shown. */
static rg_status eval_one(const rg_rule *r, const rg_binding *b, const eval_args *a, bool *differs, rg_err *err) {
  return r->n_tgt ? rg_sides_compare_print(stdout, r, b, &a->o, differs, err)
                  : rg_graph_outputs_print(stdout, r, b, a->o.seed, err);
}

/* Every rule of rs at the bindings cb (and at up to shape_sets shape sets found from them). */
static int run_set(const rg_ruleset *rs, const rg_cli_bindings *cb, const eval_args *a, const char *file,
                   int *n_differ) {
  for (int i = 0; i < rs->n; i++) {
    const rg_rule *r = rs->rules[i];
    rg_cli_bound bd;
    rg_err err = {0};
    rg_status st = rg_cli_bind(cb, r->g, &bd, &err);
    bool differs = false;
    if (!st && a->shape_sets > 0) {
      rg_assignment_list sets;
      st = rg_shapes_solve(r, &bd.binding, a->o.seed, a->shape_sets, &sets, &err);
      for (int k = 0; !st && k < sets.n && !differs; k++) st = eval_one(r, &sets.items[k].binding, a, &differs, &err);
      rg_assignment_list_free(&sets);
    } else if (!st) {
      st = eval_one(r, &bd.binding, a, &differs, &err);
    }
    rg_cli_bound_free(&bd);
    if (st) {
      if (!err.line) err.line = r->line, err.col = 1;
      rg_cli_report(PROG, file, &err);
      return 2;
    }
    *n_differ += differs;
  }
  return 0;
}

/* The rules of text (file names it in messages), at the bindings cb (NULL: shapes, the
 * example's). */
static int run_text(const char *text, const char *file, const char *shapes, const eval_args *a, int *n_differ) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err = {0};
  rg_cli_bindings *db = shapes ? calloc(1, sizeof *db) : NULL;
  rg_status st = shapes && !db ? rg_err_set(&err, RG_ERR_NOMEM, "out of memory") : RG_OK;
  if (!st && shapes) st = rg_cli_add_shapes(db, shapes, &err);
  if (!st) st = text ? rg_text_parse(text, strlen(text), &rs, &err) : rg_text_parse_file(file, &rs, &err);
  if (st == RG_OK && rs.n == 0) st = rg_err_set(&err, RG_ERR_PARSE, "no rule given");
  int rc = 2;
  if (st) rg_cli_report(PROG, file, &err);
  else rc = run_set(&rs, shapes ? db : &a->cb, a, file, n_differ);
  rg_ruleset_free(&rs);
  free(db);
  return rc;
}

/* The built-in examples, each at its own shapes. */
static int run_examples(const eval_args *a, int *n_differ) {
  printf("no FILE given: evaluating the built-in examples (see rulegen eval --help)\n\n");
  int n, rc = 0;
  const rg_sides_example *ex = rg_sides_examples(&n);
  for (int i = 0; rc == 0 && i < n; i++) rc = run_text(ex[i].rule, "<built-in>", ex[i].shapes, a, n_differ);
  return rc;
}

/* The operands: -e's text, one FILE, or none (the examples). */
static int run(int argc, char **argv, const eval_args *a, int *n_differ) {
  if (a->expr && optind < argc) return fprintf(stderr, PROG ": give either -e RULE or a FILE, not both\n"), 2;
  if (optind + 1 < argc) return fprintf(stderr, PROG ": one FILE at a time (got %d)\n", argc - optind), 2;
  if (a->expr) return run_text(a->expr, "<expr>", NULL, a, n_differ);
  if (optind < argc) return run_text(NULL, argv[optind], NULL, a, n_differ);
  return run_examples(a, n_differ);
}

int rg_cmd_eval(int argc, char **argv) {
  eval_args *a = calloc(1, sizeof *a);
  if (!a) return fprintf(stderr, PROG ": out of memory\n"), 2;
  a->o = (rg_sides_opts){1, 3, false};
  int n_differ = 0, rc = rg_cli_parse(PROG, &rg_doc_eval, NULL, fields, RG_CLI_COUNT(fields), bind_option, a, argc, argv);
  if (rc < 0) rc = run(argc, argv, a, &n_differ);
  free(a);
  if (rc == 0 && n_differ) {
    printf("\n%d rule%s differ%s\n", n_differ, n_differ == 1 ? "" : "s", n_differ == 1 ? "s" : "");
    rc = 1;
  }
  return rc;
}
