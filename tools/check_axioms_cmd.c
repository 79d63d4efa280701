/* tools/check_axioms_cmd.c: `rulegen check-axioms`: random-test every axiom against the float64
 * and Z_p interpreters at many shapes and parameter values (verify/axcheck.h). Exit statuses:
 * cli/docs_rulegen.c.
 */
#include "cli.h"
#include "commands.h"
#include "verify/verify.h"

#define PROG "rulegen check-axioms"

typedef struct {
  rg_axcheck_opts o;
  bool verbose;
} axcheck_args;

static const rg_cli_field fields[] = {
    RG_DRAW_FIELDS(axcheck_args, o),
    RG_CLI_STORE(RG_OPT_VERBOSE, RG_CLI_SET, axcheck_args, verbose),
};

/* The help's extra: where the default axioms are. */
static void default_axioms(FILE *out) {
  fprintf(out, "\ndefault AXIOMS: %s (" RG_DATA_DIR_ENV "=DIR reads DIR/axioms.rules)\n",
          rg_axioms_default_path());
}

int rg_cmd_check_axioms(int argc, char **argv) {
  axcheck_args a = {.verbose = false};
  rg_axcheck_opts_init(&a.o);
  int rc = rg_cli_parse(PROG, &rg_doc_check_axioms, default_axioms, fields, RG_CLI_COUNT(fields), NULL, &a,
                        argc, argv);
  if (rc >= 0) return rc;
  if (optind + 1 < argc) {
    fprintf(stderr, PROG ": one axiom file at a time\n");
    return 2;
  }
  const char *path = optind < argc ? argv[optind] : rg_axioms_default_path(), *about;
  rg_axcheck_run run;
  rg_err err = {0};
  rg_status st = rg_axioms_check_file(path, &a.o, &run, &about, &err);
  if (st) rg_cli_report(PROG, about, &err);
  else rg_axcheck_print(stdout, &run, &a.o, path, a.verbose);
  rc = st ? 2 : run.unsound ? 1 : 0;
  rg_axcheck_run_free(&run);
  return rc;
}
