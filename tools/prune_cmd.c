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

#define PRUNE_OPTIONS(X)                                                                           \
  X("output", 'o', 1, "FILE", "write the kept rules here (required unless --audit)")               \
  X("records", 'r', 1, "FILE", "write the removal records here (default: OUTPUT.removed)")         \
  X("prune", 'P', 1, "LIST", "stages: renaming,subgraph,derive (default: all), or none")           \
  RG_DERIVE_LIMIT_OPTIONS(X)                                                                       \
  X("one-pass", '1', 0, "", "derivability: Ruler's pass only, no second pass")                     \
  X("audit", 'a', 1, "RECORDS", "instead of pruning: re-check RECORDS against the kept set IN")    \
  X("quiet", 'q', 0, "", "no progress on stderr")                                                  \
  X("help", 'h', 0, "", "show this help")

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
#define X(name, short_, arg, meta, help)                                                           \
  fprintf(out, "  -%c, --%-8s %-8s %s\n", short_, name, meta, help);
  PRUNE_OPTIONS(X)
#undef X
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

/* The kept rules into f. */
static rg_status write_kept(FILE *f, const rg_ruleset *rs, const rg_prune_result *res, rg_err *err) {
  fprintf(f, "# rulegen prune: %d of %d rules kept\n", res->kept, res->n);
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int i = 0; i < rs->n; i++) {
    if (res->e[i].fate != RG_FATE_KEPT) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(rs->rules[i], &sb);
    fprintf(f, "%s\n", rg_sb_str(&sb));
  }
  bool bad = sb.failed;
  rg_sb_free(&sb);
  return bad ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* The records of res into f, and their end line. */
static rg_status write_records(FILE *f, const rg_ruleset *rs, const rg_prune_result *res, rg_err *err) {
  rg_status st = rg_prune_write_records(f, rs, res, err);
  return st ? st : rg_prune_write_records_end(f, err);
}

/* Writes path whole or not at all with fn (a kill leaves the old file, never a cut one). */
static rg_status write_whole(const char *path, rg_status (*fn)(FILE *, const rg_ruleset *, const rg_prune_result *, rg_err *),
                             const rg_ruleset *rs, const rg_prune_result *res, rg_err *err) {
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  if (st) return st;
  if ((st = fn(a.f, rs, res, err))) {
    rg_atomic_abort(&a);
    return st;
  }
  return rg_atomic_commit(&a, err);
}

static int audit(const char *records, const char *kept_path) {
  rg_ruleset kept;
  rg_ruleset_init(&kept);
  rg_err err = {0};
  rg_strbuf sb;
  rg_sb_init(&sb);
  int rc = 0;
  FILE *f = fopen(records, "rb");
  if (!f) {
    fprintf(stderr, "rulegen prune: cannot open %s\n", records);
    rc = 2;
  } else {
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
      rg_sb_append(&sb, chunk, n);
    fclose(f);
  }
  /* An empty kept set is legal (everything removed); empty records are not (no end line). */
  rg_status st = rc ? RG_OK : rg_text_parse_file(kept_path, &kept, &err);
  if (st == RG_ERR_PARSE && kept.n == 0 && strstr(err.msg, "holds no rules")) st = RG_OK;
  if (st) {
    rg_cli_report("rulegen prune", kept_path, &err);
    rc = 2;
  }
  rg_audit_report rep;
  if (!rc && (st = rg_prune_audit(&kept, sb.s ? sb.s : "", sb.len, &rep, &err)) != RG_OK) {
    rg_cli_report("rulegen prune: audit", records, &err);
    rc = st == RG_ERR_ARG ? 1 : 2;
  }
  if (!rc)
    printf("audit: %d removal records check against %d kept rules (renaming %d, subgraph %d, "
           "supergraph %d, derived %d)\n",
           rep.records, rep.kept, rep.by_reason[RG_FATE_RENAMING], rep.by_reason[RG_FATE_SUBGRAPH],
           rep.by_reason[RG_FATE_SUPERGRAPH], rep.by_reason[RG_FATE_DERIVED]);
  rg_sb_free(&sb);
  rg_ruleset_free(&kept);
  return rc;
}

int rg_cmd_prune(int argc, char **argv) {
  static const struct option longopts[] = {
#define X(name, short_, arg, meta, help) {name, arg, NULL, short_},
      PRUNE_OPTIONS(X)
#undef X
          {NULL, 0, NULL, 0}};
  rg_prune_opts o = rg_prune_opts_default();
  const char *out = NULL, *records = NULL, *audit_path = NULL;
  progress_state ps = {false, 0};
  int c, rc = 0;
  optind = 1;
  while (rc == 0 && (c = getopt_long(argc, argv, "o:r:P:" RG_DERIVE_LIMIT_SHORTOPTS "1a:qh",
                                     longopts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'r': records = optarg; break;
    case 'a': audit_path = optarg; break;
    case '1': o.second_pass = false; break;
    case 'P':
      if (!rg_prune_parse_stages(optarg, &o.stages)) {
        fprintf(stderr,
                "rulegen prune: --prune wants stages from renaming,subgraph,supergraph,derive "
                "(or all, none), not '%s'\n",
                optarg);
        rc = 2;
      }
      break;
    case 'q': ps.quiet = true; break;
    case 'h': usage(stdout); return 0;
    default: {
      bool is_limit;
      if (!rg_derive_limit_option("rulegen prune", c, optarg, &o.limits, &is_limit)) {
        if (!is_limit) usage(stderr);
        rc = 2;
      }
      break;
    }
    }
  }
  if (rc) return rc;
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
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_err err = {0};
  rg_prune_result res;
  memset(&res, 0, sizeof res);
  rg_status st = rg_text_parse_file(argv[optind], &rs, &err);
  if (st) {
    rg_cli_report("rulegen prune", argv[optind], &err);
    rc = 2;
  }
  if (!rc) {
    rg_cli_catch_interrupts();
    o.stop = &rg_cli_interrupted;
    o.progress = progress;
    o.progress_ctx = &ps;
    st = rg_prune_run(&rs, &o, &res, &err);
    rg_cli_release_interrupts();
    if (st) {
      rg_cli_report("rulegen prune", argv[optind], &err);
      rc = 2;
    }
  }
  /* the records first: a kept set never stands beside the records of another run */
  if (!rc && (st = write_whole(records, write_records, &rs, &res, &err)) != RG_OK)
    rc = 2, rg_cli_report("rulegen prune", NULL, &err);
  if (!rc && (st = write_whole(out, write_kept, &rs, &res, &err)) != RG_OK)
    rc = 2, rg_cli_report("rulegen prune", NULL, &err);
  if (!rc) {
    print_table(&res);
    printf("kept rules: %s\nremoval records: %s\n", out, records);
    if (res.interrupted) rc = 130;
  }
  rg_prune_result_free(&res);
  rg_ruleset_free(&rs);
  free(rec_path);
  return rc;
}
