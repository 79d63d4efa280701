/* optimizer/eqsat/extract_local.c: a choice improved by local moves on the cost of the model it makes
 * (eqsat_internal.h). Greedy extraction prices each class by tree cost, so it cannot see that two
 * classes computed by one node (a split's outputs, the merged product of TASO's rules) or a
 * shared operand are paid once; e-node costs can only hope that a bias or activation fuses into
 * the node before it, which holds only where nothing else reads that node. A move switches every
 * class one e-node computes to that node; it is kept when the model's cost, priced as
 * rg_cost_sum prices models, goes down and no class comes to need itself. */
#include <math.h>
#include <stdlib.h>

#include "eqsat_internal.h"
#include "ir/clock.h"

/* Passes over the used classes at most: each pass that keeps a move is followed by another. */
#define MAX_PASSES 8

typedef struct {
  rg_egraph *eg;
  const rg_model *m;
  const double *cost; /* [node]: its own cost, fusion aside */
  const int32_t *roots;
  int n_roots;
  int32_t *cmark, *nmark; /* [class], [node]: epoch seen (class: 2e on the path, 2e + 1 done) */
  int32_t *rmark, *readers; /* [class]: epoch counted, and its readers among the nodes */
  int32_t *fmark;           /* [node]: epoch it was found fused in */
  int32_t epoch;
  int32_t *stack, *next_in; /* the walk's classes and each one's next operand */
  int32_t *used, n_used;    /* the classes the last walk needed, operands first */
  int32_t *nodes, n_nodes;  /* their nodes, each once, operands first */
  int32_t *first;           /* [opaque node]: where its operands start among the roots */
} dag;

/* The operands of a class's chosen node: an operator's, and for an opaque node's output the roots
 * its opaque node reads, which the e-graph does not see (a choice through them can need itself). */
static int n_operands(const dag *d, const rg_node *nd) {
  if (nd->op != RG_OP_INPUT) return nd->n_in;
  const rg_mvar *v = &d->m->var[nd->params[0]];
  return v->kind == RG_MVAR_OPAQUE ? d->m->op[v->opaque].n_in : 0;
}

/* Operand k's class (n_operands), or -1 (an omitted optional operand of an opaque node). */
static int32_t operand_class(const dag *d, const rg_node *nd, int k) {
  if (nd->op != RG_OP_INPUT) return rg_egraph_class(d->eg, nd->in[k]);
  return d->roots[d->first[d->m->var[nd->params[0]].opaque] + k];
}

/* The classes the roots need through choice into d->used, their nodes into d->nodes; false
 * when a needed class has no choice or needs itself. */
static bool walk(dag *d, const int32_t *choice) {
  int32_t on_path = 2 * ++d->epoch, done = on_path + 1, sp = 0;
  d->n_used = d->n_nodes = 0;
  for (int i = 0; i < d->n_roots; i++) {
    int32_t r = d->roots[i];
    if (r < 0 || d->cmark[r] == done) continue;
    d->cmark[r] = on_path, d->stack[sp] = r, d->next_in[sp++] = 0;
    while (sp > 0) {
      int32_t c = d->stack[sp - 1], v = choice[c];
      if (v < 0) return false;
      int32_t id = v / RG_MAX_OUTPUTS;
      const rg_node *nd = rg_graph_node(d->m->g, id);
      if (d->next_in[sp - 1] >= n_operands(d, nd)) {
        d->cmark[c] = done, d->used[d->n_used++] = c, sp--;
        if (d->nmark[id] != d->epoch) d->nmark[id] = d->epoch, d->nodes[d->n_nodes++] = id;
        continue;
      }
      int32_t o = operand_class(d, nd, d->next_in[sp - 1]++);
      if (o < 0) continue;
      if (d->cmark[o] == on_path) return false;
      if (d->cmark[o] != done) d->cmark[o] = on_path, d->stack[sp] = o, d->next_in[sp++] = 0;
    }
  }
  return true;
}

static void read_by(dag *d, int32_t cls) {
  if (d->rmark[cls] != d->epoch) d->rmark[cls] = d->epoch, d->readers[cls] = 0;
  d->readers[cls]++;
}

/* The cost of the model choice makes, as rg_cost_sum prices models: each needed node once, a
 * bias or activation free where it fuses into its operand's node and nothing else reads that
 * operand (rg_cost_fuses); INFINITY when choice computes no model. */
