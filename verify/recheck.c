/* verify/recheck.c: the deep recheck (recheck.h), the axiom checker's runs under the rule
 * contract. */
#include "recheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axcheck.h"
#include "ir/clock.h"
#include "ir/killpoint.h"
#include "parallel.h"

void rg_recheck_opts_init(rg_recheck_opts *o) {
  memset(o, 0, sizeof *o);
  o->seed = 1;
  o->assignments = 64;
  o->trials = 1;
}

rg_status rg_recheck_rule(const rg_rule *r, const rg_recheck_opts *o, rg_recheck_verdict *v,
                          rg_err *err) {
  memset(v, 0, sizeof *v);
  if (r->n_tgt == 0) return rg_err_set(err, RG_ERR_ARG, "a bare graph (no '=> target') has nothing to recheck");
  rg_axcheck_opts co;
  rg_axcheck_opts_init(&co);
  co.seed = o->seed;
  co.assignments = o->assignments;
  co.trials = o->trials;
  co.source_only = false;
  co.kernel = o->kernel;
  int32_t nt = rg_graph_n_tvars(r->g);
  const rg_shape **shapes = calloc((size_t)nt + 1, sizeof *shapes);
  if (!shapes) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  bool all = o->var_shape != NULL;
  for (int32_t v = 0; all && v < nt; v++) all = (shapes[v] = o->var_shape(o->var_shape_ctx, rg_graph_tvar_name(r->g, v)));
  rg_binding base = {shapes, NULL, NULL};
  if (all) co.base = &base;
  rg_axiom_verdict av;
  rg_status st = rg_axiom_check_one(r, &co, &av, err);
  free(shapes);
  if (st) return st;
  v->assignments = av.assignments;
  v->untyped = !av.sound && av.assignments == 0;
  v->differs = !av.sound && av.assignments > 0;
  if (!av.sound) snprintf(v->why, sizeof v->why, "%s", av.why);
  return RG_OK;
}

rg_status rg_recheck_rules(const rg_ruleset *rules, const bool *pick, const rg_recheck_opts *o,
                           rg_recheck_verdict *verdicts, int *n_differ, rg_err *err) {
  rg_first_error first = RG_FIRST_ERROR_INIT;
  int differ = 0, total = 0, done = 0;
  for (int i = 0; i < rules->n; i++) total += !pick || pick[i];
  rg_progress pg;
  rg_progress_start(&pg, "recheck", "rules", total, o->progress);
#pragma omp parallel for schedule(dynamic, 4) num_threads(rg_verify_threads(o->threads)) reduction(+ : differ)
  for (int i = 0; i < rules->n; i++) {
    rg_recheck_verdict *v = &verdicts[i];
    if (pick && !pick[i]) continue;
    if (o->stop && *o->stop) {
      memset(v, 0, sizeof *v);
      v->skipped = true;
      continue;
    }
    rg_err e;
    double t0 = rg_clock_ms();
    rg_status st = rg_recheck_rule(rules->rules[i], o, v, &e);
    differ += v->differs;
    if (st) rg_first_error_note(&first, i, st, &e);
#pragma omp critical(rg_recheck_progress)
    {
      if (!st && o->on_verdict) o->on_verdict(o->verdict_ctx, i, v, rg_clock_ms() - t0);
      rg_progress_tick(&pg, ++done);
      rg_kill_point("recheck", done); /* tests: what on_verdict kept survives a kill */
    }
  }
  rg_progress_finish(&pg);
  *n_differ = differ;
  return rg_first_error_take(&first, err);
}
