/* optimizer/extract_ilp.c: optimal extraction by an ILP (eqsat_internal.h), solved by CBC
 * through its C interface (coinor-libcbc-dev). TENSAT's formulation without its ordering
 * variables (the explored e-graph is acyclic, egraph.h): a 0/1 column per e-node the roots
 * reach, costing the node's cost; per root class, its nodes' columns sum to at least 1; per
 * node and operand class, that class's columns sum to at least the node's. A shared node is
 * then paid once, which greedy extraction (tree costs) cannot see. */
#include <coin/Cbc_C_Interface.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eqsat_internal.h"

typedef struct {
  rg_egraph *eg;
  const rg_graph *g;
  int32_t *col;   /* [node]: its column, -1 when the roots do not reach it */
  int32_t *nodes; /* [column]: its node */
  int32_t n_cols;
  uint8_t *reached; /* [class] */
  int *idx;         /* a row being built */
  double *coef;
} ilp;

/* Every node of every class the roots reach gets a column. */
static rg_status reach(ilp *p, const int32_t *roots, int n_roots, int32_t nv, rg_err *err) {
  rg_status st = rg_egraph_reach(p->eg, roots, n_roots, p->reached, err);
  for (int32_t c = 0; !st && c < nv; c++) {
    if (!p->reached[c]) continue;
    int32_t v = c;
    do {
      int32_t id = v / RG_MAX_OUTPUTS;
      if (p->col[id] < 0) p->col[id] = p->n_cols, p->nodes[p->n_cols++] = id;
      v = rg_egraph_next(p->eg, v);
    } while (v != c);
  }
  return st;
}

/* cls's columns (with coefficient 1) into the row buffer from position at; the new length. */
static int class_terms(ilp *p, int32_t cls, int at) {
  int32_t v = cls;
  do {
    int32_t c = p->col[v / RG_MAX_OUTPUTS];
    bool dup = false; /* a split's two outputs in one class are one column */
    for (int i = 0; i < at; i++) dup = dup || p->idx[i] == c;
    if (!dup) p->idx[at] = c, p->coef[at++] = 1;
    v = rg_egraph_next(p->eg, v);
  } while (v != cls);
  return at;
}

static void add_rows(ilp *p, Cbc_Model *cbc, const int32_t *roots, int n_roots) {
  for (int i = 0; i < n_roots; i++) {
    if (roots[i] < 0) continue;
    int len = class_terms(p, roots[i], 0);
    Cbc_addRow(cbc, "", len, p->idx, p->coef, 'G', 1);
  }
  for (int32_t j = 0; j < p->n_cols; j++) {
    const rg_node *nd = rg_graph_node(p->g, p->nodes[j]);
    for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) {
      p->idx[0] = j, p->coef[0] = -1;
      int len = class_terms(p, rg_egraph_class(p->eg, nd->in[k]), 1);
      Cbc_addRow(cbc, "", len, p->idx, p->coef, 'G', 0);
    }
  }
}

/* The start (choice's nodes, as greedy made them) and, after solving, the solver's choice:
 * for each reached class, a member whose column is 1. */
static void start_from(ilp *p, Cbc_Model *cbc, const int32_t *choice, int32_t nv) {
  double *val = calloc((size_t)p->n_cols + 1, sizeof *val);
  int *all = malloc(sizeof *all * ((size_t)p->n_cols + 1));
  if (!val || !all) {
    free(val), free(all);
    return; /* no start: the solver finds its own */
  }
  for (int32_t c = 0; c < nv; c++)
    if (p->reached[c] && choice[c] >= 0) val[p->col[choice[c] / RG_MAX_OUTPUTS]] = 1;
  for (int32_t j = 0; j < p->n_cols; j++) all[j] = j;
  Cbc_setMIPStartI(cbc, p->n_cols, all, val);
  free(val), free(all);
}

static bool read_choice(ilp *p, Cbc_Model *cbc, int32_t *choice, int32_t nv) {
  const double *x = Cbc_getColSolution(cbc);
  if (!x) return false;
  for (int32_t c = 0; c < nv; c++) {
    if (!p->reached[c]) continue;
    int32_t v = c, pick = -1;
    do {
      if (x[p->col[v / RG_MAX_OUTPUTS]] > 0.5 && pick < 0) pick = v;
      v = rg_egraph_next(p->eg, v);
    } while (v != c);
    if (pick >= 0) choice[c] = pick;
  }
  return true;
}

static rg_status solve(ilp *p, const double *node_cost, const int32_t *roots, int n_roots, double time_limit,
                       int32_t *choice, int32_t nv, double *obj, double *bound, bool *optimal, rg_err *err) {
  Cbc_Model *cbc = Cbc_newModel();
  if (!cbc) return rg_err_set(err, RG_ERR_NOMEM, "CBC: cannot make a model");
  for (int32_t j = 0; j < p->n_cols; j++) {
    const rg_node *nd = rg_graph_node(p->g, p->nodes[j]);
    Cbc_addCol(cbc, "", 0, 1, nd->op == RG_OP_INPUT ? 0 : node_cost[p->nodes[j]], 1, 0, NULL, NULL);
  }
  add_rows(p, cbc, roots, n_roots);
  Cbc_setObjSense(cbc, 1);
  Cbc_setLogLevel(cbc, 0);
  if (time_limit > 0) Cbc_setMaximumSeconds(cbc, time_limit);
  start_from(p, cbc, choice, nv);
  Cbc_solve(cbc);
  rg_status st = RG_OK;
  if (Cbc_numberSavedSolutions(cbc) < 1 || !read_choice(p, cbc, choice, nv))
    st = rg_err_set(err, RG_ERR_LIMIT, "CBC found no solution%s", Cbc_isSecondsLimitReached(cbc) ? " in its time limit" : "");
  *obj = Cbc_getObjValue(cbc), *bound = Cbc_getBestPossibleObjValue(cbc), *optimal = Cbc_isProvenOptimal(cbc);
  Cbc_deleteModel(cbc);
  return st;
}

rg_status rg_extract_ilp(rg_egraph *eg, const double *node_cost, const int32_t *roots, int n_roots, double time_limit,
                         int32_t *choice, double *obj, double *bound, bool *optimal, rg_err *err) {
  int32_t n = rg_egraph_n_nodes(eg), nv = n * RG_MAX_OUTPUTS;
  ilp p = {.eg = eg, .g = rg_egraph_model(eg)->g};
  p.col = malloc(sizeof *p.col * ((size_t)n + 1)), p.nodes = malloc(sizeof *p.nodes * ((size_t)n + 1));
  p.reached = calloc((size_t)nv + 1, 1);
  p.idx = malloc(sizeof *p.idx * ((size_t)nv + 2)), p.coef = malloc(sizeof *p.coef * ((size_t)nv + 2));
  rg_status st = p.col && p.nodes && p.reached && p.idx && p.coef ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    memset(p.col, -1, sizeof *p.col * (size_t)n);
    st = reach(&p, roots, n_roots, nv, err);
  }
  if (!st) st = solve(&p, node_cost, roots, n_roots, time_limit, choice, nv, obj, bound, optimal, err);
  free(p.col), free(p.nodes), free(p.reached), free(p.idx), free(p.coef);
  return st;
}
