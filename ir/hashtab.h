/* ir/hashtab.h: the one open-addressing hash table, and the byte hash that goes with it. It maps
 * a caller-computed 64-bit hash to a non-negative 32-bit value (an index into the caller's own
 * array of keys); the caller says what key equality is through a callback, so the table never
 * sees the keys.
 *
 * Each slot is 8 bytes, the value and the hash's low 32 bits (small tables stay in cache: twice
 * that was measurably slower for derivability searches): probes compare those bits first (the
 * equality callback runs only on a match) and growing never calls back to rehash. Linear
 * probing, at most half full, capacity a power of two up to 2^32. Hashes must be well mixed in
 * their low bits (rg_hash_bytes's are, and rg_mix64 of a raw key).
 *
 * Not thread-safe: a table shared between threads needs the caller's lock. A zeroed
 * rg_hashtab (= {0}) is an empty table.
 */
#ifndef RG_IR_HASHTAB_H
#define RG_IR_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "status.h"

typedef struct {
  uint32_t hash; /* the low 32 bits */
  int32_t val;   /* -1: empty */
} rg_hashtab_slot;

typedef struct {
  rg_hashtab_slot *slot;
  size_t cap, n; /* cap 0 or a power of two; n <= cap / 2 */
} rg_hashtab;

/* Whether the key stored with value val (in the caller's store, owner) is key, the one looked
 * for. */
typedef bool (*rg_hashtab_eq)(const void *owner, const void *key, int32_t val);

/* A hash of n bytes, well mixed in every bit (eight bytes at a time, then a finaliser). Keys
 * hashed as bytes must have no padding that differs between equal keys. */
static inline uint64_t rg_hash_bytes(const void *p, size_t n) {
  /* Word-wise: a byte-wise hash over graph nodes was most of the time of derivability
   * searches, which add many nodes. */
  const unsigned char *b = p;
  uint64_t h = 0x9e3779b97f4a7c15ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  for (; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ull;
  h ^= h >> 29;
  h *= 0x94d049bb133111ebull;
  return h ^ (h >> 32);
}

/* The position of the entry with hash h whose value eq accepts, or else of the empty slot where
 * it would go. Pass it to rg_hashtab_at or rg_hashtab_set. */
static inline size_t rg_hashtab_probe(const rg_hashtab *t, uint64_t h, rg_hashtab_eq eq,
                                      const void *owner, const void *key) {
  if (!t->cap) return 0;
  size_t m = t->cap - 1;
  for (size_t i = (size_t)h & m;; i = (i + 1) & m) {
    const rg_hashtab_slot *s = &t->slot[i];
    if (s->val < 0 || (s->hash == (uint32_t)h && eq(owner, key, s->val))) return i;
  }
}

/* The value at a position rg_hashtab_probe gave; -1 when that slot is empty (key absent). */
static inline int32_t rg_hashtab_at(const rg_hashtab *t, size_t pos) {
  return t->cap ? t->slot[pos].val : -1;
}

/* The value stored for key (hash h, equality eq); -1 when absent. */
static inline int32_t rg_hashtab_find(const rg_hashtab *t, uint64_t h, rg_hashtab_eq eq,
                                      const void *owner, const void *key) {
  return rg_hashtab_at(t, rg_hashtab_probe(t, h, eq, owner, key));
}

/* Stores val (>= 0) with hash h at pos, an empty position that rg_hashtab_probe gave for h
 * with no change to t since. Grows the table first when it would pass half full (pos is then
 * found again). RG_ERR_NOMEM leaves t as it was. */
rg_status rg_hashtab_set(rg_hashtab *t, size_t pos, uint64_t h, int32_t val) RG_MUST_CHECK;

/* Stores val (>= 0) with hash h, for a key the caller knows is absent. */
rg_status rg_hashtab_add(rg_hashtab *t, uint64_t h, int32_t val) RG_MUST_CHECK;

/* Empties t, keeping its memory. */
void rg_hashtab_clear(rg_hashtab *t);

/* Frees t's memory; t is then an empty table again. */
void rg_hashtab_free(rg_hashtab *t);

#endif
