/* ir/grow.h: the one way arrays grow: doubled when full, from a first capacity. */
#ifndef RG_IR_GROW_H
#define RG_IR_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Doubles the capacity *cap (first when 0) of the array *array points to (an address of a T *,
 * elements of elem bytes). False, with the array and *cap unchanged, when out of memory. */
bool rg_grow_to(void *array, int32_t *cap, size_t elem, int32_t first);

/* Makes room for element n (n <= *cap): grows the array when n reaches its capacity. The check
 * is inline (most calls find room), the growing out of line. */
static inline bool rg_grow(void *array, int32_t *cap, int32_t n, size_t elem, int32_t first) {
  return n < *cap || rg_grow_to(array, cap, elem, first);
}

/* Gives the array *array points to (n elements in *cap) exactly n elements' room, for arrays
 * done growing that many of are kept at once (a run's parsed rules). Nothing changes when n is
 * 0 or the array already fits, or when realloc fails (the array stays as it was). */
void rg_shrink_to_fit(void *array, int32_t *cap, int32_t n, size_t elem);

#endif
