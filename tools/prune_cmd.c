/* tools/prune_cmd.c: `rulegen prune`: remove rules that other kept rules imply (renaming,
 * common subgraph/supergraph, derivability), write the kept rules and the removal records, and
 * print the per-stage counts; or, with --audit, re-check removal records against a kept set.
 *
 * Exit status: 0 done (audit: every record checks), 1 audit: a record does not check,
 * 2 bad input, 130 interrupted (the outputs are written, undecided rules kept).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "commands.h"
#include "derive_opts.h"
#include "prune/prune.h"

static const rg_cli_option prune_options[] = {
    {"output", 'o', 1, "FILE", "write the kept rules here (required unless --audit)"},
    {"records", 'r', 1, "FILE", "write the removal records here (default: OUTPUT.removed)"},
    {"prune", 'P', 1, "LIST", "stages: renaming,subgraph,derive (default: all), or none"},
    RG_DERIVE_LIMIT_ROWS,
    {"one-pass", '1', 0, "", "derivability: Ruler's pass only, no second pass"},
    {"audit", 'a', 1, "RECORDS", "instead of pruning: re-check RECORDS against the kept set IN"},
    {"quiet", 'q', 0, "", "no progress on stderr"},
    {"help", 'h', 0, "", "show this help"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen prune [options] IN.rules -o OUT.rules\n"
          "       rulegen prune --audit RECORDS KEPT.rules\n"
          "\n"
          "Removes the rules of IN that other kept rules imply, and writes the kept rules (in\n"
          "input order, names kept) to OUT and one removal record per removed rule (why, and by\n"
          "which kept rules; for derivability the rewrite steps) to the records file:\n"
          "  renaming    equal up to renaming variables (same content id): the first is kept\n"
          "  subgraph    an instance of a kept smaller rule (TASO's common subgraph)\n"
          "  supergraph  both sides end in one operator differing in one operand, and the rule\n"
          "              between those operands is kept (TASO's common supergraph)\n"
          "  derive      the rules kept before it (smaller first) rewrite its source into its\n"
          "              target within the limits (Ruler-style); then a second pass removes\n"
          "              kept rules, largest first, that all the other kept rules derive\n"
          "In --prune, 'subgraph' selects both of TASO's checks; 'supergraph' alone the second.\n"
          "Derivation search limits default to 4 steps, 2000 terms, growth 2.\n"
          "Prints the rule count after each stage, and the time it took. Ctrl-C stops\n"
          "derivability: rules not yet decided are kept, the outputs are written.\n"
          "\n"
          "options:\n");
  rg_cli_print_options(out, prune_options, RG_CLI_COUNT(prune_options), 8, 8);
  fprintf(out, "\n"
               "example:\n"
               "  rulegen prune tests/data/prune/assoc.rules -o kept.rules\n"
               "  rulegen prune --audit kept.rules.removed kept.rules\n"
               "exit status: 0 done, 1 audit failed, 2 bad input, 130 interrupted\n");
}

typedef struct {
  bool quiet;
  time_t last;
} progress_state;

/* At most one line a second, and the last one. */
static void progress(void *ctx, const char *stage, int done, int total) {
  progress_state *p = ctx;
  time_t t = time(NULL);
  if (p->quiet || (t == p->last && done < total)) return;
  p->last = t;
  fprintf(stderr, "rulegen prune: %s %d/%d\n", stage, done, total);
}

static void print_table(const rg_prune_result *res) {
  printf("%-18s %8s %8s %8s %9s\n", "stage", "in", "out", "removed", "time");
  printf("%-18s %8s %8d\n", "input", "", res->n);
  for (int s = 0; s < RG_PRUNE_STAGES; s++) {
    const rg_prune_stage *st = &res->stage[s];
    if (!st->run) {
      printf("%-18s %8s\n", st->name, "skipped");
      continue;
    }
    printf("%-18s %8d %8d %8d %8.2fs\n", st->name, st->in, st->out, st->in - st->out, st->seconds);
  }
  printf("%-18s %8s %8d\n", "kept", "", res->kept);
  if (res->interrupted)
    printf("interrupted: derivability stopped early; rules it had not decided are kept\n");
}

