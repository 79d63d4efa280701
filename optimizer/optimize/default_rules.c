/* optimizer/optimize/default_rules.c: where graphopt's default rule set is (default_rules.h). */
#include "default_rules.h"

#include "ir/datapath.h"

rg_status rg_default_rules_find(rg_default_rules *out, rg_err *err) {
  const rg_data_file *db = rg_data_find_once("rules/default.db", RG_DEFAULT_RULES_DB_PATH);
  const rg_data_file *pub = rg_data_find_once("rules/default.pub", RG_DEFAULT_RULES_PUB_PATH);
  rg_status st = rg_data_check(db, db->path, "the default rule set rules/default.db (give --rules to name one)", err);
  if (!st) st = rg_data_check(pub, pub->path, "the default rule set's public key rules/default.pub", err);
  if (st) return st;
  out->db = db->path, out->pub = pub->path;
  return RG_OK;
}
