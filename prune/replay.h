/* prune/replay.h: re-checking a recorded derivation without trusting the search that found it.
 *
 * Each step names a rule, a direction and the whole term after the step. The checker parses
 * that term, finds where it differs from the term before, and accepts the step only if, at some
 * position above every difference, the rule's one side (in the stated direction) matches the
 * old sub-term and its other side the new sub-term under one consistent binding. So every step
 * is a single equational rewrite by the named rule, and the last term of each output pair must
 * be the rule's target. Nothing from the search is reused.
 */
#ifndef RG_PRUNE_REPLAY_H
#define RG_PRUNE_REPLAY_H

#include "derive.h"

/* Checks that d derives r from rules[0..n_rules) (a step's tag is an index into rules).
 * RG_OK when every step and every output pair checks; RG_ERR_ARG with a message naming the
 * first bad step otherwise; RG_ERR_NOMEM on allocation failure. */
rg_status rg_derivation_check(const rg_rule *r, const rg_derivation *d, const rg_rule *const *rules,
                              int n_rules, rg_err *err) RG_MUST_CHECK;

#endif
