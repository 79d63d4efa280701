/* optimizer/names.h: a table from names to integers (an ONNX graph's tensors by name), open
 * addressing over copies of the names. Internal to optimizer/. */
#ifndef RG_OPTIMIZER_NAMES_H
#define RG_OPTIMIZER_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  char **name;
  int64_t *value;
  size_t n, cap; /* cap: 0 or a power of two, at least twice n */
} rg_names;

/* The value stored for name, or NULL. */
int64_t *rg_names_find(const rg_names *t, const char *name);
/* The value for name, added as 0 when absent (*added says which); NULL when out of memory. */
int64_t *rg_names_add(rg_names *t, const char *name, int *added);
void rg_names_free(rg_names *t);

#endif
