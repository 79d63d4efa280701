/* ir/compare.h: evaluate both sides of a rule on the same random inputs and compare them.
 *
 * This is the one place that decides whether two sides agree on a trial: output types (dims
 * and seams) must match, then every element, in the chosen domain. The eval command and the
 * random-testing stage both use it.
 */
#ifndef RG_IR_COMPARE_H
#define RG_IR_COMPARE_H

#include "interp.h"
#include "rule.h"

typedef enum {
  RG_CMP_AGREE = 0,
  RG_CMP_TYPE,  /* an output pair differs in dims or seams */
  RG_CMP_VALUE, /* an output pair differs in a value */
} rg_cmp_verdict;

typedef struct {
  rg_cmp_verdict verdict;
  int output;                 /* first differing output pair */
  int trial;                  /* trial that showed it */
  int32_t pos[RG_MAX_RANK];   /* first differing position (row-major order) */
  rg_value src_val, tgt_val;
  rg_shape src_shape, tgt_shape;
} rg_cmp_result;

/* Bindings of a rule's variables: shapes of tensor variables, values of parameter variables. */
typedef struct {
  const rg_shape *const *tvar_shapes;
  const int32_t *pvar_values;
  const uint8_t *pvar_bound;
} rg_binding;

/* Runs `trials` trials (inputs drawn with rg_random_value from seed + trial) and reports the
 * first disagreement. Shape errors on either side are errors (RG_ERR_SHAPE, message prefixed
 * with "source:" or "target:"), not verdicts. */
rg_status rg_rule_compare(const rg_rule *r, const rg_binding *b, rg_domain dom,
                          const rg_eval_ctx *ctx, uint64_t seed, int trials, rg_cmp_result *res,
                          rg_err *err) RG_MUST_CHECK;

/* Evaluates outputs outs[0..n) of plan on the inputs rg_rule_compare draws in its first trial
 * (rg_random_value from seed): results[k] is new, of the numel of rg_plan_shape(plan, outs[k]),
 * the caller's to free. */
rg_status rg_plan_eval_random(const rg_plan *plan, const rg_ref *outs, int n, rg_domain dom,
                              const rg_eval_ctx *ctx, uint64_t seed, rg_value **results, rg_err *err) RG_MUST_CHECK;

/* Appends b as "x=2x4 y=4x4 ?a=1" (the variables of g). */
void rg_binding_put(rg_strbuf *sb, const rg_graph *g, const rg_binding *b);
/* Appends a disagreement c of rule r in domain dom at b: "float64, output 1: at [0,1] source ..,
 * target .. (trial 1); at x=2x4 ..." (or the two output types). */
void rg_cmp_put_counterexample(rg_strbuf *sb, const rg_rule *r, const rg_binding *b, rg_domain dom,
                               const rg_cmp_result *c);

/* Plans one side (src when target == false) and prefixes errors with the side's name. */
rg_status rg_rule_plan_side(const rg_rule *r, const rg_binding *b, bool target, rg_plan **out,
                            rg_err *err) RG_MUST_CHECK;

#endif
