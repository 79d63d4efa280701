/* verify/proofcache.c: proofs through a cache folder (proofcache.h). */
#include "proofcache.h"

#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/ir.h"
#include "journal.h"

#define VERDICT_TIMEOUT_MS 1 /* a verdict line's time-limit field: a proof has none */
#define VERDICT_CORE "rule-verdict"

rg_status rg_proof_cache_default(char *buf, size_t n, rg_err *err) {
  const char *env = getenv(RG_PROOF_CACHE_ENV);
  if (!env || !*env) return rg_user_cache_path("proofs", buf, n, err);
  int len = snprintf(buf, n, "%s", env);
  return len >= 0 && (size_t)len < n ? RG_OK : rg_err_set(err, RG_ERR_LIMIT, "%s is too long", RG_PROOF_CACHE_ENV);
}

/* A cache is trusted as far as those who can write it: its folder and files must be the user's
 * and writable by nobody else (as ssh wants of ~/.ssh), or anyone who could write there could
 * make a false rule proved (the key sits beside the journal). */
static rg_status check_private(const char *path, bool folder, rg_err *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) return folder ? rg_err_set(err, RG_ERR_IO, "the proof cache %s: %s", path, strerror(errno)) : RG_OK;
  if (folder && !S_ISDIR(sb.st_mode))
    return rg_err_set(err, RG_ERR_IO, "the proof cache %s is not a folder: name a folder (--proof-cache DIR), or "
                                      "give --no-proof-cache", path);
  if (sb.st_uid != geteuid() || (sb.st_mode & 022))
    return rg_err_set(err, RG_ERR_IO,
                      "the proof cache's %s is %s: whoever can write there can make a false rule proved; "
                      "make it yours alone (chmod go-w), or give another --proof-cache or --no-proof-cache",
                      path, sb.st_uid != geteuid() ? "another user's" : "writable by others");
  return RG_OK;
}

/* The cache's journal for these solvers: its path (dir/answers-<16 hex digits>.journal) and the
 * solvers' versions, the folder made and it and the journal checked to be the user's alone. */
static rg_status journal_path(const char *dir, const rg_prove_opts *o,
                              char versions[RG_SOLVER_COUNT][96], char *path, size_t n,
                              rg_err *err) {
  rg_solver solvers[RG_SOLVER_COUNT];
  if (!*dir) return rg_err_set(err, RG_ERR_IO, "--proof-cache: an empty folder name: give one, or --no-proof-cache");
  rg_status st = rg_make_folders(dir, err);
  if (!st) st = check_private(dir, true, err);
  if (!st) st = rg_prove_solvers(o, solvers, err);
  char all[RG_SOLVER_COUNT * 96 + 1] = "";
  for (int s = 0; !st && s < RG_SOLVER_COUNT; s++) {
    snprintf(versions[s], 96, "%s %s", solvers[s].name, solvers[s].version);
    strcat(all, versions[s]), strcat(all, "\n");
  }
  if (st) return st;
  unsigned char h[8];
  char hex[17];
  crypto_generichash(h, sizeof h, (const unsigned char *)all, strlen(all), NULL, 0);
  sodium_bin2hex(hex, sizeof hex, h, sizeof h);
  if (snprintf(path, n, "%s/answers-%s.journal", dir, hex) >= (int)n)
    return rg_err_set(err, RG_ERR_LIMIT, "the proof cache's path %s is too long", dir);
  char key[4200];
  snprintf(key, sizeof key, "%s.key", path);
  st = check_private(path, false, err);
  return st ? st : check_private(key, false, err);
}

/* The journal as the versions name it (its messages name it). */
static const char *const *names_of(char versions[RG_SOLVER_COUNT][96],
                                   const char *names[RG_SOLVER_COUNT]) {
  for (int s = 0; s < RG_SOLVER_COUNT; s++)
    names[s] = versions[s];
  return names;
}

rg_status rg_proof_cache_journal(const char *dir, const rg_prove_opts *o, char *path, size_t n, rg_err *err) {
  char versions[RG_SOLVER_COUNT][96];
  const char *names[RG_SOLVER_COUNT];
  rg_status st = journal_path(dir, o, versions, path, n, err);
  /* made and checked, its answers not read: rg_prove_rules reads them, once */
  return st ? st : rg_journal_prepare(path, names_of(versions, names), err);
}

