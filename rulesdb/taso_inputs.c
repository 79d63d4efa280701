/* rulesdb/taso_inputs.c: TASO's 20 fixed input tensors and rulegen's names for them: the one
 * table that TASO export and import (and TENSAT's ?input_N, the same numbering) translate
 * variables by.
 *
 * TASO's numbering is /work/shared/anchors/taso-rules-133.txt's legend (v1..v20, written -1..-20
 * as opIds in graph_subst.pb, see anchors/README.md); rulegen's names and shapes are
 * enumerate/inputs.c's default input set (rg_enum_inputs_default), which is TASO's set under
 * other names. Rows in TASO's order, so row k is TASO's input_(k+1). */
#include <string.h>

#include "exchange.h"

static const struct {
  const char *name; /* rulegen's variable name (enumerate/inputs.c) */
  int rank;
  int32_t dim[4];
} inputs[RG_TASO_INPUTS] = {
    {"x1", 2, {2, 4}},        {"x2", 2, {2, 4}},        {"x3", 2, {2, 4}},        /* activations */
    {"w1", 2, {4, 4}},        {"w2", 2, {4, 4}},        {"w3", 2, {4, 4}},        /* matrices */
    {"i1", 4, {2, 4, 5, 5}},  {"i2", 4, {2, 4, 5, 5}},  {"i3", 4, {2, 4, 5, 5}},  /* images */
    {"w4", 4, {4, 4, 3, 3}},  {"w5", 4, {4, 4, 3, 3}},  {"w6", 4, {4, 4, 3, 3}},  /* conv 3x3 */
    {"w7", 4, {4, 4, 1, 3}},  {"w8", 4, {4, 4, 1, 3}},  {"w9", 4, {4, 4, 1, 3}},  /* conv 1x3 */
    {"w10", 4, {4, 4, 3, 1}}, {"w11", 4, {4, 4, 3, 1}}, {"w12", 4, {4, 4, 3, 1}}, /* conv 3x1 */
    {"w13", 4, {4, 1, 3, 3}}, /* depthwise conv weight */
    {"s0", 0, {0}},           /* scalar */
};

int rg_taso_input_shape(int n, rg_shape *out) {
  if (n < 1 || n > RG_TASO_INPUTS) return 0;
  *out = rg_shape_make(inputs[n - 1].rank, inputs[n - 1].dim);
  return 1;
}

const char *rg_taso_input_name(int n) {
  return n >= 1 && n <= RG_TASO_INPUTS ? inputs[n - 1].name : NULL;
}

/* N when name is "input_N" with N in 1 .. 9999, else 0. */
static int input_number(const char *name) {
  if (strncmp(name, "input_", 6) || !name[6] || name[6] == '0') return 0;
  int n = 0;
  for (const char *p = name + 6; *p; p++) {
    if (*p < '0' || *p > '9' || n > 999) return 0;
    n = n * 10 + (*p - '0');
  }
  return n;
}

int rg_taso_input_number(const char *name) {
  for (int k = 0; k < RG_TASO_INPUTS; k++)
    if (!strcmp(name, inputs[k].name)) return k + 1;
  return input_number(name);
}
