/* tests/test_verify_proofcache.c: proofs through the cache (verify/proofcache.h): a first run
 * proves a true rule and refutes a false one, a second run takes both verdicts from the cache
 * without asking anyone, other axioms make the verdicts unknown again, a forged verdict line is
 * refused (never a proof: the rule asked again), a cache others can write is refused, and no
 * cache asks every rule. The axiom test's and the recheck's passes (proofcache_checks.h) are
 * kept and taken, their failures never kept, and an altered pass refused and run again. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "verify/verify.h"

static const char rules_text[] = "(ewadd ?x ?y) => (ewadd ?y ?x)\n(relu ?x) => ?x\n";

static void prove(const rg_ruleset *rs, const rg_axioms *ax, const char *dir, rg_proof_cache_stats *cs, bool *proved,
                  rg_status want, rg_err *err) {
  rg_prove_opts o;
  rg_prove_opts_init(&o);
  o.check_axioms = false; /* test_verify checks them; here they would run at every call */
  rg_rule_proof p[2];
  rg_status st = rg_prove_cached(rs, ax, dir, &o, p, proved, cs, err);
  CHECK_MSG(st == want, "status %d: %s", (int)st, err->msg);
  if (!st) CHECK(p[1].refuted && p[1].refutation && p[1].refutation[0]); /* the false rule's counterexample, fresh or kept */
  rg_rule_proofs_free(p, 2);
}

/* The path of the cache's journal in dir (the one file not ending in .key). */
static void journal_of(const char *dir, char *path, size_t n) {
  DIR *d = opendir(dir);
  path[0] = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (strstr(e->d_name, ".journal") && !strstr(e->d_name, ".key")) snprintf(path, n, "%s/%s", dir, e->d_name);
  if (d) closedir(d);
}

/* The axiom test through journal path (proofcache_checks.h): the verdict, and whether taken. */
static void axcheck(const char *path, const char *text, uint64_t seed, int *n_unsound, bool *taken) {
  const char *versions[RG_SOLVER_COUNT];
  for (int s = 0; s < RG_SOLVER_COUNT; s++) versions[s] = "solver 1";
  rg_journal *j = NULL;
  rg_axioms ax;
  rg_err err;
  CHECK(rg_journal_open_cache(path, versions, &j, &err) == RG_OK);
  CHECK(rg_axioms_parse(text, strlen(text), "test", &ax, &err) == RG_OK);
  rg_axcheck_opts co;
  rg_axcheck_opts_init(&co);
  co.assignments = 4, co.seed = seed;
  rg_axiom_verdict vs[2];
  CHECK(rg_axioms_check_journaled(j, &ax, &co, vs, n_unsound, taken, &err) == RG_OK);
  rg_axioms_free(&ax);
  rg_journal_close(j);
}

/* The recheck through journal path: rules differing, rules taken, lines refused at opening. */
static void recheck(const char *path, const rg_ruleset *rs, int *differ, bool *taken, int *n_taken, int *refused) {
  const char *versions[RG_SOLVER_COUNT];
  for (int s = 0; s < RG_SOLVER_COUNT; s++) versions[s] = "solver 1";
  rg_journal *j = NULL;
  rg_err err;
  CHECK(rg_journal_open_cache(path, versions, &j, &err) == RG_OK);
  *refused = rg_journal_refused(j);
  rg_recheck_opts ro;
  rg_recheck_opts_init(&ro);
  ro.assignments = 8;
  rg_recheck_verdict vs[2];
  CHECK(rg_recheck_rules_journaled(j, rs, NULL, &ro, vs, differ, taken, n_taken, &err) == RG_OK);
  CHECK(!vs[0].differs && vs[0].assignments > 0 && vs[1].differs); /* the same verdicts, taken or run */
  rg_journal_close(j);
}

/* A comparison's pass at shape sets: held once kept, across a reopening, under its own number of
 * sets and its rule's text only. */
static void refutes_kept(const char *path, const rg_ruleset *rs) {
  const char *versions[RG_SOLVER_COUNT];
  for (int s = 0; s < RG_SOLVER_COUNT; s++) versions[s] = "solver 1";
  rg_journal *j = NULL;
  rg_err err;
  char key[65], other[65];
  CHECK(rg_journal_open_cache(path, versions, &j, &err) == RG_OK);
  CHECK(!rg_refute_pass_held(j, rs->rules[0], 8, 3, key));
  rg_refute_pass_keep(j, key, 1.5);
  CHECK(rg_refute_pass_held(j, rs->rules[0], 8, 3, other) && !strcmp(key, other));
  rg_journal_close(j);
  CHECK(rg_journal_open_cache(path, versions, &j, &err) == RG_OK);
  CHECK(rg_refute_pass_held(j, rs->rules[0], 8, 3, key));
  CHECK(!rg_refute_pass_held(j, rs->rules[0], 4, 3, key)); /* other sets: another comparison */
  CHECK(!rg_refute_pass_held(j, rs->rules[0], 8, 4, key)); /* another seed */
  CHECK(!rg_refute_pass_held(j, rs->rules[1], 8, 3, key)); /* another rule */
  CHECK(!rg_refute_pass_held(NULL, rs->rules[0], 8, 3, key));
  rg_journal_close(j);
}

/* The checks' passes (proofcache_checks.h): kept and taken; a failure never kept; other
 * parameters another check; a pass altered on disk refused and the check run again. */
