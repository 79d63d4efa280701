/* verify/recheck.h: the deep recheck of rules, the backstop behind the proofs.
 *
 * A proof rests on the axioms, and an axiom that holds less widely than the SMT encoding states
 * it lets both solvers prove a false rule (conv-concat-sum, stated where its target did not
 * type, "verified" reorderings of channel concats under a conv). The recheck evaluates a rule
 * the way the axiom checker tests an axiom (axcheck.h, source_only off: the rule contract, equal
 * values wherever both sides type with outputs of equal type), at many assignments the shape
 * solver draws for it: its skewed draws (concat operands split unequally and out of line with
 * kernels, a grouped conv's kernel count doubled), small ones (sizes 1 and 2), each again with
 * seams cut into its variables (a variable stands for any term, a concat's output among them)
 * and with trailing axes added. Seeded: the same rule, options and seed give the same verdict.
 */
#ifndef RG_VERIFY_RECHECK_H
#define RG_VERIFY_RECHECK_H

#include <signal.h>

#include "ir/ir.h"

typedef struct {
  bool differs;    /* the sides differ (in values or output type) at some assignment */
  bool untyped;    /* no assignment under which both sides type was found: nothing compared */
  bool skipped;    /* not run (stopped) */
  int assignments; /* assignments compared */
  char why[768];   /* differs: the counterexample, one line; untyped: what the solver said */
} rg_recheck_verdict;

typedef struct {
  uint64_t seed;   /* default 1 */
  int assignments; /* drawn assignments per rule (default 64) */
  int trials;      /* random inputs per assignment and domain (default 1) */
  int threads;     /* rg_recheck_rules: OpenMP threads; 0 = OpenMP's default */
  rg_node_kernel kernel; /* whole-node kernels for the trials (ir/interp.h), or NULL (default):
                          * the same values, faster (fingerprint/kernels.h has them) */
  const volatile sig_atomic_t *stop; /* rg_recheck_rules: if set and non-zero, the rest is skipped */
  /* The shape of a tensor variable by its name (an input set's: enumerate/inputs.h), or NULL
   * for none. A rule whose variables all have one is drawn from there: the shape solver finds
   * none of its own for some rules (a reshape to a fixed size of a conv's output). */
  const rg_shape *(*var_shape)(const void *ctx, const char *name);
  const void *var_shape_ctx;
  bool progress; /* rg_recheck_rules: a progress line on stderr (ir/progress.h); default off */
  /* rg_recheck_rules: called with each rule's verdict as soon as it is known, one call at a
   * time, with the time it took; NULL for none. What a caller keeps as the rules go (the proof
   * cache's passes) is then not lost to a stop: at depth 4 the recheck takes most of an hour. */
  void (*on_verdict)(void *ctx, int i, const rg_recheck_verdict *v, double ms);
  void *verdict_ctx;
} rg_recheck_opts;

void rg_recheck_opts_init(rg_recheck_opts *o);


/* Rechecks one rule (with a target). Errors are failures to run (allocation); a rule that
 * differs, or never types, is a verdict. */
rg_status rg_recheck_rule(const rg_rule *r, const rg_recheck_opts *o, rg_recheck_verdict *v,
                          rg_err *err) RG_MUST_CHECK;

/* Rechecks rules->rules[i] for every i with pick[i] set (pick NULL: all), in parallel, into
 * verdicts[i]; *n_differ counts the rules that differ. */
rg_status rg_recheck_rules(const rg_ruleset *rules, const bool *pick, const rg_recheck_opts *o,
                           rg_recheck_verdict *verdicts, int *n_differ, rg_err *err) RG_MUST_CHECK;

#endif
