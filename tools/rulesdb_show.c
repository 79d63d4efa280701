/* tools/rulesdb_show.c: `rulesdb show` (listing, stage counts; rulesdb/dbexchange.h) and
 * `rulesdb diff`. */
#include <stdio.h>

#include "rulesdb_cmds.h"

/* The text in out on stdout, or err's message after prog on stderr; the exit status. */
static int print(const char *prog, rg_status st, rg_strbuf *out, const rg_err *err) {
  if (st) fprintf(stderr, "%s: %s\n", prog, err->msg);
  else fputs(rg_sb_str(out), stdout);
  rg_sb_free(out);
  return st ? 2 : 0;
}

int rdb_show(int argc, char **argv) {
  const char *pub = NULL;
  rg_db_select sel = {.status = -1};
  bool allow = false;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_rulesdb_show.options, rg_doc_rulesdb_show.n_options);
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == 'p') pub = optarg;
    else if (c == RG_CLI_LONG_ONLY('U')) allow = true;
    else if (c == 'O') sel.op = optarg;
    else if (c == 's' && (sel.status = rg_db_status_by_name(optarg)) >= 0) continue;
    else {
      if (c == 's')
        fprintf(stderr, "rulesdb show: unknown status '%s' (imported, unproved, tested, certified, verified)\n", optarg);
      return rdb_usage(&rg_doc_rulesdb_show, c, NULL);
    }
  }
  if (optind >= argc || argc - optind > 2)
    return fprintf(stderr, "rulesdb show: give a database and at most one id prefix (see --help)\n"), 2;
  sel.prefix = argc - optind == 2 ? argv[optind + 1] : NULL;
  rg_db *db;
  int rc = rdb_open("rulesdb show", argv[optind], pub, allow, &db, NULL);
  if (rc) return rc;
  rg_strbuf out;
  rg_err err;
  rg_sb_init(&out);
  rc = print("rulesdb show", rg_db_show(db, &sel, &out, &err), &out, &err);
  rg_db_free(db);
  return rc;
}

int rdb_diff(int argc, char **argv) {
  const char *pub = NULL;
  bool allow = false, json = false;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_rulesdb_diff.options, rg_doc_rulesdb_diff.n_options);
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == 'p') pub = optarg;
    else if (c == RG_CLI_LONG_ONLY('U')) allow = true;
    else if (c == 'j') json = true;
    else return rdb_usage(&rg_doc_rulesdb_diff, c, NULL);
  }
  if (optind + 2 != argc) return fprintf(stderr, "rulesdb diff: give BASE.db and NEW.db (see --help)\n"), 2;
  rg_db *base = NULL, *new_ = NULL;
  int rc = rdb_open("rulesdb diff", argv[optind], pub, allow, &base, NULL);
  if (!rc) rc = rdb_open("rulesdb diff", argv[optind + 1], pub, allow, &new_, NULL);
  if (rc) return rg_db_free(base), rc;
  rg_db_diff d;
  rg_err err;
  rg_strbuf out;
  rg_sb_init(&out);
  rg_status st = rg_db_diff_compute(base, new_, &d, &err);
  if (!st) (json ? rg_db_diff_print_json : rg_db_diff_print)(&d, &out);
  rc = print("rulesdb diff", st, &out, &err);
  if (!st) rc = d.regressions ? 1 : 0, rg_db_diff_free(&d);
  rg_db_free(base), rg_db_free(new_);
  return rc;
}
