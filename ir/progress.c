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
  memset(p, 0, sizeof *p);
  p->stage = stage, p->unit = unit, p->total = total, p->on = enabled, p->out = stderr;
  p->tty = enabled && isatty(fileno(stderr));
  p->t0 = p->last = rg_clock_seconds();
}

/* "1:31" or "2:05:09". */
static void clock_text(double s, char *buf, size_t n) {
  long t = s < 0 ? 0 : (long)(s + 0.5);
  if (t >= 3600) snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

static void print_line(rg_progress *p, double now, bool final) {
  double el = now - p->t0, rate = el > 0 ? (double)p->done / el : 0;
  char when[32] = "";
  if (final) clock_text(el, when, sizeof when);
  else if (p->total > 0 && p->done > 0) clock_text(el * (double)(p->total - p->done) / (double)p->done, when, sizeof when);
  char count[64];
  if (p->total > 0) snprintf(count, sizeof count, "%lld/%lld", (long long)p->done, (long long)p->total);
  else snprintf(count, sizeof count, "%lld", (long long)p->done);
  fprintf(p->out, "%s%s: %s %s  %.1f/s%s%s%s%s%s%s", p->tty ? "\r" : "", p->stage, count, p->unit, rate,
          when[0] ? (final ? "  in " : "  ETA ") : "", when, p->extra[0] ? "  " : "", p->extra,
          p->tty ? "\033[K" : "", p->tty && !final ? "" : "\n");
  fflush(p->out);
  p->shown = true;
  p->last = now;
}

bool rg_progress_due(const rg_progress *p) {
  return p->on && rg_clock_seconds() - p->last >= (p->tty ? TTY_EVERY : LOG_EVERY);
}

void rg_progress_tick(rg_progress *p, int64_t done) {
  if (!p->on) return;
  p->done = done;
  double now = rg_clock_seconds();
  if (now - p->last >= (p->tty ? TTY_EVERY : LOG_EVERY)) print_line(p, now, false);
}

void rg_progress_tick_extra(rg_progress *p, int64_t done, const char *fmt, ...) {
  if (!p->on) return;
  p->done = done;
  if (!rg_progress_due(p)) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->extra, sizeof p->extra, fmt, ap);
  va_end(ap);
  print_line(p, rg_clock_seconds(), false);
}

void rg_progress_finish(rg_progress *p) {
  if (p->on && p->tty && p->shown) print_line(p, rg_clock_seconds(), true);
  p->on = false;
}

void rg_progress_stage(rg_progress *p, const char *stage, const char *unit, int64_t done, int64_t total, bool enabled) {
  if (!p->stage || strcmp(p->stage, stage)) {
    rg_progress_finish(p);
    rg_progress_start(p, stage, unit, total, enabled);
  }
  p->total = total;
  rg_progress_tick(p, done);
}
