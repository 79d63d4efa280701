/* verify/refute.c: a counterexample search at solver-found shape sets (refute.h). */
#include "refute.h"

#include <stdio.h>

#include "ir/shapesolve.h"

rg_status rg_refute_rule(const rg_rule *r, int n_sets, uint64_t seed, rg_node_kernel kernel, bool *found,
                         char *why, size_t why_len, rg_err *err) {
  *found = false;
  if (why_len) why[0] = 0;
  rg_assignment_list sets;
  rg_err e;
  rg_status st = rg_shapes_solve_small(r, NULL, seed, n_sets, &sets, &e);
  if (st == RG_ERR_NOMEM) return rg_err_set(err, st, "out of memory");
  if (st) return RG_OK; /* no shapes: nothing to compare at */
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, seed);
  ctx.kernel = kernel;
  for (int i = 0; !st && !*found && i < sets.n; i++)
    for (int d = 0; !st && !*found && d < 2; d++) {
      rg_cmp_result res;
      st = rg_rule_compare(r, &sets.items[i].binding, (rg_domain)d, &ctx, seed, 2, &res, &e);
      /* A shape error is the solver's assignment not typing a side: no evidence either way. */
      if (st == RG_ERR_SHAPE) {
        st = RG_OK;
        continue;
      }
      if (st || res.verdict == RG_CMP_AGREE) continue;
      *found = true;
      rg_strbuf sb;
      rg_sb_init(&sb);
      rg_cmp_put_counterexample(&sb, r, &sets.items[i].binding, (rg_domain)d, &res);
      if (why_len) snprintf(why, why_len, "%s", rg_sb_str(&sb));
      rg_sb_free(&sb);
    }
  rg_assignment_list_free(&sets);
  if (st) *err = e;
  return st;
}
