/* ir/progress.h: the one progress line of a long stage.
 *
 * On a terminal (stderr a tty) a stage has one line, rewritten in place ("\r", then "\033[K"
 * to clear what a longer line left) at most 4 times a second: "prove: 1234/5000 queries
 * 41.2/s  ETA 1:31", and ended with a newline when the stage finishes. Anywhere else (a log, a
 * CI job) a plain line every 5 seconds at most, never a carriage return. Every long stage of
 * every program reports through this, so they all look and behave alike. Not thread-safe: a
 * parallel stage calls it from one thread at a time (an omp critical).
 */
#ifndef RG_IR_PROGRESS_H
#define RG_IR_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

typedef struct {
  const char *stage, *unit; /* "prove", "queries" (literals or the caller's) */
  int64_t total, done;      /* total 0: not known (no ETA) */
  double t0, last;          /* start, and the last line's time (seconds) */
  bool on, tty, shown;      /* enabled; stderr a terminal; a line printed */
  char extra[160];          /* appended to the line ("RSS 512 MB"), or "" */
  FILE *out;
} rg_progress;

/* Starts a stage of total units (0: unknown); nothing is printed when !enabled. */
void rg_progress_start(rg_progress *p, const char *stage, const char *unit, int64_t total, bool enabled);
/* done units so far; prints when the line is due. */
void rg_progress_tick(rg_progress *p, int64_t done);
/* Whether a line is due now (the stage is on and long enough has passed since the last): a
 * caller whose extra text costs something (a file read for the RSS) builds it only then. */
bool rg_progress_due(const rg_progress *p);
/* The same with extra text after the rate (printf format), formatted only when a line is due. */
void rg_progress_tick_extra(rg_progress *p, int64_t done, const char *fmt, ...)
    RG_PRINTF(3, 4);
/* For callbacks that name their stage each time (prune's): a stage other than p's (or none
 * yet: p zeroed) finishes p's line and starts one for stage; then done of total. */
void rg_progress_stage(rg_progress *p, const char *stage, const char *unit, int64_t done, int64_t total,
                       bool enabled);
/* Ends the stage: on a terminal the line's last state and a newline (when a line was shown);
 * elsewhere nothing more. Lines printed after it start on a fresh line. */
void rg_progress_finish(rg_progress *p);

#endif
