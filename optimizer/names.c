/* optimizer/names.c: names to integers (names.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "names.h"

#include <stdlib.h>
#include <string.h>

static uint64_t name_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
  return h;
}

static size_t slot(const rg_names *t, const char *name) {
  size_t mask = t->cap - 1, i = name_hash(name) & mask;
  while (t->name[i] && strcmp(t->name[i], name)) i = (i + 1) & mask;
  return i;
}

int64_t *rg_names_find(const rg_names *t, const char *name) {
  if (!t->cap) return NULL;
  size_t i = slot(t, name);
  return t->name[i] ? &t->value[i] : NULL;
}

static int grow(rg_names *t) {
  size_t cap = t->cap ? 2 * t->cap : 256;
  rg_names nt = {calloc(cap, sizeof(char *)), calloc(cap, sizeof(int64_t)), t->n, cap};
  if (!nt.name || !nt.value) {
    free(nt.name), free(nt.value);
    return 0;
  }
  for (size_t i = 0; i < t->cap; i++)
    if (t->name[i]) {
      size_t j = slot(&nt, t->name[i]);
      nt.name[j] = t->name[i], nt.value[j] = t->value[i];
    }
  free(t->name), free(t->value);
  *t = nt;
  return 1;
}

int64_t *rg_names_add(rg_names *t, const char *name, int *added) {
  *added = 0;
  if (2 * (t->n + 1) > t->cap && !grow(t)) return NULL;
  size_t i = slot(t, name);
  if (!t->name[i]) {
    if (!(t->name[i] = strdup(name))) return NULL;
    t->value[i] = 0, t->n++, *added = 1;
  }
  return &t->value[i];
}

void rg_names_free(rg_names *t) {
  for (size_t i = 0; i < t->cap; i++) free(t->name[i]);
  free(t->name), free(t->value);
  *t = (rg_names){0};
}
