/* ir/strbuf.c */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rg_sb_init(rg_strbuf *sb) { memset(sb, 0, sizeof *sb); }
void rg_sb_free(rg_strbuf *sb) {
  free(sb->s);
  rg_sb_init(sb);
}
void rg_sb_clear(rg_strbuf *sb) {
  sb->len = 0;
  if (sb->s) sb->s[0] = 0;
}

static bool reserve(rg_strbuf *sb, size_t extra) {
  if (sb->failed) return false;
  if (sb->len + extra + 1 <= sb->cap) return true;
  size_t cap = sb->cap ? sb->cap : 64;
  while (cap < sb->len + extra + 1) cap *= 2;
  char *s = realloc(sb->s, cap);
  if (!s) {
    sb->failed = true;
    return false;
  }
  sb->s = s;
  sb->cap = cap;
  return true;
}

void rg_sb_append(rg_strbuf *sb, const char *s, size_t n) {
  if (!reserve(sb, n)) return;
  memcpy(sb->s + sb->len, s, n);
  sb->len += n;
  sb->s[sb->len] = 0;
}

void rg_sb_puts(rg_strbuf *sb, const char *s) { rg_sb_append(sb, s, strlen(s)); }

void rg_sb_put_int(rg_strbuf *sb, long v) {
  char buf[24], *p = buf + sizeof buf;
  unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
  do
    *--p = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) *--p = '-';
  rg_sb_append(sb, p, (size_t)(buf + sizeof buf - p));
}

/* Formats into the room left first, and again only when that was too small: the SMT encoder
 * and the text printer are mostly this, and measuring every piece first doubled their time. */
void rg_sb_printf(rg_strbuf *sb, const char *fmt, ...) {
  if (sb->failed) return;
  size_t room = sb->s ? sb->cap - sb->len : 0;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(room ? sb->s + sb->len : NULL, room, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < room) {
    sb->len += (size_t)n;
    return;
  }
  if (n < 0 || !reserve(sb, (size_t)n)) { /* a cut-off piece may stand where the end was */
    if (sb->s) sb->s[sb->len] = 0;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb->len += (size_t)n;
}

const char *rg_sb_str(const rg_strbuf *sb) { return sb->s && !sb->failed ? sb->s : ""; }

void rg_json_string(rg_strbuf *out, const char *s) {
  rg_sb_puts(out, "\"");
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      rg_sb_printf(out, "\\%c", c);
    else if (c == '\n')
      rg_sb_puts(out, "\\n");
    else if (c < 0x20)
      rg_sb_printf(out, "\\u%04x", c);
    else
      rg_sb_append(out, (const char *)&c, 1);
  }
  rg_sb_puts(out, "\"");
}
