/* ir/text_consume.c: rg_text_parse_consuming (text.h): the text parsed a slice of whole lines at
 * a time (the parser keeps no state from one line to the next), the pages behind it dropped. */
#define _DEFAULT_SOURCE /* madvise */
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "text.h"

enum { SLICE = 64 << 20 }; /* bytes of text a slice holds, about: little parsed twice, few calls */

/* Drops the pages wholly inside [from, to): the caller has read them for the last time. */
static void drop_pages(char *from, char *to, size_t page) {
  uintptr_t lo = ((uintptr_t)from + page - 1) / page * page, hi = (uintptr_t)to / page * page;
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_DONTNEED); /* on failure the pages stay */
}

enum { PARTS_MAX = 64, PART_LEAST = 1 << 20 }; /* a part under a MiB is not worth a thread */

static int count_lines(const char *s, size_t n) {
  int lines = 0;
  for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
    lines++;
  return lines;
}

/* rg_text_parse of whole lines (*n_lines of them), in parts of whole lines parsed at once on
 * OpenMP's threads and appended in order: reading a depth-4 run's candidates and checkpoints was a
 * serial minute. The same rules, line numbers and first error as one parse. */
static rg_status parse_parts(const char *text, size_t len, rg_ruleset *out, int *n_lines,
                             rg_err *err) {
  int parts = omp_get_max_threads();
  if (parts > PARTS_MAX) parts = PARTS_MAX;
  if ((size_t)parts > len / PART_LEAST) parts = (int)(len / PART_LEAST);
  if (parts < 2) {
    *n_lines = count_lines(text, len);
    return rg_text_parse(text, len, out, err);
  }
  size_t at[PARTS_MAX + 1];
  at[0] = 0, at[parts] = len;
  for (int k = 1; k < parts; k++) {
    size_t e = len / (size_t)parts * (size_t)k;
    if (e < at[k - 1]) e = at[k - 1];
    const char *nl = memchr(text + e, '\n', len - e);
    at[k] = nl ? (size_t)(nl - text) + 1 : len;
  }
  rg_ruleset part[PARTS_MAX];
  rg_status st[PARTS_MAX];
  rg_err perr[PARTS_MAX];
  int lines[PARTS_MAX];
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int k = 0; k < parts; k++) {
    rg_ruleset_init(&part[k]);
    st[k] = rg_text_parse(text + at[k], at[k + 1] - at[k], &part[k], &perr[k]);
    lines[k] = count_lines(text + at[k], at[k + 1] - at[k]);
  }
  rg_status first = RG_OK;
  for (int k = 0, before = 0; k < parts; before += lines[k], k++) {
    for (int i = 0; !first && i < part[k].n; i++) { /* a part that failed: the rules before it */
      part[k].rules[i]->line += before;
      first = rg_ruleset_add(out, part[k].rules[i]);
      part[k].rules[i] = NULL;
      if (first) rg_err_set(err, first, "out of memory");
    }
    if (!first && st[k]) {
      first = st[k];
      if (err) *err = perr[k], err->line += err->line > 0 ? before : 0;
    }
    for (int i = 0; i < part[k].n; i++)
      rg_rule_free(part[k].rules[i]);
    free(part[k].rules);
  }
  *n_lines = 0;
  for (int k = 0; k < parts; k++)
    *n_lines += lines[k];
  return first;
}

rg_status rg_text_parse_consuming(char *text, size_t len, rg_ruleset *out, rg_text_parsed_fn parsed, void *ctx,
                                  rg_err *err) {
  return rg_text_parse_slices(text, len, SLICE, out, parsed, ctx, err);
}

rg_status rg_text_parse_slices(char *text, size_t len, size_t slice, rg_ruleset *out, rg_text_parsed_fn parsed,
                               void *ctx, rg_err *err) {
  long page = sysconf(_SC_PAGESIZE);
  size_t at = 0;
  int lines = 0; /* before the slice: its rules' line numbers are counted from it */
  while (at < len) {
    size_t end = len - at > slice ? at + slice : len;
    while (end < len && text[end - 1] != '\n') end++;
    int before = out->n, slice_lines = 0;
    rg_status st = parse_parts(text + at, end - at, out, &slice_lines, err);
    for (int i = before; i < out->n; i++) out->rules[i]->line += lines;
    if (st) {
      if (err && err->line > 0) err->line += lines;
      return st;
    }
    if (parsed && (st = parsed(ctx, out, before, err))) return st;
    lines += slice_lines;
    if (page > 0) drop_pages(text + at, text + end, (size_t)page);
    at = end;
  }
  return RG_OK;
}
