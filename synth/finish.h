/* synth/finish.h: the stages of `rulegen` after random testing: pruning (renaming, common
 * subgraph and supergraph), proofs with z3 and cvc5, derivability pruning, and the output (rule
 * text, or a signed rule database when the output ends in .db).
 *
 * Order and why: pruning (renaming, common subgraph and supergraph, and derivability) runs
 * before the proofs so that only rules no other candidate implies are sent to the solvers; a
 * rule removed there because kept rules imply it is put back if one of them then fails its proof
 * (prune's reinstatement), and proved in turn, until no proof fails. A derivation is only as
 * good as the rules it uses, so every removal stands on proved rules in the end. Derivability
 * runs once more over the proved rules, because a rule put back may be derivable from other
 * proved ones.
 */
#ifndef RG_SYNTH_FINISH_H
#define RG_SYNTH_FINISH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verify/prove.h"

/* Stop after this stage (test and earlier stages are synth's own). */
typedef enum { RG_FINISH_PRUNE = 1, RG_FINISH_PROVE = 2, RG_FINISH_ALL = 3 } rg_finish_stop;

/* A row of the stage table from the stages before (enumerate, fingerprint, test). */
typedef struct {
  const char *name;
  int64_t n_in, n_out;
  const char *dropped; /* "why:count ..." or "" */
  double seconds;
} rg_finish_stage;

/* The whole stage table and the proof summary of a finished run (for --json). */
#define RG_FINISH_MAX_ROWS 16
typedef struct {
  rg_finish_stage rows[RG_FINISH_MAX_ROWS]; /* names are literals; dropped points into why */
  int n_rows;
  char why[RG_FINISH_MAX_ROWS][256]; /* the rows' "dropped" texts, copied: the report outlives
                                      * the caller's buffers */
  rg_prove_summary sum;
  bool filled; /* the run got as far as its output */
} rg_finish_report;

typedef struct {
  rg_finish_stop stop_after;
  unsigned prune_stages;        /* RG_PRUNE_* bits (prune/prune.h) */
  rg_prove_opts prove;          /* timeout, threads, require, cvc5 path */
  const char *axioms_path;      /* NULL: verify/axioms.rules */
  /* Where the solvers' answers are kept and taken (verify/proofcache.h): the proof cache folder
   * proof_cache, else the default one; with no_proof_cache, OUT.proofs (none without OUT). */
  const char *proof_cache;
  bool no_proof_cache;
  const char *out_path;         /* NULL: rule text on stdout */
  const char *key_path;         /* signs a .db output; NULL: unsigned */
  const char *config;           /* generator configuration, "key=value" per line, for the db */
  volatile sig_atomic_t *stop;  /* Ctrl-C */
  int save_every;               /* seconds between saves of derivability's progress (OUT.derived) */
  bool quiet;
  uint64_t test_seed;           /* seed of the test records written to a db */
  const int *general_off, *general_of; /* rules more general than a candidate, or NULL (see
                                        * rg_prune_opts) */
  rg_finish_report *report;            /* filled before the output is written, or NULL */
  FILE *table;                         /* the stage table's rows (NULL: stderr) */
} rg_finish_opts;

/* The proof options of o's proof rounds into *po: o->prove, with the journal of the solvers'
 * answers (o's proof cache, or OUT.proofs) into *journal (owned: free it after po; NULL: none)
 * and where it is, said for the report, into where. The solvers are kept in solvers (the
 * caller's, as long as po): set up once, by the first call that needs them (the proof cache's
 * journal, named by their versions, or the first round). Errors: a solver's setup, the proof
 * cache's, RG_ERR_NOMEM. */
rg_status rg_finish_prove_opts(const rg_finish_opts *o, rg_prove_opts *po,
                               rg_solver solvers[RG_SOLVER_COUNT], char **journal, char *where,
                               size_t where_size, rg_err *err) RG_MUST_CHECK;

/* Runs the stages after testing on the candidate rule text (*cand, len bytes, malloc'ed; '#'
 * lines are comments), prints their rows of the stage table on stderr after the rows in pre,
 * and writes the result to o->out_path (atomically). The text is freed (*cand set to NULL) as
 * soon as it is parsed: the stages work on the rules, and at depth 4 the text is 1 GB. Returns
 * the process exit status: 0 done, 1 a stage failed (message printed), 2 the candidate text
 * does not parse (a damaged candidates file), 130 interrupted (nothing written). */
int rg_synth_finish(char **cand, size_t len, const rg_finish_opts *o,
                    const rg_finish_stage *pre, int n_pre);

#endif
