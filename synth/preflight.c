/* synth/preflight.c: the checks before a run's long part (preflight.h). */
#include "preflight.h"

#include <stdio.h>
#include <string.h>

#include "cluster/cluster.h"
#include "rulesdb/rulesdb.h"
#include "verify/verify.h"

static int bad(const char *opt, const rg_err *err) {
  fprintf(stderr, "rulegen: %s: %s\n", opt, err->msg);
  return 2;
}

static bool ends_with_db(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n > 3 && !strcmp(path + n - 3, ".db");
}

/* The secret key loads (and is one): the run signs with it at the very end. */
static int check_key(const rg_synth_opts *o) {
  const char *key = o->fin.key_path;
  if (!key) return 0;
  if (!ends_with_db(o->out_path)) {
    fprintf(stderr, "rulegen: --key %s: only a database is signed: give -o FILE.db\n", key);
    return 2;
  }
  rg_db_seckey sk;
  rg_err err;
  rg_status st = rg_db_load_seckey(key, &sk, &err);
  rg_db_seckey_wipe(&sk);
  return st ? bad("--key", &err) : 0;
}

/* The axioms parse (their random testing comes with the proofs). */
static int check_axioms(const rg_synth_opts *o) {
  if (o->stop_after < RG_SYNTH_STOP_PROVE) return 0;
  rg_axioms ax;
  rg_err err = {0};
  const char *path = o->fin.axioms_path ? o->fin.axioms_path : rg_axioms_default_path();
  rg_status st = rg_axioms_load(path, &ax, &err);
  rg_axioms_free(&ax);
  if (st) rg_err_print(stderr, "rulegen: --axioms", err.line ? path : NULL, &err); /* file:line */
  return st ? 2 : 0;
}

/* Under MPI the ranks are told the shared folders' names a line each. */
static int check_shared_names(const rg_synth_opts *o) {
  const char *names[] = {o->out_path, o->spill_path}, *opts[] = {"--output", "--spill"};
  for (int k = 0; k < 2 && rg_cluster_size() > 1; k++)
    if (names[k] && strchr(names[k], '\n'))
      return fprintf(stderr, "rulegen: %s: the name holds a line break, which the ranks of an MPI job cannot be told: "
                             "give another\n", opts[k]), 2;
  return 0;
}

int rg_synth_preflight(const rg_synth_opts *o) {
  rg_err err;
  if (check_shared_names(o)) return 2;
  if (o->out_path && rg_path_check_writable(o->out_path, &err)) return bad("--output", &err);
  if (o->json_path && rg_path_check_writable(o->json_path, &err)) return bad("--json", &err);
  int rc = check_key(o);
  return rc ? rc : check_axioms(o);
}
