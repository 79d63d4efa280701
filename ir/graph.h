/* ir/graph.h: hash-consed DAGs of operator nodes.
 *
 * Invariants: node ids are dense int32 from 0 in creation order, and every input of a node has
 * a smaller id (so id order is a topological order); no two nodes are equal (adding a node equal
 * to an existing one returns the existing id), so duplicated computation cannot exist. Tensor
 * inputs are RG_OP_INPUT nodes whose one parameter is a tensor-variable index; parameters may
 * be parameter variables (bit k of var_mask set: params[k] is a parameter-variable index).
 * The graph owns all its memory; a graph is not thread-safe for writing.
 */
#ifndef RG_IR_GRAPH_H
#define RG_IR_GRAPH_H

#include <stdint.h>

#include "op.h"
#include "status.h"

typedef struct {
  int32_t node;
  int32_t out; /* output index of the node (split has two) */
} rg_ref;

typedef struct {
  uint16_t op;
  uint8_t n_in;
  uint8_t var_mask; /* bit k: params[k] holds a parameter-variable index */
  int32_t params[RG_MAX_PARAMS];
  rg_ref in[RG_MAX_INPUTS];
} rg_node;

typedef struct rg_graph rg_graph;

/* A graph's first member, its nodes, seen here so that rg_graph_node is inline: the derivation
 * searches read a node at every step of every match, and the call was a seventh of their time.
 * Only ir/graph.c writes it. */
typedef struct {
  rg_node *nodes;
  int32_t n, cap;
} rg_graph_nodes;

rg_graph *rg_graph_new(void); /* NULL when out of memory */
/* A number no other graph of this process has (not even one made after g is freed): a memo
 * keyed by node id is valid for exactly one graph. */
uint64_t rg_graph_serial(const rg_graph *g);
void rg_graph_free(rg_graph *g);

static inline int32_t rg_graph_size(const rg_graph *g) { return ((const rg_graph_nodes *)(const void *)g)->n; }
static inline const rg_node *rg_graph_node(const rg_graph *g, int32_t id) {
  return &((const rg_graph_nodes *)(const void *)g)->nodes[id];
}

/* Frees g's spare room and its node index, and packs its variable names into one block per
 * table, for graphs done growing: a depth-4 run holds millions of rules while it prunes them.
 * g stays usable; the next rg_graph_add rebuilds the index first. A name pointer read before
 * (rg_graph_tvar_name) is stale after it, and after a later new name of a compacted graph. */
void rg_graph_compact(rg_graph *g);

/* Adds a node (unused params/inputs must be zero: use rg_node_init) and returns its id, or the
 * id of the identical node already there. Returns RG_ERR_NOMEM (negative) on allocation failure.
 * The caller guarantees inputs refer to existing nodes and valid output indices. */
int32_t rg_graph_add(rg_graph *g, const rg_node *n);
/* Adds (or finds) the input node of a tensor variable. */
int32_t rg_graph_input(rg_graph *g, int32_t tvar);

/* A node with op set and everything else zero. */
rg_node rg_node_init(rg_op op);

/* Variables are interned by name; the index is stable. Returns a negative status on failure. */
int32_t rg_graph_tvar(rg_graph *g, const char *name, int len);
int32_t rg_graph_pvar(rg_graph *g, const char *name, int len);
int32_t rg_graph_n_tvars(const rg_graph *g);
int32_t rg_graph_n_pvars(const rg_graph *g);
const char *rg_graph_tvar_name(const rg_graph *g, int32_t i);
const char *rg_graph_pvar_name(const rg_graph *g, int32_t i);
/* Looks a variable up without adding it; -1 if absent. */
int32_t rg_graph_find_tvar(const rg_graph *g, const char *name);
int32_t rg_graph_find_pvar(const rg_graph *g, const char *name);

/* Marks in mark[0..size) (caller-allocated, zeroed) every node reachable from refs (a ref to a
 * negative node, an omitted operand, reaches nothing). */
void rg_graph_mark_reachable(const rg_graph *g, const rg_ref *refs, int n, uint8_t *mark);

/* The nodes reachable from refs in a topological order (each after its operands; not by id),
 * into order[0..count), found by walking from refs only (time in the nodes reached, not in the
 * graph's size, for graphs that hold many overlapping models). seen[0..size): stamps the
 * caller keeps between calls; a node is reached when seen[id] == stamp afterwards, so a fresh
 * stamp per call needs no clearing. stack: room for `size` ids. Returns the count. */
int32_t rg_graph_reach(const rg_graph *g, const rg_ref *refs, int n, uint32_t *seen, uint32_t stamp,
                       int32_t *stack, int32_t *order);
/* ids[0..n) (node ids, >= 0) in ascending order, through tmp (room for n). */
void rg_ids_sort(int32_t *ids, int32_t n, int32_t *tmp);

#endif
