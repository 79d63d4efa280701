/* tools/rulesdb_export.c: `rulesdb export` and `rulesdb import`. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "rulesdb_cmds.h"

static const rg_cli_option export_options[] = {
    {"format", 'f', 1, "FMT", "tensat, taso, json or dot (required)"},
    {"output", 'o', 1, "OUT", "output file (json and dot: default standard output)"},
    {"per-rule", RG_CLI_LONG_ONLY('D'), 1, "DIR", "dot: write DIR/<id>.dot per rule"},
    {"status", 's', 1, "S", "only rules of this status (e.g. verified)"},
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

static int export_usage(int c) {
  FILE *out = c == 'h' ? stdout : stderr;
  fprintf(out, "usage: rulesdb export DB --format FMT [-o OUT] [--status S] (--pub KEY.pub | "
               "--allow-unsigned)\n\n"
               "Writes the rules of DB (verified first) in another format:\n"
               "  tensat  TENSAT's text: single-output rules to OUT, two-output rules as line pairs to\n"
               "          OUT with _multi before the extension; no trailing newline (OUT required)\n"
               "  taso    TASO's rules.proto binary (GraphSubst.RuleCollection) to OUT (required);\n"
               "          variables must be TASO's inputs ?input_1 .. ?input_20\n"
               "  json    one JSON object per line (id, status, text, sizes, operators, proofs)\n"
               "  dot     Graphviz, source and target side by side: one digraph per rule in one\n"
               "          file (render with dot -Tsvg -O), or one file per rule with --per-rule DIR\n"
               "Rules a format cannot express are skipped, each named with the reason on stderr.\n\n");
  rg_cli_print_options(out, export_options, RG_CLI_COUNT(export_options), 14, 7);
  return c == 'h' ? 0 : 2;
}

static int write_out(const char *path, const rg_strbuf *sb) {
  if (sb->failed) return fprintf(stderr, "rulesdb export: out of memory\n"), 2;
  if (!path) return fwrite(sb->s ? sb->s : "", 1, sb->len, stdout) == sb->len ? 0 : 2;
  return rdb_write_file("rulesdb export", path, sb->s ? sb->s : "", sb->len);
}

typedef struct {
  const char *pub, *fmt, *out, *dir;
  bool allow;
  int status;
} export_args;

/* The options into a; false with *rc the exit status when the command ends here. */
static bool export_parse(int argc, char **argv, export_args *a, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, export_options, RG_CLI_COUNT(export_options));
  int c;
  *a = (export_args){.status = -1};
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case 'p': a->pub = optarg; break;
    case RG_CLI_LONG_ONLY('U'): a->allow = true; break;
    case 'f': a->fmt = optarg; break;
    case 'o': a->out = optarg; break;
    case RG_CLI_LONG_ONLY('D'): a->dir = optarg; break;
    case 's':
      if ((a->status = rg_db_status_by_name(optarg)) >= 0) break;
      /* fall through */
    default: return *rc = export_usage(c), false;
    }
  }
  const char *fmt = a->fmt;
  *rc = 2;
  if (optind + 1 != argc || !fmt)
    return fprintf(stderr, "rulesdb export: give one database and --format (see --help)\n"), false;
  if (strcmp(fmt, "tensat") && strcmp(fmt, "taso") && strcmp(fmt, "json") && strcmp(fmt, "dot"))
    return fprintf(stderr, "rulesdb export: unknown format '%s' (tensat, taso, json, dot)\n", fmt), false;
  if ((!strcmp(fmt, "tensat") || !strcmp(fmt, "taso")) && !a->out)
    return fprintf(stderr, "rulesdb export: --format %s needs -o OUT\n", fmt), false;
  return true;
}

