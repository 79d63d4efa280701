/* optimizer/proto/names.h: a table from names to integers (an ONNX graph's tensors by name): copies
 * of the names in the order added, indexed by ir/hashtab.h. Internal to optimizer/. */
#ifndef RG_OPTIMIZER_NAMES_H
#define RG_OPTIMIZER_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "ir/hashtab.h"

typedef struct {
  char **name;      /* [n] */
  int64_t *value;   /* [n] */
  int32_t n, cap;   /* cap: room in name and value */
  rg_hashtab index; /* name -> its position */
} rg_names;

/* The value stored for name, or NULL. */
int64_t *rg_names_find(const rg_names *t, const char *name);
/* The value for name, added as 0 when absent (*added says which); NULL when out of memory. The
 * pointer holds until the next add. */
int64_t *rg_names_add(rg_names *t, const char *name, int *added);
void rg_names_free(rg_names *t);

#endif
