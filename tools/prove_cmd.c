/* tools/prove_cmd.c: `rulegen prove FILE.rules`: prove every rule of a file from the axioms with
 * z3 and cvc5 (verify/prove.h), after checking the axioms themselves (verify/axcheck.h) and the
 * rules' typing (ir/shapesolve.h). Use it to audit any rule set.
 *
 * Exit status: 0 every rule meets --require, 1 some rule does not, 2 bad input (or an unsound
 * axiom), 3 the solvers disagreed on some obligation (one unsat, the other sat).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "enumerate/enumerate.h"
#include "fingerprint/fingerprint.h"
#include "ir/ir.h"
#include "verify/verify.h"

#define PROG "rulegen prove"

static const rg_cli_option prove_options[] = {
    {"require", 'r', 1, "both|any", "what a rule needs to pass: both solvers (default) or one"},
    {"timeout-ms", 'T', 1, "MS", "time limit per query and solver (default 5000)"},
    {"threads", 'j', 1, "N", "OpenMP threads over queries (default: all)"},
    {"axioms", 'a', 1, "FILE", "axiom file (default: verify/axioms.rules of this tree)"},
    {"all-axioms", 'A', 0, "", "assert every axiom, not only those over the rule's operators"},
    {"cvc5", 'c', 1, "PATH", "a cvc5 binary to answer instead of rulegen-cvc5 (cvc5's C++ API)"},
    {"dump", 'd', 1, "DIR", "write each obligation to DIR/<sha256>.smt2 (re-run with z3/cvc5)"},
    {"no-check-axioms", 'N', 0, "", "skip the random check of the axioms"},
    {"no-check-types", 'Y', 0, "", "skip checking that each rule type-checks at some shapes (for " "rule sets already tested at their shapes)"},
    {"refute-sets", 'R', 1, "N", "compare each rule at N shape sets first; one that differs is " "unproved and not sent to the solvers (default 8, 0 off)"},
    {"recheck", 'E', 1, "N", "recheck every proved rule at N drawn assignments (default 64, 0 off); " "one whose sides differ is unproved, its proof false, and its core axioms suspect"},
    {"inputs", 'i', 1, "FILE", "shapes of variables by name, one 'NAME DIMS' per line, for the recheck's draws " "(default TASO's 20 inputs; ?w13_1 takes ?w13's)"},
    {"journal", 'J', 1, "FILE", "read solver answers from FILE and append new ones as they come: a " "run stopped and started again asks only what was not answered"},
    {"fail-fast", 'F', 0, "", "ask cvc5 only about obligations z3 proved (with --require both: a " "rule z3 misses fails anyway; halves the time spent on unprovable rules; " "proved-by-cvc5-only is then not sought)"},
    {"quiet", 'q', 0, "", "print only rules that are not verified, and the summary"},
    {"help", 'h', 0, "", "show this help"},
};

static void usage(FILE *out) {
  fprintf(
      out,
      "usage: rulegen prove [options] FILE.rules\n"
      "\n"
      "Proves every rule of FILE from the operator axioms: each output pair becomes one\n"
      "SMT-LIB2 obligation, given to z3 (C API, fresh context) and cvc5 (C++ API, a fresh\n"
      "solver, --enum-inst; or the cvc5 binary with --cvc5), each in a helper program.\n"
      "Only unsat proves, and only with the goal in its unsat core (an unsat without it is\n"
      "printed as vacuous: the premises contradict each other). Each rule gets a status:\n"
      "verified (both solvers), proved-by-z3-only, proved-by-cvc5-only or unproved. The\n"
      "axioms are random-tested first, and every rule must be well-typed (its sides' outputs\n"
      "agree in shape) at some shapes. A rule whose sides differ at some shapes (compared\n"
      "first, in Z_p and float64) is unproved with that counterexample and not sent to the\n"
      "solvers. Every rule a solver proves is then rechecked at many drawn shapes (rulegen\n"
      "recheck): one whose sides differ is a false proof, unproved, with the axioms of its\n"
      "unsat cores named as suspects (one of them holds less widely than it claims).\n"
      "\noptions:\n");
  rg_cli_print_options(out, prove_options, RG_CLI_COUNT(prove_options), 16, 8);
  fprintf(out, "\nexample:\n  rulegen prove --timeout-ms 2000 tests/data/taso-133.rules\n"
               "exit status: 0 all pass, 1 some rule fails --require, 2 bad input or unsound axiom,\n"
               "3 the solvers disagreed (one proved, the other refuted), or proved a rule the\n"
               "recheck refutes (an axiom is unsound)\n");
}

static void print_answer(const rg_solver_answer *a, const char *who) {
  printf("    %-5s %-8s %7.1f ms", who, rg_smt_result_name(a->result), a->ms);
  if (a->result == RG_SMT_UNSAT) printf("  core: %s", a->core[0] ? a->core : "(none)");
  if (a->detail[0]) printf("  (%s)", a->detail);
  printf("\n");
}

/* What the command line asked for. */
typedef struct {
  rg_prove_opts o;
  rg_enum_inputset inputs;
  const char *axfile, *file;
  bool quiet;
} prove_args;

