/* rulesdb/dbshow.c: a database's rules, records, stage counts and configuration as text
 * (`rulesdb show`; dbexchange.h). */
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
  if (db->stages.n) {
    rg_sb_printf(out, "\n%-20s %12s %12s %10s  %s\n", "stage", "in", "out", "seconds", "dropped (why)");
    for (size_t i = 0; i < db->stages.n; i++) {
      const rg_db_stage *s = &db->stages.v[i];
      rg_sb_printf(out, "%-20s %12lld %12lld %10.2f  %s\n", s->name, (long long)s->n_in, (long long)s->n_out,
                   s->seconds, s->dropped);
    }
  }
  if (db->config.n) {
    rg_sb_puts(out, "\nconfiguration:\n");
    for (size_t i = 0; i < db->config.n; i++)
      rg_sb_printf(out, "  %s = %s\n", db->config.v[i].key, db->config.v[i].value);
  }
}

rg_status rg_db_show(const rg_db *db, const rg_db_select *sel, rg_strbuf *out, rg_err *err) {
  rg_db_groups g;
  rg_status st = rg_db_groups_build(db, &g, err);
  if (st) return st;
  size_t shown = 0;
  for (size_t i = 0; i < db->rules.n; i++) {
    const rg_db_rule *r = &db->rules.v[i];
    if (!rg_db_rule_selected(r, sel)) continue;
    shown++;
    rg_sb_printf(out, "%.12s  %-9s %2d/%-2d  %s\n", r->id.hex, rg_db_status_name(r->status), r->src_size,
                 r->tgt_size, r->text);
    if (sel->prefix) rg_db_show_records(db, &g, i, out);
  }
  rg_db_groups_free(&g);
  rg_sb_printf(out, "%zu of %zu rules shown; %zu proof, %zu test, %zu certificate, %zu pruning records\n", shown,
               db->rules.n, db->proofs.n, db->tests.n, db->certs.n, db->prunes.n);
  rg_db_show_stages(db, out);
  return RG_OK;
}
