/* optimizer/report/report_search.c: a search's steps and figures as graphopt optimize reports them
 * (report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

void rg_search_operators_print(const rg_model *m, const rg_ref *after, rg_strbuf *out) {
  rg_model_counts c[2];
  rg_err err;
  rg_model_count(m, &c[0]);
  if (rg_model_count_roots(m, after, &c[1], &err)) return;
  rg_sb_puts(out, "operators (before -> after):");
  for (int op = 0, n = 0; op < RG_OP_COUNT; op++)
    if (c[0].by_op[op] || c[1].by_op[op])
      rg_sb_printf(out, "%s%s %d -> %d", n++ ? ", " : " ", rg_op_get((rg_op)op)->name, c[0].by_op[op],
                   c[1].by_op[op]);
  rg_sb_printf(out, "; %d opaque\n", c[0].opaque);
}

void rg_search_step_print(const rg_model *m, const rg_ruleset *rules, int k, const rg_search_step *s,
                           rg_strbuf *out) {
  const rg_rule *r = rules->rules[s->app.rule];
  rg_strbuf text;
  rg_sb_init(&text);
  rg_text_print_rule(r, &text);
  char line[32] = "";
  if (r->line > 0) snprintf(line, sizeof line, " (line %d)", r->line);
  rg_sb_printf(out, "  %3d. rule %d%s%s: %s\n", k + 1, s->app.rule + 1, line, s->app.reversed ? ", right to left" : "",
               rg_sb_str(&text)); /* the text starts with the rule's name, if it has one */
  rg_sb_puts(out, "       at");
  for (int i = 0; i < s->app.n; i++) {
    char sh[96];
    rg_sb_printf(out, " node %d (%s %s)", s->app.at[i].node,
                 rg_op_get((rg_op)rg_graph_node(m->g, s->app.at[i].node)->op)->name,
                 rg_shape_format(rg_model_shape(m, s->app.at[i]), sh, sizeof sh));
  }
  rg_sb_printf(out, "; cost %.4g -> %.4g\n", s->cost_before, s->cost_after);
  rg_sb_free(&text);
}

void rg_search_steps_print(const rg_model *m, const rg_ruleset *rules, const rg_search_result *r, const rg_pet_set *pet,
                           rg_strbuf *out) {
  for (int k = 0; k < r->n_steps; k++) {
    rg_search_step_print(m, rules, k, &r->steps[k], out);
    rg_pet_step_print(pet, rules->rules[r->steps[k].app.rule], out);
  }
}

static void cost_line(const rg_search_result *r, const rg_cost_model *cm, rg_strbuf *out) {
  rg_sb_printf(out, "cost (%s): %.6g -> %.6g (%.3fx)\n", rg_cost_model_name(cm), r->cost_before, r->cost_after,
               r->cost_after > 0 ? r->cost_before / r->cost_after : 1.0);
}

static void timings_line(const rg_cost_model *cm, rg_strbuf *out) {
  rg_cost_stats cs;
  rg_cost_model_stats(cm, &cs);
  if (cs.measured || cs.cached)
    rg_sb_printf(out, "costs: %lld configurations timed, %lld from the cache\n", (long long)cs.measured,
                 (long long)cs.cached);
}

/* Equality saturation's figures as a JSON object's members (after a comma). */
/* ", \"name\": value", null where the value is no finite number (JSON has none). */
static void json_cost(rg_strbuf *out, const char *name, double v) {
  if (isfinite(v)) rg_sb_printf(out, ", \"%s\": %.17g", name, v);
  else rg_sb_printf(out, ", \"%s\": null", name);
}

