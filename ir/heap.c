/* ir/heap.c: a binary min-heap of indices (heap.h). */
#include "heap.h"

void rg_heap_push(int32_t *heap, int32_t *n, int32_t item, rg_heap_before before, const void *ctx) {
  int32_t k = (*n)++;
  for (; k > 0 && before(ctx, item, heap[(k - 1) / 2]); k = (k - 1) / 2) heap[k] = heap[(k - 1) / 2];
  heap[k] = item;
}

int32_t rg_heap_pop(int32_t *heap, int32_t *n, rg_heap_before before, const void *ctx) {
  int32_t top = heap[0], last = heap[--*n], k = 0;
  for (int32_t c; (c = 2 * k + 1) < *n; k = c) {
    if (c + 1 < *n && before(ctx, heap[c + 1], heap[c])) c++;
    if (!before(ctx, heap[c], last)) break;
    heap[k] = heap[c];
  }
  heap[k] = last;
  return top;
}
