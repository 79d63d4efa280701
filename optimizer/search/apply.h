/* optimizer/search/apply.h: verified rules applied to a model graph at its concrete shapes.
 *
 * A rule applies where its source side matches values of the model (every output of a
 * multi-output rule at a distinct value; variables bound consistently, hash-consing making
 * equal sub-terms the same value) and its target, built over the bound values, type-checks
 * there with each output of the same type (shape and seams) as the value it replaces: the
 * soundness contract of docs/DESIGN.md, under which a shipped rule holds. A rule is used both
 * ways round where the other side binds every variable (an equation holds either way). A rule
 * that holds at given shapes only (rule.h's `at`: a PET rewrite) is used forward only, and only
 * where its variables' values have those dims (rg_apply_dir_admits).
 *
 * Applying builds the target and the consumers of the replaced values anew in the model's
 * graph (which only grows) and yields the rewritten model as new roots (model.h); the values
 * of the old roots stay valid, so nothing is rewritten in place.
 */
#ifndef RG_OPTIMIZER_APPLY_H
#define RG_OPTIMIZER_APPLY_H

#include "match/match.h"
#include "optimizer/model/model.h"

typedef struct rg_apply_set rg_apply_set;

/* One application: which rule, which way round, the values its source matched and what
 * replaces them. */
typedef struct {
  int32_t rule;  /* index in the rule set */
  bool reversed; /* target side matched, source side built */
  int n;         /* outputs of the rule */
  rg_ref at[RG_RULE_MAX_OUTPUTS];
  rg_ref by[RG_RULE_MAX_OUTPUTS];
} rg_application;

/* Rules ready to apply: each usable direction's sides indexed by operator skeleton. rules must
 * outlive the set. A rule without a target, or a side rooted at a bare variable, is left out. */
rg_status rg_apply_set_new(const rg_ruleset *rules, rg_apply_set **out, rg_err *err) RG_MUST_CHECK;
void rg_apply_set_free(rg_apply_set *s);
/* One direction of one rule: match `from` (outputs 0..n), build `to`; sides in g. */
typedef struct {
  const rg_graph *g;
  int32_t rule;
  bool reversed;
  int n;
  rg_ref from[RG_RULE_MAX_OUTPUTS], to[RG_RULE_MAX_OUTPUTS];
  const rg_shape *at; /* the rule's `at` (rule.h), NULL none */
} rg_apply_dir;

/* Whether the variables env binds (values of m) have the dims d's rule holds at (always, for a
 * rule that holds wherever it types). Both searches ask before building a target. */
bool rg_apply_dir_admits(const rg_apply_dir *d, const rg_model *m, const rg_match_env *env);

/* The directions usable (at most twice the rules), and direction i of them (the e-graph's
 * matcher, eqsat.h, walks them itself). */
int rg_apply_set_size(const rg_apply_set *s);
const rg_apply_dir *rg_apply_set_dir(const rg_apply_set *s, int i);

/* Called with each application and the roots of the model it makes (valid during the call);
 * return true to stop. */
typedef bool (*rg_apply_visit)(void *ctx, const rg_application *a, const rg_ref *roots);

/* Every application of s's rules to m seen from roots (model.h's layout), in a fixed order
 * (values in node order, rules in set order), each passed to visit. m's graph grows. Values
 * computed from weights alone are not rewritten (export folds them: no rewrite of theirs
 * changes what runs). */
rg_status rg_apply_all(const rg_apply_set *s, rg_model *m, const rg_ref *roots, rg_apply_visit visit,
                       void *ctx, rg_err *err) RG_MUST_CHECK;

#endif
