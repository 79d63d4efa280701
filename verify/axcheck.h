/* verify/axcheck.h: random testing of axioms against the real semantics.
 *
 * Every axiom is run, at `assignments` shape/parameter assignments found by the shape solver
 * (ir/shapesolve.h: coincidences of one shape set are split apart), with `trials` random inputs
 * in each of the float64 and Z_p interpreters (ir/compare.h). An axiom is unsound when any run
 * disagrees (in values or output types) or when no well-typed assignment exists at all; the
 * verdict then carries a counterexample: the shapes, the parameter values, the domain, the
 * output, the position and both values. Deterministic for a given seed.
 *
 * The contract (docs/DESIGN.md): an axiom holds at every assignment under which its source
 * types and its guard holds, and its target types there with the same output type (shape and
 * seams): the SMT encoding states it wherever its guard holds, of every term. So the checker
 * draws assignments for the source alone (every other seed; the shape solver's skewed draws
 * split concat operands unequally and out of line with kernels), and a target that does not
 * type or differs in type there is unsound, as a value that differs is.
 *
 * A tensor variable of an axiom stands for any term, and terms carry seams (where a concat
 * joined them, ir/shape.h) that the solver's inputs lack. So each assignment is run again: with
 * every tensor variable cut on one axis (the next axis each time, at one drawn position, so
 * that operands meeting elementwise keep them), and with one variable cut on one axis (the next
 * each time, so that they differ and meets drop them); cuts fall anywhere, one or two per axis.
 * An axiom whose target drops a seam its source keeps (conv-identity) must say in its guard that
 * there is none, (= (seams ?x 1) 0).
 */
#ifndef RG_VERIFY_AXCHECK_H
#define RG_VERIFY_AXCHECK_H

#include "axioms.h"

/* The checker's revision: proof caches keep its passes under it (proofcache_checks.h), so a
 * change to what it runs (its draws, its seams, its domains) bumps it, and old passes are not
 * taken for the new check's. */
#define RG_AXCHECK_REVISION 1

typedef struct {
  uint64_t seed;     /* default 1 */
  int assignments;   /* shape/parameter assignments per axiom (default 24) */
  int trials;        /* random inputs per assignment and domain (default 2) */
  int threads;       /* OpenMP threads; 0 = default */
  const rg_binding *base; /* rg_axiom_check_one: an assignment every draw starts from (NULL:
                          * searched); parameters unbound there are drawn */
  const rg_guard *guard;  /* rg_axiom_check_one: run only where it holds (NULL: everywhere) */
  rg_node_kernel kernel;  /* whole-node kernels for the trials (ir/interp.h), or NULL (default) */
  bool source_only;       /* (default) run wherever the source types, as the axiom contract
                           * says; false: only where both sides do (a candidate rule's contract) */
} rg_axcheck_opts;

void rg_axcheck_opts_init(rg_axcheck_opts *o);

typedef struct {
  bool sound;          /* every run agreed */
  int assignments;     /* assignments actually run (the solver may find fewer than asked) */
  int guard_skipped;   /* well-typed assignments where the axiom's guard did not hold */
  int seamed;          /* assignments run again with a tensor variable cut by a seam */
  int lifted;          /* assignments run again with one or two trailing axes on every tensor variable */
  bool typed_only;     /* (source_only) unsound because the target does not type where the
                        * source does and the guard holds */
  char why[768];       /* when unsound: the counterexample, one line */
} rg_axiom_verdict;

/* Checks one rule (an axiom or any candidate property) the same way. */
rg_status rg_axiom_check_one(const rg_rule *r, const rg_axcheck_opts *o, rg_axiom_verdict *v,
                             rg_err *err) RG_MUST_CHECK;

/* Checks every axiom of ax; verdicts has ax->rules.n entries; *n_unsound counts failures.
 * Errors are failures to run at all (allocation); an unsound axiom is a verdict. */
rg_status rg_axioms_check(const rg_axioms *ax, const rg_axcheck_opts *o, rg_axiom_verdict *verdicts,
                          int *n_unsound, rg_err *err) RG_MUST_CHECK;

#endif
