/* tools/rulesdb_export.c: `rulesdb export` and `rulesdb import`. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "rulesdb_cmds.h"

/* The rules of db (of one status, or all) parsed back from their text. */
static int parse_rules(const rg_db *db, int status, rg_ruleset *rs, const rg_db_rule ***recs) {
  rg_ruleset_init(rs);
  *recs = malloc(sizeof **recs * (db->rules.n + 1));
  if (!*recs) return fprintf(stderr, "rulesdb export: out of memory\n"), 2;
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *rec = &db->rules.v[i];
    if (status >= 0 && (int)rec->status != status) continue;
    rg_rule *r;
    rg_err err;
    if (rg_text_parse_rule(rec->text, &r, &err)) {
      fprintf(stderr, "rulesdb export: rule %.16s: stored text does not parse: %s\n", rec->id.hex,
              err.msg);
      return 2;
    }
    (*recs)[rs->n] = rec;
    if (rg_ruleset_add(rs, r)) return fprintf(stderr, "rulesdb export: out of memory\n"), 2;
  }
  return 0;
}

/* "dir/name.txt" -> "dir/name_multi.txt" (TENSAT's converted.txt / converted_multi.txt). */
static void multi_name(const char *path, char *out, size_t n) {
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash))
    snprintf(out, n, "%s_multi", path);
  else
    snprintf(out, n, "%.*s_multi%s", (int)(dot - path), path, dot);
}

static void json_rule(rg_strbuf *o, const rg_db *db, const rg_db_rule *r, const long *next_proof,
                      long first) {
  rg_sb_printf(o, "{\"id\":\"%s\",\"status\":\"%s\",\"text\":", r->id.hex,
               rg_db_status_name(r->status));
  rg_json_string(o, r->text);
  rg_sb_printf(o, ",\"outputs\":%d,\"src_size\":%d,\"tgt_size\":%d,\"ops\":[", r->n_outputs,
               r->src_size, r->tgt_size);
  const char *s = r->ops;
  for (int k = 0; *s; k++) {
    size_t l = strcspn(s, " ");
    rg_sb_printf(o, "%s\"%.*s\"", k ? "," : "", (int)l, s);
    s += l;
    while (*s == ' ')
      s++;
  }
  rg_sb_puts(o, "],\"proofs\":[");
  for (long p = first, k = 0; p >= 0; p = next_proof[p], k++) {
    const rg_db_proof *pr = &db->proofs.v[p];
    rg_sb_printf(o, "%s{\"output\":%d,\"solver\":", k ? "," : "", pr->output);
    rg_json_string(o, pr->solver);
    rg_sb_puts(o, ",\"version\":");
    rg_json_string(o, pr->version);
    rg_sb_puts(o, ",\"result\":");
    rg_json_string(o, pr->result);
    rg_sb_printf(o, ",\"seconds\":%.6g,\"obligation\":\"%s\"}", pr->seconds, pr->obligation.hex);
  }
  rg_sb_puts(o, "]}\n");
}

static int export_json(const rg_db *db, int status, rg_strbuf *o) {
  rg_db_groups g;
  rg_err err;
  if (rg_db_groups_build(db, &g, &err)) return fprintf(stderr, "rulesdb export: %s\n", err.msg), 2;
  for (size_t i = 0; i < db->rules.n; i++)
    if (status < 0 || (int)db->rules.v[i].status == status)
      json_rule(o, db, &db->rules.v[i], g.next_proof, g.proof[i]);
  rg_db_groups_free(&g);
  return 0;
}

