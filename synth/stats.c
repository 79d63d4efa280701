/* synth/stats.c: sums, the stage table and the JSON of a run's counters (synth/stats.h). */
#define _POSIX_C_SOURCE 200809L
#include "stats.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

void rg_synth_counts_add(rg_synth_counts *a, const rg_synth_counts *b) {
#define RG_SYNTH_COUNT(field, what) a->field += b->field;
#include "stats.def"
#undef RG_SYNTH_COUNT
  for (int v = 0; v < RG_RANDTEST_COUNT; v++) a->verdict[v] += b->verdict[v];
}

double rg_synth_rss_mb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return (double)resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
}

double rg_synth_peak_rss_mb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0;
}

static unsigned long long u(uint64_t v) { return (unsigned long long)v; }

/* The pairs that made no candidate, and why. */
static void print_pairs(const rg_synth_counts *c, FILE *out) {
  fprintf(out, "pairs        not candidates: %llu outputs differ, %llu variables on both sides,\n"
                  "             derivable from smaller candidates: %llu an output common to both "
                  "sides,\n             %llu several outputs each a rule, %llu op(a) vs op(b) "
                  "with a = b (congruence);\n             %llu members not tried (over %d "
                  "classes in a bucket)\n",
          u(c->mismatch), u(c->unbound), u(c->common), u(c->splits), u(c->congruent), u(c->overflow),
          RG_SYNTH_MAX_CLASSES);
  fprintf(out, "classes      %llu\n", u(c->classes));
}

static void print_test(const rg_synth_counts *c, FILE *out) {
  fprintf(out, "test         %llu candidate pairs tested, %llu pass            %.2f s\n", u(c->pairs),
          u(c->verdict[RG_RANDTEST_PASS]), c->secs[1]);
  fprintf(out, "             %llu of them renamings of a candidate tested before (same verdict)\n",
          u(c->renamed));
  for (int v = 1; v < RG_RANDTEST_COUNT; v++)
    fprintf(out, "  dropped    %-10llu %-15s %s\n", u(c->verdict[v]),
            rg_randtest_verdict_name((rg_randtest_verdict)v), rg_randtest_verdict_help((rg_randtest_verdict)v));
}

void rg_synth_counts_print(const rg_synth_counts *c, const rg_enum_space *sp, rg_synth_stop stop,
                           int threads, FILE *out) {
  fprintf(out, "stage        count                                          time\n");
  fprintf(out, "enumerate    %llu graphs of 1..%d operators (+%d input graphs), %d loads of records   %.2f s\n",
          u(c->graphs), sp->depth, sp->inputs.n, c->passes, c->secs[0]);
  if (stop >= RG_SYNTH_STOP_FINGERPRINT) {
    fprintf(out, "fingerprint  %llu records, %llu buckets holding %llu graphs; %llu alone dropped\n",
            u(c->records), u(c->buckets), u(c->members), u(c->singles));
    print_pairs(c, out);
  }
  if (stop >= RG_SYNTH_STOP_TEST) print_test(c, out);
  if (stop >= RG_SYNTH_STOP_FINGERPRINT)
    fprintf(out, "%s %llu candidate rules%s\n", stop > RG_SYNTH_STOP_TEST ? "candidates  " : "output      ",
            u(c->written), stop == RG_SYNTH_STOP_FINGERPRINT ? " (untested)" : "");
  fprintf(out, "total        %.2f s wall, peak RSS %.0f MB, %d threads\n", c->secs[2],
          rg_synth_peak_rss_mb(), threads);
}

void rg_synth_counts_json(const rg_synth_counts *c, FILE *out) {
  fprintf(out, "{");
#define RG_SYNTH_COUNT(field, what) fprintf(out, "\"%s\": %llu, ", #field, u(c->field));
#include "stats.def"
#undef RG_SYNTH_COUNT
  fprintf(out, "\"verdicts\": {");
  for (int v = 0; v < RG_RANDTEST_COUNT; v++)
    fprintf(out, "%s\"%s\": %llu", v ? ", " : "", rg_randtest_verdict_name((rg_randtest_verdict)v),
            u(c->verdict[v]));
  fprintf(out, "}, \"passes\": %d, \"seconds\": {\"enumerate\": %.3f, \"test\": %.3f, \"total\": %.3f}}",
          c->passes, c->secs[0], c->secs[1], c->secs[2]);
}

void rg_synth_counts_save(const rg_synth_counts *c, rg_strbuf *out) {
#define RG_SYNTH_COUNT(field, what) rg_sb_printf(out, " %llu", u(c->field));
#include "stats.def"
#undef RG_SYNTH_COUNT
  for (int v = 0; v < RG_RANDTEST_COUNT; v++) rg_sb_printf(out, " %llu", u(c->verdict[v]));
}

bool rg_synth_counts_parse(const char *text, const char **end, rg_synth_counts *c) {
  memset(c, 0, sizeof *c);
  char *e;
  const char *p = text;
#define RG_SYNTH_COUNT(field, what)                                                                                    \
  c->field = strtoull(p, &e, 10);                                                                                      \
  if (e == p || *p != ' ') return false;                                                                               \
  p = e;
#include "stats.def"
#undef RG_SYNTH_COUNT
  for (int v = 0; v < RG_RANDTEST_COUNT; v++) {
    c->verdict[v] = strtoull(p, &e, 10);
    if (e == p || *p != ' ') return false;
    p = e;
  }
  *end = p;
  return true;
}
