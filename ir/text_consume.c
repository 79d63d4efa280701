/* ir/text_consume.c: rg_text_parse_consuming (text.h): the text parsed a slice of whole lines at
 * a time (the parser keeps no state from one line to the next), the pages behind it dropped. */
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "text.h"

enum { SLICE = 64 << 20 }; /* bytes of text a slice holds, about: little parsed twice, few calls */

/* Drops the pages wholly inside [from, to): the caller has read them for the last time. */
static void drop_pages(char *from, char *to, size_t page) {
  uintptr_t lo = ((uintptr_t)from + page - 1) / page * page, hi = (uintptr_t)to / page * page;
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_DONTNEED); /* on failure the pages stay */
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
    int before = out->n;
    rg_status st = rg_text_parse(text + at, end - at, out, err);
    for (int i = before; i < out->n; i++) out->rules[i]->line += lines;
    if (st) {
      if (err && err->line > 0) err->line += lines;
      return st;
    }
    if (parsed && (st = parsed(ctx, out, before, err))) return st;
    for (size_t i = at; i < end; i++) lines += text[i] == '\n';
    if (page > 0) drop_pages(text + at, text + end, (size_t)page);
    at = end;
  }
  return RG_OK;
}
