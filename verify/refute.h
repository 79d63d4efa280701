/* verify/refute.h: looking for a counterexample before asking the solvers.
 *
 * A rule that differs at some shapes where both sides type (in float64, or in Z_p, whose
 * interpretation the axiom checker tests as a model of the axioms) has no proof from the axioms:
 * its solver queries would only run into their timeouts. Tested candidates can be such rules
 * (the test stage tries a few shape sets; one that needs, say, a matrix of at least two rows
 * passes when none of them has one), and so can third-party rule sets. The search compares the
 * two sides at shape sets the shape solver finds from the rule alone, half of them as small as
 * the rule allows (rg_shapes_solve_small, ir/shapesolve.h).
 */
#ifndef RG_VERIFY_REFUTE_H
#define RG_VERIFY_REFUTE_H

#include "ir/ir.h"

/* Compares r's sides in Z_p and float64 (2 trials each) at up to n_sets shape sets (seeded).
 * *found tells whether they differed somewhere; then why holds the counterexample ("float64,
 * output 1: at [0,0] source .., target ..; at x=1x4 .."), truncated to why_len. A rule for which
 * no shapes are found is not refuted (require_typed in prove.c reports it). kernel: whole-node
 * kernels for the trials (ir/interp.h), or NULL. */
rg_status rg_refute_rule(const rg_rule *r, int n_sets, uint64_t seed, rg_node_kernel kernel, bool *found,
                         char *why, size_t why_len, rg_err *err) RG_MUST_CHECK;

#endif