static double dag_cost(dag *d, const int32_t *choice) {
  if (!walk(d, choice)) return INFINITY;
  for (int i = 0; i < d->n_roots; i++)
    if (d->roots[i] >= 0) read_by(d, d->roots[i]);
  for (int32_t i = 0; i < d->n_nodes; i++) {
    const rg_node *nd = rg_graph_node(d->m->g, d->nodes[i]);
    for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) read_by(d, rg_egraph_class(d->eg, nd->in[k]));
  }
  double total = 0;
  for (int32_t i = 0; i < d->n_nodes; i++) { /* operands first: a fused bias is known before its reader */
    int32_t id = d->nodes[i];
    const rg_node *nd = rg_graph_node(d->m->g, id);
    if (nd->op == RG_OP_INPUT) continue;
    if (rg_cost_fusable_op(nd->op)) {
      int32_t a = rg_egraph_class(d->eg, nd->in[0]), p = choice[a] / RG_MAX_OUTPUTS;
      const rg_node *pn = rg_graph_node(d->m->g, p);
      if (d->readers[a] == 1 && rg_cost_fuses(d->m, nd, nd->in[0], pn, d->fmark[p] == d->epoch)) {
        d->fmark[id] = d->epoch;
        continue;
      }
    }
    total += d->cost[id];
  }
  return total;
}

/* Every class node id computes switched to it (their old choices into saved); back with
 * restore. */
static int switch_to(dag *d, int32_t id, int32_t *choice, int32_t *saved) {
  int n = rg_op_get((rg_op)rg_graph_node(d->m->g, id)->op)->n_outputs;
  for (int o = 0; o < n; o++) {
    int32_t c = rg_egraph_find(d->eg, id * RG_MAX_OUTPUTS + o);
    saved[o] = choice[c], choice[c] = id * RG_MAX_OUTPUTS + o;
  }
  return n;
}

static void restore(dag *d, int32_t id, int n, int32_t *choice, const int32_t *saved) {
  for (int o = n - 1; o >= 0; o--) choice[rg_egraph_find(d->eg, id * RG_MAX_OUTPUTS + o)] = saved[o];
}

/* Whether to go on with class i of a pass: before the deadline, and w says go on (asked every
 * 64 classes: it reads the process's memory). */
static bool go_on(int32_t i, double deadline, rg_search_watch *w) {
  return (deadline <= 0 || rg_clock_seconds() < deadline) && (!w || i % 64 || !rg_search_watch_check(w));
}

/* One pass over the classes the current choice uses (a snapshot): every other member tried. */
static bool pass(dag *d, int32_t *choice, int32_t *snapshot, double *cur, double deadline, rg_search_watch *w) {
  bool kept = false;
  double now = dag_cost(d, choice);
  int32_t n = d->n_used;
  for (int32_t i = 0; i < n; i++) snapshot[i] = d->used[i];
  for (int32_t i = 0; i < n && go_on(i, deadline, w); i++) {
    int32_t c = snapshot[i], v = c;
    do {
      int32_t id = v / RG_MAX_OUTPUTS, saved[RG_MAX_OUTPUTS];
      if (choice[c] < 0 || choice[c] / RG_MAX_OUTPUTS != id) {
        int k = switch_to(d, id, choice, saved);
        double t = dag_cost(d, choice);
        if (t < now * (1 - 1e-12)) now = t, kept = true;
        else restore(d, id, k, choice, saved);
      }
      v = rg_egraph_next(d->eg, v);
    } while (v != c);
  }
  *cur = now;
  return kept;
}

rg_status rg_extract_improve(rg_egraph *eg, const double *full_cost, const int32_t *roots, int n_roots,
                             double deadline, rg_search_watch *w, int32_t *choice, double *cost, rg_err *err) {
  int32_t n = rg_egraph_n_nodes(eg), nv = n * RG_MAX_OUTPUTS;
  dag d = {.eg = eg, .m = rg_egraph_model(eg), .cost = full_cost, .roots = roots, .n_roots = n_roots};
  d.cmark = calloc((size_t)nv + 1, sizeof *d.cmark), d.nmark = calloc((size_t)n + 1, sizeof *d.nmark);
  d.rmark = calloc((size_t)nv + 1, sizeof *d.rmark), d.readers = calloc((size_t)nv + 1, sizeof *d.readers);
  d.fmark = calloc((size_t)n + 1, sizeof *d.fmark);
  d.stack = malloc(sizeof *d.stack * ((size_t)nv + 1)), d.next_in = malloc(sizeof *d.next_in * ((size_t)nv + 1));
  d.used = malloc(sizeof *d.used * ((size_t)nv + 1)), d.nodes = malloc(sizeof *d.nodes * ((size_t)n + 1));
  int32_t *snapshot = malloc(sizeof *snapshot * ((size_t)nv + 1));
  d.first = malloc(sizeof *d.first * ((size_t)d.m->n_op + 1));
  if (d.first) rg_model_opaque_firsts(d.m, d.first);
  rg_status st = d.cmark && d.nmark && d.rmark && d.readers && d.fmark && d.stack && d.next_in && d.used &&
                         d.nodes && snapshot && d.first
                     ? RG_OK
                     : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *cost = st ? INFINITY : dag_cost(&d, choice);
  for (int p = 0; !st && p < MAX_PASSES && pass(&d, choice, snapshot, cost, deadline, w); p++) {
  }
  free(d.cmark), free(d.nmark), free(d.rmark), free(d.readers), free(d.fmark), free(d.stack), free(d.next_in);
  free(d.used), free(d.nodes), free(snapshot), free(d.first);
  return st;
}
