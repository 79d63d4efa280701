/* tools/check_axioms_cmd.c: `rulegen check-axioms`: random-test every axiom against the float64
 * and Z_p interpreters at many shapes and parameter values (verify/axcheck.h).
 *
 * Exit status: 0 every axiom held, 1 some axiom is unsound (each named with a counterexample),
 * 2 bad input.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "commands.h"
#include "ir/ir.h"
#include "verify/verify.h"

#define PROG "rulegen check-axioms"

static const rg_cli_option check_axioms_options[] = {
    {"assignments", 'n', 1, "N", "shape/parameter assignments per axiom and direction (default 24)"},
    {"trials", 't', 1, "N", "random inputs per assignment and domain (default 2)"},
    {"seed", 'S', 1, "N", "seed of shapes, inputs and keyed functions (default 1)"},
    {"threads", 'j', 1, "N", "OpenMP threads (default: all)"},
    {"verbose", 'v', 0, "", "print every axiom, not only unsound ones"},
    {"help", 'h', 0, "", "show this help"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen check-axioms [options] [AXIOMS.rules]\n"
          "\n"
          "Random-tests every axiom (default: %s) with the float64 and Z_p\n"
          "interpreters at many well-typed shape and parameter assignments found by the shape\n"
          "solver, and names every unsound axiom with a counterexample (shapes, parameters,\n"
          "domain, output position, both values). An axiom must hold wherever its source types\n"
          "and its guard holds, with a target that types there with the same output type (shape\n"
          "and seams), and, read right to left, wherever its target types: the SMT encoding\n"
          "states it of every term where its guard holds. So the draws constrain one side only\n"
          "(concat operands of unequal sizes, splits out of line with kernels, seams anywhere),\n"
          "and an axiom whose other side then does not type is unsound too.\n"
          "\noptions:\n",
          rg_axioms_default_path());
  rg_cli_print_options(out, check_axioms_options, RG_CLI_COUNT(check_axioms_options), 12, 4);
  fprintf(out, "\nexit status: 0 all sound, 1 some axiom unsound, 2 bad input\n");
}

/* --name's value (in [lo, hi]) into *dst: -1 to go on, else the exit status 2. */
/* One option; -1 to go on, else the exit status. */
static int parse_option(int c, rg_axcheck_opts *o, bool *verbose) {
  switch (c) {
  case 'n': return rg_cli_int_arg(PROG, "assignments", optarg, 1, 10000, &o->assignments);
  case 't': return rg_cli_int_arg(PROG, "trials", optarg, 1, 1000, &o->trials);
  case 'j': return rg_cli_int_arg(PROG, "threads", optarg, 1, 1024, &o->threads);
  case 'S': return rg_cli_seed_arg(PROG, optarg, &o->seed);
  case 'v': *verbose = true; return -1;
  case 'h': usage(stdout); return 0;
  default: usage(stderr); return 2;
  }
}

/* An UNSOUND line per unsound axiom (and an ok line per sound one, verbose), then the summary. */
static void print_verdicts(const rg_axcheck_run *run, const rg_axcheck_opts *o, const char *path,
                           bool verbose) {
  int min_asg = 1 << 30, n = run->ax.rules.n;
  for (int i = 0; i < n; i++) {
    const rg_rule *r = run->ax.rules.rules[i];
    const rg_axiom_verdict *v = &run->verdicts[i];
    if (v->assignments < min_asg) min_asg = v->assignments;
    if (!v->sound)
      printf("UNSOUND %s (%s:%d): %s%s\n", r->name, path, r->line,
             v->typed_only ? "one side types and the other does not (guard it by what makes it type): " : "",
             v->why);
    else if (verbose)
      printf("ok      %s: %d assignments (and %d runs with seams, %d at higher ranks) x %d trials x 2 domains\n",
             r->name, v->assignments, v->seamed, v->lifted, o->trials);
  }
  printf("%d axioms checked, %d unsound (at least %d assignments each, both ways round, %d trials per domain)\n",
         n, run->unsound, n ? min_asg : 0, o->trials);
}

int rg_cmd_check_axioms(int argc, char **argv) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, check_axioms_options, RG_CLI_COUNT(check_axioms_options));
  rg_axcheck_opts o;
  rg_axcheck_opts_init(&o);
  bool verbose = false;
  int c, rc = -1;
  while (rc < 0 && (c = rg_cli_getopt_next(&g, argc, argv)) != -1)
    rc = parse_option(c, &o, &verbose);
  if (rc >= 0) return rc;
  if (optind + 1 < argc) {
    fprintf(stderr, "rulegen check-axioms: one axiom file at a time\n");
    return 2;
  }
  const char *path = optind < argc ? argv[optind] : rg_axioms_default_path(), *about;
  rg_axcheck_run run;
  rg_err err = {0};
  if (rg_axioms_check_file(path, &o, &run, &about, &err)) {
    rg_cli_report("rulegen check-axioms", about, &err);
    rg_axcheck_run_free(&run);
    return 2;
  }
  print_verdicts(&run, &o, path, verbose);
  rc = run.unsound ? 1 : 0;
  rg_axcheck_run_free(&run);
  return rc;
}
