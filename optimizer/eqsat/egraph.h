/* optimizer/eqsat/egraph.h: an e-graph over a model graph, for equality saturation (eqsat.h).
 *
 * The e-nodes are the nodes of the model's hash-consed graph (m->g): every node of it belongs,
 * those of the imported model and those rewrites add. An e-class is a set of values (node
 * outputs) known equal, kept by union-find; its id is its root value. Values of one class have
 * the same type (shape and seams): a union is made only between values of equal types.
 *
 * Congruence: two nodes with the same operator and parameters whose operands lie in the same
 * classes compute equal values. rg_egraph_add finds such a node before adding one (the
 * e-graph's hash-consing), and rg_egraph_rebuild restores the invariant after unions (nodes
 * that became congruent are merged, repeatedly, until none is left).
 *
 * Values are numbered node * RG_MAX_OUTPUTS + output.
 */
#ifndef RG_OPTIMIZER_EGRAPH_H
#define RG_OPTIMIZER_EGRAPH_H

#include "optimizer/model/model.h"

typedef struct rg_egraph rg_egraph;

/* An e-graph over every node m->g holds now (and every node added to it later through
 * rg_egraph_add); NULL when out of memory. m must outlive it. */
rg_egraph *rg_egraph_new(rg_model *m);
void rg_egraph_free(rg_egraph *eg);
/* The model whose graph the e-nodes are. */
rg_model *rg_egraph_model(const rg_egraph *eg);

static inline int32_t rg_egraph_value(rg_ref r) { return r.node * RG_MAX_OUTPUTS + r.out; }
static inline rg_ref rg_egraph_ref(int32_t v) { return (rg_ref){v / RG_MAX_OUTPUTS, v % RG_MAX_OUTPUTS}; }

/* The class of value v (its root value). */
int32_t rg_egraph_find(rg_egraph *eg, int32_t v);
/* The class of a value given as a ref. */
static inline int32_t rg_egraph_class(rg_egraph *eg, rg_ref r) { return rg_egraph_find(eg, rg_egraph_value(r)); }

/* The values of v's class, as a circular list: rg_egraph_next(v) ... until v again. */
int32_t rg_egraph_next(const rg_egraph *eg, int32_t v);
/* The number of values in class cls (a root value). */
int32_t rg_egraph_members(const rg_egraph *eg, int32_t cls);

/* Adds node n (operands: values of the e-graph), or finds a node congruent to it; its value
 * out_index in *out. A node that does not type: RG_ERR_SHAPE (the operator's message). */
rg_status rg_egraph_add(rg_egraph *eg, const rg_node *n, int out_index, rg_ref *out, rg_err *err) RG_MUST_CHECK;

/* Whether merging the classes of a and b would make a class reachable from itself through
 * operands (one computed from the other): TENSAT filters such rewrites during exploration, so
 * every e-class stays computable without itself and extraction never meets a cycle. */
bool rg_egraph_would_cycle(rg_egraph *eg, int32_t a, int32_t b);

/* Merges the classes of values a and b (of equal types: the caller checked); false when they
 * were one class already. Congruence is restored by rg_egraph_rebuild. */
bool rg_egraph_union(rg_egraph *eg, int32_t a, int32_t b);

/* The class's level: above the level of every class its members read (a topological order,
 * kept through merges; reachability walks use it to stop early). */
int32_t rg_egraph_level(const rg_egraph *eg, int32_t cls);

/* Merges congruent nodes until none is left; the merges it made in *merged (may be NULL). */
rg_status rg_egraph_rebuild(rg_egraph *eg, int64_t *merged, rg_err *err) RG_MUST_CHECK;

/* Marks reached[class] (room for every value, zeroed by the caller) for the classes classes[0..n)
 * (root values; negative ones skipped) and every class their members read, transitively: the
 * part of the e-graph a model with these roots can be computed from. */
void rg_egraph_reach(rg_egraph *eg, const int32_t *classes, int n, uint8_t *reached);

/* Whether node id is computed from weights alone (export folds it: rewriting it changes
 * nothing that runs). */
bool rg_egraph_weight_only(const rg_egraph *eg, int32_t id);

/* The e-graph's size: nodes (e-nodes, inputs included) and classes. */
int32_t rg_egraph_n_nodes(const rg_egraph *eg);
int32_t rg_egraph_n_classes(const rg_egraph *eg);

/* The invariants, for the tests and the debug build: every value's class root is its own
 * root, every class list holds exactly the values of its class, no two nodes are congruent
 * after a rebuild, no class reaches itself, and every class's level is above its operands'. RG_ERR_INTERNAL naming the first breach. */
rg_status rg_egraph_check(rg_egraph *eg, rg_err *err) RG_MUST_CHECK;

#endif
