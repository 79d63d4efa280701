/* optimizer/eqsat/extract_ilp.c: optimal extraction by an ILP (eqsat_internal.h), solved by CBC
 * through its C interface (coinor-libcbc-dev). TENSAT's formulation without its ordering
 * variables (the explored e-graph is acyclic, egraph.h): a 0/1 column x per e-node the roots
 * reach, costing the node's cost, and a column y per class (in [0, 1]; 1 for a root class): a
 * chosen node needs each of its operand classes (y_c >= x_n), a needed class one of its nodes
 * (sum of its x >= y_c). A shared node is then paid once, which greedy extraction (tree costs)
 * cannot see. The matrix is built whole and loaded at once (adding rows one by one is
 * quadratic in CBC). CBC is asked at each of its events whether to stop (Ctrl-C, the memory
 * limit: extract_cbc.cpp), and then ends with its incumbent, as at its time limit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eqsat_internal.h"
#include "extract_cbc.h"
#include "ir/grow.h"

typedef struct {
  rg_egraph *eg;
  const rg_graph *g;
  int32_t *col;   /* [node]: its x column, -1 when the roots do not reach it */
  int32_t *ycol;  /* [class]: its y column, -1 likewise */
  int32_t *nodes; /* [x column]: its node */
  int32_t n_x, n_cols, n_rows;
  uint8_t *reached; /* [class] */
  int32_t *in_row;  /* [column]: the row it was last put in (a split's two outputs are one column) */
  int32_t *t_row, *t_col; /* the matrix, one entry per (row, column) */
  double *t_val;
  int32_t nnz, cap_t, cap_row, cap_col;
  bool nomem;
} ilp;

/* Every node of every class the roots reach gets an x column; every such class a y column. */
static void reach(ilp *p, const int32_t *roots, int n_roots, int32_t nv) {
  rg_egraph_reach(p->eg, roots, n_roots, p->reached);
  for (int32_t c = 0; c < nv; c++) {
    if (!p->reached[c]) continue;
    int32_t v = c;
    do {
      int32_t id = v / RG_MAX_OUTPUTS;
      if (p->col[id] < 0) p->col[id] = p->n_x, p->nodes[p->n_x++] = id;
      v = rg_egraph_next(p->eg, v);
    } while (v != c);
  }
  p->n_cols = p->n_x;
  for (int32_t c = 0; c < nv; c++)
    if (p->reached[c]) p->ycol[c] = p->n_cols++;
}

static void entry(ilp *p, int32_t col, double val) {
  if (p->in_row[col] == p->n_rows) return; /* already in this row */
  bool ok = rg_grow(&p->t_row, &p->cap_row, p->nnz, sizeof *p->t_row, 4096) &&
            rg_grow(&p->t_col, &p->cap_col, p->nnz, sizeof *p->t_col, 4096) &&
            rg_grow(&p->t_val, &p->cap_t, p->nnz, sizeof *p->t_val, 4096);
  if (!ok) {
    p->nomem = true;
    return;
  }
  p->in_row[col] = p->n_rows;
  p->t_row[p->nnz] = p->n_rows, p->t_col[p->nnz] = col, p->t_val[p->nnz++] = val;
}

/* The rows, each ">= 0": per chosen-node/operand-class pair y_c - x_n, per class the sum of
 * its nodes' x less y_c, and y_a - y_c per class a that class c needs (extract_must.c: implied
 * for 0/1 values, they tighten the relaxation). */
