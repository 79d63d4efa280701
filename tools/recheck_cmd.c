/* tools/recheck_cmd.c: `rulegen recheck FILE.rules`: the deep recheck of a rule set
 * (verify/recheck.h): every rule evaluated at many drawn assignments in float64 and Z_p, each
 * that differs reported with its counterexample. Exit statuses: cli/docs_rulegen.c.
 */
#include "cli.h"
#include "commands.h"
#include "enumerate/enumerate.h"
#include "fingerprint/fingerprint.h"
#include "verify/verify.h"

#define PROG "rulegen recheck"

/* What the command line asked for. */
typedef struct {
  rg_recheck_opts o;
  rg_enum_inputset inputs;
  const char *file;
  bool quiet;
} recheck_args;

static const rg_cli_field fields[] = {
    RG_DRAW_FIELDS(recheck_args, o),
    RG_CLI_STORE(RG_OPT_QUIET, RG_CLI_SET, recheck_args, quiet),
};

static int load_inputs(int c, const char *arg, void *base) {
  if (c != RG_OPT_INPUTS) return RG_CLI_NOT_MINE;
  return rg_cli_load_inputs(PROG, arg, &((recheck_args *)base)->inputs) ? RG_CLI_GO_ON : 2;
}

/* Parses the command line into *a; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, recheck_args *a) {
  rg_recheck_opts_init(&a->o);
  a->o.kernel = rg_fp_node_kernel;
  rg_enum_inputs_default(&a->inputs);
  a->o.var_shape = rg_enum_inputs_shape_of;
  a->o.var_shape_ctx = &a->inputs;
  a->quiet = false;
  int rc = rg_cli_parse(PROG, &rg_doc_recheck, NULL, fields, RG_CLI_COUNT(fields), load_inputs, a, argc, argv);
  if (rc < 0 && optind + 1 != argc) {
    fprintf(stderr, PROG ": give exactly one rule FILE (see rulegen recheck --help)\n");
    return 2;
  }
  a->file = argv[optind];
  return rc;
}

/* The recheck itself with Ctrl-C caught: its status; *seconds, the time it took. */
static rg_status run_recheck(recheck_args *a, rg_recheck_run *run, const char **about, double *seconds,
                             rg_err *err) {
  double t0 = rg_clock_seconds();
  rg_cli_catch_interrupts();
  a->o.stop = &rg_cli_interrupted;
  a->o.progress = !a->quiet;
  rg_status st = rg_recheck_file(a->file, &a->o, run, about, err);
  rg_cli_release_interrupts();
  *seconds = rg_clock_seconds() - t0;
  return st;
}

int rg_cmd_recheck(int argc, char **argv) {
  recheck_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc >= 0) return rc;
  rg_recheck_run run;
  const char *about;
  double seconds;
  rg_err err = {0};
  if (run_recheck(&a, &run, &about, &seconds, &err)) {
    rg_cli_report(PROG, about, &err);
    rc = 2;
  } else {
    rg_recheck_print(stdout, &run, &a.o, a.file, a.quiet, seconds);
    rc = rg_cli_interrupted ? 130 : run.differ ? 1 : 0;
  }
  rg_recheck_run_free(&run);
  return rc;
}
