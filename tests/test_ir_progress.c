/* tests/test_ir_progress.c: the progress line (ir/progress.h) from many OpenMP threads at once:
 * every line printed whole (no two interleaved), the count never moving back, the last count the
 * largest given; and from one thread, a count given late never moves it back and a stage named
 * again after it finished starts afresh. Run under the sanitizer build too. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdatomic.h>

#include "check.h"

#define TOTAL 100000000

/* Reads all of f (rewound). */
static char *slurp(FILE *f) {
  long n = ftell(f);
  char *s = malloc((size_t)n + 1);
  rewind(f);
  size_t got = s ? fread(s, 1, (size_t)n, f) : 0;
  if (s) s[got] = 0;
  return s;
}

/* Each "\r...\033[K" of a terminal's output: one whole line, counts never going back. */
static void check_lines(char *out, int *lines) {
  long long last = -1;
  *lines = 0;
  for (char *seg = strtok(out, "\r"); seg; seg = strtok(NULL, "\r")) {
    long long done = -1, total = -1;
    int used = 0;
    CHECK_MSG(sscanf(seg, "hammer: %lld/%lld units %*f/s%n", &done, &total, &used) == 2 && used > 0,
              "a torn line: '%.80s'", seg);
    CHECK_MSG(total == TOTAL, "total %lld in '%.80s'", total, seg);
    CHECK_MSG(done >= last, "the count went back from %lld to %lld", last, done);
    char *end = strstr(seg, "\033[K");
    CHECK_MSG(end && (end[3] == 0 || !strcmp(end + 3, "\n")), "a line not ended alone: '%.80s'", seg);
    const char *extra = strstr(seg, "  thread ");
    int tid = -1, k = 0;
    if (extra)
      CHECK_MSG(sscanf(extra, "  thread %d of %d", &tid, &k) == 2 && k > 0 && tid < k,
                "extra text '%.40s'", extra);
    last = done, ++*lines;
  }
}

/* Threads tick, tick with extra text and ask whether a line is due, all at once, for about a
 * second and a half: a terminal's line (every 0.25 s) is printed several times meanwhile. */
static void hammer(void) {
  rg_progress p;
  rg_progress_start(&p, "hammer", "units", TOTAL, true);
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (!f) return;
  p.out = f, p.tty = true; /* a terminal's cadence, into a file */
  atomic_llong counter = 0;
  double t0 = omp_get_wtime();
#pragma omp parallel num_threads(6)
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads();
    for (long long i = 0; omp_get_wtime() - t0 < 1.5; i++) {
      long long d = atomic_fetch_add(&counter, 1) + 1;
      if (i % 3 == 0) rg_progress_tick_extra(&p, d, "thread %d of %d", me, n);
      else if (i % 3 == 1 && rg_progress_due(&p))
        rg_progress_tick_extra(&p, d, "thread %d of %d", me, n);
      else rg_progress_tick(&p, d);
    }
  }
  long long all = atomic_load(&counter);
  long long done = atomic_load(&p.done);
  CHECK_MSG(done == all, "done %lld, ticked up to %lld", done, all);
  rg_progress_finish(&p);
  char *out = slurp(f);
  fclose(f);
  CHECK(out != NULL);
  if (!out) return;
  size_t len = strlen(out);
  CHECK(len > 0 && out[len - 1] == '\n'); /* finish ends the line */
  char want[64];
  snprintf(want, sizeof want, "hammer: %lld/%d units", all, TOTAL);
  CHECK_MSG(strstr(out, want) != NULL, "the final line shows %s", want);
  int lines = 0;
  check_lines(out, &lines);
  CHECK_MSG(lines >= 2, "%d lines in 1.5 s at 4 a second", lines);
  free(out);
}

/* One thread: a late, smaller count does not move the line back; a stage finished and named
 * again starts from 0, on. */
static void one_thread(void) {
  rg_progress p = {0};
  rg_progress_stage(&p, "derive", "rules", 10, 20, false);
  CHECK(!p.on && atomic_load(&p.done) == 0); /* off: nothing counted */
  rg_progress_start(&p, "derive", "rules", 20, true);
  p.out = fopen("/dev/null", "w");
  CHECK(p.out != NULL);
  if (!p.out) return;
  FILE *out = p.out;
  rg_progress_tick(&p, 10);
  rg_progress_tick(&p, 5);
  CHECK(atomic_load(&p.done) == 10);
  rg_progress_finish(&p);
  CHECK(!p.on);
  rg_progress_stage(&p, "derive", "rules", 3, 7, true);
  CHECK(p.on && atomic_load(&p.done) == 3 && atomic_load(&p.total) == 7);
  p.out = out;
  rg_progress_finish(&p);
  fclose(out);
}

int main(void) {
  hammer();
  one_thread();
  return check_done("test_ir_progress");
}
