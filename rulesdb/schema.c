/* rulesdb/schema.c: the schema of each version, and rule_ops / rule_vars (schema.h). */
#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbexchange.h"
#include "ir/text.h"
#include "sqlite_util.h"
#include "store.h"
#include "verify/verify.h"

/* The tables every version has (rules differs, and comes first). */
static const char records[] =
    "CREATE TABLE proofs(rule_id TEXT NOT NULL, output INTEGER NOT NULL, solver TEXT NOT NULL,"
    " version TEXT NOT NULL, result TEXT NOT NULL, seconds REAL NOT NULL,"
    " unsat_core TEXT NOT NULL, obligation TEXT NOT NULL);"
    "CREATE TABLE tests(rule_id TEXT NOT NULL, domain TEXT NOT NULL, trials INTEGER NOT NULL,"
    " seed INTEGER NOT NULL, shapes TEXT NOT NULL, params TEXT NOT NULL, result TEXT NOT NULL);"
    "CREATE TABLE certs(rule_id TEXT NOT NULL, version INTEGER NOT NULL, body BLOB NOT NULL);"
    "CREATE TABLE prunes(removed_id TEXT NOT NULL, removed_text TEXT NOT NULL,"
    " reason TEXT NOT NULL, implied_by TEXT NOT NULL);"
    "CREATE TABLE stages(ord INTEGER PRIMARY KEY, name TEXT NOT NULL, n_in INTEGER NOT NULL,"
    " n_out INTEGER NOT NULL, dropped TEXT NOT NULL, seconds REAL NOT NULL);"
    "CREATE TABLE config(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE signature(key_id TEXT NOT NULL, manifest TEXT NOT NULL, sig BLOB NOT NULL);";

static const char rules_v1[] =
    "CREATE TABLE rules(id TEXT PRIMARY KEY, text TEXT NOT NULL, src_size INTEGER NOT NULL,"
    " tgt_size INTEGER NOT NULL, n_outputs INTEGER NOT NULL, ops TEXT NOT NULL,"
    " status TEXT NOT NULL);";

static const char rules_v2[] =
    "CREATE TABLE rules(id TEXT PRIMARY KEY, text TEXT NOT NULL, src_size INTEGER NOT NULL,"
    " tgt_size INTEGER NOT NULL, n_outputs INTEGER NOT NULL, status TEXT NOT NULL);"
    "CREATE TABLE rule_ops(rule_id TEXT NOT NULL, pos INTEGER NOT NULL, op TEXT NOT NULL,"
    " PRIMARY KEY(rule_id, pos));"
    "CREATE TABLE rule_vars(rule_id TEXT NOT NULL, pos INTEGER NOT NULL, var TEXT NOT NULL,"
    " shape TEXT NOT NULL, PRIMARY KEY(rule_id, pos));";

static const char indexes_v2[] =
    "CREATE INDEX rules_status ON rules(status);"
    "CREATE INDEX rule_ops_op ON rule_ops(op);"
    "CREATE INDEX proofs_rule ON proofs(rule_id);"
    "CREATE INDEX tests_rule ON tests(rule_id);"
    "CREATE INDEX certs_rule ON certs(rule_id);"
    "CREATE INDEX prunes_removed ON prunes(removed_id);";

char *rg_db_schema_sql(int version) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_sb_puts(&sb, version == 1 ? rules_v1 : rules_v2);
  rg_sb_puts(&sb, records);
  if (version != 1) {
    rg_sb_puts(&sb, indexes_v2);
    /* one column per solver, named by the solver table (no solver is named here) */
    rg_sb_puts(&sb, "CREATE VIEW rule_verdicts AS SELECT id AS rule_id, status");
    for (int k = 0; k < RG_SOLVER_COUNT; k++) {
      const char *name = rg_solver_kind_name((rg_solver_kind)k);
      rg_sb_printf(&sb,
                   ", (SELECT group_concat(DISTINCT result) FROM proofs WHERE proofs.rule_id = rules.id"
                   " AND proofs.solver = '%s') AS %s",
                   name, name);
    }
    rg_sb_puts(&sb, " FROM rules;");
  }
  if (sb.failed) return rg_sb_free(&sb), NULL;
  return sb.s ? sb.s : strdup("");
}

/* ---- the derived rows ---- */

/* Whether ops is words separated by single spaces (what rg_db_rule_make writes): then its rows
 * give it back exactly. */
static bool ops_canonical(const char *ops) {
  if (!*ops) return true;
  if (ops[0] == ' ' || ops[strlen(ops) - 1] == ' ') return false;
  return !strstr(ops, "  ");
}

