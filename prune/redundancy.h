/* prune/redundancy.h: TASO's common-subgraph and common-supergraph redundancy.
 *
 * Common subgraph: a sub-term the two sides share is one node of the rule's graph. Replacing
 * it, at every occurrence, by a fresh variable gives a smaller rule R' of which R is an instance
 * (substitute the sub-term back). R is redundant only if R' is itself kept: the mere existence of
 * a shared sub-term proves nothing ((relu (relu ?x)) => (relu ?x) shares (relu ?x), but
 * (relu ?y) => ?y is false). Each shared sub-term is tried alone, and all maximal shared
 * sub-terms at once.
 * Common supergraph: a one-output rule f(.., a, ..) => f(.., b, ..) whose sides end in the same
 * operator with the same parameters and output, differing in one operand, follows from a = b by
 * congruence: it is redundant if the rule a => b or b => a is kept.
 * Whether a rule is kept is the caller's: a lookup by content id.
 */
#ifndef RG_PRUNE_REDUNDANCY_H
#define RG_PRUNE_REDUNDANCY_H

#include "canon.h"

/* Returns the index of a kept rule with this content id, or -1. */
typedef int (*rg_kept_lookup)(const rg_content_id *id, void *ctx);

/* *by is the kept rule R is an instance of (via one abstraction), or -1. */
rg_status rg_redundant_subgraph(const rg_rule *r, rg_kept_lookup kept, void *ctx, int *by,
                                rg_err *err) RG_MUST_CHECK;
/* *by is the kept rule between the differing operands, or -1. */
rg_status rg_redundant_supergraph(const rg_rule *r, rg_kept_lookup kept, void *ctx, int *by,
                                  rg_err *err) RG_MUST_CHECK;

/* For audits, without content ids: whether r is an instance of `general` (one substitution
 * maps general's sources and targets onto r's, output by output). */
rg_status rg_rule_is_instance(const rg_rule *general, const rg_rule *r, bool *yes,
                              rg_err *err) RG_MUST_CHECK;
/* Whether r is a common-supergraph consequence of `by` (in either orientation). */
rg_status rg_supergraph_implied(const rg_rule *r, const rg_rule *by, bool *yes,
                                rg_err *err) RG_MUST_CHECK;

#endif
