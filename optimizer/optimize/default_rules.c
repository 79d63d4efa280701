/* optimizer/optimize/default_rules.c: where graphopt's default rule set is (default_rules.h). */
#include "default_rules.h"

#include "ir/datapath.h"

static const rg_data_file *db_file(void) {
  return rg_data_find_once("rules/default.db", RG_DEFAULT_RULES_DB_PATH);
}

static const rg_data_file *pub_file(void) {
  return rg_data_find_once("rules/default.pub", RG_DEFAULT_RULES_PUB_PATH);
}

void rg_default_rules_where(rg_default_rules *out) {
  out->db = db_file()->path, out->pub = pub_file()->path;
}

rg_status rg_default_rules_find(bool need_pub, rg_default_rules *out, rg_err *err) {
  const rg_data_file *db = db_file(), *pub = pub_file();
  rg_status st = rg_data_check(db, db->path, "the default rule set rules/default.db (give --rules to name one)", err);
  if (!st && need_pub)
    st = rg_data_check(pub, pub->path, "the default rule set's public key rules/default.pub (or give --pub KEY.pub)", err);
  if (st) return st;
  out->db = db->path, out->pub = need_pub ? pub->path : NULL;
  return RG_OK;
}