/* The variables of a rule's text with their shapes, as lines "var shape\n" (in order). */
static rg_status rule_vars(const char *text, const rg_enum_inputset *in, rg_strbuf *out, rg_err *err) {
  rg_rule *r;
  rg_err e;
  if (rg_text_parse_rule(text, &r, &e)) return rg_err_set(err, RG_ERR_PARSE, "its text does not parse: %s", e.msg);
  for (int32_t v = 0; v < rg_graph_n_tvars(r->g); v++) {
    const char *name = rg_graph_tvar_name(r->g, v);
    const rg_shape *shp = rg_enum_inputs_shape(in, name);
    char dims[64];
    rg_sb_printf(out, "%s %s\n", name, shp ? rg_shape_format(shp, dims, sizeof dims) : "unknown");
  }
  rg_rule_free(r);
  return out->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

static rg_status sql_error(sqlite3 *s, const char *path, const char *what, rg_err *err) {
  return rg_err_set(err, RG_ERR_IO, "%s: %s: %s", path, what, sqlite3_errmsg(s));
}

/* One rule's rows: its operators (words of ops) and its variables (lines "var shape"). */
static rg_status write_rule(sqlite3 *s, sqlite3_stmt *ops_st, sqlite3_stmt *vars_st, const rg_db_rule *r,
                            const char *vars, const char *path, rg_err *err) {
  char word[64];
  int64_t pos = 0;
  for (const char *p = r->ops; *p; pos++) {
    size_t n = strcspn(p, " ");
    snprintf(word, sizeof word, "%.*s", (int)n, p);
    if (rg_sqlite_run(ops_st, "tit", r->id.hex, pos, word) != SQLITE_DONE)
      return sql_error(s, path, "insert into rule_ops", err);
    p += n + (p[n] == ' ');
  }
  char name[RG_RULE_MAX_NAME + 1], shape[64];
  pos = 0;
  for (const char *p = vars; *p; pos++) {
    const char *sp = strchr(p, ' '), *nl = strchr(p, '\n');
    snprintf(name, sizeof name, "%.*s", (int)(sp - p), p);
    snprintf(shape, sizeof shape, "%.*s", (int)(nl - sp - 1), sp + 1);
    if (rg_sqlite_run(vars_st, "titt", r->id.hex, pos, name, shape) != SQLITE_DONE)
      return sql_error(s, path, "insert into rule_vars", err);
    p = nl + 1;
  }
  return RG_OK;
}

rg_status rg_db_write_derived(sqlite3 *s, const rg_db *db, const char *path, rg_err *err) {
  rg_enum_inputset in;
  rg_status st = rg_db_input_set(db, &in, err);
  sqlite3_stmt *ops_st = NULL, *vars_st = NULL;
  if (!st && (sqlite3_prepare_v2(s, "INSERT INTO rule_ops VALUES(?,?,?)", -1, &ops_st, NULL) != SQLITE_OK ||
              sqlite3_prepare_v2(s, "INSERT INTO rule_vars VALUES(?,?,?,?)", -1, &vars_st, NULL) != SQLITE_OK))
    st = sql_error(s, path, "prepare", err);
  rg_strbuf vars;
  rg_sb_init(&vars);
  for (size_t i = 0; !st && i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    rg_sb_clear(&vars);
    if (!ops_canonical(r->ops))
      st = rg_err_set(err, RG_ERR_ARG, "rule %.16s: operator list '%.60s' is not words separated by single spaces",
                      r->id.hex, r->ops);
    rg_err e;
    rg_status vs = st ? RG_OK : rule_vars(r->text, &in, &vars, &e);
    if (vs) st = rg_err_set(err, vs == RG_ERR_NOMEM ? vs : RG_ERR_ARG, "rule %.16s: %s", r->id.hex, e.msg);
    if (!st) st = write_rule(s, ops_st, vars_st, r, rg_sb_str(&vars), path, err);
  }
  rg_sb_free(&vars);
  sqlite3_finalize(ops_st), sqlite3_finalize(vars_st);
  return st;
}

/* Text of column c, or NULL when it is not text without a NUL byte. */
static const char *column_text(sqlite3_stmt *q, int c) {
  if (sqlite3_column_type(q, c) != SQLITE_TEXT) return NULL;
  const char *t = (const char *)sqlite3_column_text(q, c);
  return t && strlen(t) == (size_t)sqlite3_column_bytes(q, c) ? t : NULL;
}

typedef struct {
  int n_values;
  long n; /* rows so far, or -1 */
  rg_strbuf *out;
} rows_walk;

static int rule_row(sqlite3_stmt *q, void *user) {
  rows_walk *k = user;
  const char *a = column_text(q, 1), *b = k->n_values > 1 ? column_text(q, 2) : "";
  if (sqlite3_column_type(q, 0) != SQLITE_INTEGER || sqlite3_column_int64(q, 0) != k->n || !a || !b || !*a ||
      strchr(a, ' ') || strchr(b, '\n'))
    return k->n = -1, 1;
  if (k->n_values > 1) rg_sb_printf(k->out, "%s %s\n", a, b);
  else rg_sb_printf(k->out, "%s%s", k->n ? " " : "", a);
  k->n++;
  return 0;
}

/* The rows of one rule in q (bound to its id): positions 0, 1, ... and text values, appended to
 * out as "a b\n" (two values) or "a " (one, ops). Returns the row count, or -1 for a row that is
 * not what the writer writes. */
static long rule_rows(sqlite3_stmt *q, int n_values, rg_strbuf *out) {
  rows_walk k = {n_values, 0, out};
  rg_sqlite_each_row(q, rule_row, &k); /* a failing step ends the rows: the counts then differ */
  return k.n;
}

static rg_status altered(const char *path, const rg_db_rule *r, const char *table, rg_err *err) {
  return rg_err_set(err, RG_ERR_PARSE, "%s: %s rows of rule %.16s... are not the ones this program writes for it: "
                    "the database was altered", path, table, r->id.hex);
}

/* Rebuilds rule i's ops from rule_ops and checks its rule_vars; adds their row counts. */
static rg_status read_rule(sqlite3_stmt *ops_q, sqlite3_stmt *vars_q, rg_db_rule *r, const rg_enum_inputset *in,
                           const char *path, int64_t count[2], rg_err *err) {
  rg_strbuf ops, have, want;
  rg_sb_init(&ops), rg_sb_init(&have), rg_sb_init(&want);
  sqlite3_bind_text(ops_q, 1, r->id.hex, -1, SQLITE_STATIC);
  sqlite3_bind_text(vars_q, 1, r->id.hex, -1, SQLITE_STATIC);
  long n_ops = rule_rows(ops_q, 1, &ops), n_vars = rule_rows(vars_q, 2, &have);
  rg_err e;
  rg_status st = RG_OK;
  if (n_ops < 0) st = altered(path, r, "rule_ops", err);
  else if (n_vars < 0 || rule_vars(r->text, in, &want, &e) || strcmp(rg_sb_str(&have), rg_sb_str(&want)))
    st = altered(path, r, "rule_vars", err);
  else if (ops.failed || have.failed) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    free(r->ops);
    r->ops = strdup(rg_sb_str(&ops));
    if (!r->ops) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    count[0] += n_ops, count[1] += n_vars;
  }
  rg_sb_free(&ops), rg_sb_free(&have), rg_sb_free(&want);
  return st;
}