static void rows(ilp *p, int32_t nv) {
  for (int32_t j = 0; j < p->n_x; j++) {
    const rg_node *nd = rg_graph_node(p->g, p->nodes[j]);
    for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) {
      p->n_rows++;
      entry(p, j, -1), entry(p, p->ycol[rg_egraph_class(p->eg, nd->in[k])], 1);
    }
  }
  for (int32_t c = 0; c < nv; c++) {
    if (!p->reached[c]) continue;
    p->n_rows++;
    entry(p, p->ycol[c], -1);
    int32_t v = c;
    do {
      entry(p, p->col[v / RG_MAX_OUTPUTS], 1);
      v = rg_egraph_next(p->eg, v);
    } while (v != c);
  }
  rg_must must;
  if (!rg_extract_must(p->eg, p->reached, &must)) {
    p->nomem = true;
    return;
  }
  for (int32_t c = 0; c < nv; c++)
    for (int i = 0; p->reached[c] && i < must.n[c]; i++) {
      p->n_rows++;
      entry(p, p->ycol[must.cls[(size_t)c * RG_MUST_KEEP + i]], 1), entry(p, p->ycol[c], -1);
    }
  rg_must_free(&must);
}

/* The matrix into CBC in compressed sparse columns, with the columns' bounds and costs. */
static bool load(ilp *p, Cbc_Model *cbc, const double *node_cost, const int32_t *roots, int n_roots) {
  int *start = calloc((size_t)p->n_cols + 2, sizeof *start), *index = malloc(sizeof *index * ((size_t)p->nnz + 1));
  double *value = malloc(sizeof *value * ((size_t)p->nnz + 1)), *lb = calloc((size_t)p->n_cols + 1, sizeof *lb);
  double *ub = malloc(sizeof *ub * ((size_t)p->n_cols + 1)), *obj = calloc((size_t)p->n_cols + 1, sizeof *obj);
  double *rlb = calloc((size_t)p->n_rows + 1, sizeof *rlb);
  bool ok = start && index && value && lb && ub && obj && rlb;
  if (ok) {
    for (int32_t k = 0; k < p->nnz; k++) start[p->t_col[k] + 2]++;
    for (int32_t j = 0; j < p->n_cols; j++) start[j + 2] += start[j + 1];
    for (int32_t k = 0; k < p->nnz; k++) { /* rows are 1-based here: CBC's are 0-based */
      int at = start[p->t_col[k] + 1]++;
      index[at] = p->t_row[k] - 1, value[at] = p->t_val[k];
    }
    for (int32_t j = 0; j < p->n_cols; j++) ub[j] = 1;
    for (int32_t j = 0; j < p->n_x; j++)
      obj[j] = rg_graph_node(p->g, p->nodes[j])->op == RG_OP_INPUT ? 0 : node_cost[p->nodes[j]];
    for (int i = 0; i < n_roots; i++)
      if (roots[i] >= 0) lb[p->ycol[roots[i]]] = 1;
    Cbc_loadProblem(cbc, p->n_cols, p->n_rows, start, index, value, lb, ub, obj, rlb, NULL);
    for (int32_t j = 0; j < p->n_x; j++) Cbc_setInteger(cbc, j);
  }
  free(start), free(index), free(value), free(lb), free(ub), free(obj), free(rlb);
  return ok;
}

/* The start: the nodes the roots need through choice (x = 1), and each class whose chosen node
 * is among them (y = 1), so that CBC begins from choice's cost. After solving, the solver's
 * choice: for each reached class, a member whose column is 1. */
