/* optimizer/proto/names.c: names to integers (names.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "names.h"

#include <stdlib.h>
#include <string.h>

#include "ir/grow.h"

static bool name_eq(const void *owner, const void *key, int32_t val) {
  return !strcmp(((const rg_names *)owner)->name[val], key);
}

static uint64_t name_hash(const char *name) { return rg_hash_bytes(name, strlen(name)); }

int64_t *rg_names_find(const rg_names *t, const char *name) {
  int32_t i = rg_hashtab_find(&t->index, name_hash(name), name_eq, t, name);
  return i >= 0 ? &t->value[i] : NULL;
}

int64_t *rg_names_add(rg_names *t, const char *name, int *added) {
  *added = 0;
  uint64_t h = name_hash(name);
  size_t pos = rg_hashtab_probe(&t->index, h, name_eq, t, name);
  int32_t i = rg_hashtab_at(&t->index, pos);
  if (i >= 0) return &t->value[i];
  int32_t cap = t->cap;
  if (t->n == t->cap && (!rg_grow(&t->name, &cap, t->n, sizeof *t->name, 64) ||
                         !rg_grow(&t->value, &t->cap, t->n, sizeof *t->value, 64)))
    return NULL;
  char *copy = strdup(name);
  if (!copy || rg_hashtab_set(&t->index, pos, h, t->n) != RG_OK) return free(copy), NULL;
  t->name[t->n] = copy, t->value[t->n] = 0, *added = 1;
  return &t->value[t->n++];
}

void rg_names_free(rg_names *t) {
  for (int32_t i = 0; i < t->n; i++) free(t->name[i]);
  free(t->name), free(t->value);
  rg_hashtab_free(&t->index);
  *t = (rg_names){0};
}
