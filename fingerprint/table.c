/* fingerprint/table.c: the bounded record table (table.h). */
#include "table.h"

#include <stdlib.h>
#include <string.h>

void rg_fp_store_init(rg_fp_store *s, rg_fp_table *t, size_t cap_records, uint64_t lo, uint64_t hi) {
  memset(t, 0, sizeof *t);
  t->lo = lo;
  s->t = t;
  s->cap_records = cap_records;
  s->hi = hi;
}

static int cmp_record(const void *a, const void *b) {
  const rg_fp_record *x = a, *y = b;
  if (x->fp != y->fp) return x->fp < y->fp ? -1 : 1;
  return memcmp(&x->code, &y->code, sizeof x->code);
}

/* Drops records above s->hi from the table. */
static void compact(rg_fp_store *s) {
  size_t k = 0;
  for (size_t i = 0; i < s->t->n; i++)
    if (s->t->r[i].fp <= s->hi) s->t->r[k++] = s->t->r[i];
  s->t->n = k;
}

rg_status rg_fp_store_add(rg_fp_store *s, const rg_fp_record *b, size_t n, rg_err *err) {
  for (size_t i = 0; i < n; i++) {
    if (b[i].fp > s->hi || b[i].fp < s->t->lo) continue;
    while (s->t->n >= s->cap_records) {
      if (s->hi == s->t->lo)
        return rg_err_set(err, RG_ERR_LIMIT,
                          "memory limit too small to make progress: more than %zu graphs share one "
                          "fingerprint; raise --mem-limit",
                          s->cap_records);
      s->hi = s->t->lo + (s->hi - s->t->lo) / 2;
      compact(s);
      if (b[i].fp > s->hi) goto next;
    }
    if (s->t->n == s->t->cap) {
      size_t nc = s->t->cap ? 2 * s->t->cap : 1 << 16;
      if (nc > s->cap_records) nc = s->cap_records;
      rg_fp_record *nr = realloc(s->t->r, sizeof *nr * nc);
      if (!nr) return rg_err_set(err, RG_ERR_NOMEM, "out of memory for fingerprint records (lower --mem-limit)");
      s->t->r = nr;
      s->t->cap = nc;
    }
    s->t->r[s->t->n++] = b[i];
  next:;
  }
  return RG_OK;
}

/* Sorts the n records r (fingerprints in [lo, hi]) by (fingerprint, code) with several threads:
 * one in-place pass (American flag sort) moves them into 256 runs of fingerprint ranges, then
 * the runs are sorted in parallel. The result is the one order a serial sort gives. */
static void sort_records(rg_fp_record *r, size_t n, uint64_t lo, uint64_t hi, int threads) {
  enum { RUNS = 256 };
  uint64_t width = (hi - lo) / RUNS + 1;
  size_t start[RUNS + 1] = {0}, next[RUNS];
  for (size_t i = 0; i < n; i++)
    start[(r[i].fp - lo) / width + 1]++;
  for (int b = 0; b < RUNS; b++)
    start[b + 1] += start[b], next[b] = start[b];
  for (int b = 0; b < RUNS; b++)
    while (next[b] < start[b + 1]) {
      size_t d = (size_t)((r[next[b]].fp - lo) / width);
      if ((int)d == b) {
        next[b]++;
        continue;
      }
      rg_fp_record tmp = r[next[d]];
      r[next[d]++] = r[next[b]];
      r[next[b]] = tmp;
    }
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int b = 0; b < RUNS; b++)
    qsort(r + start[b], start[b + 1] - start[b], sizeof *r, cmp_record);
}

void rg_fp_store_finish(rg_fp_store *s, int threads) {
  compact(s); /* records added before a late narrowing may lie above hi */
  s->t->hi = s->hi;
  sort_records(s->t->r, s->t->n, s->t->lo, s->t->hi, threads < 1 ? 1 : threads);
}
