/* ir/zp.h: arithmetic in Z_p with p = 2^61 - 1 (Mersenne reduction through unsigned __int128),
 * and the keyed random functions that stand for nonlinear operators in Z_p.
 *
 * Values are always kept reduced, in [0, p). The keyed function is a fixed 64-bit mixer
 * (splitmix64's finaliser, applied around the key): not cryptographic, but any structure it
 * has is unrelated to the operators' algebra, which is all the fingerprints need.
 */
#ifndef RG_IR_ZP_H
#define RG_IR_ZP_H

#include <stdint.h>

#define RG_ZP_P ((UINT64_C(1) << 61) - 1)

static inline uint64_t rg_zp_reduce(uint64_t x) { /* x < 2^64 */
  x = (x & RG_ZP_P) + (x >> 61);
  return x >= RG_ZP_P ? x - RG_ZP_P : x;
}

static inline uint64_t rg_zp_add(uint64_t a, uint64_t b) {
  uint64_t s = a + b;
  return s >= RG_ZP_P ? s - RG_ZP_P : s;
}

static inline uint64_t rg_zp_sub(uint64_t a, uint64_t b) { return a >= b ? a - b : a + RG_ZP_P - b; }

static inline uint64_t rg_zp_mul(uint64_t a, uint64_t b) {
  unsigned __int128 x = (unsigned __int128)a * b; /* < 2^122 */
  uint64_t lo = (uint64_t)x & RG_ZP_P, hi = (uint64_t)(x >> 61);
  return rg_zp_reduce(lo + hi);
}

/* The element of Z_p that an integer stands for (negative values wrap). */
static inline uint64_t rg_zp_from_int(int64_t v) {
  return v >= 0 ? rg_zp_reduce((uint64_t)v) : rg_zp_sub(0, rg_zp_reduce((uint64_t)(-v)));
}

static inline uint64_t rg_mix64(uint64_t x) {
  x ^= x >> 30;
  x *= UINT64_C(0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= UINT64_C(0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

/* A keyed random function Z_p -> Z_p. */
static inline uint64_t rg_zp_keyed(uint64_t key, uint64_t v) {
  uint64_t h = rg_mix64(rg_mix64(v ^ key) + key);
  return rg_zp_reduce(h >> 3);
}

/* Max pooling in Z_p: a keyed random function of the window's cells in row-major order (init
 * with the pooling key, one step per cell, done), where a padded cell contributes a marker no
 * value can produce. The interpreter and the fingerprint kernels both use these. */
#define RG_ZP_PAD_MARK UINT64_C(0xfffffffffffffff1)
static inline uint64_t rg_zp_poolmax_cell(uint64_t acc, uint64_t x) {
  return rg_mix64(acc + x + UINT64_C(0x9e3779b97f4a7c15));
}
static inline uint64_t rg_zp_poolmax_pad(uint64_t acc) { return rg_mix64(acc + RG_ZP_PAD_MARK); }

/* Multiplicative inverse of a nonzero element (computed with GMP; call it at set-up, not in
 * inner loops). */
uint64_t rg_zp_inv(uint64_t a);

#endif
