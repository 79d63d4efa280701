/* optimizer/optimize/optimize.c: the optimize job around the search (optimize.h). */
#include "optimize.h"

#include <math.h>
#include <string.h>

#include "optimizer/onnx/onnx.h"
#include "ir/atomic.h"
#include "verify/verify.h"
#include "numcheck.h"

rg_status rg_optimize_pet(const rg_model *m, const rg_pet_find_opts *o, const char *certs, rg_ruleset *rules,
                          rg_pet_set *pet, rg_strbuf *out, rg_err *err) {
  int first = rules->n;
  rg_status st = rg_pet_find(m, o, pet, err);
  if (!st) st = rg_pet_rules(pet, rules, err);
  if (!st && certs) st = rg_pet_write_certs(pet, certs, err);
  if (!st) rg_pet_found_print(pet, rules->n - first, certs, out);
  return st;
}

rg_status rg_search_rules(rg_model *m, const rg_ruleset *rules, const rg_search_opts *o, rg_search_result *out,
                          rg_err *err) {
  rg_apply_set *set = NULL;
  rg_status st = rg_apply_set_new(rules, &set, err);
  if (st) return st;
  st = rg_search(m, set, o, out, err);
  rg_apply_set_free(set);
  return st;
}

rg_status rg_eqsat_rules(rg_model *m, const rg_ruleset *rules, const rg_eqsat_opts *o, rg_search_result *out,
                         rg_eqsat_stats *stats, rg_err *err) {
  rg_apply_set *set = NULL;
  rg_status st = rg_apply_set_new(rules, &set, err);
  if (st) return st;
  st = rg_eqsat(m, set, o, out, stats, err);
  rg_apply_set_free(set);
  return st;
}

rg_status rg_cost_search_fn(void *ctx, const rg_model *m, const rg_ref *roots, double *cost, int64_t *ops,
                            rg_err *err) {
  rg_cost_sum s;
  if (!rg_model_acyclic(m, roots)) /* a rewrite through an opaque node that needs itself: never chosen */
    return *cost = INFINITY, *ops = 0, RG_OK;
  rg_status st = rg_cost_sum_values(ctx, m, roots, rg_model_n_roots(m), &s, err);
  *cost = s.total, *ops = s.fused;
  for (int op = 0; op < RG_OP_COUNT; op++) *ops += s.count[op];
  return st;
}

int rg_optimize_files_read(const char *in, const char *rules, const char *pub, const char *axioms, const char *machine,
                           const char *cache, const char **out) {
  rg_default_rules def;
  rg_default_rules_where(&def);
  const char *r[RG_OPTIMIZE_MAX_READS] = {in, rules ? rules : def.db, pub, rules ? NULL : def.pub,
                                          axioms ? axioms : rg_axioms_default_path(), machine, cache};
  memcpy(out, r, sizeof r);
  return RG_OPTIMIZE_MAX_READS;
}

rg_status rg_optimize_check(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                            const rg_numcheck_plan *plan, double *worst, int *step, rg_err *err) {
  *step = -1;
  if (plan->mode == RG_NUMCHECK_REGIONS) return rg_numcheck_regions(m, r, seed, tolerance, true, step, worst, err);
  rg_status st = rg_numcheck(m, r->roots, seed, worst, err);
  if (!st && !(*worst <= tolerance)) return rg_numcheck_steps(m, r, seed, tolerance, step, worst, err);
  double region = 0;
  if (!st) st = rg_numcheck_regions(m, r, seed, tolerance, false, step, &region, err);
  if (!st && *step >= 0) *worst = region; /* the outputs agree, a rewritten value does not */
  return st;
}

rg_status rg_optimize_write(const rg_model *m, const rg_search_result *r, const rg_speed_guard *g, const char *in_path,
                            const char *out_path, const rg_export_opts *xo, bool *copy, rg_err *err) {
  /* nothing better: the user's own file, unless it names side files a copy elsewhere would lose */
  bool original = !r->n_steps || rg_speed_guard_keeps_original(g);
  *copy = original && !m->n_side_files && (!xo || xo->mode != RG_EXTERNAL_ALWAYS);
  if (*copy) return rg_atomic_copy(in_path, out_path, err);
  if (original) return rg_model_export_with(m, out_path, xo, err);
  rg_model *v = rg_model_view(m, r->roots);
  rg_status st = v ? rg_model_export_with(v, out_path, xo, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_model_view_free(v);
  return st;
}