static int export_usage(int c) {
  fprintf(c == 'h' ? stdout : stderr,
          "usage: rulesdb export DB --format FMT [-o OUT] [--status S] (--pub KEY.pub | "
          "--allow-unsigned)\n\n"
          "Writes the rules of DB (verified first) in another format:\n"
          "  tensat  TENSAT's text: single-output rules to OUT, two-output rules as line pairs to\n"
          "          OUT with _multi before the extension; no trailing newline (OUT required)\n"
          "  taso    TASO's rules.proto binary (GraphSubst.RuleCollection) to OUT (required);\n"
          "          variables must be TASO's inputs ?input_1 .. ?input_20\n"
          "  json    one JSON object per line (id, status, text, sizes, operators, proofs)\n"
          "  dot     Graphviz, source and target side by side: one digraph per rule in one\n"
          "          file (render with dot -Tsvg -O), or one file per rule with --per-rule DIR\n"
          "Rules a format cannot express are skipped, each named with the reason on stderr.\n"
          "  -o, --output OUT   output file (json and dot: default standard output)\n"
          "  --per-rule DIR     dot: write DIR/<id>.dot per rule\n"
          "  --status S         only rules of this status (e.g. verified)\n"
          "  --pub KEY.pub, --allow-unsigned   as for every reader\n");
  return c == 'h' ? 0 : 2;
}

static int write_out(const char *path, const rg_strbuf *sb) {
  if (sb->failed) return fprintf(stderr, "rulesdb export: out of memory\n"), 2;
  if (!path) return fwrite(sb->s ? sb->s : "", 1, sb->len, stdout) == sb->len ? 0 : 2;
  return rdb_write_file("rulesdb export", path, sb->s ? sb->s : "", sb->len);
}

int rdb_export(int argc, char **argv) {
  const char *pub = NULL, *fmt = NULL, *out = NULL, *dir = NULL;
  bool allow = false;
  int status = -1;
  static const struct option lo[] = {{"pub", 1, 0, 'p'},      {"allow-unsigned", 0, 0, 'U'},
                                     {"format", 1, 0, 'f'},   {"output", 1, 0, 'o'},
                                     {"per-rule", 1, 0, 'D'}, {"status", 1, 0, 's'},
                                     {"help", 0, 0, 'h'},     {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "p:f:o:s:h", lo, NULL)) != -1) {
    if (c == 'p')
      pub = optarg;
    else if (c == 'U')
      allow = true;
    else if (c == 'f')
      fmt = optarg;
    else if (c == 'o')
      out = optarg;
    else if (c == 'D')
      dir = optarg;
    else if (c == 's' && (status = rg_db_status_by_name(optarg)) >= 0)
      continue;
    else
      return export_usage(c);
  }
  if (optind + 1 != argc || !fmt)
    return fprintf(stderr, "rulesdb export: give one database and --format (see --help)\n"), 2;
  bool tensat = !strcmp(fmt, "tensat"), taso = !strcmp(fmt, "taso"), json = !strcmp(fmt, "json"),
       dot = !strcmp(fmt, "dot");
  if (!tensat && !taso && !json && !dot)
    return fprintf(stderr, "rulesdb export: unknown format '%s' (tensat, taso, json, dot)\n", fmt),
           2;
  if ((tensat || taso) && !out)
    return fprintf(stderr, "rulesdb export: --format %s needs -o OUT\n", fmt), 2;
  rg_db *db;
  int rc = rdb_open("rulesdb export", argv[optind], pub, allow, &db, NULL);
  if (rc) return rc;
  rg_strbuf o, skipped;
  rg_sb_init(&o), rg_sb_init(&skipped);
  rg_ruleset rs;
  const rg_db_rule **recs = NULL;
  size_t written = 0;
  rg_err err;
  if (json) {
    rc = export_json(db, status, &o);
    if (!rc) rc = write_out(out, &o);
    rg_ruleset_init(&rs);
  } else if (!(rc = parse_rules(db, status, &rs, &recs))) {
    /* Labels for messages (short ids) and for DOT clusters (rule text). */
    char(*ids)[17] = malloc(sizeof *ids * ((size_t)rs.n + 1));
    const char **names = malloc(sizeof *names * ((size_t)rs.n + 1));
    const char **texts = malloc(sizeof *texts * ((size_t)rs.n + 1));
    if (!ids || !names || !texts) {
      fprintf(stderr, "rulesdb export: out of memory\n");
      free(ids), free(names), free(texts);
      rg_ruleset_free(&rs), free(recs), rg_sb_free(&o), rg_sb_free(&skipped), rg_db_free(db);
      return 2;
    }
    for (int i = 0; i < rs.n; i++) {
      snprintf(ids[i], sizeof ids[i], "%.16s", recs[i]->id.hex);
      names[i] = ids[i], texts[i] = recs[i]->text;
    }
    if (tensat) {
      rg_strbuf m;
      rg_sb_init(&m);
      for (int i = 0; i < rs.n; i++) {
        rg_strbuf *dst = rs.rules[i]->n_src == 2 ? &m : &o;
        size_t before = dst->len;
        if (dst->len) rg_sb_puts(dst, "\n");
        if (rg_tensat_export_rule(rs.rules[i], dst, &err)) {
          if (dst->s) dst->s[dst->len = before] = 0;
          rg_sb_printf(&skipped, "rule %.16s: %s\n", recs[i]->id.hex, err.msg);
        } else
          written++;
      }
      char mpath[4096];
      multi_name(out, mpath, sizeof mpath);
      rc = write_out(out, &o);
      if (!rc) rc = write_out(mpath, &m);
      if (!rc) fprintf(stderr, "rulesdb export: wrote %s and %s\n", out, mpath);
      rg_sb_free(&m);
    } else if (taso) {
      uint8_t *buf;
      size_t len;
      if (rg_taso_export((const rg_rule *const *)rs.rules, names, (size_t)rs.n, &buf, &len,
                         &written, &skipped, &err))
        rc = 2, fprintf(stderr, "rulesdb export: %s\n", err.msg);
      else
        rc = rdb_write_file("rulesdb export", out, buf, len), free(buf);
    } else if (dir) {
      if (mkdir(dir, 0777) && errno != EEXIST)
        rc = 2, fprintf(stderr, "rulesdb export: cannot create %s: %s\n", dir, strerror(errno));
      for (int i = 0; !rc && i < rs.n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%.16s.dot", dir, recs[i]->id.hex);
        rg_sb_clear(&o);
        rg_dot_rule(rs.rules[i], recs[i]->text, &o);
        rc = write_out(path, &o);
        written++;
      }
    } else {
      rg_dot_rules((const rg_rule *const *)rs.rules, texts, (size_t)rs.n, &o);
      written = (size_t)rs.n;
      rc = write_out(out, &o);
    }
    if (!json)
      fprintf(stderr, "rulesdb export: %zu of %d rules written%s\n", written, rs.n,
              skipped.len ? "; skipped (not expressible in this format):" : "");
    fputs(rg_sb_str(&skipped), stderr);
    free(ids), free(names), free(texts);
  }
  rg_ruleset_free(&rs);
  free(recs);
  rg_sb_free(&o), rg_sb_free(&skipped);
  rg_db_free(db);
  return rc;
}

