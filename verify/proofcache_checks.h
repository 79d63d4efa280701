/* verify/proofcache_checks.h: the checks around the proofs, kept in a proof cache
 * (proofcache.h) like the solvers' answers, so that a warm rerun repeats none of them: the
 * axioms' random test (axcheck.h) before anything is proved from them, each rule's comparison
 * at shape sets before it goes to the solvers (refute.h), and the recheck (recheck.h) of every
 * rule a solver proved.
 *
 * Only a pass is kept: one line of the cache's journal (journal.h: MAC'd with its key; a line
 * altered or forged is refused, counted, and the check run again), an unsat answer of the
 * first solver at a 1 ms limit under a key no obligation can have:
 *   - the axiom check: BLAKE2b-256("rulegen axiom check", RG_AXCHECK_REVISION, the axioms'
 *     digest, seed, assignments, trials, source_only), core "axioms-sound";
 *   - a rule's recheck: BLAKE2b-256("rulegen recheck", RG_AXCHECK_REVISION, seed, assignments,
 *     trials, the rule's text without its name, the shape var_shape gives each of its
 *     variables), core "recheck-agrees N" (N assignments compared) or "recheck-untyped" (no
 *     assignment types both sides: nothing to compare, the proof stands, as rg_prove_rules
 *     judges it). It does not depend on the axioms: a rule's sides are what is compared.
 *   - a rule's comparison at shape sets: BLAKE2b-256("rulegen refute", RG_AXCHECK_REVISION,
 *     shape sets, seed, the rule's text without its name), core "refute-agrees": the sides
 *     agreed at every set, so the rule went to the solvers (one that differs is not kept).
 * An unsound axiom or a rule whose sides differ is never kept: the check runs again, and says
 * so again. The auditors' commands (`rulegen check-axioms`, `rulegen recheck`) call
 * rg_axioms_check and rg_recheck_rules directly: asked for a check, they run it.
 */
#ifndef RG_VERIFY_PROOFCACHE_CHECKS_H
#define RG_VERIFY_PROOFCACHE_CHECKS_H

#include "axcheck.h"
#include "journal.h"
#include "recheck.h"

/* rg_axioms_check through the journal j (NULL: none, the check runs): *taken when j holds this
 * check's pass (every verdict then sound, nothing run); else the check runs, and a pass of
 * every axiom is appended to j. o->base and o->guard must be NULL (as rg_axioms_check has them). */
rg_status rg_axioms_check_journaled(rg_journal *j, const rg_axioms *ax, const rg_axcheck_opts *o,
                                    rg_axiom_verdict *verdicts, int *n_unsound, bool *taken, rg_err *err) RG_MUST_CHECK;

/* rg_recheck_rules through the journal j (NULL: none, every picked rule run): a picked rule
 * whose recheck under these parameters found no difference before is not run (its verdict as
 * then, taken[i] set, *n_taken counting them); the others run, and those that show no difference
 * are appended to j. taken has rules->n entries (or is NULL). */
rg_status rg_recheck_rules_journaled(rg_journal *j, const rg_ruleset *rules, const bool *pick,
                                     const rg_recheck_opts *o, rg_recheck_verdict *verdicts, int *n_differ,
                                     bool *taken, int *n_taken, rg_err *err) RG_MUST_CHECK;

/* The key of rule r's comparison at n_sets shape sets from seed (rg_refute_rule) into key, and
 * whether j (may be NULL) holds its pass: the sides agreed there before. */
bool rg_refute_pass_held(rg_journal *j, const rg_rule *r, int n_sets, uint64_t seed, char key[65]);
/* Keeps the pass of a comparison whose sides agreed, under the key rg_refute_pass_held gave. */
void rg_refute_pass_keep(rg_journal *j, const char key[65], double ms);

#endif