rg_status rg_proof_cache_choose(const char *dir, bool no_cache, char *buf, size_t n, bool *use, rg_err *err) {
  *use = !no_cache;
  if (no_cache) return RG_OK;
  if (!dir) return rg_proof_cache_default(buf, n, err);
  int len = snprintf(buf, n, "%s", dir);
  return len >= 0 && (size_t)len < n ? RG_OK : rg_err_set(err, RG_ERR_LIMIT, "--proof-cache %s is too long", dir);
}

rg_status rg_proof_cache_route(rg_prove_opts *o, const char *journal, const char *dir, bool no_cache, char *buf,
                               size_t n, rg_err *err) {
  char folder[4096];
  bool use;
  o->journal = journal, o->journal_cache = false;
  if (journal && (dir || no_cache))
    return rg_err_set(err, RG_ERR_ARG, "--journal names where the answers go: give it or --proof-cache/--no-proof-cache, "
                                       "not both");
  rg_status st = journal ? RG_OK : rg_proof_cache_choose(dir, no_cache, folder, sizeof folder, &use, err);
  if (!st && !journal && use && !(st = rg_proof_cache_journal(folder, o, buf, n, err)))
    o->journal = buf, o->journal_cache = true;
  return st;
}

/* The key rule r's verdict is kept under (proofcache.h), as 64 hex digits. */
static void verdict_key(const rg_rule *r, const rg_axioms *ax, int recheck, char hex[65]) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_sb_printf(&sb, "rulegen rule verdict 1\n");
  rg_text_print_rule(r, &sb);
  rg_sb_printf(&sb, "\nrecheck %d\naxioms ", recheck);
  crypto_generichash_state st;
  unsigned char h[32];
  crypto_generichash_init(&st, NULL, 0, sizeof h);
  crypto_generichash_update(&st, (const unsigned char *)rg_sb_str(&sb), sb.len);
  crypto_generichash_update(&st, ax->digest, sizeof ax->digest);
  crypto_generichash_final(&st, h, sizeof h);
  sodium_bin2hex(hex, 65, h, sizeof h);
  rg_sb_free(&sb);
}

/* What the cache knows of a rule: nothing, a proof, or a refutation (its sides differ in float64
 * at shapes the comparison before the solvers found: a fact of the rule, whatever the axioms;
 * a difference in Z_p only, where activations are uninterpreted, is not kept). */
typedef enum { KNOWN_NOTHING = 0, KNOWN_PROVED, KNOWN_REFUTED } verdict;

#define REFUTED_CORE "refuted-at: " /* a refutation's line: sat, its counterexample after this */

/* The verdict under key into *v, and p as a proof with that outcome (its refutation text too).
 * Errors: allocation. */
static rg_status verdict_held(const rg_journal *j, const char *key, rg_rule_proof *p, verdict *v, rg_err *err) {
  rg_solver_answer ans;
  size_t rl = strlen(REFUTED_CORE);
  *v = KNOWN_NOTHING;
  if (rg_journal_lookup(j, key, 0, VERDICT_TIMEOUT_MS, &ans) && ans.result == RG_SMT_SAT &&
      !strncmp(ans.core, REFUTED_CORE, rl)) {
    p->status = RG_PROOF_UNPROVED, p->refuted = true;
    *v = KNOWN_REFUTED;
    return rg_proof_refutation_set(p, ans.core + rl, 511) ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
  }
  for (int s = 0; s < RG_SOLVER_COUNT; s++)
    if (!rg_journal_lookup(j, key, s, VERDICT_TIMEOUT_MS, &ans) || ans.result != RG_SMT_UNSAT ||
        strcmp(ans.core, VERDICT_CORE))
      return RG_OK;
  p->status = RG_PROOF_VERIFIED, p->shipped = true;
  *v = KNOWN_PROVED;
  return RG_OK;
}

/* A rule proved now, as the cache records it: every solver, no doubt left by the recheck. */
static bool proved_now(const rg_rule_proof *p, const rg_prove_opts *o) {
  return p->status == RG_PROOF_VERIFIED && p->shipped && !p->false_proof && !p->disagree && o->recheck > 0;
}

/* Records what was learned of a rule now: a proof (an unsat line per solver) or a refutation. */
static rg_status verdict_add(rg_journal *j, const char *key, const rg_rule_proof *p, bool proved, rg_err *err) {
  rg_solver_answer ans = {.result = proved ? RG_SMT_UNSAT : RG_SMT_SAT};
  if (proved) snprintf(ans.core, sizeof ans.core, "%s", VERDICT_CORE);
  else snprintf(ans.core, sizeof ans.core, "%s%s", REFUTED_CORE, p->refutation);
  rg_status st = RG_OK;
  for (int s = 0; !st && s < (proved ? RG_SOLVER_COUNT : 1); s++)
    st = rg_journal_append(j, key, s, VERDICT_TIMEOUT_MS, &ans, err);
  return st;
}