/* TENSAT's two files: single-output rules to out, two-output ones beside it. */
static int write_tensat(const export_args *a, const rg_ruleset *rs, const rg_db_rule *const *recs, rg_strbuf *o,
                        rg_strbuf *skipped, size_t *written) {
  rg_strbuf m;
  rg_sb_init(&m);
  rg_db_export_tensat(rs, recs, o, &m, skipped, written);
  char mpath[4096];
  rg_tensat_multi_path(a->out, mpath, sizeof mpath);
  int rc = write_out(a->out, o);
  if (!rc) rc = write_out(mpath, &m);
  if (!rc) fprintf(stderr, "rulesdb export: wrote %s and %s\n", a->out, mpath);
  rg_sb_free(&m);
  return rc;
}

/* DOT, one file per rule in dir. */
static int write_dot_dir(const char *dir, const rg_ruleset *rs, const rg_db_rule *const *recs, rg_strbuf *o,
                         size_t *written) {
  if (mkdir(dir, 0777) && errno != EEXIST)
    return fprintf(stderr, "rulesdb export: cannot create %s: %s\n", dir, strerror(errno)), 2;
  int rc = 0;
  for (int i = 0; !rc && i < rs->n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%.16s.dot", dir, recs[i]->id.hex);
    rg_sb_clear(o);
    rg_dot_rule(rs->rules[i], recs[i]->text, o);
    rc = write_out(path, o);
    (*written)++;
  }
  return rc;
}

/* The parsed rules written in a's format (not json); says how many on stderr. */
static int write_rules(const export_args *a, const rg_ruleset *rs, const rg_db_rule *const *recs) {
  rg_strbuf o, skipped;
  rg_sb_init(&o), rg_sb_init(&skipped);
  size_t written = 0;
  rg_err err;
  int rc;
  if (!strcmp(a->fmt, "tensat")) {
    rc = write_tensat(a, rs, recs, &o, &skipped, &written);
  } else if (!strcmp(a->fmt, "taso")) {
    uint8_t *buf;
    size_t len;
    if (rg_db_export_taso(rs, recs, &buf, &len, &written, &skipped, &err))
      rc = 2, fprintf(stderr, "rulesdb export: %s\n", err.msg);
    else
      rc = rdb_write_file("rulesdb export", a->out, buf, len), free(buf);
  } else if (a->dir) {
    rc = write_dot_dir(a->dir, rs, recs, &o, &written);
  } else {
    rc = rg_db_export_dot(rs, recs, &o, &err) ? fprintf(stderr, "rulesdb export: %s\n", err.msg), 2
                                               : write_out(a->out, &o);
    written = (size_t)rs->n;
  }
  fprintf(stderr, "rulesdb export: %zu of %d rules written%s\n", written, rs->n,
          skipped.len ? "; skipped (not expressible in this format):" : "");
  fputs(rg_sb_str(&skipped), stderr);
  rg_sb_free(&o), rg_sb_free(&skipped);
  return rc;
}

int rdb_export(int argc, char **argv) {
  export_args a;
  int rc;
  if (!export_parse(argc, argv, &a, &rc)) return rc;
  rg_db *db;
  rc = rdb_open("rulesdb export", argv[optind], a.pub, a.allow, &db, NULL);
  if (rc) return rc;
  rg_err err;
  if (!strcmp(a.fmt, "json")) {
    rg_strbuf o;
    rg_sb_init(&o);
    rc = rg_db_export_json(db, a.status, &o, &err) ? fprintf(stderr, "rulesdb export: %s\n", err.msg), 2
                                                   : write_out(a.out, &o);
    rg_sb_free(&o);
  } else {
    rg_ruleset rs;
    const rg_db_rule **recs = NULL;
    if (rg_db_rules_parse(db, a.status, &rs, &recs, &err))
      rc = 2, fprintf(stderr, "rulesdb export: %s\n", err.msg);
    else
      rc = write_rules(&a, &rs, recs);
    rg_ruleset_free(&rs);
    free(recs);
  }
  rg_db_free(db);
  return rc;
}

