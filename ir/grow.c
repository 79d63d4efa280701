/* ir/grow.c */
#include "grow.h"

#include <stdlib.h>
#include <string.h>

/* *array is a T *; it is read and written through memcpy, whatever T is. */
static bool resize(void *array, size_t count, size_t elem) {
  void *p;
  memcpy(&p, array, sizeof p);
  void *q = realloc(p, count * elem);
  if (!q) return false;
  memcpy(array, &q, sizeof q);
  return true;
}

bool rg_grow_to(void *array, int32_t *cap, size_t elem, int32_t first) {
  int32_t c = *cap ? 2 * *cap : first;
  if (!resize(array, (size_t)c, elem)) return false;
  *cap = c;
  return true;
}

void rg_shrink_to_fit(void *array, int32_t *cap, int32_t n, size_t elem) {
  if (n > 0 && n < *cap && resize(array, (size_t)n, elem)) *cap = n;
}
