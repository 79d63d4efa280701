/* optimizer/optimize/speed_guard.c: the measured guard (speed_guard.h). */
#include "speed_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/onnx/onnx.h"

/* On by default: the costs are this CPU's (speed_guard.h). */
static bool this_cpu(const char *cost, const char *machine) {
  return strcmp(cost, "cuda") && (!machine || !strcmp(machine, "cpu-default"));
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

bool rg_speed_guard_keeps_original(const rg_speed_guard *g) { return g && g->measured && !g->cmp.faster; }

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
  if (!st) st = rg_ort_compare(h, in_path, buf, len, g->self ? in_path : NULL, &RG_SPEED_GUARD_PAIRING, &g->cmp, why,
                               sizeof why, err);
  if (!st && !g->cmp.pairs) /* onnxruntime refused one of them */
    st = rg_err_set(err, RG_ERR_IO, "the guard cannot time the models: %s", why);
  free(buf);
  return st;
}

rg_status rg_speed_guard_run(rg_cost_model *cm, const rg_model *m, const rg_search_result *r, const char *in_path,
                       rg_speed_guard *g, rg_err *err) {
  g->measured = false;
  if (!g->on || !r->n_steps) return RG_OK;
  rg_ort *h = cm ? rg_cost_model_ort(cm) : NULL, *own = NULL;
  rg_status st = RG_OK;
  if (!h || !rg_ort_alive(h)) st = rg_ort_start(&own, err), h = own;
  if (!st) {
    snprintf(g->runtime, sizeof g->runtime, "%s", rg_ort_version(h));
    g->threads = rg_ort_threads(h);
    st = compare(h, m, r, in_path, g, err);
  }
  g->measured = !st;
  rg_ort_free(own);
  if (st && !g->asked && st != RG_ERR_NOMEM) { /* on by default: said, and the optimized model written */
    snprintf(g->unmeasured, sizeof g->unmeasured, "%s", err->msg);
    st = RG_OK;
  }
  return st;
}
