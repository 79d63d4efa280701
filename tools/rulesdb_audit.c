/* tools/rulesdb_audit.c: `rulesdb audit`: verify the signature, then re-check every record
 * (rulesdb/audit.h) and say plainly what could not be re-checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fingerprint/fingerprint.h"
#include "rulesdb_cmds.h"
#include "verify/verify.h"

static const rg_cli_option audit_options[] = {
    {"sample", 'n', 1, "N", "audit N rules chosen by --seed (and their records) instead of all"},
    {"seed", 'S', 1, "N", "seed of the sample (default 1)"},
    {"axioms", RG_CLI_LONG_ONLY('a'), 1, "FILE", "axioms the obligations were made from (default: this tree's)"},
    {"all-axioms", RG_CLI_LONG_ONLY('A'), 0, "",
     "obligations assert every axiom (default: the configuration's prove.all_axioms, else only the relevant ones)"},
    {"timeout-ms", RG_CLI_LONG_ONLY('T'), 1, "N", "per solver query (default 5000)"},
    {"cvc5", RG_CLI_LONG_ONLY('C'), 1, "PATH", "a cvc5 binary to answer instead of rulegen-cvc5 (cvc5's API)"},
    {"no-solvers", RG_CLI_LONG_ONLY('N'), 0, "", "do not re-run the solvers (proof records count as not re-checked)"},
    {"deep", RG_CLI_LONG_ONLY('D'), 2, "[=N]",
     "also recheck every verified, tested or imported rule at N drawn shape assignments (default 64; as rulegen "
     "recheck, from its test record's shapes first): one whose sides differ fails"},
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

static int usage(int c) {
  FILE *out = c == 'h' ? stdout : stderr;
  fprintf(out, "usage: rulesdb audit DB --pub KEY.pub [--sample N] [--seed N] [solver options]\n\n"
               "Re-checks DB without trusting the machine that wrote it: the signature; every rule's\n"
               "content id and record against its re-parsed text; every random-test record, re-run;\n"
               "every proof record: the obligation regenerated from the rule text must hash as stored,\n"
               "and the solver re-runs it (a stored unsat must come back unsat); every certificate,\n"
               "re-checked against the rule's programs; statuses against the evidence; pruning\n"
               "records against the rules. Parallel (OpenMP). Re-deriving pruned rules is not done\n"
               "(reported as not re-checked, never as passed).\n"
               "Exit status: 0 everything re-checked and passed, 1 a failure, 2 error,\n"
               "3 nothing failed but some records were not re-checked.\n"
               "Axioms by default: %s\n\n",
          rg_axioms_default_path());
  rg_cli_print_options(out, audit_options, RG_CLI_COUNT(audit_options), 14, 7);
  return c == 'h' ? 0 : 2;
}

typedef struct {
  const char *pub, *axioms;
  bool allow, solvers, all_axioms;
} audit_args;

/* The options into a and o; false with *rc the exit status when the command ends here. */
static bool parse(int argc, char **argv, audit_args *a, rg_audit_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, audit_options, RG_CLI_COUNT(audit_options));
  int c;
  int64_t v = 0;
  bool ok = true;
  while (ok && (c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case 'p': a->pub = optarg; break;
    case RG_CLI_LONG_ONLY('U'): a->allow = true; break;
    case 'n': ok = rg_cli_int_option("rulesdb audit", "sample", optarg, 1, INT64_MAX, &v), o->sample = (size_t)v; break;
    case 'S': ok = rg_cli_int_option("rulesdb audit", "seed", optarg, 0, INT64_MAX, &v), o->seed = (uint64_t)v; break;
    case RG_CLI_LONG_ONLY('T'): ok = rg_cli_int_option("rulesdb audit", "timeout-ms", optarg, 1, 3600000, &v), o->timeout_ms = (int)v; break;
    case RG_CLI_LONG_ONLY('a'): a->axioms = optarg; break;
    case RG_CLI_LONG_ONLY('A'): a->all_axioms = true; break;
    case RG_CLI_LONG_ONLY('C'): o->cvc5_path = optarg; break;
    case RG_CLI_LONG_ONLY('N'): a->solvers = false; break;
    case RG_CLI_LONG_ONLY('D'):
      v = 64;
      ok = !optarg || rg_cli_int_option("rulesdb audit", "deep", optarg, 1, 100000, &v), o->deep = (int)v;
      break;
    default: return *rc = usage(c), false;
    }
  }
  if (!ok) return *rc = 2, false;
  if (optind + 1 != argc) return fprintf(stderr, "rulesdb audit: give one database (see --help)\n"), *rc = 2, false;
  return true;
}

