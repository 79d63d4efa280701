/* tools/check_axioms_cmd.c: `rulegen check-axioms`: random-test every axiom against the float64
 * and Z_p interpreters at many shapes and parameter values (verify/axcheck.h).
 *
 * Exit status: 0 every axiom held, 1 some axiom is unsound (each named with a counterexample),
 * 2 bad input.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "verify/verify.h"

#define CHECK_AXIOMS_OPTIONS(X)                                                                  \
  X("assignments", 'n', 1, "N", "shape/parameter assignments per axiom and direction (default 24)") \
  X("trials", 't', 1, "N", "random inputs per assignment and domain (default 2)")               \
  X("seed", 'S', 1, "N", "seed of shapes, inputs and keyed functions (default 1)")              \
  X("threads", 'j', 1, "N", "OpenMP threads (default: all)")                                    \
  X("verbose", 'v', 0, "", "print every axiom, not only unsound ones")                          \
  X("help", 'h', 0, "", "show this help")

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
#define X(name, short_, arg, meta, help) fprintf(out, "  -%c, --%-12s %-4s %s\n", short_, name, meta, help);
  CHECK_AXIOMS_OPTIONS(X)
#undef X
  fprintf(out, "\nexit status: 0 all sound, 1 some axiom unsound, 2 bad input\n");
}

int rg_cmd_check_axioms(int argc, char **argv) {
  static const struct option longopts[] = {
#define X(name, short_, arg, meta, help) {name, arg, NULL, short_},
      CHECK_AXIOMS_OPTIONS(X)
#undef X
      {NULL, 0, NULL, 0}};
  rg_axcheck_opts o;
  rg_axcheck_opts_init(&o);
  bool verbose = false;
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "n:t:S:j:vh", longopts, NULL)) != -1) {
    int64_t v;
    switch (c) {
    case 'n':
      if (!rg_cli_int_option("rulegen check-axioms", "assignments", optarg, 1, 10000, &v)) return 2;
      o.assignments = (int)v;
      break;
    case 't':
      if (!rg_cli_int_option("rulegen check-axioms", "trials", optarg, 1, 1000, &v)) return 2;
      o.trials = (int)v;
      break;
    case 'S':
      if (!rg_cli_int_option("rulegen check-axioms", "seed", optarg, 0, INT64_MAX, &v)) return 2;
      o.seed = (uint64_t)v;
      break;
    case 'j':
      if (!rg_cli_int_option("rulegen check-axioms", "threads", optarg, 1, 1024, &v)) return 2;
      o.threads = (int)v;
      break;
    case 'v': verbose = true; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind + 1 < argc) {
    fprintf(stderr, "rulegen check-axioms: one axiom file at a time\n");
    return 2;
  }
  const char *path = optind < argc ? argv[optind] : rg_axioms_default_path();
  rg_axioms ax;
  rg_err err = {0};
  if (rg_axioms_load(path, &ax, &err)) {
    rg_cli_report("rulegen check-axioms", path, &err);
    rg_axioms_free(&ax);
    return 2;
  }
  rg_axiom_verdict *vs = calloc((size_t)ax.rules.n, sizeof *vs);
  int bad = 0, rc = 0;
  if (!vs || rg_axioms_check(&ax, &o, vs, &bad, &err)) {
    fprintf(stderr, "rulegen check-axioms: %s\n", vs ? err.msg : "out of memory");
    rc = 2;
  }
  int min_asg = 1 << 30;
  for (int i = 0; rc == 0 && i < ax.rules.n; i++) {
    const rg_rule *r = ax.rules.rules[i];
    if (vs[i].assignments < min_asg) min_asg = vs[i].assignments;
    if (!vs[i].sound)
      printf("UNSOUND %s (%s:%d): %s%s\n", r->name, path, r->line,
             vs[i].typed_only ? "one side types and the other does not (guard it by what makes it type): " : "",
             vs[i].why);
    else if (verbose)
      printf("ok      %s: %d assignments (and %d runs with seams, %d at higher ranks) x %d trials x 2 domains\n",
             r->name, vs[i].assignments, vs[i].seamed, vs[i].lifted, o.trials);
  }
  if (rc == 0) {
    printf("%d axioms checked, %d unsound (at least %d assignments each, both ways round, %d trials per domain)\n",
           ax.rules.n, bad, ax.rules.n ? min_asg : 0, o.trials);
    rc = bad ? 1 : 0;
  }
  free(vs);
  rg_axioms_free(&ax);
  return rc;
}
