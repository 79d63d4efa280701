/* optimizer/optimize/default_rules.h: the rule set graphopt applies when --rules is not given.
 *
 * A signed rule database rulegen made (scripts/default-rules.sh runs the command:
 * `rulegen --ops taso,bias --depth 3 -j 2 -o default.db -k KEY.key`) and the public key it is
 * checked against, shipped as data (ir/datapath.h): rules/default.db and rules/default.pub in
 * PREFIX/share/rulegen/ for installed programs; for the build tree's, the database the build
 * unpacked from optimize/rules/default.db.tar.xz (BUILD/optimizer/rules/) and the key in
 * optimize/rules/. Its signature is checked like any database's, so its verified rules are applied as
 * rulegen proved them; a copy that fails the check is refused, never used unchecked. */
#ifndef RG_OPTIMIZER_DEFAULT_RULES_H
#define RG_OPTIMIZER_DEFAULT_RULES_H

#include "ir/ir.h"

typedef struct {
  const char *db;  /* the database (the program's lifetime: rg_data_find_once's) */
  const char *pub; /* its public key */
} rg_default_rules;

/* Where the default set is; RG_ERR_IO naming every place looked at (and RULEGEN_DATA_DIR) when
 * the database, or the key when need_pub (out->pub is NULL otherwise), is missing. */
rg_status rg_default_rules_find(bool need_pub, rg_default_rules *out, rg_err *err) RG_MUST_CHECK;
/* Where the default set is or would be (the first place looked when missing), never failing: what
 * a run must not write over. */
void rg_default_rules_where(rg_default_rules *out);

#endif
