/* ir/plan.h: a graph with every parameter resolved and every node's output shapes inferred,
 * for given shapes of the tensor variables and values of the parameter variables.
 *
 * A plan types only the nodes reachable from the outputs it was made for. It points into the
 * graph, which must outlive it and not change meanwhile.
 */
#ifndef RG_IR_PLAN_H
#define RG_IR_PLAN_H

#include "graph.h"
#include "shape.h"

typedef struct {
  const rg_graph *g;
  int32_t n;                         /* nodes in g when planned */
  uint8_t *typed;                    /* node -> 1 if reachable and typed */
  int32_t (*params)[RG_MAX_PARAMS];  /* node -> resolved parameter slots */
  rg_shape (*shape)[RG_MAX_OUTPUTS]; /* node -> shape of each output */
  uint64_t *zp_scale;                /* node -> 1/(window size) in Z_p, for averaging ops */
} rg_plan;

/* Types the nodes reachable from outs. tvar_shapes[i] is the shape of tensor variable i (NULL
 * entries are unbound), pvar_values[i] the value of parameter variable i (pvar_bound[i] != 0).
 * Errors name the node's operator and the dimensions that disagree, or the unbound variable.
 * On success *out is a new plan (free with rg_plan_free). */
rg_status rg_plan_new(const rg_graph *g, const rg_ref *outs, int n_outs,
                      const rg_shape *const *tvar_shapes, const int32_t *pvar_values,
                      const uint8_t *pvar_bound, rg_plan **out, rg_err *err) RG_MUST_CHECK;
void rg_plan_free(rg_plan *p);

/* Types as rg_plan_new does, into a caller's buffer instead of new memory, and without the
 * evaluation set-up (zp_scale is NULL): for checking types in the shape solver's inner loops,
 * where a plan's allocations and modular inverses cost more than the inference. The graph's
 * own parameter values are taken as checked (the parser and rg_enum_build check them); only
 * values bound to parameter variables are. The plan is
 * buf->plan (valid while buf is; nothing to free). Errors: rg_plan_new's, and RG_ERR_LIMIT for
 * a graph of more than RG_PLAN_TYPES_MAX nodes (use rg_plan_new then). */
#define RG_PLAN_TYPES_MAX 64
typedef struct {
  rg_plan plan;
  uint8_t typed[RG_PLAN_TYPES_MAX];
  int32_t params[RG_PLAN_TYPES_MAX][RG_MAX_PARAMS];
  rg_shape shape[RG_PLAN_TYPES_MAX][RG_MAX_OUTPUTS];
} rg_plan_types_buf;
rg_status rg_plan_types(const rg_graph *g, const rg_ref *outs, int n_outs,
                        const rg_shape *const *tvar_shapes, const int32_t *pvar_values,
                        const uint8_t *pvar_bound, rg_plan_types_buf *buf,
                        rg_err *err) RG_MUST_CHECK;

/* 1/(window size) in Z_p of an averaging op with resolved parameter slots s (poolavg, Cpool),
 * else 0: what zp_scale holds. */
uint64_t rg_plan_window_scale(rg_op op, const int32_t *s);

static inline const rg_shape *rg_plan_shape(const rg_plan *p, rg_ref r) {
  return &p->shape[r.node][r.out];
}

/* Checks parameter slots against the op's parameter kinds and ranges; slots whose bit is set in
 * var_mask hold variables and are skipped. */
rg_status rg_params_check(rg_op op, const int32_t *slots, unsigned var_mask, rg_err *err) RG_MUST_CHECK;

#endif
