/* optimizer/report/report.c: models and costs as graphopt reports them (report.h). */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>

#include "optimizer/proto/proto.h"

void rg_model_io_print(const rg_model *m, rg_strbuf *out) {
  char buf[128];
  for (int32_t v = 0; v < m->n_var; v++) {
    const rg_mvar *x = &m->var[v];
    if (x->kind != RG_MVAR_INPUT) continue;
    if (x->typed)
      rg_sb_printf(out, "  input  %s: %s %s\n", rg_graph_tvar_name(m->g, v), rg_onnx_elem_name(x->elem),
                   rg_shape_format(&x->shape, buf, sizeof buf));
    else rg_sb_printf(out, "  input  %s: kept as read: %s\n", rg_graph_tvar_name(m->g, v), x->why ? x->why : "");
  }
  for (int32_t i = 0; i < m->n_out; i++) {
    int32_t v = rg_model_var_of(m, m->out[i]);
    if (v >= 0 && !m->var[v].typed) rg_sb_printf(out, "  output %s: kept as read\n", m->out_name[i]);
    else rg_sb_printf(out, "  output %s: %s\n", m->out_name[i], rg_shape_format(rg_model_shape(m, m->out[i]), buf, sizeof buf));
  }
}

/* What of m graphopt keeps as read without evaluating it: a line, when there is any. */
static void kept_print(const rg_model *m, const rg_model_counts *c, rg_strbuf *out) {
  if (!c->opaque_values && !c->not_evaluated) return;
  const char *first = NULL;
  for (int32_t k = 0; k < m->n_op && !first; k++) first = m->op[k].why;
  rg_sb_printf(out, "  kept as read: %d value%s of types graphopt does not model, %d node%s it does not evaluate%s%s\n",
               c->opaque_values, c->opaque_values == 1 ? "" : "s", c->not_evaluated, c->not_evaluated == 1 ? "" : "s",
               first ? "; the first: " : "", first ? first : "");
}

void rg_model_counts_print(const rg_model *m, rg_strbuf *out) {
  rg_model_counts c;
  rg_model_count(m, &c);
  int32_t total = 0;
  for (int op = 0; op < RG_OP_COUNT; op++) total += c.by_op[op];
  rg_sb_printf(out, "  operators: %d of the rule vocabulary (", total);
  for (int op = 0, first = 1; op < RG_OP_COUNT; op++)
    if (c.by_op[op])
      rg_sb_printf(out, "%s%s %d", first ? "" : ", ", rg_op_get((rg_op)op)->name, c.by_op[op]), first = 0;
  rg_sb_printf(out, "), %d opaque", c.opaque);
  /* opaque nodes by operator, in the order they first appear; then the ones kept with the types
   * the model declares, which graphopt cannot evaluate */
  rg_opaque_kind *k = malloc(sizeof *k * (size_t)(m->n_op + 1));
  int32_t n = k ? rg_model_opaque_kinds(m, k) : 0, shown = 0;
  for (int32_t i = 0; i < n; i++) rg_sb_printf(out, "%s%s %d", i ? ", " : " (", k[i].op_type, k[i].count);
  rg_sb_puts(out, n ? ")\n" : "\n");
  for (int32_t i = 0; i < n; i++)
    if (!k[i].evaluated) rg_sb_printf(out, "%s%s", shown++ ? ", " : "  not evaluated: ", k[i].op_type);
  rg_sb_puts(out, shown ? "\n" : "");
  free(k);
  kept_print(m, &c, out);
  rg_sb_printf(out, "  weights: %lld values\n", (long long)c.weights);
}

rg_status rg_model_cost_print(rg_cost_model *cm, const rg_model *m, const char *name, double t_import,
                             const char *cache, rg_strbuf *out, rg_err *err) {
  const rg_cost_backend *b = rg_cost_backend_find(rg_cost_model_name(cm));
  rg_cost_sum s;
  rg_cost_stats st;
  double t0 = rg_clock_seconds();
  rg_status rc = rg_cost_sum_model(cm, m, &s, err);
  if (rc) return rc;
  double t_cost = rg_clock_seconds() - t0;
  rg_cost_model_stats(cm, &st);
  rg_sb_printf(out, "%s: imported in %.3f s; cost model %s (%s)\n", name, t_import, rg_cost_model_name(cm),
               st.device ? st.device : "?");
  rg_cost_sum_print(&s, m->n_op, out);
  rg_cost_stats_print(&st, b && b->cached, cache, t_cost, out);
  return RG_OK;
}

void rg_cost_sum_print(const rg_cost_sum *s, int32_t opaque, rg_strbuf *out) {
  int32_t nodes = 0;
  rg_sb_printf(out, "  %-10s %6s %14s %7s\n", "operator", "nodes", "cost (us)", "share");
  for (int op = 0; op < RG_OP_COUNT; op++) {
    if (!s->count[op]) continue;
    nodes += s->count[op];
    rg_sb_printf(out, "  %-10s %6d %14.1f %6.1f%%\n", rg_op_get((rg_op)op)->name, s->count[op], s->us[op],
                 s->total > 0 ? 100 * s->us[op] / s->total : 0);
  }
  char fused[64] = "cost 0";
  if (s->fused_us > 0) snprintf(fused, sizeof fused, "adding %.1f us", s->fused_us);
  rg_sb_printf(out,
               "  total: %.1f us (%.3f ms) for %d node%s; %d weight-only node%s folded and %d bias or "
               "activation node%s fused into a Conv or Gemm (%s); %d opaque node%s not counted\n",
               s->total, s->total / 1e3, nodes, nodes == 1 ? "" : "s", s->folded, s->folded == 1 ? "" : "s",
               s->fused, s->fused == 1 ? "" : "s", fused, opaque, opaque == 1 ? "" : "s");
}

/* The 1-minute load average, or -1: timings taken beside other work (more runnable threads
 * than cores) measure the scheduler too, which the reader should know. */
static double load_average(void) {
  double load = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f && fscanf(f, "%lf", &load) != 1) load = -1;
  if (f) fclose(f);
  return load;
}

void rg_cost_stats_print(const rg_cost_stats *st, bool cached, const char *cache, double t_cost, rg_strbuf *out) {
  if (!cached) {
    rg_sb_printf(out, "  nodes figured: %lld; costed in %.3f s\n", (long long)st->computed, t_cost);
    return;
  }
  rg_sb_printf(out, "  configurations: %lld measured, %lld from the cache%s%s, %lld by the roofline",
               (long long)st->measured, (long long)st->cached, cache[0] ? " " : "", cache, (long long)st->fallback);
  if (st->refused) /* a figure from another model, where the one asked for could not run */
    rg_sb_printf(out, " (%lld of them refused or failed by onnxruntime, %lld with nothing to time)",
                 (long long)st->refused, (long long)(st->fallback - st->refused));
  else
    rg_sb_puts(out, " (nothing to time)");
  rg_sb_printf(out, "; costed in %.3f s", t_cost);
  double load = st->measured ? load_average() : -1;
  if (load >= 0) rg_sb_printf(out, " (load average %.2f)", load);
  rg_sb_puts(out, "\n");
  if (st->run_us > 0 || st->node_us > 0) /* ort's */
    rg_sb_printf(out, "  overheads: %.1f us a run (left out of every cost), %.2f us a node's dispatch (in its cost)\n",
                 st->run_us, st->node_us);
}
