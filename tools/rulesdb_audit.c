/* tools/rulesdb_audit.c: `rulesdb audit`: verify the signature, then re-check what this build
 * can re-check (rulesdb/audit.h) and say plainly what it could not. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rulesdb_cmds.h"

int rdb_audit(int argc, char **argv) {
  const char *pub = NULL;
  bool allow = false;
  rg_audit_opts o = {0, 1, 20};
  static const struct option lo[] = {{"pub", 1, 0, 'p'},    {"allow-unsigned", 0, 0, 'U'},
                                     {"sample", 1, 0, 'n'}, {"seed", 1, 0, 'S'},
                                     {"help", 0, 0, 'h'},   {0, 0, 0, 0}};
  int c;
  int64_t v;
  while ((c = getopt_long(argc, argv, "p:n:S:h", lo, NULL)) != -1) {
    if (c == 'p')
      pub = optarg;
    else if (c == 'U')
      allow = true;
    else if (c == 'n' && rg_cli_parse_i64(optarg, 1, INT64_MAX, &v))
      o.sample = (size_t)v;
    else if (c == 'S' && rg_cli_parse_i64(optarg, 0, INT64_MAX, &v))
      o.seed = (uint64_t)v;
    else {
      if (c == 'n' || c == 'S')
        fprintf(stderr, "rulesdb audit: --%s wants a number\n", c == 'n' ? "sample" : "seed");
      fprintf(
          c == 'h' ? stdout : stderr,
          "usage: rulesdb audit DB --pub KEY.pub [--sample N] [--seed N]\n\n"
          "Re-checks DB without trusting the machine that wrote it: the signature; every rule's\n"
          "content id and record against its re-parsed text; every random-test record, re-run\n"
          "(in parallel, OpenMP); that each verified rule has unsat answers from z3 and cvc5 and\n"
          "each certified rule a certificate; that pruning records name existing rules.\n"
          "Re-running the solvers, re-checking certificates and re-deriving pruned rules need\n"
          "the verify/, certify/ and prune/ modules: such records are reported as not\n"
          "re-checked, never as passed.\n"
          "Exit status: 0 everything re-checked and passed, 1 a failure, 2 error,\n"
          "3 nothing failed but some records were not re-checked.\n"
          "  --sample N   audit N rules chosen by --seed (and their records) instead of all\n"
          "  --seed N     seed of the sample (default 1)\n");
      return c == 'h' ? 0 : 2;
    }
  }
  if (optind + 1 != argc)
    return fprintf(stderr, "rulesdb audit: give one database (see --help)\n"), 2;
  if (!pub && !allow)
    return fprintf(
               stderr,
               "rulesdb audit: --pub KEY.pub is required (an audit starts with the signature)\n"),
           2;
  rg_db *db;
  int rc = rdb_open("rulesdb audit", argv[optind], pub, allow, &db);
  if (rc) return rc;
  printf("signature: %s\n", pub ? "good" : "NOT CHECKED (--allow-unsigned)");
  rg_audit_result res;
  rg_strbuf rep, table;
  rg_sb_init(&rep), rg_sb_init(&table);
  rg_err err;
  if (rg_db_audit(db, &o, &res, &rep, &err)) {
    fprintf(stderr, "rulesdb audit: %s\n", err.msg);
    rc = 2;
  } else {
    fputs(rg_sb_str(&rep), stdout);
    rg_audit_print(&res, &table);
    printf("%zu of %zu rules audited\n%s", res.rules_in_scope, db->rules.n, rg_sb_str(&table));
    size_t failed = 0, unchecked = 0;
    for (int k = 0; k < RG_AUDIT_NCAT; k++)
      failed += res.cat[k].failed, unchecked += res.cat[k].unchecked;
    if (failed)
      printf("audit: FAILED (%zu failures)\n", failed), rc = 1;
    else if (unchecked || !pub)
      printf("audit: no failures, but INCOMPLETE: %zu records not re-checked%s\n", unchecked,
             pub ? " by this build" : " and the signature not checked"),
          rc = 3;
    else
      printf("audit: passed\n");
  }
  rg_sb_free(&rep), rg_sb_free(&table);
  rg_db_free(db);
  return rc;
}
