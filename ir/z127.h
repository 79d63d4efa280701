/* ir/z127.h: arithmetic in Z_q with the Mersenne prime q = 2^127 - 1 (values in unsigned
 * __int128), and the keyed random functions that stand for nonlinear operators there: the wide
 * third domain of the interpreter (interp.h), for checks that want a larger field than 2^61-1.
 *
 * Values are always kept reduced, in [0, q). Products are formed as 256 bits from four 64x64
 * partial products and folded twice (2^127 = 1 mod q). The keyed function hashes both 64-bit
 * halves with the mixer of zp.h: not cryptographic, only unrelated to the operators' algebra.
 */
#ifndef RG_IR_Z127_H
#define RG_IR_Z127_H

#include <stdbool.h>
#include <stdint.h>

#include "zp.h"

typedef unsigned __int128 rg_z127;

#define RG_Z127_Q ((((rg_z127)1) << 127) - 1)

static inline rg_z127 rg_z127_fold(rg_z127 x) { /* any x < 2^128 */
  x = (x & RG_Z127_Q) + (x >> 127);
  return x >= RG_Z127_Q ? x - RG_Z127_Q : x;
}

static inline rg_z127 rg_z127_add(rg_z127 a, rg_z127 b) { /* a + b < 2^128 */
  rg_z127 s = a + b;
  return s >= RG_Z127_Q ? s - RG_Z127_Q : s;
}

static inline rg_z127 rg_z127_sub(rg_z127 a, rg_z127 b) { return a >= b ? a - b : a + (RG_Z127_Q - b); }

static inline rg_z127 rg_z127_mul(rg_z127 a, rg_z127 b) {
  uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64), b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
  rg_z127 p00 = (rg_z127)a0 * b0, p11 = (rg_z127)a1 * b1;
  rg_z127 mid = (rg_z127)a0 * b1 + (rg_z127)a1 * b0; /* a1, b1 < 2^63: each < 2^127 */
  rg_z127 lo = p00 + (mid << 64);
  rg_z127 hi = p11 + (mid >> 64) + (lo < p00); /* the product is hi * 2^128 + lo < 2^254 */
  /* hi * 2^128 + lo = (lo mod 2^127) + (hi * 2 + lo / 2^127) * 2^127, and 2^127 = 1 */
  return rg_z127_fold((lo & RG_Z127_Q) + ((hi << 1) | (lo >> 127)));
}

/* The element of Z_q that an integer stands for (negative values wrap). */
static inline rg_z127 rg_z127_from_int(int64_t v) {
  return v >= 0 ? (rg_z127)(uint64_t)v : RG_Z127_Q - (rg_z127)(uint64_t)(-(v + 1)) - 1;
}

/* 128 hashed bits from a 64-bit key and a value; reduced, a keyed random function Z_q -> Z_q. */
static inline rg_z127 rg_z127_hash(uint64_t key, rg_z127 v) {
  uint64_t lo = rg_mix64(rg_mix64((uint64_t)v ^ key) + (uint64_t)(v >> 64));
  uint64_t hi = rg_mix64(lo + key + UINT64_C(0x9e3779b97f4a7c15));
  return (rg_z127)hi << 64 | lo;
}

static inline rg_z127 rg_z127_keyed(uint64_t key, rg_z127 v) { return rg_z127_fold(rg_z127_hash(key, v) >> 1); }

/* Decimal text of a value (at most 39 digits) into buf[n]. */
void rg_z127_format(rg_z127 v, char *buf, int n);
/* Parses a decimal number below 2^128 (digits only, the whole string); false otherwise. */
bool rg_z127_parse(const char *s, rg_z127 *v);
/* Multiplicative inverse of a nonzero element, with GMP (set-up, not inner loops). */
rg_z127 rg_z127_inv(rg_z127 a);

#endif
