/* tools/rulesdb_audit.c: `rulesdb audit`: verify the signature, then re-check every record
 * (rulesdb/audit.h) and say plainly what could not be re-checked. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fingerprint/fingerprint.h"
#include "rulesdb_cmds.h"
#include "verify/verify.h"

static int usage(int c) {
  fprintf(c == 'h' ? stdout : stderr,
          "usage: rulesdb audit DB --pub KEY.pub [--sample N] [--seed N] [solver options]\n\n"
          "Re-checks DB without trusting the machine that wrote it: the signature; every rule's\n"
          "content id and record against its re-parsed text; every random-test record, re-run;\n"
          "every proof record: the obligation regenerated from the rule text must hash as stored,\n"
          "and the solver re-runs it (a stored unsat must come back unsat); every certificate,\n"
          "re-checked against the rule's programs; statuses against the evidence; pruning\n"
          "records against the rules. Parallel (OpenMP). Re-deriving pruned rules is not done\n"
          "(reported as not re-checked, never as passed).\n"
          "Exit status: 0 everything re-checked and passed, 1 a failure, 2 error,\n"
          "3 nothing failed but some records were not re-checked.\n"
          "  --sample N        audit N rules chosen by --seed (and their records) instead of all\n"
          "  --seed N          seed of the sample (default 1)\n"
          "  --axioms FILE     axioms the obligations were made from (default %s)\n"
          "  --all-axioms      obligations assert every axiom (default: the configuration's\n"
          "                    prove.all_axioms, else only the relevant ones)\n"
          "  --timeout-ms N    per solver query (default 5000)\n"
          "  --cvc5 PATH       a cvc5 binary to answer instead of rulegen-cvc5 (cvc5's API)\n"
          "  --no-solvers      do not re-run the solvers (proof records count as not re-checked)\n"
          "  --deep[=N]        also recheck every verified, tested or imported rule at N drawn\n"
          "                    shape assignments (default 64; as rulegen recheck, from its test\n"
          "                    record's shapes first): one whose sides differ fails, with them\n",
          rg_axioms_default_path());
  return c == 'h' ? 0 : 2;
}

typedef struct {
  const char *pub, *axioms;
  bool allow, solvers, all_axioms;
} audit_args;

/* The options into a and o; false with *rc the exit status when the command ends here. */
static bool parse(int argc, char **argv, audit_args *a, rg_audit_opts *o, int *rc) {
  static const struct option lo[] = {{"pub", 1, 0, 'p'},        {"allow-unsigned", 0, 0, 'U'}, {"sample", 1, 0, 'n'},
                                     {"seed", 1, 0, 'S'},       {"axioms", 1, 0, 'a'},         {"all-axioms", 0, 0, 'A'},
                                     {"timeout-ms", 1, 0, 'T'}, {"cvc5", 1, 0, 'C'},           {"no-solvers", 0, 0, 'N'},
                                     {"deep", 2, 0, 'D'},       {"help", 0, 0, 'h'},           {0, 0, 0, 0}};
  int c;
  int64_t v = 0;
  bool ok = true;
  while (ok && (c = getopt_long(argc, argv, "p:n:S:h", lo, NULL)) != -1) {
    switch (c) {
    case 'p': a->pub = optarg; break;
    case 'U': a->allow = true; break;
    case 'n': ok = rg_cli_int_option("rulesdb audit", "sample", optarg, 1, INT64_MAX, &v), o->sample = (size_t)v; break;
    case 'S': ok = rg_cli_int_option("rulesdb audit", "seed", optarg, 0, INT64_MAX, &v), o->seed = (uint64_t)v; break;
    case 'T': ok = rg_cli_int_option("rulesdb audit", "timeout-ms", optarg, 1, 3600000, &v), o->timeout_ms = (int)v; break;
    case 'a': a->axioms = optarg; break;
    case 'A': a->all_axioms = true; break;
    case 'C': o->cvc5_path = optarg; break;
    case 'N': a->solvers = false; break;
    case 'D':
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