static void checks_kept(const char *dir, const rg_ruleset *rs) {
  char path[600];
  snprintf(path, sizeof path, "%s/checks.journal", dir);
  const char *good = "comm: (ewadd ?x ?y) => (ewadd ?y ?x)\n", *bad = "comm: (ewadd ?x ?y) => (ewadd ?y ?x)\nno: (relu ?x) => ?x\n";
  int unsound, differ, n_taken, refused;
  bool taken, rtaken[2];
  axcheck(path, good, 1, &unsound, &taken);
  CHECK(unsound == 0 && !taken);
  axcheck(path, good, 1, &unsound, &taken);
  CHECK(unsound == 0 && taken);
  axcheck(path, good, 2, &unsound, &taken); /* another seed: another test */
  CHECK(unsound == 0 && !taken);
  axcheck(path, bad, 1, &unsound, &taken);
  CHECK(unsound == 1 && !taken);
  axcheck(path, bad, 1, &unsound, &taken); /* the failure was not kept: run again, fails again */
  CHECK(unsound == 1 && !taken);
  recheck(path, rs, &differ, rtaken, &n_taken, &refused);
  CHECK(differ == 1 && n_taken == 0 && !rtaken[0]);
  recheck(path, rs, &differ, rtaken, &n_taken, &refused); /* the true rule's pass taken, the false one run */
  CHECK(differ == 1 && n_taken == 1 && rtaken[0] && !rtaken[1]);
  /* the recheck's pass altered by hand (its time): refused, the recheck run again */
  rg_strbuf sb;
  rg_err err;
  CHECK(rg_text_read_file(path, &sb, &err) == RG_OK);
  char *at = sb.s ? strstr(sb.s, " recheck-agrees") : NULL;
  CHECK(at != NULL);
  char *ms = at;
  while (ms && ms > sb.s && ms[-1] != '\n') ms--; /* its line: SHA SOLVER RESULT TIMEOUT MS ... */
  for (int k = 0; k < 4 && ms; k++)
    if ((ms = strchr(ms, ' '))) ms++;
  CHECK(ms && ms < at);
  if (ms && ms < at) *ms = *ms == '9' ? '8' : '9'; /* the first digit of its time */
  FILE *f = fopen(path, "w");
  if (f) fwrite(sb.s, 1, sb.len, f), fclose(f);
  rg_sb_free(&sb);
  recheck(path, rs, &differ, rtaken, &n_taken, &refused);
  CHECK(refused == 1 && n_taken == 0 && differ == 1);
  refutes_kept(path, rs);
}

int main(void) {
  char dir[] = "/tmp/rg_proofcache_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  rg_err err;
  rg_axioms ax, other;
  CHECK(rg_axioms_load(rg_axioms_default_path(), &ax, &err) == RG_OK);
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  CHECK(rg_text_parse(rules_text, strlen(rules_text), &rs, &err) == RG_OK);
  rg_proof_cache_stats cs;
  bool proved[2];
  prove(&rs, &ax, dir, &cs, proved, RG_OK, &err);
  CHECK(cs.asked == 2 && cs.cached == 0 && proved[0] && !proved[1] && cs.proved == 1);
  prove(&rs, &ax, dir, &cs, proved, RG_OK, &err); /* both verdicts kept: nobody asked */
  CHECK(cs.asked == 0 && cs.cached == 2 && proved[0] && !proved[1] && cs.proved == 1);
  /* other axioms (one more line): the proof is not theirs */
  rg_strbuf sb;
  CHECK(rg_text_read_file(rg_axioms_default_path(), &sb, &err) == RG_OK);
  rg_sb_puts(&sb, "\n# another axiom file\n");
  CHECK(rg_axioms_parse(sb.s, sb.len, "other", &other, &err) == RG_OK);
  rg_sb_free(&sb);
  prove(&rs, &other, dir, &cs, proved, RG_OK, &err);
  CHECK(cs.cached == 0 && cs.asked == 2 && proved[0]);
  /* a verdict line changed by hand (the refutation turned into a proof): refused, never a proof */
  char path[512];
  journal_of(dir, path, sizeof path);
  CHECK(path[0] != 0);
  CHECK(rg_text_read_file(path, &sb, &err) == RG_OK);
  char *at = sb.s ? strstr(sb.s, " sat ") : NULL;
  CHECK(at != NULL);
  if (at) memcpy(at, " uns ", 5);
  FILE *f = fopen(path, "w");
  if (f) fwrite(sb.s, 1, sb.len, f), fclose(f);
  rg_sb_free(&sb);
  prove(&rs, &ax, dir, &cs, proved, RG_OK, &err); /* not believed: counted, the rule asked again, still unproved */
  CHECK(proved[0] && !proved[1] && cs.asked == 1 && cs.sum.cache_refused == 1);
  /* a cache others can write is refused: the key beside the journal would let them forge */
  CHECK(chmod(dir, 0777) == 0);
  prove(&rs, &ax, dir, &cs, proved, RG_ERR_IO, &err);
  CHECK(strstr(err.msg, "writable by others") != NULL);
  CHECK(chmod(dir, 0700) == 0);
  /* no cache: every rule asked */
  prove(&rs, &ax, NULL, &cs, proved, RG_OK, &err);
  CHECK(cs.asked == 2 && cs.cached == 0 && proved[0] && !proved[1]);
  checks_kept(dir, &rs);
  rg_ruleset_free(&rs);
  rg_axioms_free(&ax), rg_axioms_free(&other);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  return check_done("test_verify_proofcache");
}
