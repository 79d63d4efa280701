/* tools/prune_cmd.c: `rulegen prune`: remove rules that other kept rules imply (renaming,
 * common subgraph/supergraph, derivability), write the kept rules and the removal records, and
 * print the per-stage counts; or, with --audit, re-check removal records against a kept set.
 * Exit statuses: cli/docs_rulegen.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "prune/prune.h"

#define PROG "rulegen prune"

/* What the command line asked for. */
typedef struct {
  rg_prune_opts o;
  const char *out, *records, *audit;
  bool quiet;
  rg_progress line;
} prune_args;

static const rg_cli_field fields[] = {
    RG_CLI_STORE(RG_OPT_OUTPUT, RG_CLI_TEXT, prune_args, out),
    RG_CLI_STORE(RG_OPT_RECORDS, RG_CLI_TEXT, prune_args, records),
    RG_CLI_STORE(RG_OPT_AUDIT, RG_CLI_TEXT, prune_args, audit),
    RG_CLI_STORE(RG_OPT_ONE_PASS, RG_CLI_CLEAR, prune_args, o.second_pass),
    RG_CLI_STORE(RG_OPT_QUIET, RG_CLI_SET, prune_args, quiet),
    RG_DERIVE_LIMIT_FIELDS(prune_args, o.limits),
};

static int prune_stages(int c, const char *arg, void *base) {
  if (c != RG_OPT_PRUNE) return RG_CLI_NOT_MINE;
  if (rg_prune_parse_stages(arg, &((prune_args *)base)->o.stages)) return RG_CLI_GO_ON;
  fprintf(stderr, PROG ": --prune wants stages from renaming,subgraph,supergraph,derive (or all, none), not '%s'\n",
          arg);
  return 2;
}

static void progress(void *ctx, const char *stage, int done, int total) {
  prune_args *a = ctx;
  rg_progress_stage(&a->line, stage, "rules", done, total, !a->quiet);
}

static int audit(const char *records, const char *kept_path) {
  rg_err err = {0};
  rg_audit_report rep;
  const char *where;
  rg_status st = rg_prune_audit_files(records, kept_path, &rep, &where, &err);
  if (st) {
    rg_cli_report(where == records ? PROG ": audit" : PROG, where, &err);
    return st == RG_ERR_ARG ? 1 : 2;
  }
  rg_audit_report_print(stdout, &rep);
  return 0;
}

/* Prunes the rules of path, writes the two files and prints the table. */
static int prune_file(const char *path, prune_args *a) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err = {0};
  rg_prune_result res = {0};
  rg_status st = rg_text_parse_file(path, &rs, &err);
  if (!st) {
    rg_cli_catch_interrupts();
    a->o.stop = &rg_cli_interrupted;
    a->o.progress = progress;
    a->o.progress_ctx = a;
    st = rg_prune_run(&rs, &a->o, &res, &err);
    rg_progress_finish(&a->line);
    rg_cli_release_interrupts();
  }
  if (st) rg_cli_report(PROG, path, &err);
  else if ((st = rg_prune_save(a->out, a->records, &rs, &res, &err)) != RG_OK) rg_cli_report(PROG, NULL, &err);
  if (!st) {
    rg_prune_table_print(stdout, &res);
    printf("kept rules: %s\nremoval records: %s\n", a->out, a->records);
  }
  int rc = st ? 2 : res.interrupted ? 130 : 0;
  rg_prune_result_free(&res);
  rg_ruleset_free(&rs);
  return rc;
}

int rg_cmd_prune(int argc, char **argv) {
  prune_args a = {.o = rg_prune_opts_default()};
  int rc = rg_cli_parse(PROG, &rg_doc_prune, NULL, fields, RG_CLI_COUNT(fields), prune_stages, &a, argc, argv);
  if (rc >= 0) return rc;
  if (optind + 1 != argc)
    return fprintf(stderr, PROG ": give exactly one rule file (got %d); see --help\n", argc - optind), 2;
  if (a.audit) return audit(a.audit, argv[optind]);
  if (!a.out) return fprintf(stderr, PROG ": say where the kept rules go with -o OUT.rules\n"), 2;
  char *rec_path = NULL;
  if (!a.records) {
    rec_path = malloc(strlen(a.out) + sizeof ".removed");
    if (!rec_path) return 2;
    sprintf(rec_path, "%s.removed", a.out);
    a.records = rec_path;
  }
  rc = prune_file(argv[optind], &a);
  free(rec_path);
  return rc;
}