/* The rules the cache knows nothing of, proved (into proofs at their own index). */
static rg_status prove_rest(const rg_ruleset *rules, const rg_axioms *ax, const rg_prove_opts *o, const char *jpath,
                            rg_rule_proof *proofs, const uint8_t *known, bool *proved, rg_proof_cache_stats *stats,
                            rg_err *err) {
  rg_ruleset rest = {0};
  int *at = malloc(sizeof *at * ((size_t)rules->n + 1));
  rg_rule_proof *got = calloc((size_t)rules->n + 1, sizeof *got);
  rest.rules = malloc(sizeof *rest.rules * ((size_t)rules->n + 1));
  rg_status st = at && got && rest.rules ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < rules->n; i++)
    if (!known[i]) at[rest.n] = i, rest.rules[rest.n++] = rules->rules[i]; /* borrowed */
  stats->asked = rest.n;
  rg_prove_opts po = *o;
  po.journal = jpath, po.journal_cache = true, po.require = RG_REQUIRE_BOTH;
  if (!st && rest.n) st = rg_prove_rules(&rest, ax, &po, got, &stats->sum, err);
  for (int k = 0; !st && k < rest.n; k++) {
    proofs[at[k]] = got[k]; /* moved: what it owns is proofs' now */
    proved[at[k]] = proved_now(&got[k], &po);
  }
  if (st) rg_rule_proofs_free(got, rest.n);
  free(at), free(got), free(rest.rules);
  return st;
}

/* Keeps what the rules unknown before (known[i] 0) turned out to be, for the next run. */
static rg_status record(const char *jpath, char versions[RG_SOLVER_COUNT][96], const rg_ruleset *rules,
                        char (*keys)[65], const uint8_t *known, const rg_rule_proof *proofs, const bool *proved,
                        rg_err *err) {
  const char *names[RG_SOLVER_COUNT];
  names_of(versions, names);
  rg_journal *j = NULL;
  rg_status st = RG_OK;
  for (int i = 0; !st && i < rules->n; i++) {
    /* a difference in Z_p (activations uninterpreted there) is no counterexample: not kept */
    bool refuted = proofs[i].refuted && !strncmp(proofs[i].refutation, "float64", 7);
    bool learned = !known[i] && proofs[i].n_obl > 0 && (proved[i] || refuted);
    if (learned && !j) st = rg_journal_open_cache(jpath, names, &j, err);
    if (learned && !st) st = verdict_add(j, keys[i], &proofs[i], proved[i], err);
  }
  rg_journal_close(j);
  return st;
}

rg_status rg_prove_cached(const rg_ruleset *rules, const rg_axioms *ax, const char *dir, const rg_prove_opts *o,
                          rg_rule_proof *proofs, bool *proved, rg_proof_cache_stats *stats, rg_err *err) {
  memset(stats, 0, sizeof *stats);
  memset(proofs, 0, sizeof *proofs * (size_t)rules->n);
  memset(proved, 0, sizeof *proved * (size_t)rules->n);
  stats->n_rules = rules->n;
  char (*keys)[65] = calloc((size_t)rules->n + 1, sizeof *keys), jpath[4096] = "", versions[RG_SOLVER_COUNT][96];
  uint8_t *known = calloc((size_t)rules->n + 1, 1);
  if (!keys || !known) return free(keys), free(known), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_journal *j = NULL;
  const char *names[RG_SOLVER_COUNT];
  rg_status st = dir ? journal_path(dir, o, versions, jpath, sizeof jpath, err) : RG_OK;
  if (!st && dir) st = rg_journal_open_cache(jpath, names_of(versions, names), &j, err);
  for (int i = 0; !st && j && i < rules->n; i++) {
    verdict_key(rules->rules[i], ax, o->recheck, keys[i]);
    verdict v;
    st = verdict_held(j, keys[i], &proofs[i], &v, err);
    known[i] = (uint8_t)v;
    proved[i] = known[i] == KNOWN_PROVED;
    stats->cached += known[i] != KNOWN_NOTHING;
  }
  rg_journal_close(j); /* rg_prove_rules opens it again for the answers */
  if (!st) st = prove_rest(rules, ax, o, dir ? jpath : NULL, proofs, known, proved, stats, err);
  if (!st && dir) st = record(jpath, versions, rules, keys, known, proofs, proved, err);
  for (int i = 0; i < rules->n; i++) stats->proved += proved[i];
  free(keys), free(known);
  return st;
}