/* ---- import ---- */

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* Builds, signs (if a key is given) and writes a database of imported rules. */
static int write_db(const rg_ruleset *rs, const char *out, const char *key, const char *src, const char *fmt) {
  rg_err err;
  rg_db *db;
  int dups;
  rg_status st = rg_db_from_rules(rs, src, fmt, &db, &dups, &err);
  if (!st) {
    rg_cli_catch_interrupts();
    rg_db_write_opts wo = {rdb_write_progress, (void *)out};
    st = rg_db_save(db, out, key, &wo, &err);
  }
  if (st)
    fprintf(stderr, "rulesdb import: %s\n", err.msg);
  else
    fprintf(stderr, "rulesdb import: wrote %s: %zu rules%s%s\n", out, db->rules.n,
            dups ? " (rules that are identical after parsing stored once)" : "",
            key ? ", signed" : ", UNSIGNED (readers refuse it without --allow-unsigned; sign with --key)");
  rg_db_free(db);
  return st ? 2 : 0;
}

/* The rules as our text, one per line, to out. */
static int write_text(const rg_ruleset *rs, const char *out) {
  rg_strbuf t;
  rg_sb_init(&t);
  for (int i = 0; i < rs->n; i++) rg_text_print_rule(rs->rules[i], &t), rg_sb_puts(&t, "\n");
  int rc = t.failed ? 2 : rdb_write_file("rulesdb import", out, rg_sb_str(&t), t.len);
  rg_sb_free(&t);
  return rc;
}

static const rg_cli_option import_options[] = {
    {"format", 'f', 1, "FMT", "taso (rules.proto binary, e.g. graph_subst.pb), tensat (LHS=>RHS per line), "
                              "tensat-multi (consecutive line pairs) or text (ours: ir/text.h)"},
    {"output", 'o', 1, "OUT", "OUT.db: a rule database (status imported); otherwise rule text"},
    {"key", 'k', 1, "KEY.key", "sign the database with this secret key"},
    RG_CLI_HELP_ROW,
};

static int import_usage(int c) {
  FILE *out = c == 'h' ? stdout : stderr;
  fprintf(out, "usage: rulesdb import --format FMT FILE -o OUT [--key KEY.key]\n\n"
               "Reads third-party rules into our text format, so they can be tested, proved and\n"
               "audited. Rules with no counterpart of ours are skipped, each named with the reason.\n\n");
  rg_cli_print_options(out, import_options, RG_CLI_COUNT(import_options), 7, 7);
  return c == 'h' ? 0 : 2;
}

int rdb_import(int argc, char **argv) {
  const char *fmt = NULL, *out = NULL, *key = NULL;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, import_options, RG_CLI_COUNT(import_options));
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == 'f') fmt = optarg;
    else if (c == 'o') out = optarg;
    else if (c == 'k') key = optarg;
    else return import_usage(c);
  }
  if (optind + 1 != argc || !fmt || !out)
    return fprintf(stderr, "rulesdb import: give --format, one FILE and -o OUT (see --help)\n"), 2;
  const char *in = argv[optind];
  bool db_out = ends_with(out, ".db");
  if (key && !db_out)
    return fprintf(stderr, "rulesdb import: --key signs a database: name the output *.db\n"), 2;
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_strbuf skipped;
  rg_sb_init(&skipped);
  rg_err err = {0};
  int rc = 2;
  if (rg_db_import_file(fmt, in, &rs, &skipped, &err)) {
    if (!rg_db_import_format_known(fmt))
      fprintf(stderr, "rulesdb import: %s\n", err.msg); /* nothing was read */
    else if (err.line)
      fprintf(stderr, "rulesdb import: %s:%d:%d: %s\n", in, err.line, err.col, err.msg);
    else
      fprintf(stderr, "rulesdb import: %s: %s\n", in, err.msg);
  } else {
    if (skipped.len)
      fprintf(stderr, "rulesdb import: %s: skipped (no counterpart of ours):\n%s", in, rg_sb_str(&skipped));
    fprintf(stderr, "rulesdb import: %s: %d rules read\n", in, rs.n);
    rc = db_out ? write_db(&rs, out, key, in, fmt) : write_text(&rs, out);
  }
  rg_ruleset_free(&rs);
  rg_sb_free(&skipped);
  return rc;
}