static int audit(const char *records, const char *kept_path) {
  rg_err err = {0};
  rg_audit_report rep;
  const char *where;
  rg_status st = rg_prune_audit_files(records, kept_path, &rep, &where, &err);
  if (st) {
    rg_cli_report(where == records ? "rulegen prune: audit" : "rulegen prune", where, &err);
    return st == RG_ERR_ARG ? 1 : 2;
  }
  printf("audit: %d removal records check against %d kept rules (renaming %d, subgraph %d, "
         "supergraph %d, derived %d)\n",
         rep.records, rep.kept, rep.by_reason[RG_FATE_RENAMING], rep.by_reason[RG_FATE_SUBGRAPH],
         rep.by_reason[RG_FATE_SUPERGRAPH], rep.by_reason[RG_FATE_DERIVED]);
  return 0;
}

/* Parses the options; returns 0, -1 after --help, or 2 after reporting. */
static int parse_args(int argc, char **argv, rg_prune_opts *o, progress_state *ps, const char **out,
                      const char **records, const char **audit_path) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, prune_options, RG_CLI_COUNT(prune_options));
  int c, rc = 0;
  while (rc == 0 && (c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case 'o': *out = optarg; break;
    case 'r': *records = optarg; break;
    case 'a': *audit_path = optarg; break;
    case '1': o->second_pass = false; break;
    case 'P':
      if (!rg_prune_parse_stages(optarg, &o->stages)) {
        fprintf(stderr,
                "rulegen prune: --prune wants stages from renaming,subgraph,supergraph,derive "
                "(or all, none), not '%s'\n",
                optarg);
        rc = 2;
      }
      break;
    case 'q': ps->quiet = true; break;
    case 'h': usage(stdout); return -1;
    default: {
      bool is_limit;
      if (!rg_derive_limit_option("rulegen prune", c, optarg, &o->limits, &is_limit)) {
        if (!is_limit) usage(stderr);
        rc = 2;
      }
      break;
    }
    }
  }
  return rc;
}

/* Prunes the rules of path, writes the two files and prints the table. */
static int prune_file(const char *path, rg_prune_opts *o, progress_state *ps, const char *out, const char *records) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err = {0};
  rg_prune_result res;
  memset(&res, 0, sizeof res);
  rg_status st = rg_text_parse_file(path, &rs, &err);
  if (!st) {
    rg_cli_catch_interrupts();
    o->stop = &rg_cli_interrupted;
    o->progress = progress;
    o->progress_ctx = ps;
    st = rg_prune_run(&rs, o, &res, &err);
    rg_cli_release_interrupts();
  }
  if (st) rg_cli_report("rulegen prune", path, &err);
  else if ((st = rg_prune_save(out, records, &rs, &res, &err)) != RG_OK) rg_cli_report("rulegen prune", NULL, &err);
  int rc = st ? 2 : 0;
  if (!rc) {
    print_table(&res);
    printf("kept rules: %s\nremoval records: %s\n", out, records);
    if (res.interrupted) rc = 130;
  }
  rg_prune_result_free(&res);
  rg_ruleset_free(&rs);
  return rc;
}

int rg_cmd_prune(int argc, char **argv) {
  rg_prune_opts o = rg_prune_opts_default();
  const char *out = NULL, *records = NULL, *audit_path = NULL;
  progress_state ps = {false, 0};
  int rc = parse_args(argc, argv, &o, &ps, &out, &records, &audit_path);
  if (rc) return rc < 0 ? 0 : rc;
  if (optind + 1 != argc) {
    fprintf(stderr, "rulegen prune: give exactly one rule file (got %d); see --help\n",
            argc - optind);
    return 2;
  }
  if (audit_path) return audit(audit_path, argv[optind]);
  if (!out) {
    fprintf(stderr, "rulegen prune: say where the kept rules go with -o OUT.rules\n");
    return 2;
  }
  char *rec_path = NULL;
  if (!records) {
    rec_path = malloc(strlen(out) + sizeof ".removed");
    if (!rec_path) return 2;
    sprintf(rec_path, "%s.removed", out);
    records = rec_path;
  }
  rc = prune_file(argv[optind], &o, &ps, out, records);
  free(rec_path);
  return rc;
}
