/* synth/stats.h: what a synthesis run counted up to the test stage (synth/stats.def), the stage
 * table it prints on stderr, and the same figures as JSON for CI. */
#ifndef RG_SYNTH_STATS_H
#define RG_SYNTH_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "enumerate/enumerate.h"
#include "ir/strbuf.h"
#include "verify/randtest.h"

/* Most classes a bucket forms; members beyond are counted in overflow, not tried. */
#define RG_SYNTH_MAX_CLASSES 64

typedef struct {
#define RG_SYNTH_COUNT(field, what) uint64_t field;
#include "stats.def"
#undef RG_SYNTH_COUNT
  uint64_t verdict[RG_RANDTEST_COUNT]; /* test verdicts of the pairs tested */
  int passes;                          /* loads of records from the spill folder (synth/tested.h) */
  double secs[3];                      /* enumerate + fingerprint, test, total */
} rg_synth_counts;

/* Adds every counter of b to a (passes and times are not summed). */
void rg_synth_counts_add(rg_synth_counts *a, const rg_synth_counts *b);

/* The last stage a run goes to (the stages after test belong to synth/finish.h). */
typedef enum {
  RG_SYNTH_STOP_ENUMERATE,
  RG_SYNTH_STOP_FINGERPRINT,
  RG_SYNTH_STOP_TEST,
  RG_SYNTH_STOP_PRUNE,
  RG_SYNTH_STOP_PROVE,
  RG_SYNTH_STOP_ALL
} rg_synth_stop;

/* The rows of the stage table up to the test stage, to out, for a run that stopped after
 * stop over space sp with threads threads. */
void rg_synth_counts_print(const rg_synth_counts *c, const rg_enum_space *sp, rg_synth_stop stop,
                           int threads, FILE *out);

/* The counters (not passes nor times) as text, each number after a space, appended to out;
 * and read back from text (false when it is not such text; *end after the last number). What
 * a test stage's part keeps (synth/tested.h). */
void rg_synth_counts_save(const rg_synth_counts *c, rg_strbuf *out);
bool rg_synth_counts_parse(const char *text, const char **end, rg_synth_counts *c);

/* The counters as one JSON object (keys from stats.def, verdicts by name). */
void rg_synth_counts_json(const rg_synth_counts *c, FILE *out);

/* Resident and peak resident memory of this process, in MB (progress and the table). */
double rg_synth_rss_mb(void);
double rg_synth_peak_rss_mb(void);

#endif
