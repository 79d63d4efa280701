/* rulesdb/dbfiles.c: a database's rules written to files in another format (`rulesdb export`)
 * and imported rules written as a database or as rule text (`rulesdb import`); dbexchange.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dbexchange.h"
#include "exchange.h"
#include "ir/atomic.h"
#include "ir/grow.h"
#include "ir/text.h"
#include "store.h"

bool rg_db_path_is_db(const char *path) {
  size_t n = strlen(path);
  return n >= 3 && !strcmp(path + n - 3, ".db");
}

/* sb to path (whole or not at all). */
static rg_status write_sb(const char *path, const rg_strbuf *sb, rg_err *err) {
  if (sb->failed) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return rg_atomic_write(path, sb->s ? sb->s : "", sb->len, err);
}

/* sb to path, or to std_out when path is NULL. */
static rg_status write_out(const char *path, const rg_strbuf *sb, FILE *std_out, rg_err *err) {
  if (path || sb->failed) return write_sb(path, sb, err);
  if (fwrite(sb->s ? sb->s : "", 1, sb->len, std_out) != sb->len)
    return rg_err_set(err, RG_ERR_IO, "cannot write standard output: %s", strerror(errno));
  return RG_OK;
}

/* TENSAT's two files: single-output rules to o->out, two-output ones beside it. */
static rg_status write_tensat(const rg_db_export_opts *o, const rg_ruleset *rs, const rg_db_rule *const *recs,
                              const rg_enum_inputset *inputs, rg_strbuf *skipped, size_t *written, rg_strbuf *log,
                              rg_err *err) {
  rg_strbuf s, m;
  rg_sb_init(&s), rg_sb_init(&m);
  rg_db_export_tensat(rs, recs, inputs, &s, &m, skipped, written);
  char mpath[4096];
  rg_tensat_multi_path(o->out, mpath, sizeof mpath);
  rg_status st = write_sb(o->out, &s, err);
  if (!st) st = write_sb(mpath, &m, err);
  if (!st) rg_sb_printf(log, "rulesdb export: wrote %s and %s\n", o->out, mpath);
  rg_sb_free(&s), rg_sb_free(&m);
  return st;
}

