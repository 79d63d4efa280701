/* synth/spread.h: a proof round spread over the ranks of an MPI job (cluster/cluster.h). Rank 0
 * hands every rank, itself included, chunks of the round's rules; each rank proves its chunks
 * with the round's options into the journal they share (the proof cache, or OUT.proofs: a
 * folder every rank sees), answers and the rechecks' passes alike. Rank 0's round then takes
 * every answer from the journal, so the round's verdicts, and the output, are those of one
 * process; the work the ranks did is counted as asked now, not as taken from earlier runs.
 * With one rank nothing is spread: the round asks the solvers itself. Under po->check_axioms
 * rank 0 first random-tests the axioms, as its round would: an unsound axiom stops the run
 * before the ranks spend their time on it. */
#ifndef RG_SYNTH_SPREAD_H
#define RG_SYNTH_SPREAD_H

#include "cluster/cluster.h"
#include "finish.h"

/* The kinds of job rank 0 hands the workers (cluster/cluster.h's kinds): proof rounds here,
 * the enumeration and the test stage in synth/tested.h, generalize in synth/generalize_spread.h,
 * derivability's searches in synth/derive_spread.h. */
enum {
  RG_SPREAD_PROVE,
  RG_SPREAD_ENUMERATE,
  RG_SPREAD_TEST,
  RG_SPREAD_GENERALIZE,
  RG_SPREAD_DERIVE
};

/* What the ranks did in a spread round. */
typedef struct {
  int64_t asked;    /* solver queries answered */
  int64_t rechecks; /* proved rules the recheck compared (its pass not taken from the cache) */
  int64_t compares; /* rules compared at shape sets before the solvers (their pass not taken) */
  int64_t axioms_tested; /* the axioms' random test, run by rank 0 before the ranks set out */
  bool axioms_checked;   /* that test passed here: the round need not run it again */
} rg_spread_work;

/* Rank 0, before its round over rs with po: the ranks prove rs into po's journal (nothing with
 * one rank); their work into *done. Errors: a rank's (naming it), RG_ERR_NOMEM. */
rg_status rg_spread_prove(const rg_ruleset *rs, const rg_axioms *ax, const rg_prove_opts *po,
                          rg_spread_work *done, rg_err *err) RG_MUST_CHECK;

/* The round's summary s (of rank 0's round after a spread) with the ranks' work as asked now. */
void rg_spread_account(rg_prove_summary *s, const rg_spread_work *done);

/* Under MPI (more than one rank): a line of what each rank did in the spread stages of kinds
 * (bit k: kind k; work units and graphs enumerated, parts tested, generalize chunks,
 * derivability's searches on the workers, rules proved and solver queries; seconds busy in
 * each), with each rank's peak resident memory and
 * the bytes exchanged so far, after lead, on out; nothing with one rank or no such work. */
void rg_spread_print(FILE *out, const char *lead, unsigned kinds);
/* The same as JSON members after a comma, ', "ranks": [{rank, rules, chunks, asked, busy_s,
 * units, graphs, enumerate_busy_s, test_groups, pairs, test_busy_s, generalize_chunks,
 * generalize_busy_s, derive_searches, derive_busy_s, peak_rss_kb}, ...],
 * "exchanged_bytes": N' (rules .. busy_s: the proof rounds'); nothing with one rank. */
void rg_spread_json(FILE *out);

/* A worker rank of a synthesis run with finish options o: does the jobs rank 0 sends until the
 * run ends, proof rounds and those of works (the caller's kinds filled in; the others' open
 * NULL). Returns the exit status. */
int rg_spread_serve(const rg_finish_opts *o, rg_cluster_work works[RG_CLUSTER_KINDS]);

#endif
