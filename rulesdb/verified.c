/* rulesdb/verified.c: the verified rules of a database as a rule set, for graphopt. */
#include "records.h"

#include <stdio.h>

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

rg_status rg_db_load_verified(const char *path, const char *pub_path, int allow_unsigned, rg_ruleset *out,
                              rg_strbuf *warning, rg_err *err) {
  rg_db *db = NULL;
  rg_status st = rg_db_open_keyed(path, pub_path, allow_unsigned, &db, warning, err);
  if (!st) {
    rg_err e;
    st = rg_db_verified_rules(db, out, &e);
    if (st) rg_err_set(err, st, "%s: %s", path, e.msg);
  }
  rg_db_free(db);
  return st;
}
