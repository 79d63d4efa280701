/* verify/cvc5_options.h: the cvc5 options of every query, declared once: the cvc5 binary gets
 * them on its command line (--NAME=VALUE, or --NAME / --no-NAME for true / false), the API
 * helper (cvc5_serve.cpp) through Solver::setOption. The per-query limit (tlimit-per, which
 * answers unknown where tlimit would abort the process) is set per query, not here.
 *
 * enum-inst: cvc5's default instantiation gives up on deeper goals. The rest prove the same on
 * the depth-4 obligations for less work (1 thread, interleaved with the defaults: median
 * 0.85x): no incremental mode, no quantifier preprocessing beyond the rewriter's and variable
 * elimination, cores from the SAT proof, no conflict-based instantiation, max triggers.
 * var-elim-quant: a guarded axiom's definitions (= ?m (- ?l (dim ?x ?a))) are equalities it
 * solves away, which let cvc5 prove a slice-concat-right goal it timed out on (1,000 depth-4
 * tested candidates, interleaved twice: 977 verified against 976, median 23.1/24.5 against
 * 25.4/25.3 ms). */
#ifndef RG_VERIFY_CVC5_OPTIONS_H
#define RG_VERIFY_CVC5_OPTIONS_H

#define RG_CVC5_OPTIONS(X)                                                                         \
  X("enum-inst", "true")                                                                           \
  X("incremental", "false")                                                                        \
  X("var-elim-quant", "true")                                                                      \
  X("cond-var-split-quant", "off")                                                                 \
  X("miniscope-quant", "off")                                                                      \
  X("prenex-quant", "none")                                                                        \
  X("unsat-cores-mode", "sat-proof")                                                               \
  X("cbqi", "false")                                                                               \
  X("trigger-sel", "max")

#endif
