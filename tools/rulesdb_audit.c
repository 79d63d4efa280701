/* tools/rulesdb_audit.c: `rulesdb audit`: verify the signature, then re-check every record
 * (rulesdb/audit.h) and say plainly what could not be re-checked. */
#include <stdio.h>
#include <string.h>

#include "fingerprint/fingerprint.h"
#include "rulesdb_cmds.h"
#include "verify/verify.h"

static void axioms_default(FILE *out) {
  fprintf(out, "\nAxioms by default: %s (" RG_DATA_DIR_ENV "=DIR reads DIR/axioms.rules)\n",
          rg_axioms_default_path());
}

typedef struct {
  const char *pub, *axioms;
  bool allow, solvers, all_axioms;
} audit_args;

/* The options into a and o; false with *rc the exit status when the command ends here. */
static bool parse(int argc, char **argv, audit_args *a, rg_audit_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_rulesdb_audit.options, rg_doc_rulesdb_audit.n_options);
  int c;
  int64_t v = 0;
  bool ok = true;
  while (ok && (c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case RG_OPT_PUB: a->pub = optarg; break;
    case RG_OPT_ALLOW_UNSIGNED: a->allow = true; break;
    case RG_OPT_SAMPLE: ok = rg_cli_int_option("rulesdb audit", "sample", optarg, 1, INT64_MAX, &v), o->sample = (size_t)v; break;
    case RG_OPT_SEED: ok = rg_cli_int_option("rulesdb audit", "seed", optarg, 0, INT64_MAX, &v), o->seed = (uint64_t)v; break;
    case RG_OPT_TIMEOUT_MS: ok = rg_cli_int_option("rulesdb audit", "timeout-ms", optarg, 1, 3600000, &v), o->timeout_ms = (int)v; break;
    case RG_OPT_AXIOMS: a->axioms = optarg; break;
    case RG_OPT_ALL_AXIOMS: a->all_axioms = true; break;
    case RG_OPT_CVC5: o->cvc5_path = optarg; break;
    case RG_OPT_NO_SOLVERS: a->solvers = false; break;
    case RG_OPT_DEEP:
      v = 64;
      ok = !optarg || rg_cli_int_option("rulesdb audit", "deep", optarg, 1, 100000, &v), o->deep = (int)v;
      break;
    default: return *rc = rdb_usage(&rg_doc_rulesdb_audit, c, axioms_default), false;
    }
  }
  if (!ok) return *rc = 2, false;
  if (optind + 1 != argc) return fprintf(stderr, "rulesdb audit: give one database (see --help)\n"), *rc = 2, false;
  return true;
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
  rg_strbuf rep, out;
  rg_sb_init(&rep), rg_sb_init(&out);
  rg_db_audit_signature_line(a->pub, verified, db->sig.present, &out);
  fputs(rg_sb_str(&out), stdout), rg_sb_clear(&out);
  if (o->ax && db->proofs.n > 50)
    fprintf(stderr, "rulesdb audit: re-running %zu solver queries (timeout %d ms each)...\n", db->proofs.n,
            o->timeout_ms);
  rg_audit_result res;
  int rc = 2;
  if (rg_db_audit(db, o, &res, &rep, &err)) fprintf(stderr, "rulesdb audit: %s\n", err.msg);
  else rc = (int)rg_db_audit_report(db, &res, &rep, verified, sig_failed, rg_cli_interrupted, &out);
  fputs(rg_sb_str(&out), stdout), rg_sb_free(&out);
  rg_sb_free(&rep);
  rg_axioms_free(&ax);
  return rc;
}

int rdb_audit(int argc, char **argv) {
  audit_args a = {.axioms = rg_axioms_default_path(), .solvers = true};
  rg_audit_opts o = {
      .seed = 1, .max_lines = 20, .timeout_ms = RG_DEFAULT_TIMEOUT_MS, .stop = &rg_cli_interrupted,
      .kernel = rg_fp_node_kernel, .progress = true};
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
