/* tools/prove_cmd.c: `rulegen prove FILE.rules`: prove every rule of a file from the axioms with
 * z3 and cvc5 (verify/prove.h), after checking the axioms themselves (verify/axcheck.h) and the
 * rules' typing (ir/shapesolve.h). Use it to audit any rule set. Exit statuses: cli/docs_rulegen.c.
 */
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "enumerate/enumerate.h"
#include "fingerprint/fingerprint.h"
#include "verify/verify.h"

#define PROG "rulegen prove"

/* What the command line asked for. */
typedef struct {
  rg_prove_opts o;
  rg_enum_inputset inputs;
  const char *axfile, *file, *json, *cache;
  bool quiet, no_cache;
  char journal[4400]; /* the proof cache's journal, where one is used */
} prove_args;

static const rg_cli_field fields[] = {
    RG_CLI_NUM(RG_OPT_TIMEOUT_MS, RG_CLI_INT, prove_args, o.timeout_ms, 1, 3600000, NULL),
    RG_CLI_NUM(RG_OPT_THREADS, RG_CLI_INT, prove_args, o.threads, 1, 1024, NULL),
    RG_CLI_NUM(RG_OPT_REFUTE_SETS, RG_CLI_INT, prove_args, o.refute_sets, 0, 64, NULL),
    RG_CLI_NUM(RG_OPT_RECHECK, RG_CLI_INT, prove_args, o.recheck, 0, 100000, NULL),
    RG_CLI_STORE(RG_OPT_AXIOMS, RG_CLI_TEXT, prove_args, axfile),
    RG_CLI_STORE(RG_OPT_ALL_AXIOMS, RG_CLI_SET, prove_args, o.all_axioms),
    RG_CLI_STORE(RG_OPT_CVC5, RG_CLI_TEXT, prove_args, o.binary[RG_SOLVER_CVC5]),
    RG_CLI_STORE(RG_OPT_DUMP, RG_CLI_TEXT, prove_args, o.dump_dir),
    RG_CLI_STORE(RG_OPT_NO_CHECK_AXIOMS, RG_CLI_CLEAR, prove_args, o.check_axioms),
    RG_CLI_STORE(RG_OPT_NO_CHECK_TYPES, RG_CLI_CLEAR, prove_args, o.check_typed),
    RG_CLI_STORE(RG_OPT_JOURNAL, RG_CLI_TEXT, prove_args, o.journal),
    RG_CLI_STORE(RG_OPT_PROOF_CACHE, RG_CLI_TEXT, prove_args, cache),
    RG_CLI_STORE(RG_OPT_NO_PROOF_CACHE, RG_CLI_SET, prove_args, no_cache),
    RG_CLI_STORE(RG_OPT_FAIL_FAST, RG_CLI_SET, prove_args, o.fail_fast),
    RG_CLI_STORE(RG_OPT_NO_CORE_HINT, RG_CLI_CLEAR, prove_args, o.core_hint),
    RG_CLI_STORE(RG_OPT_QUIET, RG_CLI_SET, prove_args, quiet),
    RG_CLI_STORE(RG_OPT_JSON, RG_CLI_TEXT, prove_args, json),
};

/* The options a field cannot hold. */
static int other_option(int c, const char *arg, void *base) {
  prove_args *a = base;
  if (c == RG_OPT_INPUTS) return rg_cli_load_inputs(PROG, arg, &a->inputs) ? RG_CLI_GO_ON : 2;
  if (c != RG_OPT_REQUIRE) return RG_CLI_NOT_MINE;
  if (rg_require_parse(arg, &a->o.require)) return RG_CLI_GO_ON;
  return fprintf(stderr, PROG ": --require wants 'both' or 'any', not '%s'\n", arg), 2;
}

/* Parses the command line into *a (zeros); -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, prove_args *a) {
  rg_prove_opts_init(&a->o);
  a->o.progress = true;
  a->axfile = rg_axioms_default_path();
  rg_enum_inputs_default(&a->inputs);
  a->o.kernel = rg_fp_node_kernel;
  a->o.var_shape = rg_enum_inputs_shape_of;
  a->o.var_shape_ctx = &a->inputs;
  int rc = rg_cli_parse(PROG, &rg_doc_prove, NULL, fields, RG_CLI_COUNT(fields), other_option, a, argc, argv);
  if (rc < 0 && optind + 1 != argc) {
    fprintf(stderr, PROG ": give exactly one rule FILE (see rulegen prove --help)\n");
    return 2;
  }
  a->file = argv[optind];
  rg_err err;
  if (rc < 0 && (rg_prove_check_outputs(&a->o, a->json, &err) ||
                 rg_proof_cache_route(&a->o, a->o.journal, a->cache, a->no_cache, a->journal, sizeof a->journal, &err)))
    return rg_cli_report(PROG, NULL, &err), 2;
  return rc;
}

/* The proofs (quiet: only those not verified or disagreed on), the summary, and an ERROR line
 * per proof the proof system got wrong; returns the exit status. */
static int report(const rg_prove_run *run, const prove_args *a) {
  for (int i = 0; i < run->rules.n; i++)
    if (!a->quiet || run->proofs[i].status != RG_PROOF_VERIFIED || run->proofs[i].disagree)
      rg_proof_print(stdout, run->rules.rules[i], &run->proofs[i], a->file);
  if (a->o.journal)
    rg_prove_journal_print(stderr, "prove: ", "prove: WARNING: ", a->o.journal, &run->sum, run->sum.cache_refused);
  rg_prove_summary_print(stdout, &run->sum, &a->o);
  int rc = run->sum.shipped == run->sum.n_rules ? 0 : 1;
  rg_err err;
  if (a->json && rg_prove_json_write(a->json, a->file, run, &a->o, &err)) rg_cli_report(PROG, NULL, &err), rc = 1;
  for (int i = 0; i < run->rules.n; i++) {
    const char *why = rg_proof_error(&run->proofs[i]);
    if (why) fprintf(stderr, PROG ": %s:%d: ERROR: %s\n", a->file, run->rules.rules[i]->line, why), rc = 3;
  }
  return rc;
}

int rg_cmd_prove(int argc, char **argv) {
  prove_args a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  rg_prove_run run;
  rg_err err = {0};
  const char *about;
  rg_cli_catch_interrupts();
  a.o.stop = &rg_cli_interrupted;
  rg_status st = rg_prove_file(a.file, a.axfile, &a.o, &run, &about, &err);
  rg_cli_release_interrupts();
  if (st) rg_cli_report(PROG, about, &err);
  else rc = report(&run, &a);
  if (!st && rg_cli_interrupted) fprintf(stderr, PROG ": interrupted\n");
  rg_prove_run_free(&run);
  return st ? 2 : rc;
}