/* Rows of table: exactly want, else rows of no rule are there. */
static rg_status no_stray_rows(sqlite3 *s, const char *table, int64_t want, const char *path, rg_err *err) {
  char sql[64];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
  int64_t have = -1;
  if (rg_sqlite_pragma_int64(s, sql, &have) != SQLITE_OK) return sql_error(s, path, table, err);
  if (have == want) return RG_OK;
  return rg_err_set(err, RG_ERR_PARSE, "%s: %s holds %lld row%s for no rule of the database: the database was altered",
                    path, table, (long long)(have - want), have - want == 1 ? "" : "s");
}

rg_status rg_db_read_derived(sqlite3 *s, rg_db *db, const char *path, rg_err *err) {
  rg_enum_inputset in;
  rg_status st = rg_db_input_set(db, &in, err);
  sqlite3_stmt *ops_q = NULL, *vars_q = NULL;
  if (!st && (sqlite3_prepare_v2(s, "SELECT pos, op FROM rule_ops WHERE rule_id = ?1 ORDER BY pos", -1, &ops_q,
                                 NULL) != SQLITE_OK ||
              sqlite3_prepare_v2(s, "SELECT pos, var, shape FROM rule_vars WHERE rule_id = ?1 ORDER BY pos", -1,
                                 &vars_q, NULL) != SQLITE_OK))
    st = sql_error(s, path, "reading rule_ops and rule_vars", err);
  int64_t count[2] = {0, 0};
  for (size_t i = 0; !st && i < db->rules.n; i++) st = read_rule(ops_q, vars_q, &db->rules.v[i], &in, path, count, err);
  sqlite3_finalize(ops_q), sqlite3_finalize(vars_q);
  if (!st) st = no_stray_rows(s, "rule_ops", count[0], path, err);
  if (!st) st = no_stray_rows(s, "rule_vars", count[1], path, err);
  return st;
}
