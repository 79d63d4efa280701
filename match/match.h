/* match/match.h: matching a pattern (one side of a rule) against a term, and instantiating a
 * pattern under the bindings found.
 *
 * The pattern lives in one graph, the term in another (or the same). Tensor variables of the
 * pattern bind sub-terms, consistently: a variable bound twice must bind the same ref, and
 * since graphs are hash-consed, ref equality is structural equality. Parameter variables bind
 * parameter values: a concrete value, or a parameter variable of the term's graph (a symbolic
 * axis matches only a pattern variable, never a concrete value). Output indices must agree.
 * The optimizer reuses this matcher. This is the module's public header: it also brings the
 * pattern index (pattern_index.h), which prune/ and optimizer/ use to find candidate patterns.
 */
#ifndef RG_MATCH_MATCH_H
#define RG_MATCH_MATCH_H

#include "ir/ir.h"
#include "pattern_index.h"

typedef struct {
  int32_t n_tvars, n_pvars; /* capacity: variables of the pattern's graph */
  rg_ref *t;                /* tensor variable -> bound ref in the term graph */
  uint8_t *t_bound;
  int32_t *p; /* parameter variable -> value, or term-graph pvar if p_var */
  uint8_t *p_bound, *p_var;
} rg_match_env;

/* Allocates bindings for patterns with at most n_tvars tensor and n_pvars parameter variables
 * (e.g. rg_graph_n_tvars of the pattern's graph), all unbound. */
rg_status rg_match_env_init(rg_match_env *e, int32_t n_tvars, int32_t n_pvars,
                            rg_err *err) RG_MUST_CHECK;
void rg_match_env_reset(rg_match_env *e); /* unbinds everything */
void rg_match_env_free(rg_match_env *e);

/* True when pattern pr (in pg) matches term tr (in tg) under the bindings in e, which it
 * extends. On false the bindings may be partly extended: reset them before reusing e. */
bool rg_match(const rg_graph *pg, rg_ref pr, const rg_graph *tg, rg_ref tr, rg_match_env *e);

/* The parameters of pattern node pn against term node tn (operator and operands not looked
 * at), extending e's parameter bindings. The parameter variables bound by this call go to
 * trail[0..*n_trail) when trail is given (room for RG_MAX_PARAMS), so that a caller that
 * backtracks (optimizer/'s e-matching) can unbind them; on false, those bound so far. */
bool rg_match_params(const rg_node *pn, const rg_node *tn, rg_match_env *e, int32_t *trail, int *n_trail);

/* Builds the instance of pattern pr under e in tg. RG_ERR_UNBOUND when the pattern uses a
 * variable e does not bind, RG_ERR_NOMEM on allocation failure. */
rg_status rg_match_instantiate(const rg_graph *pg, rg_ref pr, const rg_match_env *e, rg_graph *tg,
                               rg_ref *out, rg_err *err) RG_MUST_CHECK;

/* Adds node n (operands and parameters instantiated) where the instance is built; its id in *id,
 * or a status that stops the instantiation (a node that does not type, out of memory). */
typedef rg_status (*rg_match_add_fn)(void *ctx, const rg_node *n, int32_t *id, rg_err *err);
/* rg_match_instantiate with the nodes added by add (a model graph infers their shapes). */
rg_status rg_match_instantiate_with(const rg_graph *pg, rg_ref pr, const rg_match_env *e, rg_match_add_fn add,
                                    void *ctx, rg_ref *out, rg_err *err) RG_MUST_CHECK;

/* Variables a side uses: bit sets over tensor and parameter variables (caller-allocated,
 * zeroed arrays of rg_graph_n_tvars / rg_graph_n_pvars bytes). */
rg_status rg_side_vars(const rg_graph *g, const rg_ref *refs, int n, uint8_t *tvars, uint8_t *pvars,
                       rg_err *err) RG_MUST_CHECK;

#endif