/* --name's value (in [lo, hi]) into *dst: -1 to go on, else the exit status 2. */
/* One option; -1 to go on, else the exit status. */
static int parse_option(int c, prove_args *a) {
  rg_prove_opts *o = &a->o;
  switch (c) {
  case 'r':
    if (!strcmp(optarg, "both")) o->require = RG_REQUIRE_BOTH;
    else if (!strcmp(optarg, "any")) o->require = RG_REQUIRE_ANY;
    else {
      fprintf(stderr, "rulegen prove: --require wants 'both' or 'any', not '%s'\n", optarg);
      return 2;
    }
    return -1;
  case 'T': return rg_cli_int_arg(PROG, "timeout-ms", optarg, 1, 3600000, &o->timeout_ms);
  case 'j': return rg_cli_int_arg(PROG, "threads", optarg, 1, 1024, &o->threads);
  case 'R': return rg_cli_int_arg(PROG, "refute-sets", optarg, 0, 64, &o->refute_sets);
  case 'E': return rg_cli_int_arg(PROG, "recheck", optarg, 0, 100000, &o->recheck);
  case 'a': a->axfile = optarg; return -1;
  case 'A': o->all_axioms = true; return -1;
  case 'c': o->binary[RG_SOLVER_CVC5] = optarg; return -1;
  case 'd': o->dump_dir = optarg; return -1;
  case 'N': o->check_axioms = false; return -1;
  case 'Y': o->check_typed = false; return -1;
  case 'J': o->journal = optarg; return -1;
  case 'F': o->fail_fast = true; return -1;
  case 'i': return rg_cli_load_inputs("rulegen prove", optarg, &a->inputs) ? -1 : 2;
  case 'q': a->quiet = true; return -1;
  case 'h': usage(stdout); return 0;
  default: usage(stderr); return 2;
  }
}

