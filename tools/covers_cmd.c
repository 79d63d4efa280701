/* tools/covers_cmd.c: `rulegen covers`: how much of another rule set does ours cover
 * (prune/coverage.h), printed a rule a line. Exit statuses: cli/docs_rulegen.c (130: Ctrl-C,
 * the rules not yet looked at are reported as not checked).
 */
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "prune/prune.h"

#define PROG "rulegen covers"

/* What the command line asked for. */
typedef struct {
  rg_derive_limits lim;
  const char *with;
  bool quiet;
} covers_args;

static const rg_cli_field fields[] = {
    RG_CLI_STORE(RG_OPT_WITH, RG_CLI_TEXT, covers_args, with),
    RG_CLI_STORE(RG_OPT_QUIET, RG_CLI_SET, covers_args, quiet),
    RG_DERIVE_LIMIT_FIELDS(covers_args, lim),
};

static void on_progress(void *ctx, int done, int total) {
  rg_progress *line = ctx;
  line->total = total;
  rg_progress_tick(line, done);
}

/* One line per rule of other (with quiet, only those not covered), then the summary. */
static int report(const rg_ruleset *other, const rg_ruleset *ours, const covers_args *a, const char *other_path) {
  rg_coverage c;
  rg_err err = {0};
  rg_progress line;
  rg_progress_start(&line, "covers", "rules", other->n, !a->quiet);
  rg_status st = rg_coverage_compute(other, ours, &a->lim, a->quiet ? NULL : on_progress, &line, &c, &err);
  rg_progress_finish(&line);
  if (st) rg_cli_report(PROG, other_path, &err);
  else rg_coverage_print(stdout, other, &c, a->quiet);
  int rc = st ? 2 : c.count[RG_COVER_NOT_CHECKED] ? 130 : 0;
  rg_coverage_free(&c);
  return rc;
}

/* Reads both rule sets; every rule must have a target. Returns 0 or 2 after the message. */
static int load(const char *other_path, const char *with, rg_ruleset *other, rg_ruleset *ours) {
  rg_err err = {0};
  if (rg_text_parse_file(other_path, other, &err)) {
    rg_cli_report(PROG, other_path, &err);
    return 2;
  }
  if (rg_text_parse_file(with, ours, &err)) {
    if (err.status == RG_ERR_IO)
      snprintf(err.msg + strlen(err.msg), sizeof err.msg - strlen(err.msg), " (name our rule set with --with FILE)");
    rg_cli_report(PROG, with, &err);
    return 2;
  }
  for (int i = 0; i < other->n + ours->n; i++) {
    const rg_rule *r = i < other->n ? other->rules[i] : ours->rules[i - other->n];
    if (r->n_tgt == 0) {
      err = (rg_err){RG_ERR_ARG, r->line, 1, "a bare graph (no '=>') is not a rule"};
      rg_cli_report(PROG, i < other->n ? other_path : with, &err);
      return 2;
    }
  }
  return 0;
}

int rg_cmd_covers(int argc, char **argv) {
  /* a report: limits wider than pruning's; our rule set where `rulegen -o` puts it */
  covers_args a = {{10, 300000, 4, &rg_cli_interrupted}, "rules.rules", false};
  int rc = rg_cli_parse(PROG, &rg_doc_covers, NULL, fields, RG_CLI_COUNT(fields), NULL, &a, argc, argv);
  if (rc >= 0) return rc;
  if (optind + 1 != argc)
    return fprintf(stderr, PROG ": give exactly one OTHER rule file (got %d); see --help\n", argc - optind), 2;
  rg_ruleset other, ours;
  rg_ruleset_init(&other);
  rg_ruleset_init(&ours);
  rc = load(argv[optind], a.with, &other, &ours);
  if (!rc) {
    rg_cli_catch_interrupts();
    rc = report(&other, &ours, &a, argv[optind]);
    rg_cli_release_interrupts();
  }
  rg_ruleset_free(&other);
  rg_ruleset_free(&ours);
  return rc;
}
