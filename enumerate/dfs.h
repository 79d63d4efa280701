/* enumerate/dfs.h: the parallel depth-first enumerator.
 *
 * Every DAG of 1..depth operators over the input set is visited exactly once, an operator of
 * several outputs counted once however many of them the DAG uses (split.0 and split.1 of one
 * tensor are one split, as in TASO), within RG_ENUM_MAX_DEPTH variants in all:
 *   - an operator sequence is accepted only in its canonical order, the greedy topological order
 *     that always places the smallest available operator next, operators compared by (variant,
 *     operand pool indices); so independent operators appear in one order only;
 *   - an operator equal to an earlier one (same variant and operands) is never added (the graph
 *     is hash-consed, duplicated computation cannot arise);
 *   - an application that shape inference rejects (or rg_enum_space_accepts) is skipped;
 *   - inputs of equal shape are interchangeable: a graph is visited only when, for each such
 *     class, the inputs it uses are the first ones of the class (x1, x2, not x1, x3); any other
 *     graph, and any rule between two, is a renaming of one visited (TASO's input order);
 *   - a commutative operator with operands in decreasing pool order, op(b, a), is visited when
 *     both are inputs (so commutativity itself shows up as a collision) but not extended: each
 *     of its extensions equals, by commutativity and congruence, an extension of op(a, b),
 *     which is enumerated; with a computed operand it is skipped (an instance of commutativity).
 * Work units are the valid first operators, listed in (variant, operands) order, so a unit's
 * number names the same subtree in every run of one space; OpenMP threads take them dynamically. Each thread
 * has its own state and visitor data, so threads share nothing mutable; the visitor sees graphs
 * in a thread-dependent order, so anything that must be deterministic sorts afterwards.
 */
#ifndef RG_ENUMERATE_DFS_H
#define RG_ENUMERATE_DFS_H

#include <signal.h>

#include "space.h"

typedef struct rg_enum_shapes rg_enum_shapes; /* a thread's interned shapes */

/* The graph being visited: code[0..n_ops), shapes and use counts of every pool tensor. */
typedef struct {
  const rg_enum_space *sp;
  const rg_enum_shapes *shapes;
  int n_ops;
  int weight;                  /* operators as --depth counts them: n_ops less the outputs of a
                                  multi-output operator after its first (rg_enum_code_weight) */
  rg_enum_code code;
  int32_t sid[RG_ENUM_POOL];   /* shape id of each pool tensor (inputs, then operators) */
  uint8_t uses[RG_ENUM_POOL];  /* operators of the graph using each pool tensor */
  int n_sinks;                 /* operators whose tensor no operator uses: the outputs */
  bool is_graph;               /* n_sinks <= max_outputs and inputs used in class order: a graph
                                  to record; otherwise a prefix that later operators can make one */
} rg_enum_state;

/* Whether no later operator can read the newest tensor: the code is full, or the depth is spent
 * (then only the other outputs of an operator already there may follow, and they read its
 * operand, which is older). */
static inline bool rg_enum_state_last(const rg_enum_state *st) {
  return st->n_ops == RG_ENUM_MAX_DEPTH || st->weight == st->sp->depth;
}
/* Shape of pool tensor p (valid while the state is). */
const rg_shape *rg_enum_state_shape(const rg_enum_state *st, int p);
/* Shape id of pool tensor p: equal ids, equal types (dims and seams), within one thread. */
static inline int32_t rg_enum_state_sid(const rg_enum_state *st, int p) { return st->sid[p]; }

typedef struct {
  /* Called after operator n_ops-1 was appended; a non-OK status stops the whole run. Clearing
   * *extend keeps the enumerator from extending this graph (its extensions are redundant, e.g.
   * its newest tensor equals an older one). */
  rg_status (*visit)(void *user, const rg_enum_state *st, bool *extend, rg_err *err);
  /* Called before operator n_ops-1 is removed again (may be NULL). */
  void (*leave)(void *user, const rg_enum_state *st);
} rg_enum_visitor;

typedef struct {
  uint64_t graphs;     /* graphs visited so far, all threads */
  int units_done, units_total;
} rg_enum_progress;

typedef struct rg_enum_stats rg_enum_stats;

typedef struct {
  int threads;                        /* >= 1 */
  int max_outputs;                    /* 1 .. RG_RULE_MAX_OUTPUTS: most outputs of a graph */
  bool extend_swapped;                /* also extend swapped commutative operands (all DAGs) */
  bool all_inputs;                    /* also graphs using equal-shaped inputs out of order */
  const volatile sig_atomic_t *stop;  /* when non-NULL and set, the run ends early */
  /* Called now and then (after a unit, or every 2^16 graphs) by one thread at a time. */
  void (*progress)(void *user, const rg_enum_progress *p);
  void *progress_user;
  /* A resumed run (fingerprint/spill.h): units whose skip[u] is set are not run (their graphs
   * were visited by an earlier run); n_skip must then equal the number of units, or the run is
   * refused (another space). NULL: every unit runs. */
  const uint8_t *skip;
  int n_skip;
  bool count_only; /* list the units (stats->units) and run none: how a run is shared out */
  /* Called (may be NULL) by the thread that ran unit u, with that thread's user, once every
   * graph of the unit was visited; delta holds the unit's own counts, and in units the run's
   * number of units. A non-OK status stops the run. Not called for a unit cut short by stop. */
  rg_status (*unit_done)(void *user, int unit, const rg_enum_stats *delta, rg_err *err);
} rg_enum_run_opts;

struct rg_enum_stats {
  uint64_t graphs;    /* graphs visited (1..depth operators, at most max_outputs outputs) */
  uint64_t rejected;  /* applications skipped: shape, duplicate node, non-canonical order */
  uint64_t wide;      /* prefixes with too many outputs, evaluated only to be extended */
  uint64_t pruned;    /* graphs not extended: the visitor asked so, or swapped commutative operands */
  int units;          /* work units (valid first operators), skipped ones included */
  int units_skipped;  /* units skip marked, not run */
  bool interrupted;   /* stop was set before the run finished */
};

/* Runs the enumeration; users[t] is the visitor data of thread t (o->threads of them). Returns
 * the first visitor error, or RG_ERR_NOMEM. An interrupted run returns RG_OK with
 * stats->interrupted set. */
rg_status rg_enum_run(const rg_enum_space *sp, const rg_enum_visitor *v, void *const *users,
                      const rg_enum_run_opts *o, rg_enum_stats *stats, rg_err *err) RG_MUST_CHECK;

#endif
