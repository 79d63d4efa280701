/* ir/z127.c: set-up and text helpers of Z_q, q = 2^127 - 1: the inverse (GMP), and decimal
 * formatting and parsing of 128-bit values (certificates write field elements in decimal). */
#include "z127.h"

#include <gmp.h>
#include <stdio.h>
#include <string.h>

void rg_z127_format(rg_z127 v, char *buf, int n) {
  char tmp[48];
  int i = (int)sizeof tmp - 1;
  tmp[i] = 0;
  do {
    tmp[--i] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  snprintf(buf, (size_t)n, "%s", tmp + i);
}

bool rg_z127_parse(const char *s, rg_z127 *v) {
  rg_z127 x = 0, max = ~(rg_z127)0;
  if (!*s) return false;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    unsigned d = (unsigned)(*s - '0');
    if (x > (max - d) / 10) return false;
    x = x * 10 + d;
  }
  *v = x;
  return true;
}

static void to_mpz(mpz_t z, rg_z127 v) {
  uint64_t w[2] = {(uint64_t)v, (uint64_t)(v >> 64)};
  mpz_import(z, 2, -1, sizeof w[0], 0, 0, w); /* least significant word first, native bytes */
}

rg_z127 rg_z127_inv(rg_z127 a) {
  mpz_t x, q;
  mpz_init(x);
  mpz_init(q);
  to_mpz(x, a);
  to_mpz(q, RG_Z127_Q);
  rg_z127 r = 0;
  if (mpz_invert(x, x, q)) {
    uint64_t w[2] = {0, 0};
    mpz_export(w, NULL, -1, sizeof w[0], 0, 0, x);
    r = (rg_z127)w[1] << 64 | w[0];
  }
  mpz_clear(x);
  mpz_clear(q);
  return r;
}
