/* verify/generalize.h: generalizing a tested candidate by splitting a repeated variable.
 *
 * An enumeration over a few inputs per shape finds some laws only as instances with a repeated
 * operand: with three equal-shaped tensors, the distribution of ewadd over two concats of FOUR
 * tensors shows up only as e.g. (ewadd (concat 0 ?a ?b) (concat 0 ?c ?a)) => (concat 0 (ewadd ?a
 * ?c) (ewadd ?b ?a)). Ruler-style, such a candidate is generalized: for a tensor variable v
 * occurring k times (2 <= k <= max_occurrences, counted in the terms as printed, both sides),
 * each assignment of its occurrences to {v, fresh} gives a rule where the fresh variable has v's
 * shape. The first occurrence always stays v (swapping the two names gives the same rule), so
 * 2^(k-1) - 1 assignments per variable. A generalization is a new candidate, never assumed: it
 * must be well-oriented (every target variable in the source; when only the source side lacks
 * one, the rule is turned around) and pass the same random testing as any candidate
 * (randtest.h). A passing one is split again in turn (the newest first, so the budget goes
 * towards the most general rules), so a variable can end up split into several. At most
 * max_tries generalizations are tested per rule (renamings of one already tested are not tested
 * again). A generalization of which one refuted in Z_p (at the base or another shape set) is
 * an instance is false as well: it counts as tried, without a trial. What comes back is the
 * most general of those that pass: each passing generalization none of whose own splits passed
 * and that is not an instance of another passing one with more variables.
 * The candidate itself is left as it is; pruning later finds it to be an instance.
 */
#ifndef RG_VERIFY_GENERALIZE_H
#define RG_VERIFY_GENERALIZE_H

#include "randtest.h"
#include "randtest_cache.h"

#define RG_GENERALIZE_MAX_OCCURRENCES 8
#define RG_GENERALIZE_MAX_TRIES 64
#define RG_GENERALIZE_ALL (~UINT64_C(0)) /* every variable may be split */

typedef struct {
  int max_occurrences; /* a variable occurring more often is not split (>= 2) */
  int max_tries;       /* generalizations random-tested per rule (>= 1) */
} rg_generalize_limits;

typedef struct {
  int tried;    /* generalizations settled: random-tested, or refuted by a refuted instance */
  int passed;   /* of those, how many passed */
  int kept;     /* most general passing ones appended to the output */
  bool capped;  /* max_tries was reached before every split was tried */
  bool skipped; /* a term too large to unfold, or parameter variables: not tried at all */
} rg_generalize_stats;

/* Defaults: RG_GENERALIZE_MAX_OCCURRENCES and RG_GENERALIZE_MAX_TRIES. */
rg_generalize_limits rg_generalize_limits_default(void);

/* Generalizes rule r (with a target; n_src == n_tgt), which passed random testing at binding
 * base (shapes of every tensor variable of r), splitting only the variables t of r with bit t of
 * splittable set (and the fresh variables made from them). Why a caller restricts it: a split
 * of a variable whose shape the input set has unused inputs of gives a rule the enumeration
 * found directly; only where the rule uses every input of that shape is the repetition forced
 * (RG_GENERALIZE_ALL: every variable). Tests generalizations with o (through cache
 * when non-NULL; the cache's contract applies) and appends the most general passing ones to out
 * (new rules, owned by out; their variables keep r's names, fresh ones are named <v>_<n>).
 * Rules with parameter variables are left alone (stats->skipped). Returns RG_ERR_NOMEM, or an
 * error of the random testing other than a shape error (a generalization that does not type
 * only fails); on error out may hold some of the rules. */
rg_status rg_generalize_rule(const rg_rule *r, const rg_binding *base, uint64_t splittable,
                             const rg_randtest_opts *o, rg_randtest_cache *cache,
                             const rg_generalize_limits *lim, rg_ruleset *out,
                             rg_generalize_stats *stats, rg_err *err) RG_MUST_CHECK;

#endif