/* The audit's report, table and verdict; the exit status. */
static int print_result(const rg_db *db, const rg_audit_result *res, const rg_strbuf *rep, bool verified,
                        bool sig_failed) {
  rg_strbuf table;
  rg_sb_init(&table);
  fputs(rg_sb_str(rep), stdout);
  rg_audit_print(res, &table);
  printf("%zu of %zu rules audited\n%s", res->rules_in_scope, db->rules.n, rg_sb_str(&table));
  rg_sb_free(&table);
  size_t failed, unchecked;
  rg_audit_totals(res, &failed, &unchecked);
  failed += sig_failed;
  if (failed) return printf("audit: FAILED (%zu failures)\n", failed), 1;
  if (unchecked || !verified)
    return printf("audit: no failures, but INCOMPLETE: %zu records not re-checked%s%s\n", unchecked,
                  verified ? "" : "; signature not checked or absent", rg_cli_interrupted ? " (interrupted)" : ""),
           3;
  printf("audit: passed\n");
  return 0;
}

/* Audits the opened db; the exit status. */
static int audit(const rg_db *db, const audit_args *a, rg_audit_opts *o, bool verified) {
  rg_axioms ax;
  rg_err err;
  memset(&ax, 0, sizeof ax);
  o->all_axioms = a->all_axioms || rg_audit_db_all_axioms(db);
  if (a->solvers && db->proofs.n) {
    if (rg_axioms_load(a->axioms, &ax, &err)) {
      fprintf(stderr, "rulesdb audit: %s\n", err.msg);
      rg_axioms_free(&ax);
      return 2;
    }
    o->ax = &ax;
  }
  rg_cli_catch_interrupts();
  /* With --allow-unsigned the audit goes on, but a signature that is there and fails is a
   * failure of the audit; a missing one leaves it incomplete. */
  bool sig_failed = a->pub && !verified && db->sig.present;
  printf("signature: %s\n", verified     ? "good"
                            : !a->pub    ? "NOT CHECKED (--allow-unsigned)"
                            : sig_failed ? "FAILED (see the warning above)"
                                         : "NONE (unsigned)");
  if (o->ax && db->proofs.n > 50)
    fprintf(stderr, "rulesdb audit: re-running %zu solver queries (timeout %d ms each)...\n", db->proofs.n,
            o->timeout_ms);
  rg_audit_result res;
  rg_strbuf rep;
  rg_sb_init(&rep);
  int rc = 2;
  if (rg_db_audit(db, o, &res, &rep, &err)) fprintf(stderr, "rulesdb audit: %s\n", err.msg);
  else rc = print_result(db, &res, &rep, verified, sig_failed);
  rg_sb_free(&rep);
  rg_axioms_free(&ax);
  return rc;
}

int rdb_audit(int argc, char **argv) {
  audit_args a = {.axioms = rg_axioms_default_path(), .solvers = true};
  rg_audit_opts o = {
      .seed = 1, .max_lines = 20, .timeout_ms = 5000, .stop = &rg_cli_interrupted, .kernel = rg_fp_node_kernel};
  int rc;
  if (!parse(argc, argv, &a, &o, &rc)) return rc;
  rg_db *db;
  bool verified;
  rc = rdb_open("rulesdb audit", argv[optind], a.pub, a.allow, &db, &verified);
  if (rc) return rc;
  rc = audit(db, &a, &o, verified);
  rg_db_free(db);
  return rc;
}
