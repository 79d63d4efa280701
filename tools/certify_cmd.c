/* tools/certify_cmd.c: `rulegen certify`: PET partial-equivalence certificates, made or checked
 * (certify/session.h runs them).
 *
 *   rulegen certify [options] ORIGINAL MUTANT   (two files, one program each)
 *   rulegen certify [options] RULEFILE          (first rule 'ORIGINAL => MUTANT')
 *   rulegen certify [options] --mutant NAME     (a built-in PET mutant)
 *   rulegen certify check [options] CERT (the same three ways to give the programs)
 *
 * Exit statuses: cli/docs_rulegen.c.
 */
#include <string.h>

#include "certify/certify.h"
#include "cli.h"
#include "commands.h"

#define PROG "rulegen certify"

/* What the command line asked for: the session, and the -s bindings it gets as one string. */
typedef struct {
  rg_cert_session s;
  rg_strbuf shapes;
} cert_args;

static const rg_cli_field fields[] = {
    RG_CLI_NUM(RG_OPT_TRIALS, RG_CLI_INT, cert_args, s.trials, 1, 1000, NULL),
    RG_CLI_STORE(RG_OPT_OUTPUT, RG_CLI_TEXT, cert_args, s.out),
    RG_CLI_STORE(RG_OPT_MUTANT, RG_CLI_TEXT, cert_args, s.mutant),
    RG_CLI_STORE(RG_OPT_DIMS, RG_CLI_TEXT, cert_args, s.dims),
    RG_CLI_STORE(RG_OPT_FULL, RG_CLI_SET, cert_args, s.full),
    RG_CLI_STORE(RG_OPT_PRINT, RG_CLI_SET, cert_args, s.print),
};

/* -s (appended to the bindings) and -p (a prime). */
static int other_option(int c, const char *arg, void *base) {
  cert_args *a = base;
  if (c == RG_OPT_SHAPE) return rg_sb_printf(&a->shapes, "%s%s", a->shapes.len ? " " : "", arg), RG_CLI_GO_ON;
  if (c != RG_OPT_PRIME) return RG_CLI_NOT_MINE;
  if (rg_pet_parse_prime(arg, &a->s.p)) return RG_CLI_GO_ON;
  fprintf(stderr, PROG ": --prime wants 2^K-1 or a decimal number, not '%s'; the supported primes are %s\n", arg,
          RG_PET_PRIMES);
  return 2;
}

int rg_cmd_certify(int argc, char **argv) {
  bool check = argc > 1 && strcmp(argv[1], "check") == 0;
  if (check) argc--, argv++;
  cert_args a = {.s = {check ? PROG " check" : PROG, check, NULL, 3, RG_ZP_P, NULL, NULL, NULL, false, false, NULL}};
  rg_sb_init(&a.shapes);
  int rc = rg_cli_parse(PROG, &rg_doc_certify, NULL, fields, RG_CLI_COUNT(fields), other_option, &a, argc, argv);
  rg_err perr;
  if (rc < 0 && a.s.out && rg_path_check_writable(a.s.out, &perr)) /* before the checks, not after */
    fprintf(stderr, PROG ": -o %s\n", perr.msg), rc = 2;
  if (rc < 0) {
    if (a.shapes.len) a.s.shapes = rg_sb_str(&a.shapes);
    rg_cli_catch_interrupts();
    a.s.cancel = &rg_cli_interrupted;
    rg_err err = {0};
    const char *where;
    if (rg_cert_session_run(&a.s, argv + optind, argc - optind, stdout, stderr, &rc, &where, &err))
      rg_cli_report(a.s.prog, where, &err), rc = 2;
    rg_cli_release_interrupts();
    if (rg_cli_interrupted && rc != 2) fprintf(stderr, PROG ": interrupted\n"); /* else reported */
  }
  rg_sb_free(&a.shapes);
  return rc;
}