/* DOT, one file per rule in dir, and dir/index.txt naming them. */
static rg_status write_dot_dir(const char *dir, const rg_db *db, const rg_ruleset *rs, const rg_db_rule *const *recs,
                               size_t *written, rg_err *err) {
  rg_enum_inputset inputs;
  rg_status st = rg_db_input_set(db, &inputs, err);
  if (st) return st;
  if (mkdir(dir, 0777) && errno != EEXIST)
    return rg_err_set(err, RG_ERR_IO, "cannot create the folder %s: %s", dir, strerror(errno));
  rg_strbuf o, index;
  rg_sb_init(&o), rg_sb_init(&index);
  for (int i = 0; !st && i < rs->n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%.16s.dot", dir, recs[i]->id.hex);
    rg_sb_clear(&o);
    rg_dot_rule(rs->rules[i], recs[i]->text, &inputs, &o);
    st = write_sb(path, &o, err);
    if (!st) (*written)++;
    rg_sb_printf(&index, "%.16s.dot  %-9s %s\n", recs[i]->id.hex, rg_db_status_name(recs[i]->status), recs[i]->text);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/index.txt", dir);
  if (!st) st = write_sb(path, &index, err);
  rg_sb_free(&o), rg_sb_free(&index);
  return st;
}

/* TASO's protobuf to o->out. */
static rg_status write_taso(const rg_db_export_opts *o, const rg_ruleset *rs, const rg_db_rule *const *recs,
                            const rg_enum_inputset *inputs, rg_strbuf *skipped, size_t *written, rg_err *err) {
  uint8_t *buf;
  size_t len;
  rg_status st = rg_db_export_taso(rs, recs, inputs, &buf, &len, written, skipped, err);
  if (st) return st;
  st = rg_atomic_write(o->out, buf, len, err);
  free(buf);
  return st;
}

typedef struct {
  const char *name;
  int len, count;
} category;

static int by_count(const void *a, const void *b) {
  const category *x = a, *y = b;
  if (x->count != y->count) return y->count - x->count;
  int c = strncmp(x->name, y->name, (size_t)(x->len < y->len ? x->len : y->len));
  return c ? c : x->len - y->len;
}

/* The skipped lines' counts by category ("rule ID: CATEGORY: detail"), most frequent first, as
 * "N CATEGORY, N CATEGORY" appended to out. */
static void skip_counts(const char *skipped, rg_strbuf *out) {
  category *cats = NULL;
  int32_t n = 0, cap = 0;
  for (const char *l = skipped; *l;) {
    const char *end = strchr(l, '\n'), *c = strstr(l, ": ");
    if (!end) end = l + strlen(l);
    if (c && c < end) {
      c += 2;
      const char *ce = strstr(c, ": ");
      int len = (int)((ce && ce < end ? ce : end) - c), k = 0;
      while (k < n && (cats[k].len != len || strncmp(cats[k].name, c, (size_t)len))) k++;
      if (k < n) cats[k].count++;
      else if (rg_grow(&cats, &cap, n, sizeof *cats, 16)) cats[n++] = (category){c, len, 1};
    }
    l = *end ? end + 1 : end;
  }
  if (n) qsort(cats, (size_t)n, sizeof *cats, by_count);
  for (int32_t k = 0; k < n; k++) rg_sb_printf(out, "%s%d %.*s", k ? ", " : "", cats[k].count, cats[k].len, cats[k].name);
  free(cats);
}

/* The parsed rules in o's format (not json); the count and what was skipped, by category and
 * rule by rule, into log. TENSAT and TASO type the variables at the shapes of db's input set. */
static rg_status write_rules(const rg_db_export_opts *o, const rg_db *db, const rg_ruleset *rs,
                             const rg_db_rule *const *recs, rg_strbuf *log, rg_err *err) {
  rg_strbuf skipped;
  rg_sb_init(&skipped);
  size_t written = 0;
  const char *dir = o->dir ? o->dir : o->out;
  int dot = !strcmp(o->fmt, "dot");
  rg_enum_inputset inputs;
  rg_status st = dot ? RG_OK : rg_db_input_set(db, &inputs, err);
  if (!st && !strcmp(o->fmt, "tensat")) st = write_tensat(o, rs, recs, &inputs, &skipped, &written, log, err);
  else if (!st && !strcmp(o->fmt, "taso")) st = write_taso(o, rs, recs, &inputs, &skipped, &written, err);
  else if (!st && dir) st = write_dot_dir(dir, db, rs, recs, &written, err);
  else if (!st) st = rg_err_set(err, RG_ERR_ARG, "--format dot writes a folder of one file per rule: give -o DIR");
  rg_sb_printf(log, "rulesdb export: %zu of %d rules written%s%s", written, rs->n, dir && dot ? " to " : "",
               dir && dot ? dir : "");
  if (skipped.len) {
    rg_sb_printf(log, "; %zu skipped (not expressible in this format): ", (size_t)rs->n - written);
    skip_counts(rg_sb_str(&skipped), log);
  }
  rg_sb_puts(log, "\n");
  rg_sb_puts(log, rg_sb_str(&skipped));
  rg_sb_free(&skipped);
  return st;
}

rg_status rg_db_export_files(const rg_db *db, const rg_db_export_opts *o, FILE *std_out, rg_strbuf *log,
                             rg_err *err) {
  rg_status st;
  if (!strcmp(o->fmt, "json")) {
    rg_strbuf s;
    rg_sb_init(&s);
    st = rg_db_export_json(db, o->status, &s, err);
    if (!st) st = write_out(o->out, &s, std_out, err);
    rg_sb_free(&s);
    return st;
  }
  rg_ruleset rs;
  const rg_db_rule **recs = NULL;
  st = rg_db_rules_parse(db, o->status, &rs, &recs, err);
  if (!st) st = write_rules(o, db, &rs, recs, log, err);
  rg_ruleset_free(&rs);
  free(recs);
  return st;
}

/* err's message prefixed with the file it is about: "path:line:col: " where the line is known. */
static rg_status name_file(rg_err *err, rg_status st, const char *path) {
  char msg[sizeof err->msg];
  snprintf(msg, sizeof msg, "%s", err->msg);
  if (err->line) return rg_err_set(err, st, "%s:%d:%d: %s", path, err->line, err->col, msg);
  return rg_err_set(err, st, "%s: %s", path, msg);
}

rg_status rg_db_import_read(const char *fmt, const char *in, rg_ruleset *rs, rg_strbuf *log, rg_err *err) {
  rg_strbuf skipped;
  rg_sb_init(&skipped);
  *err = (rg_err){0};
  rg_status st = rg_db_import_file(fmt, in, rs, &skipped, err);
  if (st && rg_db_import_format_known(fmt)) name_file(err, st, in); /* else nothing was read: the message says why */
  else if (!st && skipped.len)
    rg_sb_printf(log, "rulesdb import: %s: skipped (no counterpart of ours):\n%s", in, rg_sb_str(&skipped));
  if (!st) rg_sb_printf(log, "rulesdb import: %s: %d rules read\n", in, rs->n);
  rg_sb_free(&skipped);
  return st;
}

rg_status rg_db_load_rules(const char *path, const char *pub_path, int allow_unsigned, rg_ruleset *out,
                           rg_strbuf *warning, rg_err *err) {
  if (rg_db_path_is_db(path)) return rg_db_load_verified(path, pub_path, allow_unsigned, out, warning, err);
  *err = (rg_err){0};
  rg_status st = rg_text_parse_file(path, out, err);
  return st ? name_file(err, st, path) : RG_OK;
}

/* A database of the imported rules, signed when key is given. */
static rg_status write_db(const rg_ruleset *rs, const char *out, const char *key, const char *src, const char *fmt,
                          const rg_db_write_opts *wo, rg_strbuf *log, rg_err *err) {
  rg_db *db;
  int dups;
  rg_status st = rg_db_from_rules(rs, src, fmt, &db, &dups, err);
  if (!st) st = rg_db_save(db, out, key, wo, err);
  if (!st)
    rg_sb_printf(log, "rulesdb import: wrote %s: %zu rules%s%s\n", out, db->rules.n,
                 dups ? " (rules that are identical after parsing stored once)" : "",
                 key ? ", signed" : ", UNSIGNED (readers refuse it without --allow-unsigned; sign with --key)");
  rg_db_free(db);
  return st;
}

rg_status rg_db_import_write(const rg_ruleset *rs, const char *out, const char *key, const char *src,
                             const char *fmt, const rg_db_write_opts *wo, rg_strbuf *log, rg_err *err) {
  if (rg_db_path_is_db(out)) return write_db(rs, out, key, src, fmt, wo, log, err);
  rg_strbuf t;
  rg_sb_init(&t);
  for (int i = 0; i < rs->n; i++) rg_text_print_rule(rs->rules[i], &t), rg_sb_puts(&t, "\n");
  rg_status st = write_sb(out, &t, err);
  rg_sb_free(&t);
  return st;
}
