/* optimizer/cost/cost_choose.c: a cost model opened as a command line chooses it (cost.h). */
#include "cost.h"

rg_status rg_cost_model_choose(const char *name, const char *machine, const char *cache, bool no_cache, char *buf,
                               size_t n, rg_cost_model **out, rg_err *err) {
  *out = NULL;
  rg_status st = rg_cost_cache_choose(name, cache, no_cache, buf, n, err);
  if (st) return st;
  rg_cost_opts co = {machine, buf};
  return rg_cost_model_open(name, &co, out, err);
}
