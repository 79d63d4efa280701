/* prune/prune.h: the public header of prune/: removing rules that other kept rules imply.
 *
 * Stages, each optional, in this order:
 *   renaming    rules with equal content ids (equal up to variable renaming) are one rule: the
 *               first in input order is kept;
 *   subgraph    TASO's common subgraph: R is an instance of a kept smaller rule (or of a kept
 *               rule the caller names as more general, rg_prune_opts.general_of);
 *   supergraph  TASO's common supergraph: R follows by congruence from a kept smaller rule;
 *   derive      Ruler-style derivability: R is removed when the rules kept before it derive it
 *               within the search limits (derive.h); then (second_pass) each kept rule,
 *               largest first, is removed when all the other kept rules derive it. Each
 *               removal leaves what the kept rules derive unchanged.
 * Subgraph, supergraph and derive visit rules in one order: smaller larger side first, then
 * more variables (more general), then fewer operators in all, then fewer distinct operators,
 * then content id. (Size comes first as in Ruler, whose rounds grow the term size; within a
 * size Ruler's preference for more variables applies.) A rule is only ever removed when kept
 * rules imply it, and the removal records which ones, so an audit can re-check it (record.h).
 * Results do not depend on the number of threads.
 */
#ifndef RG_PRUNE_PRUNE_H
#define RG_PRUNE_PRUNE_H

#include <signal.h>

#include "canon.h"
#include "coverage.h"
#include "derive.h"
#include "files.h"
#include "match/match.h"
#include "record.h"
#include "redundancy.h"
#include "replay.h"
#include "rewrite.h"
#include "state.h"

enum {
  RG_PRUNE_RENAMING = 1 << 0,
  RG_PRUNE_SUBGRAPH = 1 << 1,
  RG_PRUNE_SUPERGRAPH = 1 << 2,
  RG_PRUNE_DERIVE = 1 << 3,
  RG_PRUNE_ALL = 15,
};

typedef enum {
  RG_FATE_KEPT = 0,
  RG_FATE_RENAMING,
  RG_FATE_SUBGRAPH,
  RG_FATE_SUPERGRAPH,
  RG_FATE_DERIVED,
} rg_prune_fate;

/* What the stages need of a rule absent from the set (NULL there): its content id and its
 * place in the visiting order, taken while it was there. Only a renaming of a rule before it
 * may be absent, and only where the renaming stage runs: a caller that holds millions of rules
 * lets go of those as soon as it knows (synth/renamings.h), before pruning. */
typedef struct {
  rg_content_id id;
  int larger, vars, total, distinct; /* the visiting order's keys, in the header's order */
} rg_prune_facts;
rg_status rg_prune_facts_of(const rg_rule *r, rg_prune_facts *f, rg_err *err) RG_MUST_CHECK;

/* The reason's word in tables and records: kept, renaming, subgraph, supergraph, derived. */
const char *rg_prune_fate_name(rg_prune_fate f);
/* The name of stage k (0..RG_PRUNE_STAGES-1) in tables: renaming ... derivability. */
const char *rg_prune_stage_name(int k);
/* Parses a comma-separated list of renaming, subgraph (TASO's two checks: common subgraph and
 * common supergraph), supergraph (that one alone), derive, all, none; false on an unknown word. */
bool rg_prune_parse_stages(const char *s, unsigned *stages);

typedef struct {
  rg_prune_fate fate;
  rg_content_id id;
  int *by; /* indices (into the input set) of the kept rules that imply it */
  int n_by;
  int n_steps; /* for RG_FATE_DERIVED: its derivation's length */
  char *steps; /* that derivation (tags are input indices), packed (state.h) */
} rg_prune_entry;

typedef struct {
  const char *name;
  int in, out;
  double seconds;
  bool run;
} rg_prune_stage;

#define RG_PRUNE_STAGES 4

/* Derivability's searches beside this process's threads (synth/derive_spread.h: the other ranks
 * of an MPI job). They keep their own copy of the rewrite set from the changes each batch
 * brings, so the result is the one-by-one pass's whoever searches. */
typedef struct {
  int tag;             /* the rule */
  const rg_rule *rule; /* added to the set; NULL: switched off in it */
} rg_derive_change;

typedef struct {
  int tag; /* the rule searched */
  const rg_rule *rule;
  bool exclude; /* against the set less itself (it is in the set) */
  bool found;   /* the answer: found and d, or st and err */
  rg_derivation d;
  rg_status st;
  rg_err err;
} rg_derive_ask;

typedef struct {
  void *ctx;
  int width;     /* searches they run at once */
  double turn_s; /* the time a batch's round trip to them costs (measured), beside the searches */
  /* send: the set's changes since the last batch sent, and searches asks[0..n); take: their
   * answers, into asks (a derivation the caller frees; it checks it before using it). Errors
   * end derivability. */
  rg_status (*send)(void *ctx, const rg_derive_change *changes, int n_changes,
                    const rg_derive_ask *asks, int n, rg_err *err);
  rg_status (*take)(void *ctx, rg_derive_ask *asks, int n, rg_err *err);
} rg_derive_helpers;

