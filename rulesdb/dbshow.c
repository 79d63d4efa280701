/* rulesdb/dbshow.c: a database's rules, records, stage counts and configuration as text
 * (`rulesdb show`; dbexchange.h). */
#include <stdio.h>
#include <string.h>

#include "dbexchange.h"

void rg_db_show_records(const rg_db *db, const rg_db_groups *g, size_t i, rg_strbuf *out) {
  const rg_db_rule *r = &db->rules.v[i];
  rg_sb_printf(out, "  id %s\n  operators: %s\n", r->id.hex, r->ops);
  for (long k = g->proof[i]; k >= 0; k = g->next_proof[k]) {
    const rg_db_proof *p = &db->proofs.v[k];
    rg_sb_printf(out, "  proof of output %d: %s %s: %s in %.3f s; core: %s; obligation %.16s...\n", p->output,
                 p->solver, p->version, p->result, p->seconds, p->unsat_core[0] ? p->unsat_core : "-",
                 p->obligation.hex);
  }
  for (long k = g->test[i]; k >= 0; k = g->next_test[k]) {
    const rg_db_test *t = &db->tests.v[k];
    rg_sb_printf(out, "  test: %s, %d trials, seed %llu, %s%s%s: %s\n", t->domain, t->trials,
                 (unsigned long long)t->seed, t->shapes, t->params[0] ? " " : "", t->params, t->result);
  }
  for (long k = g->cert[i]; k >= 0; k = g->next_cert[k])
    rg_sb_printf(out, "  certificate: version %d, %zu bytes\n", db->certs.v[k].version, db->certs.v[k].len);
}

void rg_db_show_stages(const rg_db *db, rg_strbuf *out) {
  if (!db->stages.n) return;
  rg_sb_printf(out, "\n%-20s %12s %12s %10s  %s\n", "stage", "in", "out", "seconds", "dropped (why)");
  for (size_t i = 0; i < db->stages.n; i++) {
    const rg_db_stage *s = &db->stages.v[i];
    rg_sb_printf(out, "%-20s %12lld %12lld %10.2f  %s\n", s->name, (long long)s->n_in, (long long)s->n_out,
                 s->seconds, s->dropped);
  }
}

void rg_db_show_config(const rg_db *db, rg_strbuf *out) {
  if (!db->config.n) return (void)rg_sb_puts(out, "\nconfiguration: none\n");
  rg_sb_puts(out, "\nconfiguration:\n");
  for (size_t i = 0; i < db->config.n; i++) {
    const char *v = db->config.v[i].value, *nl = strchr(v, '\n');
    if (!nl) {
      rg_sb_printf(out, "  %s = %s\n", db->config.v[i].key, v);
      continue;
    }
    /* a record blob (prune.records): its size, not its lines */
    size_t lines = 0;
    for (const char *p = v; (p = strchr(p, '\n')); p++) lines++;
    rg_sb_printf(out, "  %s = (%zu lines, %zu bytes)\n",
                 db->config.v[i].key, lines + (v[strlen(v) - 1] != '\n'), strlen(v));
  }
}

/* Counts of the rules by status and by source/target size: the summary's tables. */
static void show_counts(const rg_db *db, rg_strbuf *out) {
  size_t by_status[RG_DB_STATUS_COUNT] = {0};
  enum { MAXS = 16 };
  size_t by_size[MAXS + 1][MAXS + 1] = {{0}};
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    by_status[r->status]++;
    by_size[r->src_size < MAXS ? r->src_size : MAXS][r->tgt_size < MAXS ? r->tgt_size : MAXS]++;
  }
  if (!db->rules.n) return (void)rg_sb_puts(out, "\n(no rules: no counts by status or size)\n");
  rg_sb_printf(out, "\n%-20s %12s\n", "status", "rules");
  for (int s = 0; s < RG_DB_STATUS_COUNT; s++)
    if (by_status[s]) rg_sb_printf(out, "%-20s %12zu\n", rg_db_status_name((rg_db_status)s), by_status[s]);
  rg_sb_printf(out, "\n%-20s %12s\n", "operators src/tgt", "rules");
  for (int a = 0; a <= MAXS; a++)
    for (int b = 0; b <= MAXS; b++)
      if (by_size[a][b]) {
        char label[32];
        snprintf(label, sizeof label, "%d%s/%d%s", a, a == MAXS ? "+" : "", b, b == MAXS ? "+" : "");
        rg_sb_printf(out, "%-20s %12zu\n", label, by_size[a][b]);
      }
}

/* The selected rules, one line each (with their records when chosen by id prefix). */
static void show_rules(const rg_db *db, const rg_db_groups *g, const rg_db_select *sel, rg_strbuf *out) {
  size_t shown = 0;
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    if (!rg_db_rule_selected(r, sel)) continue;
    if (!shown++) rg_sb_printf(out, "%-12s  %-9s %5s  %s\n", "id", "status", "sizes", "rule");
    rg_sb_printf(out, "%.12s  %-9s %2d/%-2d  %s\n", r->id.hex, rg_db_status_name(r->status), r->src_size,
                 r->tgt_size, r->text);
    if (sel->prefix) rg_db_show_records(db, g, i, out);
  }
  rg_sb_printf(out, "%zu of %zu rules shown\n", shown, db->rules.n);
}

bool rg_db_select_any(const rg_db_select *sel) {
  return sel->prefix || sel->op || sel->status >= 0;
}

rg_status rg_db_show(const rg_db *db, const rg_db_show_opts *o, rg_strbuf *out, rg_err *err) {
  rg_db_groups g = {0}; /* the records by rule: only an id prefix shows them */
  rg_status st = o->sel.prefix ? rg_db_groups_build(db, &g, err) : RG_OK;
  if (st) return st;
  bool filtered = rg_db_select_any(&o->sel);
  if (filtered || o->list) show_rules(db, &g, &o->sel, out);
  rg_db_groups_free(&g);
  if (!filtered) {
    rg_sb_printf(out, "%s%zu rules; %zu proof, %zu test, %zu certificate and %zu pruning records\n",
                 o->list ? "\n" : "", db->rules.n, db->proofs.n, db->tests.n, db->certs.n, db->prunes.n);
    show_counts(db, out);
    rg_db_show_stages(db, out);
  }
  if (o->config) rg_db_show_config(db, out);
  else if (!filtered) rg_sb_printf(out, "\n%zu configuration values (--config shows them)\n", db->config.n);
  return RG_OK;
}
