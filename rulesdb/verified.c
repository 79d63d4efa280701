/* rulesdb/verified.c: the verified rules of a database as a rule set, for graphopt. */
#include "records.h"

#include <stdio.h>
#include <string.h>

#include "ir/text.h"
#include "store.h"

rg_status rg_db_verified_rules(const rg_db *db, rg_ruleset *out, rg_err *err) {
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    if (r->status != RG_DB_VERIFIED) continue;
    rg_rule *rule;
    rg_err e;
    if (rg_text_parse_rule(r->text, &rule, &e))
      return rg_err_set(err, RG_ERR_PARSE, "rule %s: %s", r->id.hex, e.msg);
    snprintf(rule->name, sizeof rule->name, "%.12s", r->id.hex); /* as rulesdb show names it */
    rule->line = 0;                                              /* not from a file */
    rg_status st = rg_ruleset_add(out, rule);
    if (st) return rg_err_set(err, st, "out of memory");
  }
  return RG_OK;
}

/* Rule r's proof, test and certificate records (g's lists) added to out. */
static rg_status add_records(const rg_db *db, const rg_db_groups *g, size_t r, rg_db *out, rg_err *err) {
  rg_status st = RG_OK;
  for (long p = g->proof[r]; !st && p >= 0; p = g->next_proof[p]) st = rg_db_add_proof(out, &db->proofs.v[p], err);
  for (long t = g->test[r]; !st && t >= 0; t = g->next_test[t]) st = rg_db_add_test(out, &db->tests.v[t], err);
  for (long c = g->cert[r]; !st && c >= 0; c = g->next_cert[c]) st = rg_db_add_cert(out, &db->certs.v[c], err);
  return st;
}

rg_status rg_db_keep_verified(const rg_db *db, rg_db **out, rg_err *err) {
  rg_db_groups g;
  rg_status st = rg_db_groups_build(db, &g, err);
  if (st) return st;
  *out = rg_db_new();
  if (!*out) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (size_t r = 0; !st && r < db->rules.n; r++)
    if (db->rules.v[r].status == RG_DB_VERIFIED) {
      st = rg_db_add_rule(*out, &db->rules.v[r], err);
      if (!st) st = add_records(db, &g, r, *out, err);
    }
  for (size_t k = 0; !st && k < db->stages.n; k++) st = rg_db_add_stage(*out, &db->stages.v[k], err);
  for (size_t k = 0; !st && k < db->config.n; k++)
    if (strcmp(db->config.v[k].key, "prune.records"))
      st = rg_db_set_config(*out, db->config.v[k].key, db->config.v[k].value, err);
  rg_db_groups_free(&g);
  if (st) rg_db_free(*out), *out = NULL;
  return st;
}

/* The rules of db that are not verified, by status: "3 imported, 1 unproved". */
static void others(const rg_db *db, char *buf, size_t len) {
  size_t n[RG_DB_STATUS_COUNT] = {0}, at = 0;
  for (size_t i = 0; i < db->rules.n; i++) n[db->rules.v[i].status]++;
  buf[0] = 0;
  for (int s = 0; s < RG_DB_STATUS_COUNT; s++)
    if (s != RG_DB_VERIFIED && n[s] && at < len)
      at += (size_t)snprintf(buf + at, len - at, "%s%zu %s", at ? ", " : "", n[s], rg_db_status_name((rg_db_status)s));
}

/* Says how many of db's rules are usable: an error when none is, a line of warning when some
 * are skipped. */
static rg_status count_verified(const char *path, const rg_db *db, int verified, rg_strbuf *warning, rg_err *err) {
  char by_status[200];
  others(db, by_status, sizeof by_status);
  size_t total = db->rules.n, skipped = total - (size_t)verified;
  if (!total) return rg_err_set(err, RG_ERR_ARG, "%s holds no rules", path);
  if (!verified)
    return rg_err_set(err, RG_ERR_ARG, "%s holds %zu rule%s, none of them verified (%s): graphopt applies only verified "
                      "rules (prove them with rulegen prove, or give a database of verified rules)", path, total,
                      total == 1 ? "" : "s", by_status);
  if (skipped && warning)
    rg_sb_printf(warning, "%s: %d of its %zu rules are verified and used; %zu skipped (%s): prove them with rulegen "
                 "prove to use them\n", path, verified, total, skipped, by_status);
  return RG_OK;
}

rg_status rg_db_load_verified(const char *path, const char *pub_path, int allow_unsigned, rg_ruleset *out,
                              rg_strbuf *warning, rg_err *err) {
  rg_db *db = NULL;
  rg_status st = rg_db_open_keyed(path, pub_path, allow_unsigned, &db, warning, err);
  if (!st) {
    rg_err e;
    int before = out->n;
    st = rg_db_verified_rules(db, out, &e);
    if (st) rg_err_set(err, st, "%s: %s", path, e.msg);
    else st = count_verified(path, db, out->n - before, warning, err);
  }
  rg_db_free(db);
  return st;
}