typedef struct {
  unsigned stages; /* RG_PRUNE_* bits */
  rg_derive_limits limits;
  bool second_pass;            /* derivability: after the pass in visiting order, try each kept
                                  rule, largest first, against all other kept rules */
  volatile sig_atomic_t *stop; /* if non-NULL and set (e.g. by SIGINT), derivability stops and
                                  keeps every rule it has not decided */
  void (*progress)(void *ctx, const char *stage, int done, int total); /* may be NULL */
  void *progress_ctx;
  /* Optional (NULL: none): derivability calls save with the result as it stands, marked where
   * it would go on from (rg_prune_result.derive_pass), at most every save_every seconds, so that
   * a run killed in a long derivability (half an hour at depth 4) loses at most that much. */
  void (*save)(void *ctx, const struct rg_prune_result *res);
  void *save_ctx;
  double save_every;
  /* Optional (NULL: none), for the subgraph stage: rules general_of[general_off[i] ..
   * general_off[i+1]) may have rule i as an instance by a substitution of variables for
   * variables (e.g. generalizations made from i by splitting a repeated variable, verify/
   * generalize.h). Rule i is removed as subgraph (an instance) when one of them, or the rule
   * it is a renaming of, is kept when i is visited and rg_rule_is_instance says so. */
  const int *general_off, *general_of;
  /* Optional (NULL: every rule is there): the facts of absent rule i (rs->rules[i] NULL), or
   * NULL when the caller has none (an error). */
  const rg_prune_facts *(*absent)(void *ctx, int i);
  void *absent_ctx;
  /* Optional (NULL: none): called for each rule a stage removes as it removes it, but for those
   * of derivability's second pass (they stay in its set). Pruning never reads such a rule again,
   * so the caller may let go of it (synth/hollow.h): rs->rules[i] may then be NULL. It is called
   * for an absent rule the renaming stage removes too. */
  rg_status (*let_go)(void *ctx, int i, rg_err *err);
  void *let_go_ctx;
  const rg_derive_helpers *helpers; /* optional (NULL: none) */
} rg_prune_opts;

typedef struct rg_prune_result {
  int n;             /* rules of the input */
  rg_prune_entry *e; /* [n], in input order */
  int *order;        /* [n], input indices in visiting order */
  int removal_seq_n;
  int *removal_seq; /* input indices in the order they were removed */
  rg_prune_stage stage[RG_PRUNE_STAGES];
  int kept;
  bool interrupted; /* the stop flag ended derivability early */
  /* Derivability part way (stopped by the flag, or saved while it runs): derive_pass (1 or 2) is
   * the pass it was in and derive_next the place in the visiting order it goes on from (every
   * rule before it in pass 1, after it in pass 2, decided); derive_seq1 how many removals pass 1
   * made (pass 2's follow them in removal_seq). derive_pass is 0 before derivability and after
   * it. rg_prune_run_derive goes on from there, to the result of a run never stopped. */
  int derive_pass, derive_next, derive_seq1;
  /* The removed rules' derivations, held as their state lines (state.h) packed with one
   * dictionary (ir/textpack.h): at depth 4, 2.85M derivations of 7.4M steps took about 1 GB
   * as terms apart. NULL until the first. */
  struct rg_textpack *steps_pack;
} rg_prune_result;

rg_prune_opts rg_prune_opts_default(void); /* every stage, default limits */

/* Prunes rs (every rule must have a target; a rule may be absent as rg_prune_opts.absent says,
 * the result the same as with it there). On success res holds the fate of every rule;
 * free it with rg_prune_result_free (also after an error). */
rg_status rg_prune_run(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                       rg_err *err) RG_MUST_CHECK;
void rg_prune_result_free(rg_prune_result *res);

/* The derive stage alone, over res from rg_prune_run without RG_PRUNE_DERIVE in o->stages (the
 * same as one run with it): a caller can save the result in between (synth/checkpoint.h). Over
 * a result derivability left part way (derive_pass set), it goes on from there. */
rg_status rg_prune_run_derive(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                              rg_err *err) RG_MUST_CHECK;

/* After pruning, kept rules can still be dropped (a proof fails). A rule removed because a
 * dropped rule implies it has lost its justification: this puts every removed rule that names
 * a rule with dropped[i] set back to kept (its record goes), and returns how many. Rules named
 * by reinstated rules' removals are unaffected. Call it again after the reinstated rules have
 * been through the proofs, until it returns 0. */
int rg_prune_reinstate(rg_prune_result *res, const bool *dropped);

/* After rg_prune_reinstate: each kept rule with retry[i] set (put back, not yet proved) is
 * searched again, in visiting order, against the rules with usable[i] set (the proved ones)
 * and the rules put back that it kept before it (as pass 1 of derivability, over the proved
 * rules and the put-back ones alone). One they derive is removed again; the rest go to the
 * solvers. A record that names only usable rules cannot be put back again; one that names a
 * put-back rule is, if that rule fails its proof (the next round). At depth 4 a round put back
 * 175,000 rules; searched against the proved rules alone, 160,000 of them went to the solvers.
 * *n_removed counts the rules removed. Errors as rg_prune_run (allocation, a derivation failing its
 * re-check). */
rg_status rg_prune_rederive(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                            const bool *usable, const bool *retry, int *n_removed,
                            rg_err *err) RG_MUST_CHECK;

/* Removes kept rule i as derived by d, as derivability does: its record names the rules of d's
 * steps, and takes d's steps (d is left empty). For a caller that kept a removal derivability
 * made and makes it again (synth/rounds.h); the derivation is the caller's to have checked
 * (rg_derivation_check). Errors only for allocation failure. */
rg_status rg_prune_remove_derived(rg_prune_result *res, int i, rg_derivation *d,
                                  rg_err *err) RG_MUST_CHECK;

#include "report.h" /* after the types it prints */

#endif
