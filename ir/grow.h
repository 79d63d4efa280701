/* ir/grow.h: the one way arrays grow: doubled when full, from a first capacity. */
#ifndef RG_IR_GROW_H
#define RG_IR_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes room for element n (n <= *cap) of elem bytes in the array *array points to (an
 * address of a T *), whose capacity *cap doubles (first when 0) when n reaches it. False, with
 * the array and *cap unchanged, when out of memory. */
bool rg_grow_to(void *array, int32_t *cap, size_t elem, int32_t first);
bool rg_grow_size_to(void *array, size_t *cap, size_t elem, size_t first);

/* The check inline (most calls find room), the growing out of line. */
static inline bool rg_grow(void *array, int32_t *cap, int32_t n, size_t elem, int32_t first) {
  return n < *cap || rg_grow_to(array, cap, elem, first);
}

/* The same with a size_t count. */
static inline bool rg_grow_size(void *array, size_t *cap, size_t n, size_t elem, size_t first) {
  return n < *cap || rg_grow_size_to(array, cap, elem, first);
}

#endif
