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
  X("assignments", 'n', 1, "N", "shape/parameter assignments per axiom (default 24)")           \
  X("trials", 't', 1, "N", "random inputs per assignment and domain (default 2)")               \
  X("seed", 'S', 1, "N", "seed of shapes, inputs and keyed functions (default 1)")              \
  X("threads", 'j', 1, "N", "OpenMP threads (default: all)")                                    \
  X("verbose", 'v', 0, "", "print every axiom, not only unsound ones")                          \
  X("typed-only", 'o', 0, "", "list the axioms whose target does not type somewhere their source does") \
  X("help", 'h', 0, "", "show this help")

static void usage(FILE *out) {
  fprintf(out,
          "usage: rulegen check-axioms [options] [AXIOMS.rules]\n"
          "\n"
          "Random-tests every axiom (default: %s) with the float64 and Z_p\n"
          "interpreters at many well-typed shape and parameter assignments found by the shape\n"
          "solver, and names every unsound axiom with a counterexample (shapes, parameters,\n"
          "domain, output position, both values). Also useful to test a candidate property.\n"
          "With --typed-only it tries each axiom wherever its source types, and lists as\n"
          "typed-only those whose target does not type there: the SMT encoding is untyped and\n"
          "states them of every term, so a proof may rest on an instance where one side is\n"
          "ill-typed (verify/README.md, known limits). They are not counted as unsound.\n"
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
  int typed_only = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "n:t:S:j:voh", longopts, NULL)) != -1) {
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
    case 'o': o.source_only = true; break;
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
    if (!vs[i].sound && vs[i].typed_only) {
      printf("typed-only %s (%s:%d): %s\n", r->name, path, r->line, vs[i].why);
      typed_only++;
      bad--;
    } else if (!vs[i].sound) {
      printf("UNSOUND %s (%s:%d): %s\n", r->name, path, r->line, vs[i].why);
    }
    else if (verbose)
      printf("ok      %s: %d assignments (and %d runs with seams, %d at higher ranks) x %d trials x 2 domains\n",
             r->name, vs[i].assignments, vs[i].seamed, vs[i].lifted, o.trials);
  }
  if (rc == 0) {
    printf("%d axioms checked, %d unsound (at least %d assignments each, %d trials per domain)", ax.rules.n, bad,
           ax.rules.n ? min_asg : 0, o.trials);
    if (o.source_only) printf("; %d typed only", typed_only);
    printf("\n");
    rc = bad ? 1 : 0;
  }
  free(vs);
  rg_axioms_free(&ax);
  return rc;
}
