/* ir/hashtab.c: growing and emptying the open-addressing table of hashtab.h (probing and the
 * byte hash are inline there, so each caller's equality callback and key size are compiled
 * into its loop). */
#include "hashtab.h"

#include <stdlib.h>
#include <string.h>

enum { MIN_CAP = 64 }; /* small enough for scratch tables, large enough to skip early regrowth */

/* The first empty slot for hash h (t has one: it is at most half full). */
static size_t empty_slot(const rg_hashtab *t, uint32_t h) {
  size_t m = t->cap - 1, i = (size_t)h & m;
  while (t->slot[i].val >= 0) i = (i + 1) & m;
  return i;
}

/* Doubles t (or gives it its first slots), moving every entry by its stored hash. */
static rg_status grow(rg_hashtab *t) {
  size_t cap = t->cap ? 2 * t->cap : MIN_CAP;
  rg_hashtab_slot *s = malloc(sizeof *s * cap);
  if (!s) return RG_ERR_NOMEM;
  memset(s, 0xff, sizeof *s * cap); /* val -1 everywhere */
  rg_hashtab old = *t;
  t->slot = s, t->cap = cap;
  for (size_t i = 0; i < old.cap; i++)
    if (old.slot[i].val >= 0) t->slot[empty_slot(t, old.slot[i].hash)] = old.slot[i];
  free(old.slot);
  return RG_OK;
}

rg_status rg_hashtab_set(rg_hashtab *t, size_t pos, uint64_t h, int32_t val) {
  if (2 * (t->n + 1) > t->cap) {
    rg_status st = t->cap >> 32 ? RG_ERR_NOMEM : grow(t); /* slots keep 32 bits of hash */
    if (st) return st;
    pos = empty_slot(t, (uint32_t)h);
  }
  t->slot[pos] = (rg_hashtab_slot){(uint32_t)h, val};
  t->n++;
  return RG_OK;
}

rg_status rg_hashtab_add(rg_hashtab *t, uint64_t h, int32_t val) {
  return rg_hashtab_set(t, t->cap ? empty_slot(t, (uint32_t)h) : 0, h, val);
}

void rg_hashtab_clear(rg_hashtab *t) {
  if (t->cap) memset(t->slot, 0xff, sizeof *t->slot * t->cap);
  t->n = 0;
}

void rg_hashtab_free(rg_hashtab *t) {
  free(t->slot);
  *t = (rg_hashtab){0};
}
