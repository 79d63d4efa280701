/* ir/strbuf.h: a growable NUL-terminated string. On allocation failure it stops growing and
 * remembers the failure (check .failed once at the end instead of after every append). */
#ifndef RG_IR_STRBUF_H
#define RG_IR_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"

typedef struct {
  char *s;
  size_t len, cap;
  bool failed;
} rg_strbuf;

void rg_sb_init(rg_strbuf *sb);
void rg_sb_free(rg_strbuf *sb);
void rg_sb_clear(rg_strbuf *sb);
void rg_sb_append(rg_strbuf *sb, const char *s, size_t n);
/* Room for extra more bytes at once (false: out of memory, sb->failed set): a text whose size is
 * known ahead grows once instead of doubling through it. */
bool rg_sb_reserve(rg_strbuf *sb, size_t extra);
void rg_sb_puts(rg_strbuf *sb, const char *s);
/* v in decimal, as "%ld" writes it: for printers of millions of rules, where a format call per
 * token was a sixth of the time. */
void rg_sb_put_int(rg_strbuf *sb, long v);
void rg_sb_printf(rg_strbuf *sb, const char *fmt, ...) RG_PRINTF(2, 3);
/* The text so far ("" when empty or failed). */
const char *rg_sb_str(const rg_strbuf *sb);
/* Appends s as a JSON string literal (quotes and escapes). */
void rg_json_string(rg_strbuf *out, const char *s);

#endif
