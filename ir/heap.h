/* ir/heap.h: a binary min-heap of int32 items (indices into the caller's data) ordered by the
 * caller's comparison, for the queues that take the least item first (graphopt's search, the
 * order export writes nodes in). The caller owns the array (room for every item pushed). */
#ifndef RG_IR_HEAP_H
#define RG_IR_HEAP_H

#include <stdbool.h>
#include <stdint.h>

/* Whether item a comes out before item b (ctx: the caller's data). */
typedef bool (*rg_heap_before)(const void *ctx, int32_t a, int32_t b);

void rg_heap_push(int32_t *heap, int32_t *n, int32_t item, rg_heap_before before, const void *ctx);
/* The least item, taken out (*n > 0). */
int32_t rg_heap_pop(int32_t *heap, int32_t *n, rg_heap_before before, const void *ctx);

#endif
