/* synth/candidates.h: the test stage: a pass's buckets of equal fingerprints turned into tested
 * candidate rules.
 *
 * In a bucket, members are taken smallest first; each is paired (synth/pair.h) with the
 * representative of each class found so far, the candidate random-tested (verify/randtest), and
 * the member joins the first class it passes with, giving the candidate "member =>
 * representative"; otherwise it founds a new class. Passing is transitive on the shared trials,
 * so one candidate per member spans its class (all_pairs prints every pair of a class instead).
 * Buckets are tested in parallel and written in bucket order.
 */
#ifndef RG_SYNTH_CANDIDATES_H
#define RG_SYNTH_CANDIDATES_H

#include <stdio.h>

#include "run.h"
#include "verify/randtest_cache.h"

/* Tests every bucket of table t and appends the candidate lines to out (NULL: counted only),
 * adding to c. cache keeps the verdicts of renamed candidates across calls (NULL: one of its
 * own, rg_synth_cache_bytes large). Errors: allocation, an evaluation error of the random
 * tests. Returns RG_OK with the output incomplete when *o->stop is set (the caller checks it). */
rg_status rg_synth_test_pass(const rg_synth_opts *o, const rg_enum_space *sp, const rg_fp_table *t,
                             rg_randtest_cache *cache, FILE *out, rg_synth_counts *c, rg_err *err) RG_MUST_CHECK;

/* The memory for verdicts of renamed candidates (and generalizations) the threads share: at most
 * 1/4 of the record budget, 1 GB at most. */
size_t rg_synth_cache_bytes(const rg_synth_opts *o);

#endif
