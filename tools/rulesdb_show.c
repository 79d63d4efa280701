/* tools/rulesdb_show.c: `rulesdb show` (listing, stage counts) and `rulesdb diff`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rulesdb_cmds.h"

static const rg_cli_option show_options[] = {
    {"op", 'O', 1, "OP", "only rules that use operator OP (e.g. conv2d)"},
    {"status", 's', 1, "S", "only rules of status S (imported unproved tested certified verified)"},
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

static int show_usage(int c) {
  FILE *out = c == 'h' ? stdout : stderr;
  fprintf(out, "usage: rulesdb show DB [ID-PREFIX] [--op OP] [--status S] (--pub KEY.pub | "
               "--allow-unsigned)\n\n"
               "Lists the rules of DB (id, status, source/target size, text), then the stage-count\n"
               "table and the generator configuration. ID-PREFIX shows matching rules in full with\n"
               "their proof, test and certificate records.\n");
  rg_cli_print_options(out, show_options, RG_CLI_COUNT(show_options), 14, 7);
  return c == 'h' ? 0 : 2;
}

/* Rule i in full: its operators, proof, test and certificate records. */
static void print_records(const rg_db *db, const rg_db_groups *g, size_t i) {
  const rg_db_rule *r = &db->rules.v[i];
  printf("  id %s\n  operators: %s\n", r->id.hex, r->ops);
  for (long k = g->proof[i]; k >= 0; k = g->next_proof[k]) {
    const rg_db_proof *p = &db->proofs.v[k];
    printf("  proof of output %d: %s %s: %s in %.3f s; core: %s; obligation %.16s...\n", p->output, p->solver,
           p->version, p->result, p->seconds, p->unsat_core[0] ? p->unsat_core : "-", p->obligation.hex);
  }
  for (long k = g->test[i]; k >= 0; k = g->next_test[k]) {
    const rg_db_test *t = &db->tests.v[k];
    printf("  test: %s, %d trials, seed %llu, %s%s%s: %s\n", t->domain, t->trials, (unsigned long long)t->seed,
           t->shapes, t->params[0] ? " " : "", t->params, t->result);
  }
  for (long k = g->cert[i]; k >= 0; k = g->next_cert[k])
    printf("  certificate: version %d, %zu bytes\n", db->certs.v[k].version, db->certs.v[k].len);
}

/* The stage-count table and the configuration. */
static void print_stages(const rg_db *db) {
  if (db->stages.n) {
    printf("\n%-20s %12s %12s %10s  %s\n", "stage", "in", "out", "seconds", "dropped (why)");
    for (size_t i = 0; i < db->stages.n; i++) {
      const rg_db_stage *s = &db->stages.v[i];
      printf("%-20s %12lld %12lld %10.2f  %s\n", s->name, (long long)s->n_in, (long long)s->n_out, s->seconds,
             s->dropped);
    }
  }
  if (db->config.n) {
    printf("\nconfiguration:\n");
    for (size_t i = 0; i < db->config.n; i++) printf("  %s = %s\n", db->config.v[i].key, db->config.v[i].value);
  }
}

/* The selected rules (in full when a prefix chose them), the counts, stages and configuration. */
static int show(const rg_db *db, const rg_db_select *sel) {
  rg_db_groups g;
  rg_err err;
  if (rg_db_groups_build(db, &g, &err)) return fprintf(stderr, "rulesdb show: %s\n", err.msg), 2;
  size_t shown = 0;
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    if (!rg_db_rule_selected(r, sel)) continue;
    shown++;
    printf("%.12s  %-9s %2d/%-2d  %s\n", r->id.hex, rg_db_status_name(r->status), r->src_size, r->tgt_size, r->text);
    if (sel->prefix) print_records(db, &g, i);
  }
  rg_db_groups_free(&g);
  printf("%zu of %zu rules shown; %zu proof, %zu test, %zu certificate, %zu pruning records\n", shown, db->rules.n,
         db->proofs.n, db->tests.n, db->certs.n, db->prunes.n);
  print_stages(db);
  return 0;
}

int rdb_show(int argc, char **argv) {
  const char *pub = NULL;
  rg_db_select sel = {.status = -1};
  bool allow = false;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, show_options, RG_CLI_COUNT(show_options));
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == 'p') pub = optarg;
    else if (c == RG_CLI_LONG_ONLY('U')) allow = true;
    else if (c == 'O') sel.op = optarg;
    else if (c == 's' && (sel.status = rg_db_status_by_name(optarg)) >= 0) continue;
    else {
      if (c == 's')
        fprintf(stderr, "rulesdb show: unknown status '%s' (imported, unproved, tested, certified, verified)\n",
                optarg);
      return show_usage(c);
    }
  }
  if (optind >= argc || argc - optind > 2)
    return fprintf(stderr, "rulesdb show: give a database and at most one id prefix (see --help)\n"), 2;
  sel.prefix = argc - optind == 2 ? argv[optind + 1] : NULL;
  rg_db *db;
  int rc = rdb_open("rulesdb show", argv[optind], pub, allow, &db, NULL);
  if (rc) return rc;
  rc = show(db, &sel);
  rg_db_free(db);
  return rc;
}

static const rg_cli_option diff_options[] = {
    {"json", 'j', 0, "", "one JSON object: added, removed, changed, counts"},
    RDB_READER_ROWS,
    RG_CLI_HELP_ROW,
};

static int diff_usage(int c) {
  FILE *out = c == 'h' ? stdout : stderr;
  fprintf(out, "usage: rulesdb diff BASE.db NEW.db (--pub KEY.pub | --allow-unsigned) [--json]\n\n"
               "Lists rules added (+), removed (-) and changed (~: status or evidence) from BASE to\n"
               "NEW, matched by content id. A rule verified or certified in BASE that NEW lost\n"
               "(without a pruning record saying which rules imply it) or downgraded is a\n"
               "REGRESSION. Both databases are verified with the same key.\n"
               "Exit status: 0 no regression, 1 regression, 2 error.\n");
  rg_cli_print_options(out, diff_options, RG_CLI_COUNT(diff_options), 14, 7);
  return c == 'h' ? 0 : 2;
}

int rdb_diff(int argc, char **argv) {
  const char *pub = NULL;
  bool allow = false, json = false;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, diff_options, RG_CLI_COUNT(diff_options));
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == 'p') pub = optarg;
    else if (c == RG_CLI_LONG_ONLY('U')) allow = true;
    else if (c == 'j') json = true;
    else return diff_usage(c);
  }
  if (optind + 2 != argc)
    return fprintf(stderr, "rulesdb diff: give BASE.db and NEW.db (see --help)\n"), 2;
  rg_db *base = NULL, *new_ = NULL;
  int rc = rdb_open("rulesdb diff", argv[optind], pub, allow, &base, NULL);
  if (!rc) rc = rdb_open("rulesdb diff", argv[optind + 1], pub, allow, &new_, NULL);
  if (rc) return rg_db_free(base), rc;
  rg_db_diff d;
  rg_err err;
  if (rg_db_diff_compute(base, new_, &d, &err)) {
    fprintf(stderr, "rulesdb diff: %s\n", err.msg);
    rc = 2;
  } else {
    rg_strbuf out;
    rg_sb_init(&out);
    if (json)
      rg_db_diff_print_json(&d, &out);
    else
      rg_db_diff_print(&d, &out);
    fputs(rg_sb_str(&out), stdout);
    rg_sb_free(&out);
    rc = d.regressions ? 1 : 0;
    rg_db_diff_free(&d);
  }
  rg_db_free(base), rg_db_free(new_);
  return rc;
}