static void eqsat_json(const rg_eqsat_stats *s, rg_strbuf *out) {
  rg_sb_printf(out, ", \"eqsat\": {\"iterations\": %d, \"stop_reason\": ", s->iterations);
  rg_json_string(out, s->stop_reason ? s->stop_reason : "");
  rg_sb_printf(out, ", \"enodes\": %d, \"classes\": %d, \"matches\": %lld, \"merges\": %lld, \"congruences\": %lld, "
                    "\"cycles_filtered\": %lld, \"untyped\": %lld, \"bans\": %lld",
               s->enodes, s->classes, (long long)s->matches, (long long)s->applied, (long long)s->congruences,
               (long long)s->cycles_filtered, (long long)s->untyped, (long long)s->bans);
  json_cost(out, "greedy_cost", s->greedy_cost), json_cost(out, "local_cost", s->local_cost);
  json_cost(out, "extracted_cost", s->extracted_cost), json_cost(out, "ilp_cost", s->ilp_cost);
  json_cost(out, "ilp_bound", s->ilp_bound);
  rg_sb_printf(out, ", \"ilp_optimal\": %s, \"ilp_stopped\": ", s->ilp_optimal ? "true" : "false");
  if (s->ilp_stopped) rg_json_string(out, s->ilp_stopped);
  else rg_sb_puts(out, "null");
  rg_sb_printf(out, ", \"explore_seconds\": %.3f, \"extract_seconds\": %.3f, \"ilp_seconds\": %.3f}",
               s->explore_seconds, s->extract_seconds, s->ilp_seconds);
}

void rg_search_result_json(const rg_search_result *r, const rg_cost_model *cm, double worst, bool regions_only,
                           const rg_eqsat_stats *es, rg_strbuf *out) {
  rg_sb_puts(out, "{\"cost_model\": ");
  rg_json_string(out, rg_cost_model_name(cm));
  rg_sb_printf(out, ", \"cost_before\": %.17g, \"cost_after\": %.17g, \"rules_applied\": %d, \"steps\": [",
               r->cost_before, r->cost_after, r->n_steps);
  for (int k = 0; k < r->n_steps; k++) rg_sb_printf(out, "%s%d", k ? ", " : "", r->steps[k].app.rule + 1);
  rg_sb_printf(out, "], \"explored\": %lld, \"queued\": %lld, \"rewrites_tried\": %lld, \"seconds\": %.3f, ",
               (long long)r->explored, (long long)r->queued, (long long)r->applications, r->seconds);
  if (!es) /* backtracking's: the budget its best model needs, the models its full queue dropped */
    rg_sb_printf(out, "\"explored_to_best\": %lld, \"seconds_to_best\": %.3f, \"dropped\": %lld, ",
                 (long long)r->explored_to_best, r->seconds_to_best, (long long)r->dropped);
  rg_sb_puts(out, "\"stopped\": ");
  rg_json_string(out, r->stop_reason ? r->stop_reason : "");
  rg_sb_printf(out, ", \"numeric_check\": \"%s\", \"numeric_check_worst\": %.6g",
               regions_only ? "regions only" : "whole model + regions", worst);
  if (es) eqsat_json(es, out);
  rg_sb_puts(out, "}\n");
}

/* "stopped: WHY", and for a stop before the search's own end, that its answer is the best so far. */
static void stopped(const rg_search_result *r, rg_strbuf *out) {
  const char *why = r->stop_reason ? r->stop_reason : "?";
  rg_sb_printf(out, "stopped: %s", why);
  if (!strcmp(why, "interrupted") || !strcmp(why, "out of memory")) rg_sb_puts(out, ", the best model so far kept");
  rg_sb_puts(out, "\n");
}

void rg_search_result_print(const rg_search_result *r, const rg_cost_model *cm, rg_strbuf *out) {
  cost_line(r, cm, out);
  rg_sb_printf(out, "search: %d rules applied; %lld models explored, %lld queued (%lld dropped from the full queue), "
                    "%lld rewrites tried; %.2f s; ",
               r->n_steps, (long long)r->explored, (long long)r->queued, (long long)r->dropped,
               (long long)r->applications, r->seconds);
  stopped(r, out);
  timings_line(cm, out);
}

