/* ir/progress.h: the one progress line of a long stage.
 *
 * On a terminal (stderr a tty) a stage has one line, rewritten in place ("\r", then "\033[K"
 * to clear what a longer line left) at most 4 times a second: "prove: 1234/5000 queries
 * 41.2/s  ETA 1:31", and ended with a newline when the stage finishes. Anywhere else (a log, a
 * CI job) a plain line every 5 seconds at most, never a carriage return. Every long stage of
 * every program reports through this, so they all look and behave alike.
 *
 * Threads: rg_progress_tick, rg_progress_tick_extra and rg_progress_due may be called from any
 * number of threads at once (the workers of an OpenMP loop), with no lock around them: the count
 * shown is the largest any of them gave (a thread that reports late never moves it back), and
 * one line is printed at a time (a thread that finds another printing skips its line rather than
 * wait). A tick that prints nothing costs a clock read and a few atomic operations. total may be
 * stored by any thread too (it is atomic). rg_progress_start, rg_progress_stage and
 * rg_progress_finish are for one thread while no other reports (before and after a parallel
 * loop), as is writing the other fields (out, for a test).
 */
#ifndef RG_IR_PROGRESS_H
#define RG_IR_PROGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"

typedef struct {
  const char *stage, *unit;     /* "prove", "queries" (literals or the caller's) */
  _Atomic int64_t total, done;  /* total 0: not known (no ETA) */
  double t0;                    /* start (seconds) */
  _Atomic double last;          /* the last line's time (seconds) */
  atomic_flag printing;         /* held by the thread printing a line */
  bool on, tty, shown;          /* enabled; stderr a terminal; a line printed */
  char extra[160];              /* appended to the line ("RSS 512 MB"), or "": the printer's */
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
 * yet: p zeroed), or p's after rg_progress_finish, finishes p's line and starts one for stage;
 * then done of total. */
void rg_progress_stage(rg_progress *p, const char *stage, const char *unit, int64_t done, int64_t total,
                       bool enabled);
/* Ends the stage: on a terminal the line's last state and a newline (when a line was shown);
 * elsewhere nothing more. Lines printed after it start on a fresh line. */
void rg_progress_finish(rg_progress *p);

#endif
