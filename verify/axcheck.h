/* verify/axcheck.h: random testing of axioms against the real semantics.
 *
 * Every axiom is run, at `assignments` shape/parameter assignments found by the shape solver
 * (ir/shapesolve.h: coincidences of one shape set are split apart), with `trials` random inputs
 * in each of the float64 and Z_p interpreters (ir/compare.h). An axiom is unsound when any run
 * disagrees (in values or output types) or when no well-typed assignment exists at all; the
 * verdict then carries a counterexample: the shapes, the parameter values, the domain, the
 * output, the position and both values. Deterministic for a given seed.
 *
 * A tensor variable of an axiom stands for any term, and terms carry seams (where a concat
 * joined them, ir/shape.h) that the solver's inputs lack. So each assignment is run twice
 * more: with every tensor variable cut by a seam in the middle of one axis (the next axis each
 * time, the same for all, so that operands meeting elementwise keep them), and with one
 * variable cut on one axis (the next each time, so that they differ and meets drop them): where
 * the source types there (and the guard holds), both sides must agree in values and in seams. An axiom
 * whose target drops a seam its source keeps (conv-identity) must say in its guard that there
 * is none, (= (seams ?x 1) 0). An unguarded axiom whose target does not type there is "typed
 * only" (verify/axioms.rules) and skipped, as at the solver's shapes.
 */
#ifndef RG_VERIFY_AXCHECK_H
#define RG_VERIFY_AXCHECK_H

#include "axioms.h"

typedef struct {
  uint64_t seed;     /* default 1 */
  int assignments;   /* shape/parameter assignments per axiom (default 24) */
  int trials;        /* random inputs per assignment and domain (default 2) */
  int threads;       /* OpenMP threads; 0 = default */
  const rg_binding *base; /* rg_axiom_check_one: an assignment to start from (NULL: searched) */
  const rg_guard *guard;  /* rg_axiom_check_one: run only where it holds (NULL: everywhere) */
  bool source_only;       /* run wherever the source types, not only where both sides do: an
                           * axiom whose target then does not type is typed_only */
} rg_axcheck_opts;

void rg_axcheck_opts_init(rg_axcheck_opts *o);

typedef struct {
  bool sound;          /* every run agreed */
  int assignments;     /* assignments actually run (the solver may find fewer than asked) */
  int guard_skipped;   /* well-typed assignments where the axiom's guard did not hold */
  int seamed;          /* assignments run again with a tensor variable cut by a seam */
  int lifted;          /* assignments run again with one or two trailing axes on every tensor variable */
  bool typed_only;     /* (source_only) unsound because the target does not type where the
                        * source does (and no guard of sizes says it must) */
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