static void rg_eqsat_stats_print(const rg_eqsat_stats *s, rg_extract_kind extract, rg_strbuf *out) {
  rg_sb_printf(out, "eqsat: %d iterations (%s); %d e-nodes in %d classes; %lld matches, %lld merges by rules, %lld by "
               "congruence; not applied: %lld would make a cycle, %lld do not type; %lld backoff bans\n",
               s->iterations, s->stop_reason ? s->stop_reason : "?", s->enodes, s->classes, (long long)s->matches,
               (long long)s->applied, (long long)s->congruences, (long long)s->cycles_filtered, (long long)s->untyped,
               (long long)s->bans);
  rg_sb_printf(out, "extraction (%s): cost %.6g (greedy by e-node costs %.6g, after local moves %.6g)",
               extract == RG_EXTRACT_ILP ? "ilp" : "greedy", s->extracted_cost, s->greedy_cost, s->local_cost);
  if (extract == RG_EXTRACT_ILP && !s->ilp_run)
    rg_sb_puts(out, "; ILP not run (exploration stopped)");
  else if (extract == RG_EXTRACT_ILP && !isfinite(s->ilp_cost))
    rg_sb_printf(out, "; ILP found no solution (%s)", s->ilp_stopped ? s->ilp_stopped : "?");
  else if (extract == RG_EXTRACT_ILP)
    rg_sb_printf(out, "; ILP by e-node costs %.6g, bound %.6g, gap %.2f%% (%s)", s->ilp_cost, s->ilp_bound,
                 s->ilp_cost > s->ilp_bound ? 100 * (s->ilp_cost - s->ilp_bound) / s->ilp_cost : 0.0,
                 s->ilp_optimal ? "optimal" : s->ilp_stopped ? s->ilp_stopped : "time limit");
  rg_sb_printf(out, "; explore %.2f s, extract %.2f s", s->explore_seconds, s->extract_seconds);
  if (extract == RG_EXTRACT_ILP) rg_sb_printf(out, " (ILP %.2f s)", s->ilp_seconds);
  rg_sb_puts(out, "\n");
}

void rg_eqsat_result_print(const rg_search_result *r, const rg_eqsat_stats *s, rg_extract_kind extract,
                           const rg_cost_model *cm, rg_strbuf *out) {
  cost_line(r, cm, out);
  rg_sb_printf(out, "search: %d rules applied; eqsat, %d iterations, %d e-nodes; %.2f s; ", r->n_steps, s->iterations,
               s->enodes, r->seconds);
  stopped(r, out);
  rg_eqsat_stats_print(s, extract, out);
  timings_line(cm, out);
}


bool rg_numcheck_print(const rg_model *m, const rg_ruleset *rules, const rg_search_result *r, double worst, int step,
                     double tolerance, int64_t seed, const char *regions_only, rg_strbuf *out) {
  if (!r->n_steps && worst <= tolerance)
    rg_sb_puts(out, "numeric check: nothing to check (no rewrite kept)\n");
  else if (worst <= tolerance && !regions_only)
    rg_sb_printf(out, "numeric check: outputs agree, largest relative difference %.3g (seed %lld; the whole model and "
                      "each rewritten region)\n", worst, (long long)seed);
  else if (worst <= tolerance)
    rg_sb_printf(out, "numeric check: each rewritten region agrees with the region it replaced, largest relative "
                      "difference %.3g (seed %lld; regions only, since the whole model cannot be evaluated: %s)\n",
                 worst, (long long)seed, regions_only);
  if (worst <= tolerance) return true;
  rg_sb_printf(out, "numeric check: FAILED, relative difference %.3g > %g: nothing written\n", worst, tolerance);
  if (regions_only) rg_sb_printf(out, "  regions only, since the whole model cannot be evaluated: %s\n", regions_only);
  if (regions_only && step < 0)
    rg_sb_puts(out, "  no rewritten region differs alone: what the rewritten part hands on to outputs and opaque "
                    "nodes does\n");
  if (step >= 0)
    rg_sb_printf(out, regions_only ? "  the region rewritten by application %d differs from the original's:\n"
                                   : "  the model first differs after application %d:\n", step + 1);
  if (step >= 0) rg_search_step_print(m, rules, step, &r->steps[step], out);
  return false;
}

