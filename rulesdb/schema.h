/* rulesdb/schema.h (private to rulesdb/): the SQL schema of each version the reader knows, and
 * the rows of the tables that version 2 derives from other records.
 *
 * Version 1: one table per record kind; a rule's operators a space-separated string (rules.ops).
 * Version 2 (RG_DB_SCHEMA_VERSION): rules without ops; rule_ops(rule_id, pos, op), one row per
 * operator of that string, in its order; rule_vars(rule_id, pos, var, shape), one row per tensor
 * variable of the rule's text in order of first appearance, with its shape from the database's
 * input set (rg_db_input_set; a generalized ?w13_1 takes ?w13's; "unknown" when the set has
 * none); indexes on rules(status), rule_ops(op) and every record's rule id; the view
 * rule_verdicts(rule_id, status, <one column per solver of verify/solvers.def>: the distinct
 * results of that solver's proof records, comma-separated, NULL when it has none).
 *
 * The manifest (manifest.h) is the same for both versions: the reader rebuilds rules.ops from
 * rule_ops, and refuses rule_vars rows other than those the rule and the input set give, so a
 * database migrated from version 1 keeps its signature, and no row escapes it.
 */
#ifndef RG_RULESDB_SCHEMA_H
#define RG_RULESDB_SCHEMA_H

#include <sqlite3.h>

#include "records.h"

/* The writer's CREATE statements of version v (1 or RG_DB_SCHEMA_VERSION), malloc'ed (NULL when
 * out of memory). */
char *rg_db_schema_sql(int version);

/* Writes rule_ops and rule_vars of db's rules into s (schema version 2, inside the writer's
 * transaction); path names the file in messages. RG_ERR_ARG when a rule's operator list is not
 * single-spaced words or its text does not parse; RG_ERR_IO for SQLite's errors. */
rg_status rg_db_write_derived(sqlite3 *s, const rg_db *db, const char *path, rg_err *err) RG_MUST_CHECK;

/* Reads rule_ops back into each rule's ops string and checks rule_vars against the rules (schema
 * version 2): a missing, extra or differing row is RG_ERR_PARSE ("... the database was
 * altered"), naming the rule. */
rg_status rg_db_read_derived(sqlite3 *s, rg_db *db, const char *path, rg_err *err) RG_MUST_CHECK;

#endif
