/* ir/strbuf.c */
#define _POSIX_C_SOURCE 200809L /* strnlen */
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

bool rg_sb_reserve(rg_strbuf *sb, size_t extra) { return reserve(sb, extra); }

void rg_sb_append(rg_strbuf *sb, const char *s, size_t n) {
  if (!reserve(sb, n)) return;
  memcpy(sb->s + sb->len, s, n);
  sb->len += n;
  sb->s[sb->len] = 0;
}

void rg_sb_puts(rg_strbuf *sb, const char *s) { rg_sb_append(sb, s, strlen(s)); }

static void put_decimal(rg_strbuf *sb, unsigned long long u, bool negative) {
  char buf[24], *p = buf + sizeof buf;
  do
    *--p = (char)('0' + u % 10);
  while (u /= 10);
  if (negative) *--p = '-';
  rg_sb_append(sb, p, (size_t)(buf + sizeof buf - p));
}

static void put_signed(rg_strbuf *sb, long long v) {
  put_decimal(sb, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0);
}

void rg_sb_put_int(rg_strbuf *sb, long v) { put_signed(sb, v); }

/* The length of the conversion at p (just past its '%') when plain_printf writes it: %% %s %c
 * %.*s, and %d %u with no length, l or ll, and %zu (no flags and no other width or precision);
 * else 0. */
static int plain_conversion(const char *p) {
  if (*p && strchr("%scdu", *p)) return 1;
  if (p[0] == 'z' && p[1] == 'u') return 2;
  if (p[0] == 'l' && (p[1] == 'd' || p[1] == 'u')) return 2;
  if (p[0] == 'l' && p[1] == 'l' && (p[2] == 'd' || p[2] == 'u')) return 3;
  if (p[0] == '.' && p[1] == '*' && p[2] == 's') return 3;
  return 0;
}

/* The string of a %s or %.*s (prec < 0: none) as glibc writes it, a null pointer included. */
static void put_string(rg_strbuf *sb, const char *s, int prec) {
  if (!s) s = prec < 0 || prec >= 6 ? "(null)" : "";
  rg_sb_append(sb, s, prec < 0 ? strlen(s) : strnlen(s, (size_t)(unsigned)prec));
}

/* Appends fmt as vsnprintf would write it while its conversions are plain (above); false at the
 * first that is not, with part of it appended. Why: glibc's vsnprintf was a third of what
 * encoding an obligation cost, and a warm rerun's replay of the proof cache encodes every one
 * to find its answer. */
static bool plain_printf(rg_strbuf *sb, const char *fmt, va_list ap) {
  for (const char *p = fmt;;) {
    const char *q = strchr(p, '%');
    rg_sb_append(sb, p, q ? (size_t)(q - p) : strlen(p));
    if (!q) return true;
    int n = plain_conversion(++q);
    if (!n) return false;
    char c = q[n - 1];
    if (c == '%')
      rg_sb_append(sb, "%", 1);
    else if (c == 's' && n == 3) {
      int prec = va_arg(ap, int);
      put_string(sb, va_arg(ap, const char *), prec);
    } else if (c == 's')
      put_string(sb, va_arg(ap, const char *), -1);
    else if (c == 'c') {
      char ch = (char)va_arg(ap, int);
      rg_sb_append(sb, &ch, 1);
    } else if (n == 1)
      c == 'd' ? put_signed(sb, va_arg(ap, int)) : put_decimal(sb, va_arg(ap, unsigned), false);
    else if (q[0] == 'z')
      put_decimal(sb, va_arg(ap, size_t), false);
    else if (n == 2)
      c == 'd' ? put_signed(sb, va_arg(ap, long))
               : put_decimal(sb, va_arg(ap, unsigned long), false);
    else
      c == 'd' ? put_signed(sb, va_arg(ap, long long))
               : put_decimal(sb, va_arg(ap, unsigned long long), false);
    p = q + n;
  }
}

/* vsnprintf into the room left first, and again only when that was too small: measuring every
 * piece first doubled the SMT encoder's and the text printer's time. */
static void formatted(rg_strbuf *sb, const char *fmt, va_list ap) {
  size_t room = sb->s ? sb->cap - sb->len : 0;
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(room ? sb->s + sb->len : NULL, room, fmt, ap);
  if (n >= 0 && (size_t)n < room) {
    sb->len += (size_t)n;
  } else if (n < 0 || !reserve(sb, (size_t)n)) { /* a cut-off piece may stand where the end was */
    if (sb->s) sb->s[sb->len] = 0;
  } else {
    vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, again);
    sb->len += (size_t)n;
  }
  va_end(again);
}

/* The plain conversions written by hand; a format with any other goes to vsnprintf whole. */
void rg_sb_printf(rg_strbuf *sb, const char *fmt, ...) {
  if (sb->failed) return;
  size_t start = sb->len;
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  if (!plain_printf(sb, fmt, ap) && !sb->failed) {
    sb->len = start;
    if (sb->s) sb->s[start] = 0;
    formatted(sb, fmt, again);
  }
  va_end(again);
  va_end(ap);
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