void rg_speed_guard_print(const rg_speed_guard *g, rg_strbuf *out) {
  if (g->refused[0])
    rg_sb_printf(out, "guard: onnxruntime refuses the optimized model, not the original (%s): the original is "
                      "written (a graphopt bug: please report it with the model)\n", g->refused);
  else if (!g->measured && g->unmeasured[0])
    rg_sb_printf(out, "guard: not measured (%s): the optimized model is written unmeasured (--no-guard skips the "
                      "guard)\n", g->unmeasured);
  if (!g->measured) return;
  const rg_ort_comparison *c = &g->cmp;
  rg_sb_printf(out,
               "guard (%s, %d threads, %d rounds of fresh sessions, %d interleaved pairs%s%s%s): the rounds' ratios "
               "original / optimized: median %.3f, lowest %.3f, highest %.3f (all pairs' medians: original %.3f ms, "
               "optimized %.3f ms): ",
               g->runtime, g->threads, c->rounds, c->pairs, g->at[0] ? ", at " : "", g->at,
               g->self ? ", RG_TEST_GUARD_SELF: the original against itself" : "", c->ratio, c->low, c->high, c->a_ms,
               c->b_ms);
  if (c->faster)
    rg_sb_printf(out, "faster beyond the noise (every round above 1, the median at least %.2f): the optimized model "
                      "is written\n", RG_ORT_MIN_GAIN);
  else if (c->low <= 1)
    rg_sb_printf(out, "not faster beyond the noise (a round at %.3f, not above 1): the original is written\n", c->low);
  else
    rg_sb_printf(out, "not faster beyond the noise (the median under %.2f): the original is written\n", RG_ORT_MIN_GAIN);
}

void rg_speed_guard_json(const rg_speed_guard *g, rg_strbuf *out) {
  const rg_ort_comparison *c = &g->cmp;
  if (!g->on) {
    rg_sb_puts(out, ", \"guard\": null");
    return;
  }
  rg_sb_printf(out, ", \"guard\": {\"measured\": %s, \"asked\": %s", g->measured ? "true" : "false",
               g->asked ? "true" : "false");
  if (g->unmeasured[0]) rg_sb_puts(out, ", \"unmeasured\": "), rg_json_string(out, g->unmeasured);
  if (g->refused[0]) rg_sb_puts(out, ", \"refused_optimized\": "), rg_json_string(out, g->refused);
  if (g->refused[0]) rg_sb_puts(out, ", \"written\": \"original\"");
  if (g->at[0]) rg_sb_puts(out, ", \"at\": "), rg_json_string(out, g->at);
  if (g->measured) {
    rg_sb_puts(out, ", \"runtime\": ");
    rg_json_string(out, g->runtime);
    rg_sb_printf(out, ", \"threads\": %d, \"rounds\": %d, \"pairs\": %d, \"self\": %s", g->threads, c->rounds, c->pairs,
                 g->self ? "true" : "false");
    json_cost(out, "original_ms", c->a_ms), json_cost(out, "optimized_ms", c->b_ms);
    json_cost(out, "ratio", c->ratio), json_cost(out, "ratio_low", c->low), json_cost(out, "ratio_high", c->high);
    rg_sb_printf(out, ", \"written\": \"%s\"", c->faster ? "optimized" : "original");
  }
  rg_sb_puts(out, "}");
}

void rg_optimize_json(const rg_rules_provenance *pv, const rg_search_result *r, const rg_cost_model *cm, double worst,
                      bool regions_only, const rg_eqsat_stats *es, const rg_speed_guard *g, const rg_pet_set *pet,
                      const rg_ruleset *rules, rg_strbuf *out) {
  rg_strbuf search;
  rg_sb_init(&search);
  rg_search_result_json(r, cm, worst, regions_only, es, &search);
  rg_sb_puts(out, "{");
  rg_rules_provenance_json(pv, out);
  rg_sb_append(out, rg_sb_str(&search) + 1, search.len - 3); /* the search's members, after the rules', without "}\n" */
  rg_speed_guard_json(g, out);
  rg_pet_json(pet, rules, r, out);
  rg_sb_puts(out, "}\n");
  rg_sb_free(&search);
}