/* Parses the command line into *a; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, prove_args *a) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, prove_options, RG_CLI_COUNT(prove_options));
  rg_prove_opts_init(&a->o);
  a->o.progress = true;
  a->axfile = rg_axioms_default_path();
  a->quiet = false;
  rg_enum_inputs_default(&a->inputs);
  a->o.kernel = rg_fp_node_kernel;
  a->o.var_shape = rg_enum_inputs_shape_of;
  a->o.var_shape_ctx = &a->inputs;
  int c, rc = -1;
  while (rc < 0 && (c = rg_cli_getopt_next(&g, argc, argv)) != -1)
    rc = parse_option(c, a);
  if (rc < 0 && optind + 1 != argc) {
    fprintf(stderr, "rulegen prove: give exactly one rule FILE (see rulegen prove --help)\n");
    return 2;
  }
  a->file = argv[optind];
  return rc;
}

/* A rule's status line, and under it what each solver said of each obligation. */
static void print_proof(const rg_rule *r, const rg_rule_proof *p, const char *file) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_rule(r, &sb);
  printf("%-19s %s:%d  %s\n", rg_proof_status_name(p->status), file, r->line, rg_sb_str(&sb));
  rg_sb_free(&sb);
  if (p->refuted) printf("  the sides differ: %s\n", p->refutation);
  if (p->false_proof) {
    char suspects[1024];
    rg_proof_suspects(p, suspects, sizeof suspects);
    printf("  FALSE PROOF: proved, but the sides differ: %s\n  suspect axioms (its unsat cores): %s\n",
           p->refutation, suspects);
  }
  for (int k = 0; k < p->n_obl; k++) {
    printf("  output %d: obligation %.16s (%d axioms)\n", k + 1, p->obl[k].sha256, p->obl[k].n_axioms);
    for (int s = 0; s < RG_SOLVER_COUNT; s++) {
      const char *who = rg_solver_kind_name((rg_solver_kind)s);
      if (p->obl[k].done[s]) print_answer(&p->obl[k].ans[s], who);
      if (p->obl[k].not_asked[s])
        printf("    %s: not asked (%s did not prove it; --fail-fast)\n", who,
               rg_solver_kind_name((rg_solver_kind)(s - 1)));
    }
  }
}

/* The summary line: counts by status (one per solver), what passed, the solvers' versions. */
static void print_summary(const rg_prove_summary *sum, const rg_prove_opts *o) {
  char differ[64] = "";
  if (sum->refuted)
    snprintf(differ, sizeof differ, " (%d whose sides differ at some shapes)", sum->refuted);
  if (sum->reused) fprintf(stderr, "prove: %d answers taken from the journal %s\n", sum->reused, o->journal);
  printf("\n%d rules: %d verified, ", sum->n_rules, sum->verified);
  for (int s = 0; s < RG_SOLVER_COUNT; s++)
    printf("%d proved-by-%s-only, ", sum->only[s], rg_solver_kind_name((rg_solver_kind)s));
  printf("%d unproved%s%s; %d pass --require %s (", sum->unproved, differ,
         sum->skipped ? " (some skipped: interrupted)" : "", sum->shipped,
         o->require == RG_REQUIRE_BOTH ? "both" : "any");
  for (int s = 0; s < RG_SOLVER_COUNT; s++) printf("%s, ", sum->version[s]);
  printf("timeout %d ms%s, %.1f s)\n", o->timeout_ms, o->fail_fast ? ", fail-fast" : "", sum->wall_ms / 1e3);
}

int rg_cmd_prove(int argc, char **argv) {
  prove_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  rg_prove_run run;
  rg_err err = {0};
  const char *about;
  rg_cli_catch_interrupts();
  a.o.stop = &rg_cli_interrupted;
  rg_status st = rg_prove_file(a.file, a.axfile, &a.o, &run, &about, &err);
  rg_cli_release_interrupts();
  if (st) {
    rg_cli_report("rulegen prove", about, &err);
    rg_prove_run_free(&run);
    return 2;
  }
  for (int i = 0; i < run.rules.n; i++)
    if (!a.quiet || run.proofs[i].status != RG_PROOF_VERIFIED || run.proofs[i].disagree)
      print_proof(run.rules.rules[i], &run.proofs[i], a.file);
  print_summary(&run.sum, &a.o);
  rc = run.sum.shipped == run.sum.n_rules ? 0 : 1;
  for (int i = 0; i < run.rules.n; i++) {
    const char *why = rg_proof_error(&run.proofs[i]);
    if (why) fprintf(stderr, "rulegen prove: %s:%d: ERROR: %s\n", a.file, run.rules.rules[i]->line, why), rc = 3;
  }
  if (rg_cli_interrupted) fprintf(stderr, "rulegen prove: interrupted\n");
  rg_prove_run_free(&run);
  return rc;
}
