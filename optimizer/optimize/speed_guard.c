/* optimizer/optimize/speed_guard.c: the measured guard (speed_guard.h). */
#include "speed_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numcheck.h"
#include "optimizer/onnx/onnx.h"

/* On by default: the costs are this CPU's (speed_guard.h). */
static bool this_cpu(const char *cost, const char *machine) {
  return strcmp(cost, "cuda") && rg_cost_machine_is_default(machine);
}

rg_status rg_speed_guard_setup(rg_speed_guard *g, int asked, const char *cost, const char *machine, rg_err *err) {
  *g = (rg_speed_guard){0};
  const char *env = getenv("GRAPHOPT_GUARD");
  if (asked < 0 && env && *env && strcmp(env, "auto")) {
    if (!strcmp(env, "on") || !strcmp(env, "off")) asked = !strcmp(env, "on");
    else return rg_err_set(err, RG_ERR_ARG, "GRAPHOPT_GUARD=%s: want on, off or auto", env);
  }
  if (asked < 0 && !strcmp(cost, "ort")) asked = 1; /* its costs' helper serves the guard too */
  g->asked = asked > 0;
  g->on = asked < 0 ? this_cpu(cost, machine) : asked > 0;
  return RG_OK;
}

bool rg_speed_guard_keeps_original(const rg_speed_guard *g) {
  return g && ((g->measured && !g->cmp.faster) || g->refused[0]);
}

const char *rg_speed_guard_why_original(const rg_speed_guard *g) {
  return g->refused[0] ? " (the original: onnxruntime refuses the optimized model)"
                       : " (the original: the optimized model is not faster)";
}

/* The symbolic dimensions m's inputs were given ("N=4096 S=128"), into g->at. */
static void dims_at(const rg_model *m, rg_speed_guard *g) {
  size_t n = 0;
  g->at[0] = 0;
  for (int32_t k = 0; k < m->n_dims && n < sizeof g->at; k++) {
    const rg_model_dim *d = &m->dims[k];
    n += (size_t)snprintf(g->at + n, sizeof g->at - n, "%s%s=%lld", n ? " " : "", d->name[0] ? d->name : "?",
                          (long long)d->value);
  }
}

/* m's inputs as the numeric check drew them, as rg_ort_compare's inputs: each typed input's shape
 * (symbolic dimensions at --dim's values) and the rows of a table a Gather reads with it. */
static void inputs_json(const rg_model *m, rg_strbuf *sb) {
  int64_t *rows = rg_numcheck_index_bounds(m); /* NULL (out of memory): the helper's bound */
  rg_sb_puts(sb, "{");
  for (int32_t v = 0, n = 0; v < m->n_var; v++) {
    const rg_mvar *x = &m->var[v];
    if (x->kind != RG_MVAR_INPUT || !x->typed) continue;
    rg_sb_puts(sb, n++ ? ", " : "");
    rg_json_string(sb, rg_graph_tvar_name(m->g, v));
    rg_sb_puts(sb, ": {\"dims\": [");
    for (int d = 0; d < x->shape.rank; d++) rg_sb_printf(sb, "%s%lld", d ? ", " : "", (long long)x->shape.dim[d]);
    rg_sb_puts(sb, "]");
    if (rows && rows[v] > 0) rg_sb_printf(sb, ", \"int_max\": %lld", (long long)rows[v]);
    rg_sb_puts(sb, "}");
  }
  rg_sb_puts(sb, "}");
  free(rows);
}

/* The comparison with helper h: the original's file against r's model as bytes (or, under the
 * test hook, the original's file again). */
static rg_status compare(rg_ort *h, const rg_model *m, const rg_search_result *r, const char *in_path, rg_speed_guard *g,
                         rg_err *err) {
  uint8_t *buf = NULL;
  size_t len = 0;
  const char *self = getenv("RG_TEST_GUARD_SELF");
  g->self = self && *self;
  rg_status st = g->self ? RG_OK : rg_model_to_bytes(m, r->roots, &buf, &len, err);
  char why[512];
  rg_strbuf inputs;
  rg_sb_init(&inputs);
  inputs_json(m, &inputs);
  if (!st && inputs.failed) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st)
    st = rg_ort_compare(h, in_path, buf, len, g->self ? in_path : NULL, &RG_SPEED_GUARD_PAIRING, rg_sb_str(&inputs),
                        &g->cmp, why, sizeof why, err);
  rg_sb_free(&inputs);
  /* onnxruntime refused one of them: the optimized model alone (a graphopt bug), the original kept */
  if (!st && !g->cmp.pairs && strstr(why, "model b: ")) snprintf(g->refused, sizeof g->refused, "%s", why);
  else if (!st && !g->cmp.pairs) st = rg_err_set(err, RG_ERR_IO, "the guard cannot time the models: %s", why);
  free(buf);
  return st;
}

rg_status rg_speed_guard_run(rg_cost_model *cm, const rg_model *m, const rg_search_result *r, const char *in_path,
                       rg_speed_guard *g, rg_err *err) {
  g->measured = false;
  if (!g->on || !r->n_steps) return RG_OK;
  if (g->stop && *g->stop) { /* the search was stopped: no more waiting */
    snprintf(g->unmeasured, sizeof g->unmeasured, "interrupted (Ctrl-C) before the guard");
    return RG_OK;
  }
  rg_ort *h = cm ? rg_cost_model_ort(cm) : NULL, *own = NULL;
  rg_status st = RG_OK;
  if (!h || !rg_ort_alive(h)) st = rg_ort_start(&own, err), h = own;
  if (!st) {
    rg_ort_set_stop(h, g->stop);
    snprintf(g->runtime, sizeof g->runtime, "%s", rg_ort_version(h));
    g->threads = rg_ort_threads(h);
    dims_at(m, g);
    st = compare(h, m, r, in_path, g, err);
  }
  g->measured = !st && !g->refused[0];
  if (h && h != own) rg_ort_set_stop(h, NULL); /* the cost model's helper goes on */
  rg_ort_free(own);
  if (st && g->stop && *g->stop) g->asked = false; /* stopped: written unmeasured, asked for or not */
  if (st && !g->asked && st != RG_ERR_NOMEM) { /* on by default: said, and the optimized model written */
    snprintf(g->unmeasured, sizeof g->unmeasured, "%s", err->msg);
    st = RG_OK;
  }
  return st;
}
