/* rulesdb/taso_inputs.c: TASO's 20 fixed input tensors and rulegen's names for them: the one
 * table that TASO export and import (and TENSAT's ?input_N, the same numbering) translate
 * variables by.
 *
 * TASO's numbering is /work/shared/anchors/taso-rules-133.txt's legend (v1..v20, written -1..-20
 * as opIds in graph_subst.pb, see anchors/README.md); rulegen's names and shapes are
 * enumerate/inputs.c's default input set (rg_enum_inputs_default), which is TASO's set under
 * other names and in TASO's order: its entry k is TASO's input_(k+1), so that set is the table. */
#include <pthread.h>
#include <string.h>

#include "exchange.h"

static rg_enum_inputset defaults;
static pthread_once_t defaults_once = PTHREAD_ONCE_INIT;
static void fill_defaults(void) { rg_enum_inputs_default(&defaults); }

/* TASO's input_n: entry n - 1 of rulegen's default set (filled once, read by any thread). */
static const rg_enum_input *taso_input(int n) {
  if (n < 1 || n > RG_TASO_INPUTS) return NULL;
  pthread_once(&defaults_once, fill_defaults);
  return &defaults.in[n - 1];
}

int rg_taso_input_shape(int n, rg_shape *out) {
  const rg_enum_input *in = taso_input(n);
  if (in) *out = in->shape;
  return in != NULL;
}

const char *rg_taso_input_name(int n) {
  const rg_enum_input *in = taso_input(n);
  return in ? in->name : NULL;
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
  for (int k = 1; k <= RG_TASO_INPUTS; k++)
    if (!strcmp(name, rg_taso_input_name(k))) return k;
  return input_number(name);
}

void rg_taso_var_print(rg_strbuf *out, int n) {
  const char *name = rg_taso_input_name(n);
  if (name) rg_sb_printf(out, "?%s", name);
  else rg_sb_printf(out, "?input_%d", n);
}
