/* optimizer/optimize/optimize.h: the optimize job's steps that lie around the search (search.h): rules
 * applied by the search under a cost model, the result checked numerically, the model written.
 * graphopt optimize is these calls and what it prints between them.
 *
 * The room optimizer/optimize/ (under report/, above search/, eqsat/, cost/, eval/, onnx/):
 * optimize.c          the steps around the search: PET rewrites, search, check, write
 * proved_rules.h/.c   the rules graphopt may apply (a signed database's, or proved first)
 * default_rules.h/.c  where the default rule set is (rules/default.db and .pub: data, installed)
 * numcheck.h/.c       the numeric check of a rewritten model against the original
 * dims_check.h/.c     a model with symbolic dims checked at other values of them; rules that
 *                     hold only at the values imported dropped
 * speed_guard.h/.c    the optimized model and the original timed in onnxruntime before writing
 */
#ifndef RG_OPTIMIZER_OPTIMIZE_H
#define RG_OPTIMIZER_OPTIMIZE_H

#include "optimizer/cost/cost.h"
#include "optimizer/eqsat/eqsat.h"
#include "optimizer/onnx/onnx.h"
#include "optimizer/pet/pet.h"
#include "optimizer/search/search.h"

#include "default_rules.h"
#include "dims_check.h"
#include "speed_guard.h"
#include "numcheck.h"
#include "proved_rules.h"

/* The files an optimize run reads, which its outputs must not replace: in, rules, pub, axioms,
 * machine and cache as given (NULL: not given), and without rules the default set's database and
 * key, without axioms the default axiom file. Their count, into out. */
#define RG_OPTIMIZE_MAX_READS 7
int rg_optimize_files_read(const char *in, const char *rules, const char *pub, const char *axioms, const char *machine,
                           const char *cache, const char **out);

/* graphopt --pet: PET's rewrites at m's shapes found and certified into pet (pet.h; freed by the
 * caller, also on failure), appended to rules, their certificates written into folder certs
 * (NULL: nowhere), and what was found said into out. */
rg_status rg_optimize_pet(const rg_model *m, const rg_pet_find_opts *o, const char *certs, rg_ruleset *rules,
                          rg_pet_set *pet, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

/* The search over rules (an apply set built from them, both ways round) with o's settings. */
rg_status rg_search_rules(rg_model *m, const rg_ruleset *rules, const rg_search_opts *o, rg_search_result *out,
                          rg_err *err) RG_MUST_CHECK;

/* Equality saturation over rules (an apply set built from them, both ways round) with o's
 * settings (eqsat.h). */
rg_status rg_eqsat_rules(rg_model *m, const rg_ruleset *rules, const rg_eqsat_opts *o, rg_search_result *out,
                         rg_eqsat_stats *stats, rg_err *err) RG_MUST_CHECK;

/* A search cost function (rg_search_cost_fn) over a cost model (ctx: the rg_cost_model): the
 * rg_cost_sum_values total of m seen from roots, and in *ops its counted and fused nodes. */
rg_status rg_cost_search_fn(void *ctx, const rg_model *m, const rg_ref *roots, double *cost, int64_t *ops,
                            rg_err *err) RG_MUST_CHECK;

/* The numeric check of a search's best model (numcheck.h) against m on inputs drawn from seed,
 * as plan says (rg_numcheck_preflight). The whole model: *worst the largest relative difference
 * of the outputs; when it exceeds tolerance, *step is the first application after which the
 * model differs (and *worst that step's difference); when the outputs agree but a step's
 * replacement differs from what it replaced, *step is that step and *worst its difference;
 * else *step is -1. The regions alone: *step the first step whose region differs past
 * tolerance (-1 none) and *worst its difference (else the largest). */
rg_status rg_optimize_check(const rg_model *m, const rg_search_result *r, uint32_t seed, double tolerance,
                            const rg_numcheck_plan *plan, double *worst, int *step, rg_err *err) RG_MUST_CHECK;

/* Writes r's best model to out_path, its weights where xo says (onnx/export.h; NULL: the defaults);
 * when the search applied nothing, or the guard g (NULL: none) keeps the original, a copy of the
 * file in_path (the user's own model, byte for byte), unless its weights are in side files or xo
 * asks for one (then m, the original, is written again). *copy: whether it wrote a copy. */
rg_status rg_optimize_write(const rg_model *m, const rg_search_result *r, const rg_speed_guard *g, const char *in_path,
                            const char *out_path, const rg_export_opts *xo, bool *copy, rg_err *err) RG_MUST_CHECK;

#endif
