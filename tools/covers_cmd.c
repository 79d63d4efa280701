/* tools/covers_cmd.c: `rulegen covers`: how much of another rule set does ours cover
 * (prune/coverage.h), printed a rule a line.
 *
 * Exit status: 0 the report was made (whatever it says), 2 bad input, 130 interrupted (Ctrl-C:
 * the rules not yet looked at are reported as not checked).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "derive_opts.h"
#include "prune/prune.h"

static const rg_cli_option covers_options[] = {
    {"with", 'w', 1, "FILE", "our rule set (default: rules.rules, as `rulegen -o` names it)"},
    RG_DERIVE_LIMIT_ROWS,
    {"quiet", 'q', 0, "", "print only rules not covered, and the summary; no progress"},
    {"help", 'h', 0, "", "show this help"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen covers OTHER.rules [--with OURS.rules] [options]\n"
          "\n"
          "For each rule of OTHER, says whether OURS contains it up to renaming variables (the\n"
          "same content id, in either orientation), derives it (our rules, used in both\n"
          "directions where their variables allow, rewrite one side into the other: the number\n"
          "of steps is given), or does not cover it; then a summary line. Derivations are\n"
          "searched in parallel, bounded by the limits below (defaults: 10 steps, 300000\n"
          "terms, growth 4: wider than pruning's, as a report can afford the time).\n"
          "\n"
          "options:\n");
  rg_cli_print_options(out, covers_options, RG_CLI_COUNT(covers_options), 7, 5);
  fprintf(out, "\n"
               "example:\n"
               "  rulegen covers tests/data/prune/taso-133.rules --with rules.rules\n"
               "exit status: 0 report made, 2 bad input, 130 interrupted (Ctrl-C)\n");
}

static void on_progress(void *ctx, int done, int total) {
  (void)ctx;
  fprintf(stderr, "rulegen covers: %d/%d\n", done, total);
}

/* One line per rule of other (with quiet, only those not covered), then the summary. */
static int report(const rg_ruleset *other, const rg_ruleset *ours, const rg_derive_limits *lim,
                  bool quiet, const char *other_path) {
  rg_coverage c;
  rg_err err = {0};
  if (rg_coverage_compute(other, ours, lim, quiet ? NULL : on_progress, NULL, &c, &err)) {
    rg_cli_report("rulegen covers", other_path, &err);
    rg_coverage_free(&c);
    return 2;
  }
  for (int i = 0; i < other->n; i++) {
    if (quiet && c.verdict[i] != RG_COVER_NOT_COVERED) continue;
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_text_print_rule(other->rules[i], &sb);
    char what[48];
    if (c.verdict[i] == RG_COVER_DERIVED)
      snprintf(what, sizeof what, "derived (%d step%s)", c.steps[i], c.steps[i] == 1 ? "" : "s");
    else
      snprintf(what, sizeof what, "%s", rg_cover_verdict_name(c.verdict[i]));
    printf("line %-5d %-21s %s\n", other->rules[i]->line, what, rg_sb_str(&sb));
    rg_sb_free(&sb);
  }
  const int *n = c.count;
  int have = n[RG_COVER_CONTAINED] + n[RG_COVER_CONTAINED_REVERSED];
  printf("covers: %d of %d rules: %d contained, %d derived (longest %d steps), %d not covered\n",
         have + n[RG_COVER_DERIVED], other->n, have, n[RG_COVER_DERIVED], c.longest, n[RG_COVER_NOT_COVERED]);
  if (n[RG_COVER_NOT_CHECKED]) printf("interrupted: %d rules not checked\n", n[RG_COVER_NOT_CHECKED]);
  rg_coverage_free(&c);
  return n[RG_COVER_NOT_CHECKED] ? 130 : 0;
}

/* Parses the options into lim, with and quiet; returns 0, -1 after --help, or the exit status. */
static int parse(int argc, char **argv, rg_derive_limits *lim, const char **with, bool *quiet) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, covers_options, RG_CLI_COUNT(covers_options));
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    bool is_limit;
    if (c == 'w') *with = optarg;
    else if (c == 'q') *quiet = true;
    else if (c == 'h') return usage(stdout), -1;
    else if (!rg_derive_limit_option("rulegen covers", c, optarg, lim, &is_limit)) {
      if (!is_limit) usage(stderr);
      return 2;
    }
  }
  if (optind + 1 != argc) {
    fprintf(stderr, "rulegen covers: give exactly one OTHER rule file (got %d); see --help\n", argc - optind);
    return 2;
  }
  return 0;
}

/* Reads both rule sets; every rule must have a target. Returns 0 or 2 after the message. */
static int load(const char *other_path, const char *with, rg_ruleset *other, rg_ruleset *ours) {
  rg_err err = {0};
  if (rg_text_parse_file(other_path, other, &err)) {
    rg_cli_report("rulegen covers", other_path, &err);
    return 2;
  }
  if (rg_text_parse_file(with, ours, &err)) {
    if (err.status == RG_ERR_IO)
      snprintf(err.msg + strlen(err.msg), sizeof err.msg - strlen(err.msg), " (name our rule set with --with FILE)");
    rg_cli_report("rulegen covers", with, &err);
    return 2;
  }
  for (int i = 0; i < other->n + ours->n; i++) {
    const rg_rule *r = i < other->n ? other->rules[i] : ours->rules[i - other->n];
    if (r->n_tgt == 0) {
      err = (rg_err){RG_ERR_ARG, r->line, 1, "a bare graph (no '=>') is not a rule"};
      rg_cli_report("rulegen covers", i < other->n ? other_path : with, &err);
      return 2;
    }
  }
  return 0;
}

int rg_cmd_covers(int argc, char **argv) {
  rg_derive_limits lim = {10, 300000, 4, &rg_cli_interrupted}; /* a report: wider than pruning */
  const char *with = "rules.rules";
  bool quiet = false;
  int rc = parse(argc, argv, &lim, &with, &quiet);
  if (rc) return rc < 0 ? 0 : rc;
  rg_ruleset other, ours;
  rg_ruleset_init(&other);
  rg_ruleset_init(&ours);
  rc = load(argv[optind], with, &other, &ours);
  if (!rc) {
    rg_cli_catch_interrupts();
    rc = report(&other, &ours, &lim, quiet, argv[optind]);
    rg_cli_release_interrupts();
  }
  rg_ruleset_free(&other);
  rg_ruleset_free(&ours);
  return rc;
}
