/* prune/files.c: writing a pruning run's files and auditing them (files.h). */
#include "files.h"

#include <string.h>

#include "prune.h"

/* The kept rules into f. */
static rg_status write_kept(FILE *f, const rg_ruleset *rs, const rg_prune_result *res, rg_err *err) {
  fprintf(f, "# rulegen prune: %d of %d rules kept\n", res->kept, res->n);
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int i = 0; i < rs->n; i++) {
    if (res->e[i].fate != RG_FATE_KEPT) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(rs->rules[i], &sb);
    fprintf(f, "%s\n", rg_sb_str(&sb));
  }
  bool bad = sb.failed;
  rg_sb_free(&sb);
  return bad ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* The records of res into f, and their end line. */
static rg_status write_records(FILE *f, const rg_ruleset *rs, const rg_prune_result *res, rg_err *err) {
  rg_status st = rg_prune_write_records(f, rs, res, err);
  return st ? st : rg_prune_write_records_end(f, err);
}

/* Writes path whole or not at all with fn (a kill leaves the old file, never a cut one). */
static rg_status write_whole(const char *path, rg_status (*fn)(FILE *, const rg_ruleset *, const rg_prune_result *, rg_err *),
                             const rg_ruleset *rs, const rg_prune_result *res, rg_err *err) {
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  if (st) return st;
  if ((st = fn(a.f, rs, res, err))) {
    rg_atomic_abort(&a);
    return st;
  }
  return rg_atomic_commit(&a, err);
}

rg_status rg_prune_save(const char *kept_path, const char *records_path, const rg_ruleset *rs,
                        const rg_prune_result *res, rg_err *err) {
  rg_status st = write_whole(records_path, write_records, rs, res, err);
  return st ? st : write_whole(kept_path, write_kept, rs, res, err);
}

rg_status rg_prune_audit_files(const char *records_path, const char *kept_path, rg_audit_report *rep,
                               const char **where, rg_err *err) {
  rg_ruleset kept;
  rg_ruleset_init(&kept);
  rg_strbuf sb;
  *where = records_path;
  rg_status st = rg_text_read_file(records_path, &sb, err);
  if (st == RG_OK) {
    *where = kept_path;
    st = rg_text_parse_file(kept_path, &kept, err);
    if (st == RG_ERR_PARSE && kept.n == 0 && strstr(err->msg, "holds no rules")) st = RG_OK;
  }
  if (st == RG_OK) {
    *where = records_path;
    st = rg_prune_audit(&kept, sb.s ? sb.s : "", sb.len, rep, err);
  }
  rg_sb_free(&sb);
  rg_ruleset_free(&kept);
  return st;
}
