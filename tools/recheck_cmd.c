/* tools/recheck_cmd.c: `rulegen recheck FILE.rules`: the deep recheck of a rule set
 * (verify/recheck.h): every rule evaluated at many drawn assignments in float64 and Z_p, each
 * that differs reported with its counterexample.
 *
 * Exit status: 0 no rule differs, 1 some rule differs, 2 bad input, 130 interrupted.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "enumerate/enumerate.h"
#include "fingerprint/kernels.h"
#include "verify/verify.h"

#define RECHECK_OPTIONS(X)                                                                        \
  X("assignments", 'n', 1, "N", "drawn shape/parameter assignments per rule (default 64)")       \
  X("trials", 't', 1, "N", "random inputs per assignment and domain (default 1)")                \
  X("seed", 'S', 1, "N", "seed of shapes, inputs and keyed functions (default 1)")               \
  X("threads", 'j', 1, "N", "OpenMP threads (default: all)")                                     \
  X("inputs", 'i', 1, "FILE", "shapes of variables by name ('NAME DIMS' lines) to draw from "     \
    "(default TASO's 20 inputs; ?w13_1 takes ?w13's)")                                            \
  X("quiet", 'q', 0, "", "print only the rules that differ, and the summary")                    \
  X("help", 'h', 0, "", "show this help")

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
#define X(name, short_, arg, meta, help) fprintf(out, "  -%c, --%-12s %-4s %s\n", short_, name, meta, help);
  RECHECK_OPTIONS(X)
#undef X
  fprintf(out, "\nexample:\n  rulegen recheck -n 128 rules.rules\n"
               "exit status: 0 no rule differs, 1 some rule differs, 2 bad input, 130 interrupted\n");
}

int rg_cmd_recheck(int argc, char **argv) {
  static const struct option longopts[] = {
#define X(name, short_, arg, meta, help) {name, arg, NULL, short_},
      RECHECK_OPTIONS(X)
#undef X
      {NULL, 0, NULL, 0}};
  rg_recheck_opts o;
  rg_recheck_opts_init(&o);
  o.kernel = rg_fp_node_kernel;
  rg_enum_inputset inputs;
  rg_enum_inputs_default(&inputs);
  o.var_shape = rg_cli_input_shape;
  o.var_shape_ctx = &inputs;
  bool quiet = false;
  rg_err err = {0};
  int c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "n:t:S:j:i:qh", longopts, NULL)) != -1) {
    int64_t v;
    switch (c) {
    case 'n':
      if (!rg_cli_int_option("rulegen recheck", "assignments", optarg, 1, 10000, &v)) return 2;
      o.assignments = (int)v;
      break;
    case 't':
      if (!rg_cli_int_option("rulegen recheck", "trials", optarg, 1, 1000, &v)) return 2;
      o.trials = (int)v;
      break;
    case 'S':
      if (!rg_cli_int_option("rulegen recheck", "seed", optarg, 0, INT64_MAX, &v)) return 2;
      o.seed = (uint64_t)v;
      break;
    case 'j':
      if (!rg_cli_int_option("rulegen recheck", "threads", optarg, 1, 1024, &v)) return 2;
      o.threads = (int)v;
      break;
    case 'i':
      if (!rg_cli_load_inputs("rulegen recheck", optarg, &inputs)) return 2;
      break;
    case 'q': quiet = true; break;
    case 'h': usage(stdout); return 0;
    default: usage(stderr); return 2;
    }
  }
  if (optind + 1 != argc) {
    fprintf(stderr, "rulegen recheck: give exactly one rule FILE (see rulegen recheck --help)\n");
    return 2;
  }
  const char *file = argv[optind];
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  if (rg_text_parse_file(file, &rs, &err)) {
    rg_cli_report("rulegen recheck", file, &err);
    rg_ruleset_free(&rs);
    return 2;
  }
  for (int i = 0; i < rs.n; i++)
    if (rs.rules[i]->n_tgt == 0) {
      rg_err e = {RG_ERR_ARG, rs.rules[i]->line, 1, "a bare graph (no '=> target') has nothing to recheck"};
      rg_cli_report("rulegen recheck", file, &e);
      rg_ruleset_free(&rs);
      return 2;
    }
  rg_recheck_verdict *vs = calloc((size_t)rs.n + 1, sizeof *vs);
  int differ = 0, rc = 0;
  double t0 = rg_cli_now();
  rg_cli_catch_interrupts();
  o.stop = &rg_cli_interrupted;
  if (!vs || rg_recheck_rules(&rs, NULL, &o, vs, &differ, &err)) {
    fprintf(stderr, "rulegen recheck: %s\n", vs ? err.msg : "out of memory");
    rc = 2;
  }
  rg_cli_release_interrupts();
  int untyped = 0, skipped = 0;
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int i = 0; rc == 0 && i < rs.n; i++) {
    const rg_recheck_verdict *v = &vs[i];
    untyped += v->untyped;
    skipped += v->skipped;
    if (quiet && !v->differs) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(rs.rules[i], &sb);
    const char *verdict = v->differs ? "DIFFERS" : v->untyped ? "untyped" : v->skipped ? "skipped" : "agrees";
    printf("%-8s %s:%d  %s\n", verdict, file, rs.rules[i]->line, rg_sb_str(&sb));
    if (v->differs || v->untyped) printf("  %s\n", v->why);
  }
  rg_sb_free(&sb);
  if (rc == 0) {
    printf("\n%d rules rechecked at up to %d assignments each (seed %llu): %d differ, %d never type%s (%.1f s)\n",
           rs.n, o.assignments, (unsigned long long)o.seed, differ, untyped,
           skipped ? ", some skipped: interrupted" : "", rg_cli_now() - t0);
    rc = rg_cli_interrupted ? 130 : differ ? 1 : 0;
  }
  free(vs);
  rg_ruleset_free(&rs);
  return rc;
}
