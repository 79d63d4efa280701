/* rulesdb/dbimport.c: other optimizers' rule files read into rules of ours, and a database made
 * of them (dbexchange.h). */
#include <stdlib.h>
#include <string.h>

#include "contentid.h"
#include "dbexchange.h"
#include "exchange.h"
#include "ir/text.h"

bool rg_db_import_format_known(const char *fmt) {
  return !strcmp(fmt, "text") || !strcmp(fmt, "taso") || !strcmp(fmt, "tensat") || !strcmp(fmt, "tensat-multi");
}

rg_status rg_db_import_file(const char *fmt, const char *path, rg_ruleset *rs, rg_strbuf *skipped,
                            rg_err *err) {
  if (!strcmp(fmt, "text")) return rg_text_parse_file(path, rs, err);
  bool taso = !strcmp(fmt, "taso"), multi = !strcmp(fmt, "tensat-multi");
  if (!rg_db_import_format_known(fmt))
    return rg_err_set(err, RG_ERR_ARG, "unknown format '%s' (taso, tensat, tensat-multi, text)", fmt);
  rg_strbuf data;
  rg_status st = rg_text_read_file(path, &data, err);
  const char *s = data.s ? data.s : "";
  if (!st)
    st = taso ? rg_taso_import((const uint8_t *)s, data.len, rs, skipped, err)
              : rg_tensat_import(s, data.len, multi, rs, skipped, err);
  rg_sb_free(&data);
  return st;
}

static int cmp_rule_id(const void *a, const void *b) {
  return strcmp(((const rg_db_rule *)a)->id.hex, ((const rg_db_rule *)b)->id.hex);
}

/* recs[0..n), sorted by id, added to db once each. */
static rg_status add_sorted(rg_db *db, rg_db_rule *recs, int n, int *dups, rg_err *err) {
  qsort(recs, (size_t)n, sizeof *recs, cmp_rule_id);
  for (int i = 0; i < n; i++) {
    if (i && !strcmp(recs[i].id.hex, recs[i - 1].id.hex)) {
      (*dups)++;
      continue;
    }
    rg_status st = rg_db_add_rule(db, &recs[i], err);
    if (st) return st;
  }
  return RG_OK;
}

rg_status rg_db_from_rules(const rg_ruleset *rs, const char *src, const char *fmt, rg_db **out, int *dups,
                           rg_err *err) {
  rg_db *db = rg_db_new();
  rg_db_rule *recs = calloc((size_t)rs->n + 1, sizeof *recs);
  rg_status st = db && recs ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *dups = 0;
  for (int i = 0; !st && i < rs->n; i++) st = rg_db_rule_make(rs->rules[i], RG_DB_IMPORTED, &recs[i], err);
  if (!st) st = add_sorted(db, recs, rs->n, dups, err);
  if (!st) st = rg_db_set_config(db, "created_by", "rulesdb import", err);
  if (!st) st = rg_db_set_config(db, "import.source", src, err);
  if (!st) st = rg_db_set_config(db, "import.format", fmt, err);
  for (int i = 0; recs && i < rs->n; i++) rg_db_rule_clear(&recs[i]);
  free(recs);
  if (st) rg_db_free(db), db = NULL;
  *out = db;
  return st;
}
