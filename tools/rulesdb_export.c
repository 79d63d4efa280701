/* tools/rulesdb_export.c: `rulesdb export` and `rulesdb import` (rulesdb/dbexchange.h does the
 * writing). */
#include <stdio.h>
#include <string.h>

#include "rulesdb_cmds.h"

typedef struct {
  const char *pub;
  bool allow;
  rg_db_export_opts o;
} export_args;

/* The options into a; false with *rc the exit status when the command ends here. */
static bool export_parse(int argc, char **argv, export_args *a, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_rulesdb_export.options, rg_doc_rulesdb_export.n_options);
  int c;
  *a = (export_args){.o.status = -1};
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case RG_OPT_PUB: a->pub = optarg; break;
    case RG_OPT_ALLOW_UNSIGNED: a->allow = true; break;
    case RG_OPT_FORMAT: a->o.fmt = optarg; break;
    case RG_OPT_OUTPUT: a->o.out = optarg; break;
    case RG_OPT_PER_RULE: a->o.dir = optarg; break;
    case RG_OPT_STATUS:
      if ((a->o.status = rg_db_status_by_name(optarg)) >= 0) break;
      /* fall through */
    default: return *rc = rdb_usage(&rg_doc_rulesdb_export, c, NULL), false;
    }
  }
  const char *fmt = a->o.fmt;
  *rc = 2;
  if (optind + 1 != argc || !fmt)
    return fprintf(stderr, "rulesdb export: give one database and --format (see --help)\n"), false;
  if (strcmp(fmt, "tensat") && strcmp(fmt, "taso") && strcmp(fmt, "json") && strcmp(fmt, "dot"))
    return fprintf(stderr, "rulesdb export: unknown format '%s' (tensat, taso, json, dot)\n", fmt), false;
  if ((!strcmp(fmt, "tensat") || !strcmp(fmt, "taso")) && !a->o.out)
    return fprintf(stderr, "rulesdb export: --format %s needs -o OUT\n", fmt), false;
  if (!strcmp(fmt, "dot") && !a->o.out && !a->o.dir)
    return fprintf(stderr, "rulesdb export: --format dot writes a folder of one file per rule: give -o DIR\n"), false;
  rg_err err;
  if (a->o.out && strcmp(fmt, "dot") && rg_path_check_writable(a->o.out, &err)) /* before the database is read */
    return fprintf(stderr, "rulesdb export: -o %s\n", err.msg), false;
  return true;
}

int rdb_export(int argc, char **argv) {
  export_args a;
  int rc;
  if (!export_parse(argc, argv, &a, &rc)) return rc;
  rg_db *db;
  rc = rdb_open("rulesdb export", argv[optind], a.pub, a.allow, &db, NULL);
  if (rc) return rc;
  rg_err err;
  rg_strbuf log;
  rg_sb_init(&log);
  rg_status st = rg_db_export_files(db, &a.o, stdout, &log, &err);
  if (st) fprintf(stderr, "rulesdb export: %s\n", err.msg);
  fputs(rg_sb_str(&log), stderr);
  rg_sb_free(&log);
  rg_db_free(db);
  return st ? 2 : 0;
}

/* ---- import ---- */

int rdb_import(int argc, char **argv) {
  const char *fmt = NULL, *out = NULL, *key = NULL;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_rulesdb_import.options, rg_doc_rulesdb_import.n_options);
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == RG_OPT_FORMAT) fmt = optarg;
    else if (c == RG_OPT_OUTPUT) out = optarg;
    else if (c == RG_OPT_KEY) key = optarg;
    else return rdb_usage(&rg_doc_rulesdb_import, c, NULL);
  }
  if (optind + 1 != argc || !fmt || !out)
    return fprintf(stderr, "rulesdb import: give --format, one FILE and -o OUT (see --help)\n"), 2;
  const char *in = argv[optind];
  if (key && !rg_db_path_is_db(out))
    return fprintf(stderr, "rulesdb import: --key signs a database: name the output *.db\n"), 2;
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_strbuf log;
  rg_sb_init(&log);
  rg_err err;
  rg_status st = rg_db_import_read(fmt, in, &rs, &log, &err);
  if (!st && rg_db_path_is_db(out)) rg_cli_catch_interrupts();
  rg_db_write_opts wo = {rdb_write_progress, (void *)out};
  if (!st) fputs(rg_sb_str(&log), stderr), rg_sb_clear(&log);
  if (!st) st = rg_db_import_write(&rs, out, key, in, fmt, &wo, &log, &err);
  if (st) fprintf(stderr, "rulesdb import: %s\n", err.msg);
  fputs(rg_sb_str(&log), stderr);
  rg_ruleset_free(&rs);
  rg_sb_free(&log);
  return st ? 2 : 0;
}
