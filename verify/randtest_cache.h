/* verify/randtest_cache.h: random testing of many candidates that are renamings of each other.
 *
 * An enumeration over several equal-shaped inputs finds the same rule many times over with its
 * variables renamed ((ewadd ?x1 ?x2) => (ewadd ?x2 ?x1), the same with ?x1 ?x3, ...), in
 * different buckets. Such candidates hold or fail together, so each is tested once: a candidate
 * is printed, its variables renamed ?v0, ?v1, ... in order of first occurrence, and that text
 * together with the variables' shapes is the key. The rule parsed back from the renamed text is
 * what gets tested (rg_randtest_rule with the caller's options), so the verdict is a function of
 * the key alone: the results are the same whatever order threads fill the cache in.
 *
 * Thread-safe (a mutex around the table; tests run outside it). Memory is bounded: once the
 * keys held reach the byte budget, new verdicts are no longer stored (candidates are still
 * tested, only not remembered). Rules with parameter variables bypass the cache.
 *
 * The trials at other shape sets are keyed by the renamed rule text and its variables' ranks
 * (their sets grow from a base made of the ranks alone, not from the binding it was found at),
 * so the same rule found over inputs of other sizes reuses them and only repeats the trials at
 * its own shapes.
 */
#ifndef RG_VERIFY_RANDTEST_CACHE_H
#define RG_VERIFY_RANDTEST_CACHE_H

#include "randtest.h"

typedef struct rg_randtest_cache rg_randtest_cache;

/* A cache holding at most about max_bytes of keys. NULL when out of memory. */
rg_randtest_cache *rg_randtest_cache_new(size_t max_bytes);
void rg_randtest_cache_free(rg_randtest_cache *c);

/* Like rg_randtest_rule(r, base, o, v, err), testing the renamed rule unless the key's verdict
 * is known; *hit tells which. base must bind every tensor variable of r (shapes only); o must be
 * the same for every call on one cache. */
rg_status rg_randtest_rule_cached(rg_randtest_cache *c, const rg_rule *r, const rg_binding *base,
                                  const rg_randtest_opts *o, rg_randtest_verdict *v, bool *hit,
                                  rg_err *err) RG_MUST_CHECK;

#endif
