/* tools/recheck_cmd.c: `rulegen recheck FILE.rules`: the deep recheck of a rule set
 * (verify/recheck.h): every rule evaluated at many drawn assignments in float64 and Z_p, each
 * that differs reported with its counterexample.
 *
 * Exit status: 0 no rule differs, 1 some rule differs, 2 bad input, 130 interrupted.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "enumerate/enumerate.h"
#include "fingerprint/fingerprint.h"
#include "ir/ir.h"
#include "verify/verify.h"

#define PROG "rulegen recheck"

static const rg_cli_option recheck_options[] = {
    {"assignments", 'n', 1, "N", "drawn shape/parameter assignments per rule (default 64)"},
    {"trials", 't', 1, "N", "random inputs per assignment and domain (default 1)"},
    {"seed", 'S', 1, "N", "seed of shapes, inputs and keyed functions (default 1)"},
    {"threads", 'j', 1, "N", "OpenMP threads (default: all)"},
    {"inputs", 'i', 1, "FILE", "shapes of variables by name ('NAME DIMS' lines) to draw from " "(default TASO's 20 inputs; ?w13_1 takes ?w13's)"},
    {"quiet", 'q', 0, "", "print only the rules that differ, and the summary"},
    {"help", 'h', 0, "", "show this help"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen recheck [options] FILE.rules\n"
          "\n"
          "Rechecks every rule of FILE where it claims to hold: at N assignments of shapes and\n"
          "parameters drawn by the shape solver (concat operands of unequal sizes, splits out\n"
          "of line with kernels, grouped convs with more kernels, sizes 1 and 2), each again\n"
          "with seams cut into its variables and with trailing axes added, wherever both sides\n"
          "type with outputs of the same type, it compares the sides in float64 and Z_p. A\n"
          "rule that differs is false, whatever proved it: it is printed with the shapes that\n"
          "show it (rulegen eval -s ... reproduces it). A rule whose variables are named as\n"
          "inputs (--inputs) is drawn from their shapes first. Seeded and deterministic.\n"
          "\noptions:\n");
  rg_cli_print_options(out, recheck_options, RG_CLI_COUNT(recheck_options), 12, 4);
  fprintf(out, "\nexample:\n  rulegen recheck -n 128 rules.rules\n"
               "exit status: 0 no rule differs, 1 some rule differs, 2 bad input, 130 interrupted\n");
}

/* What the command line asked for. */
typedef struct {
  rg_recheck_opts o;
  rg_enum_inputset inputs;
  const char *file;
  bool quiet;
} recheck_args;

/* --name's value (in [lo, hi]) into *dst: -1 to go on, else the exit status 2. */
/* One option; -1 to go on, else the exit status. */
static int parse_option(int c, recheck_args *a) {
  switch (c) {
  case 'n': return rg_cli_int_arg(PROG, "assignments", optarg, 1, 10000, &a->o.assignments);
  case 't': return rg_cli_int_arg(PROG, "trials", optarg, 1, 1000, &a->o.trials);
  case 'j': return rg_cli_int_arg(PROG, "threads", optarg, 1, 1024, &a->o.threads);
  case 'S': return rg_cli_seed_arg(PROG, optarg, &a->o.seed);
  case 'i': return rg_cli_load_inputs("rulegen recheck", optarg, &a->inputs) ? -1 : 2;
  case 'q': a->quiet = true; return -1;
  case 'h': usage(stdout); return 0;
  default: usage(stderr); return 2;
  }
}

/* Parses the command line into *a; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, recheck_args *a) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, recheck_options, RG_CLI_COUNT(recheck_options));
  rg_recheck_opts_init(&a->o);
  a->o.kernel = rg_fp_node_kernel;
  rg_enum_inputs_default(&a->inputs);
  a->o.var_shape = rg_enum_inputs_shape_of;
  a->o.var_shape_ctx = &a->inputs;
  a->quiet = false;
  int c, rc = -1;
  while (rc < 0 && (c = rg_cli_getopt_next(&g, argc, argv)) != -1)
    rc = parse_option(c, a);
  if (rc < 0 && optind + 1 != argc) {
    fprintf(stderr, "rulegen recheck: give exactly one rule FILE (see rulegen recheck --help)\n");
    return 2;
  }
  a->file = argv[optind];
  return rc;
}

/* A line per rule (per rule that differs, quiet), and under it why. */
static void print_verdicts(const rg_recheck_run *run, const char *file, bool quiet) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int i = 0; i < run->rules.n; i++) {
    const rg_recheck_verdict *v = &run->verdicts[i];
    if (quiet && !v->differs) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(run->rules.rules[i], &sb);
    const char *verdict = v->differs ? "DIFFERS" : v->untyped ? "untyped" : v->skipped ? "skipped" : "agrees";
    printf("%-8s %s:%d  %s\n", verdict, file, run->rules.rules[i]->line, rg_sb_str(&sb));
    if (v->differs || v->untyped) printf("  %s\n", v->why);
  }
  rg_sb_free(&sb);
}

int rg_cmd_recheck(int argc, char **argv) {
  recheck_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  rg_recheck_run run;
  rg_err err = {0};
  const char *about;
  double t0 = rg_cli_now();
  rg_cli_catch_interrupts();
  a.o.stop = &rg_cli_interrupted;
  rg_status st = rg_recheck_file(a.file, &a.o, &run, &about, &err);
  rg_cli_release_interrupts();
  if (st) {
    rg_cli_report("rulegen recheck", about, &err);
    rg_recheck_run_free(&run);
    return 2;
  }
  print_verdicts(&run, a.file, a.quiet);
  int untyped = 0, skipped = 0;
  for (int i = 0; i < run.rules.n; i++)
    untyped += run.verdicts[i].untyped, skipped += run.verdicts[i].skipped;
  printf("\n%d rules rechecked at up to %d assignments each (seed %llu): %d differ, %d never type%s (%.1f s)\n",
         run.rules.n, a.o.assignments, (unsigned long long)a.o.seed, run.differ, untyped,
         skipped ? ", some skipped: interrupted" : "", rg_cli_now() - t0);
  rc = rg_cli_interrupted ? 130 : run.differ ? 1 : 0;
  rg_recheck_run_free(&run);
  return rc;
}
