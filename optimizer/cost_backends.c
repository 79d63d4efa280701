/* optimizer/cost_backends.c: the table of built-in cost models. Adding one is a new file with
 * its open function (declared in cost_internal.h) and a row here; rg_cost_model_open and
 * graphopt's --cost choices and help read this table. */
#include "cost_internal.h"

static const rg_cost_backend backends[] = {
    {"roofline", "analytic: max(FLOPs / peak, bytes / bandwidth) + overhead (the default)",
     rg_cost_roofline_open},
    {"dnnl", "oneDNN's CPU primitives, each configuration timed once (cached)", rg_cost_dnnl_open},
};

int rg_cost_backend_count(void) { return (int)(sizeof backends / sizeof *backends); }

const rg_cost_backend *rg_cost_backend_get(int i) {
  return i >= 0 && i < rg_cost_backend_count() ? &backends[i] : NULL;
}