static void start_from(ilp *p, Cbc_Model *cbc, const int32_t *choice, const int32_t *roots, int n_roots,
                       int32_t nv) {
  double *val = calloc((size_t)p->n_cols + 1, sizeof *val);
  int *all = malloc(sizeof *all * ((size_t)p->n_cols + 1));
  int32_t *used = malloc(sizeof *used * ((size_t)rg_egraph_n_nodes(p->eg) + 1));
  int32_t n = val && all && used ? rg_extract_used(p->eg, choice, roots, n_roots, used) : -1;
  for (int32_t i = 0; i < n; i++) val[p->col[used[i]]] = 1;
  for (int32_t c = 0; n >= 0 && c < nv; c++)
    if (p->reached[c] && choice[c] >= 0 && val[p->col[choice[c] / RG_MAX_OUTPUTS]] > 0) val[p->ycol[c]] = 1;
  for (int32_t j = 0; n >= 0 && j < p->n_cols; j++) all[j] = j;
  if (n >= 0) Cbc_setMIPStartI(cbc, p->n_cols, all, val); /* else no start: CBC finds its own */
  free(val), free(all), free(used);
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

static bool stop_asked(void *w) { return rg_search_watch_check(w) != NULL; }

/* CBC run from choice until it ends, its time limit or w's stop; its answer into choice and res. */
static rg_status run(Cbc_Model *cbc, ilp *p, double time_limit, rg_search_watch *w, int32_t *choice, int32_t nv,
                     rg_ilp_result *res, rg_err *err) {
  Cbc_setObjSense(cbc, 1);
  Cbc_setLogLevel(cbc, 0);
  if (time_limit > 0) Cbc_setMaximumSeconds(cbc, time_limit);
  Cbc_setParameter(cbc, "timeMode", "elapsed"); /* the limit in wall-clock seconds, not CPU's */
  int how = rg_cbc_solve(cbc, w->stop, stop_asked, w);
  if (how == RG_CBC_NOMEM) return rg_err_set(err, RG_ERR_NOMEM, "CBC: out of memory");
  if (how == RG_CBC_FAILED) return rg_err_set(err, RG_ERR_LIMIT, "CBC failed"); /* as no solution: the start kept */
  res->optimal = Cbc_isProvenOptimal(cbc) && how != RG_CBC_STOPPED;
  res->stopped = how == RG_CBC_STOPPED ? rg_search_watch_check(w) : res->optimal ? NULL : "time limit";
  res->obj = Cbc_getObjValue(cbc), res->bound = Cbc_getBestPossibleObjValue(cbc);
  if (Cbc_numberSavedSolutions(cbc) < 1 || !read_choice(p, cbc, choice, nv)) {
    res->obj = NAN;
    return rg_err_set(err, RG_ERR_LIMIT, "CBC found no solution%s", res->stopped ? " before it stopped" : "");
  }
  return RG_OK;
}

static rg_status solve(ilp *p, const double *node_cost, const int32_t *roots, int n_roots, double time_limit,
                       rg_search_watch *w, int32_t *choice, int32_t nv, rg_ilp_result *res, rg_err *err) {
  Cbc_Model *cbc = Cbc_newModel();
  if (!cbc) return rg_err_set(err, RG_ERR_NOMEM, "CBC: cannot make a model");
  rows(p, nv);
  if (p->nomem || !load(p, cbc, node_cost, roots, n_roots)) {
    Cbc_deleteModel(cbc);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  start_from(p, cbc, choice, roots, n_roots, nv);
  rg_status st = run(cbc, p, time_limit, w, choice, nv, res, err);
  Cbc_deleteModel(cbc);
  return st;
}

rg_status rg_extract_ilp(rg_egraph *eg, const double *node_cost, const int32_t *roots, int n_roots, double time_limit,
                         rg_search_watch *w, int32_t *choice, rg_ilp_result *res, rg_err *err) {
  *res = (rg_ilp_result){NAN, NAN, false, NULL};
  int32_t n = rg_egraph_n_nodes(eg), nv = n * RG_MAX_OUTPUTS;
  ilp p = {.eg = eg, .g = rg_egraph_model(eg)->g};
  p.col = malloc(sizeof *p.col * ((size_t)n + 1)), p.nodes = malloc(sizeof *p.nodes * ((size_t)n + 1));
  p.ycol = malloc(sizeof *p.ycol * ((size_t)nv + 1));
  p.reached = calloc((size_t)nv + 1, 1);
  p.in_row = calloc((size_t)n + (size_t)nv + 1, sizeof *p.in_row);
  rg_status st = p.col && p.nodes && p.ycol && p.reached && p.in_row ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    memset(p.col, -1, sizeof *p.col * (size_t)n);
    memset(p.ycol, -1, sizeof *p.ycol * (size_t)nv);
    reach(&p, roots, n_roots, nv);
  }
  if (!st) st = solve(&p, node_cost, roots, n_roots, time_limit, w, choice, nv, res, err);
  free(p.col), free(p.nodes), free(p.ycol), free(p.reached), free(p.in_row), free(p.t_row), free(p.t_col), free(p.t_val);
  return st;
}
