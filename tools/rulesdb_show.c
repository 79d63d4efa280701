/* tools/rulesdb_show.c: `rulesdb show` (listing, stage counts; rulesdb/dbexchange.h) and
 * `rulesdb diff`. */
#include <stdio.h>
#include <string.h>

#include "rulesdb_cmds.h"

/* The text in out on stdout, or err's message after prog on stderr; the exit status. */
static int print(const char *prog, rg_status st, rg_strbuf *out, const rg_err *err) {
  if (st) fprintf(stderr, "%s: %s\n", prog, err->msg);
  else fputs(rg_sb_str(out), stdout);
  rg_sb_free(out);
  return st ? 2 : 0;
}

/* Where the readers' option values go (cli/fields.h). */
typedef struct {
  const char *pub, *json, *png, *new_pub;
  bool allow, lost, lost_text;
  rg_db_show_opts show;
} read_args;
static const rg_cli_field read_fields[] = {
    RG_CLI_STORE(RG_OPT_PUB, RG_CLI_TEXT, read_args, pub), RG_CLI_STORE(RG_OPT_ALLOW_UNSIGNED, RG_CLI_SET, read_args, allow),
    RG_CLI_STORE(RG_OPT_JSON, RG_CLI_TEXT, read_args, json), RG_CLI_STORE(RG_OPT_NEW_PUB, RG_CLI_TEXT, read_args, new_pub),
    RG_CLI_STORE(RG_OPT_LOST, RG_CLI_SET, read_args, lost), RG_CLI_STORE(RG_OPT_LOST_TEXT, RG_CLI_SET, read_args, lost_text),
    RG_CLI_STORE(RG_OPT_OP, RG_CLI_TEXT, read_args, show.sel.op),
    RG_CLI_STORE(RG_OPT_LIST, RG_CLI_SET, read_args, show.list),
    RG_CLI_STORE(RG_OPT_CONFIG, RG_CLI_SET, read_args, show.config),
    RG_CLI_STORE(RG_OPT_PNG, RG_CLI_TEXT, read_args, png)};

static int status_option(int code, const char *arg, void *base) {
  read_args *a = base;
  if (code != RG_OPT_STATUS) return RG_CLI_NOT_MINE;
  if ((a->show.sel.status = rg_db_status_by_name(arg)) >= 0) return RG_CLI_GO_ON;
  fprintf(stderr, "rulesdb show: unknown status '%s' (imported, unproved, tested, certified, verified)\n", arg);
  return RG_CLI_NOT_MINE;
}

int rdb_show(int argc, char **argv) {
  read_args a = {.show.sel.status = -1};
  int rc = rg_cli_parse("rulesdb show", &rg_doc_rulesdb_show, NULL, read_fields, RG_CLI_COUNT(read_fields),
                        status_option, &a, argc, argv);
  if (rc != RG_CLI_GO_ON) return rc;
  if (optind >= argc || argc - optind > 2)
    return fprintf(stderr, "rulesdb show: give a database and at most one id prefix (see --help)\n"), 2;
  a.show.sel.prefix = argc - optind == 2 ? argv[optind + 1] : NULL;
  if (a.png && !a.show.sel.prefix)
    return fprintf(stderr, "rulesdb show: --png draws one rule: give its ID-PREFIX (see --help)\n"), 2;
  rg_db *db;
  rc = rdb_open("rulesdb show", argv[optind], a.pub, a.allow, &db, NULL);
  if (rc) return rc;
  rg_strbuf out;
  rg_err err;
  rg_sb_init(&out);
  rg_status st = a.png ? rg_db_render_rule(db, a.show.sel.prefix, "png", a.png, &err) : rg_db_show(db, &a.show, &out, &err);
  if (!st && a.png) rg_sb_printf(&out, "wrote %s\n", a.png);
  rc = print("rulesdb show", st, &out, &err);
  rg_db_free(db);
  return rc;
}

/* --json FILE other than -: the JSON in out goes to FILE (out is left empty). */
static rg_status write_json(const char *path, rg_strbuf *out, rg_err *err) {
  rg_status st = rg_atomic_write(path, rg_sb_str(out), strlen(rg_sb_str(out)), err);
  rg_sb_clear(out);
  return st;
}

int rdb_diff(int argc, char **argv) {
  read_args a = {0};
  int rc = rg_cli_parse("rulesdb diff", &rg_doc_rulesdb_diff, NULL, read_fields, 6, NULL, &a, argc, argv);
  if (rc != RG_CLI_GO_ON) return rc;
  rg_diff_mode mode = a.lost_text ? RG_DIFF_SHIPPED : a.lost ? RG_DIFF_LOST : RG_DIFF_PROVED;
  if (optind + 2 != argc) return fprintf(stderr, "rulesdb diff: give BASE.db and NEW.db (see --help)\n"), 2;
  if (mode && (a.allow || !a.pub))
    return fprintf(stderr, "rulesdb diff: --lost guards against a signed BASE: give --pub BASE.pub, not --allow-unsigned\n"), 2;
  rg_db *base = NULL, *new_ = NULL;
  rc = rdb_open("rulesdb diff", argv[optind], a.pub, a.allow, &base, NULL);
  if (!rc) rc = rdb_open("rulesdb diff", argv[optind + 1], a.new_pub ? a.new_pub : a.pub, a.allow, &new_, NULL);
  if (rc) return rg_db_free(base), mode ? 2 : rc; /* --lost: 1 is only "something lost" */
  rg_db_diff d;
  rg_err err;
  rg_strbuf out;
  rg_sb_init(&out);
  rg_status st = rg_db_diff_compute(base, new_, mode, &d, &err);
  bool computed = !st;
  if (!st) (a.json ? rg_db_diff_print_json : rg_db_diff_print)(&d, &out);
  if (!st && a.json && strcmp(a.json, "-")) st = write_json(a.json, &out, &err);
  rc = print("rulesdb diff", st, &out, &err);
  if (!st) rc = d.regressions ? 1 : 0;
  if (computed) rg_db_diff_free(&d);
  rg_db_free(base), rg_db_free(new_);
  return rc;
}
