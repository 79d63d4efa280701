/* ir/progress.c: a stage's progress line (progress.h). */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

#define TTY_EVERY 0.25 /* seconds between rewrites of a terminal's line */
#define LOG_EVERY 5.0  /* seconds between a log's lines */

void rg_progress_start(rg_progress *p, const char *stage, const char *unit, int64_t total, bool enabled) {
  memset(p, 0, sizeof *p); /* the flag clear, as ATOMIC_FLAG_INIT makes it */
  p->stage = stage, p->unit = unit, p->on = enabled, p->out = stderr;
  p->tty = enabled && isatty(fileno(stderr));
  p->t0 = rg_clock_seconds();
  atomic_init(&p->total, total);
  atomic_init(&p->done, 0);
  atomic_init(&p->last, p->t0);
}

/* done, unless a thread already gave more: concurrent ticks never move the count back. */
static void raise_done(rg_progress *p, int64_t done) {
  int64_t have = atomic_load_explicit(&p->done, memory_order_relaxed);
  while (done > have &&
         !atomic_compare_exchange_weak_explicit(&p->done, &have, done, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
}

static bool due_at(const rg_progress *p, double now) {
  return now - atomic_load_explicit(&p->last, memory_order_relaxed) >= (p->tty ? TTY_EVERY : LOG_EVERY);
}

/* Whether this thread may print a line now: it is due, and no other thread is printing one.
 * true: the caller prints and then calls release. */
static bool claim(rg_progress *p, double now) {
  if (!due_at(p, now)) return false;
  if (atomic_flag_test_and_set_explicit(&p->printing, memory_order_acquire)) return false;
  if (due_at(p, now)) return true; /* not printed by another thread meanwhile */
  atomic_flag_clear_explicit(&p->printing, memory_order_release);
  return false;
}

static void release(rg_progress *p) { atomic_flag_clear_explicit(&p->printing, memory_order_release); }

/* "1:31" or "2:05:09". */
static void clock_text(double s, char *buf, size_t n) {
  long t = s < 0 ? 0 : (long)(s + 0.5);
  if (t >= 3600) snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

/* Prints the line (by one thread at a time: the one that claimed it, or start's and finish's). */
static void print_line(rg_progress *p, double now, bool final) {
  int64_t done = atomic_load_explicit(&p->done, memory_order_relaxed),
          total = atomic_load_explicit(&p->total, memory_order_relaxed);
  double el = now - p->t0, rate = el > 0 ? (double)done / el : 0;
  char when[32] = "";
  if (final) clock_text(el, when, sizeof when);
  else if (total > 0 && done > 0) clock_text(el * (double)(total - done) / (double)done, when, sizeof when);
  char count[64];
  if (total > 0) snprintf(count, sizeof count, "%lld/%lld", (long long)done, (long long)total);
  else snprintf(count, sizeof count, "%lld", (long long)done);
  fprintf(p->out, "%s%s: %s %s  %.1f/s%s%s%s%s%s%s", p->tty ? "\r" : "", p->stage, count, p->unit, rate,
          when[0] ? (final ? "  in " : "  ETA ") : "", when, p->extra[0] ? "  " : "", p->extra,
          p->tty ? "\033[K" : "", p->tty && !final ? "" : "\n");
  fflush(p->out);
  p->shown = true;
  atomic_store_explicit(&p->last, now, memory_order_relaxed);
}

bool rg_progress_due(const rg_progress *p) { return p->on && due_at(p, rg_clock_seconds()); }

void rg_progress_tick(rg_progress *p, int64_t done) {
  if (!p->on) return;
  raise_done(p, done);
  double now = rg_clock_seconds();
  if (!claim(p, now)) return;
  print_line(p, now, false);
  release(p);
}

void rg_progress_tick_extra(rg_progress *p, int64_t done, const char *fmt, ...) {
  if (!p->on) return;
  raise_done(p, done);
  double now = rg_clock_seconds();
  if (!claim(p, now)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->extra, sizeof p->extra, fmt, ap);
  va_end(ap);
  print_line(p, now, false);
  release(p);
}

void rg_progress_finish(rg_progress *p) {
  if (p->on && p->tty && p->shown) print_line(p, rg_clock_seconds(), true);
  p->on = false;
}

void rg_progress_stage(rg_progress *p, const char *stage, const char *unit, int64_t done, int64_t total, bool enabled) {
  /* a stage finished and named again (a later round's) starts afresh: its count from 0 */
  if (!p->stage || strcmp(p->stage, stage) || (enabled && !p->on)) {
    rg_progress_finish(p);
    rg_progress_start(p, stage, unit, total, enabled);
  }
  atomic_store_explicit(&p->total, total, memory_order_relaxed);
  rg_progress_tick(p, done);
}