/* ---- import ---- */

static int cmp_rule_id(const void *a, const void *b) {
  return strcmp(((const rg_db_rule *)a)->id.hex, ((const rg_db_rule *)b)->id.hex);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

/* Builds, signs (if a key is given) and writes a database of imported rules. */
static int write_db(const rg_ruleset *rs, const char *out, const char *key, const char *src,
                    const char *fmt) {
  rg_err err;
  rg_db *db = rg_db_new();
  rg_db_rule *recs = calloc((size_t)rs->n + 1, sizeof *recs);
  int rc = db && recs ? 0 : 2, dups = 0;
  for (int i = 0; !rc && i < rs->n; i++)
    if (rg_db_rule_make(rs->rules[i], RG_DB_IMPORTED, &recs[i], &err)) rc = 2;
  if (!rc) qsort(recs, (size_t)rs->n, sizeof *recs, cmp_rule_id);
  for (int i = 0; !rc && i < rs->n; i++) {
    if (i && !strcmp(recs[i].id.hex, recs[i - 1].id.hex)) {
      dups++;
      continue;
    }
    if (rg_db_add_rule(db, &recs[i], &err)) rc = 2;
  }
  if (!rc && (rg_db_set_config(db, "created_by", "rulesdb import", &err) ||
              rg_db_set_config(db, "import.source", src, &err) ||
              rg_db_set_config(db, "import.format", fmt, &err)))
    rc = 2;
  if (!rc) {
    rg_cli_catch_interrupts();
    rg_db_write_opts wo = {rdb_write_progress, (void *)out};
    if (rg_db_save(db, out, key, &wo, &err)) rc = 2;
  }
  if (rc)
    fprintf(stderr, "rulesdb import: %s\n", db && recs ? err.msg : "out of memory");
  else
    fprintf(stderr, "rulesdb import: wrote %s: %zu rules%s%s\n", out, db->rules.n,
            dups ? " (rules that are identical after parsing stored once)" : "",
            key ? ", signed"
                : ", UNSIGNED (readers refuse it without --allow-unsigned; sign with --key)");
  for (int i = 0; recs && i < rs->n; i++)
    rg_db_rule_clear(&recs[i]);
  free(recs);
  rg_db_free(db);
  return rc;
}

int rdb_import(int argc, char **argv) {
  const char *fmt = NULL, *out = NULL, *key = NULL;
  static const struct option lo[] = {{"format", 1, 0, 'f'},
                                     {"output", 1, 0, 'o'},
                                     {"key", 1, 0, 'k'},
                                     {"help", 0, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "f:o:k:h", lo, NULL)) != -1) {
    if (c == 'f')
      fmt = optarg;
    else if (c == 'o')
      out = optarg;
    else if (c == 'k')
      key = optarg;
    else {
      fprintf(
          c == 'h' ? stdout : stderr,
          "usage: rulesdb import --format FMT FILE -o OUT [--key KEY.key]\n\n"
          "Reads third-party rules into our text format, so they can be tested, proved and\n"
          "audited. Rules with no counterpart of ours are skipped, each named with the reason.\n"
          "  --format taso          TASO's rules.proto binary (e.g. graph_subst.pb)\n"
          "  --format tensat        TENSAT's single-output text (LHS=>RHS per line)\n"
          "  --format tensat-multi  TENSAT's two-output text (consecutive line pairs)\n"
          "  --format text          our rule text (ir/text.h)\n"
          "  -o OUT                 OUT.db: a rule database (status imported); otherwise rule "
          "text\n"
          "  --key KEY.key          sign the database with this secret key\n");
      return c == 'h' ? 0 : 2;
    }
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
  rg_status st;
  if (!strcmp(fmt, "text")) {
    st = rg_text_parse_file(in, &rs, &err);
  } else if (!strcmp(fmt, "taso") || !strcmp(fmt, "tensat") || !strcmp(fmt, "tensat-multi")) {
    size_t len;
    char *data = rdb_slurp("rulesdb import", in, &len);
    if (!data) return 2;
    st = !strcmp(fmt, "taso")
             ? rg_taso_import((const uint8_t *)data, len, &rs, &skipped, &err)
             : rg_tensat_import(data, len, !strcmp(fmt, "tensat-multi"), &rs, &skipped, &err);
    free(data);
  } else {
    return fprintf(stderr,
                   "rulesdb import: unknown format '%s' (taso, tensat, tensat-multi, text)\n", fmt),
           2;
  }
  int rc = 0;
  if (st) {
    if (err.line)
      fprintf(stderr, "rulesdb import: %s:%d:%d: %s\n", in, err.line, err.col, err.msg);
    else
      fprintf(stderr, "rulesdb import: %s: %s\n", in, err.msg);
    rc = 2;
  } else {
    if (skipped.len)
      fprintf(stderr, "rulesdb import: %s: skipped (no counterpart of ours):\n%s", in,
              rg_sb_str(&skipped));
    fprintf(stderr, "rulesdb import: %s: %d rules read\n", in, rs.n);
    if (db_out) {
      rc = write_db(&rs, out, key, in, fmt);
    } else {
      rg_strbuf t;
      rg_sb_init(&t);
      for (int i = 0; i < rs.n; i++)
        rg_text_print_rule(rs.rules[i], &t), rg_sb_puts(&t, "\n");
      rc = t.failed ? 2 : rdb_write_file("rulesdb import", out, rg_sb_str(&t), t.len);
      rg_sb_free(&t);
    }
  }
  rg_ruleset_free(&rs);
  rg_sb_free(&skipped);
  return rc;
}
