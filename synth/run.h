/* synth/run.h: a whole synthesis run, as `rulegen synth` drives it.
 *
 * Data flow, one direction: enumerate + fingerprint (fingerprint/collect.h, in passes over
 * fingerprint ranges when the records do not fit in memory) -> buckets of equal fingerprints ->
 * candidates (synth/candidates.h, random-tested with verify/randtest) -> renamed copies
 * collapsed (synth/collapse.h) -> generalize (synth/generalize.h) -> prune, prove, derive and
 * store (synth/finish.h). A run with an output file saves its tested candidates next to it
 * (synth/resume.h) before the stages that can fail on their own, and can resume from them.
 * Candidates are written in bucket order, which is the fingerprint order: the output is the same
 * for any thread count.
 */
#ifndef RG_SYNTH_RUN_H
#define RG_SYNTH_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "enumerate/enumerate.h"
#include "fingerprint/fingerprint.h"
#include "finish.h"
#include "stats.h"
#include "verify/randtest.h"

typedef struct {
  rg_enum_choices choices;
  rg_enum_inputset inputs;
  const char *inputs_path; /* where inputs came from (NULL: the default set) */
  const char *out_path;    /* NULL: standard output */
  const char *resume_path; /* candidates saved by an earlier run, or NULL */
  const char *spill_path;  /* the records' folder (fingerprint/spill.h), or NULL: OUT.spill, else a temporary one */
  const char *json_path;   /* the counters and stage rows as JSON, or NULL */
  int depth, threads;
  rg_synth_stop stop_after;
  rg_fp_opts fp;
  rg_randtest_opts rt;
  bool all_pairs;     /* every pair of a class, not one candidate per member */
  bool quiet;         /* no progress lines */
  bool no_generalize; /* skip the generalize stage */
  bool no_fail_fast;  /* ask cvc5 too what z3 did not prove (fin.prove.fail_fast is the default) */
  rg_finish_opts fin; /* the stages after test */
  volatile sig_atomic_t *stop; /* set (Ctrl-C): stop at the next check, write nothing */
  FILE *table; /* where the stage table's rows go while the run lasts (rg_synth_run sets it) */
} rg_synth_opts;

/* The defaults of `rulegen synth` (depth 3, TASO's operators and inputs, every core, half of
 * RAM for records, both solvers), with stop as the interrupt flag every stage polls. */
void rg_synth_opts_default(rg_synth_opts *o, volatile sig_atomic_t *stop);

/* Runs every stage up to o->stop_after and writes the output. command (the command line) is
 * recorded in a .db output's configuration. Progress and the stage table go to stderr.
 * Returns the process exit status: 0 done, 1 a stage failed, 2 bad input (a damaged candidates
 * file, an input set the space cannot use, too little memory), 130 interrupted (nothing
 * written). */
int rg_synth_run(rg_synth_opts *o, const char *command);
/* The same with the command line argv[0..argc) ("rulegen" and the arguments after argv[0]). */
int rg_synth_run_argv(rg_synth_opts *o, int argc, char **argv);

#endif
