/* tests/test_optimizer_stop.c: the searches stopped early keep the best model found so far and
 * say why they stopped (search.h). On a model where one rewrite helps (two products of one
 * input merged) and others only reorder a sum without end: backtracking's queue keeps its
 * cheapest models and counts the others dropped; the memory limit (a fake resident-memory
 * reading: the same in every build), an allocation that fails (a cost function that says so)
 * and Ctrl-C (the stop flag) each stop both searches with the merge kept; a stop while
 * extraction costs the e-nodes keeps the original. Every model kept computes what the original
 * does. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "check.h"
#include "optimizer/eqsat/eqsat.h"
#include "optimizer/model/model.h"
#include "optimizer/optimize/optimize.h"
#include "optimizer/search/search.h"
#include "optimizer_helpers.h"

static const char rules_text[] =
    "mm-merge: (matmul ?x ?y) ; (matmul ?x ?z) => (split.0 1 (matmul ?x (concat 1 ?y ?z))) ; "
    "(split.1 1 (matmul ?x (concat 1 ?y ?z)))\n"
    "comm: (ewadd ?x ?y) => (ewadd ?y ?x)\n"
    "assoc: (ewadd (ewadd ?x ?y) ?z) => (ewadd ?x (ewadd ?y ?z))\n";

/* The model's cost: 22 for relu(x w1), relu(x w2) (10 a product, 1 anything else), 4 for the
 * sum of five inputs; 13 + 4 with the products merged. */
#define COST_BEFORE 26.0
#define COST_MERGED 17.0

/* Test doubles: when to fail or stop (calls counted; -1 never), and the flag stopped. */
static int64_t calls, nomem_after = -1, stop_after = -1, memory_after = -1;
static volatile sig_atomic_t stop_flag;

static void reset(int64_t nomem, int64_t stop, int64_t memory) {
  calls = 0, nomem_after = nomem, stop_after = stop, memory_after = memory, stop_flag = 0;
}

/* Resident memory as the searches read it: nothing grows until memory_after readings, then
 * far past any limit; also where a stop (Ctrl-C) comes after stop_after events. */
static int64_t fake_resident(void) {
  calls++;
  if (stop_after >= 0 && calls > stop_after) stop_flag = 1;
  return memory_after >= 0 && calls > memory_after ? (int64_t)1 << 40 : 0;
}

static rg_status node_cost(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err) {
  (void)ctx, (void)err;
  *us = rg_graph_node(m->g, id)->op == RG_OP_MATMUL ? 10 : 1;
  if (stop_after >= 0 && ++calls > stop_after) stop_flag = 1;
  return RG_OK;
}

/* A whole model's cost (the operators that run: weight-only ones are folded); an allocation
 * failure after nomem_after calls, a stop after stop_after. */
static rg_status model_cost(void *ctx, const rg_model *m, const rg_ref *roots, double *cost, int64_t *ops,
                            rg_err *err) {
  (void)ctx;
  calls++;
  if (nomem_after >= 0 && calls > nomem_after) return rg_err_set(err, RG_ERR_NOMEM, "out of memory (a test's)");
  if (stop_after >= 0 && calls > stop_after) stop_flag = 1;
  rg_model_counts c;
  rg_status st = rg_model_count_roots(m, roots, &c, err);
  *cost = 0, *ops = 0;
  for (int op = 0; op < RG_OP_COUNT; op++) *cost += c.by_op[op] * (op == RG_OP_MATMUL ? 10 : 1), *ops += c.by_op[op];
  return st;
}

static float *values(int64_t n) {
  float *v = malloc(sizeof *v * (size_t)n);
  for (int64_t i = 0; i < n; i++) v[i] = 0.1f * (float)((i * 7919) % 13 - 6);
  return v;
}

static rg_ref add(rg_model *m, rg_op op, int n_in, rg_ref a, rg_ref b) {
  rg_node n = rg_node_init(op);
  n.n_in = (uint8_t)n_in, n.in[0] = a, n.in[1] = b;
  rg_ref r = {-1, 0};
  rg_err err;
  CHECK_MSG(rg_model_add_node(m, &n, 0, &r, &err) == RG_OK, "%s", err.msg);
  return r;
}

static rg_ref var(rg_model *m, const char *name, rg_mvar_kind kind, int32_t r, int32_t c) {
  rg_shape s = rg_shape_make(2, (int32_t[]){r, c});
  return rg_model_var_ref(m, rg_model_add_var(m, name, kind, RG_ELEM_FLOAT, &s, kind == RG_MVAR_WEIGHT ? values(r * c) : NULL));
}

/* y0 = relu(x w1), y1 = relu(x w2), y2 = p + q + r + s + t. */
static rg_model *model(void) {
  rg_model *m = rg_model_new();
  m->n_out = 3, m->opset = 13, m->ir_version = 8;
  m->out = calloc(3, sizeof *m->out), m->out_name = calloc(3, sizeof *m->out_name);
  for (int i = 0; i < 3; i++) m->out_name[i] = strdup(i == 0 ? "y0" : i == 1 ? "y1" : "y2");
  rg_ref x = var(m, "x", RG_MVAR_INPUT, 4, 8), w1 = var(m, "w1", RG_MVAR_WEIGHT, 8, 8), w2 = var(m, "w2", RG_MVAR_WEIGHT, 8, 8);
  m->out[0] = add(m, RG_OP_RELU, 1, add(m, RG_OP_MATMUL, 2, x, w1), x);
  m->out[1] = add(m, RG_OP_RELU, 1, add(m, RG_OP_MATMUL, 2, x, w2), x);
  const char *names[] = {"p", "q", "r", "s", "t"};
  rg_ref sum = var(m, names[0], RG_MVAR_INPUT, 1, 4);
  for (int i = 1; i < 5; i++) sum = add(m, RG_OP_EWADD, 2, sum, var(m, names[i], RG_MVAR_INPUT, 1, 4));
  m->out[2] = sum;
  return m;
}

/* r kept the merge, computes what m does, and stopped for why. */
static void check_kept(const rg_model *m, const rg_search_result *r, const char *why, const char *what) {
  CHECK_MSG(r->cost_before == COST_BEFORE && r->cost_after == COST_MERGED, "%s: cost %g -> %g", what, r->cost_before,
            r->cost_after);
  CHECK_MSG(r->n_steps >= 1, "%s: %d steps", what, r->n_steps);
  CHECK_MSG(r->stop_reason && !strcmp(r->stop_reason, why), "%s: stopped: %s, not %s", what,
            r->stop_reason ? r->stop_reason : "(none)", why);
  double worst = INFINITY;
  rg_err err;
  if (r->roots) CHECK(rg_numcheck(m, r->roots, 1, &worst, &err) == RG_OK);
  CHECK_MSG(worst < 1e-9, "%s: the model kept differs by %g", what, worst);
}

static rg_search_opts backtrack_opts(int64_t budget, int64_t queue_limit, int64_t memory_limit) {
  return (rg_search_opts){1.05, budget, 0, 2.0, model_cost, NULL, false, &stop_flag, queue_limit,
                          {memory_limit, fake_resident}};
}

/* The queue bound: a small one drops models and still finds the merge; the default drops only
 * what the budget could never pop. */
static void test_queue(rg_model *m, const rg_apply_set *set) {
  rg_search_result small, full;
  rg_err err;
  reset(-1, -1, -1);
  rg_search_opts o = backtrack_opts(300, 3, 0);
  CHECK(rg_search(m, set, &o, &small, &err) == RG_OK);
  check_kept(m, &small, "budget", "queue of 3");
  CHECK_MSG(small.dropped > 0 && small.explored == 300, "dropped %lld, explored %lld", (long long)small.dropped,
            (long long)small.explored);
  o.queue_limit = 0;
  CHECK(rg_search(m, set, &o, &full, &err) == RG_OK);
  check_kept(m, &full, "budget", "default queue");
  CHECK_MSG(full.dropped < small.dropped, "dropped %lld of the default queue", (long long)full.dropped);
  rg_search_result_free(&small), rg_search_result_free(&full);
}

/* Backtracking with no end but a stop (a budget it never reaches, no time limit). */
static void test_backtrack_stops(rg_model *m, const rg_apply_set *set) {
  static const struct {
    int64_t nomem, stop, memory;
    const char *why;
  } cases[] = {{-1, -1, 60, "out of memory"}, {400, -1, -1, "out of memory"}, {-1, 400, -1, "interrupted"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    reset(cases[i].nomem, cases[i].stop, cases[i].memory);
    rg_search_opts o = backtrack_opts(1000000, 0, 1000);
    rg_search_result r;
    rg_err err = {0};
    rg_status st = rg_search(m, set, &o, &r, &err);
    CHECK_MSG(st == RG_OK, "backtrack case %zu: %s", i, err.msg);
    if (st) continue;
    check_kept(m, &r, cases[i].why, "backtrack");
    CHECK_MSG(r.explored > 1 && r.explored < 1000000, "case %zu: explored %lld", i, (long long)r.explored);
    rg_search_result_free(&r);
  }
}

static rg_status run_eqsat(rg_model *m, const rg_apply_set *set, rg_extract_kind how, int iterations,
                           int64_t memory_limit, rg_search_result *r, rg_eqsat_stats *es, rg_err *err) {
  rg_cost_iface iface = {"test", node_cost, NULL, NULL, NULL};
  rg_cost_model *cm = rg_cost_model_new(&iface, NULL);
  rg_eqsat_opts o = {.max_enodes = 100000000, .iterations = iterations, .multi_rounds = 1, .extract = how,
                     .cost = cm, .model_cost = model_cost, .check = true, .stop = &stop_flag,
                     .memory = {memory_limit, fake_resident}};
  rg_status st = rg_eqsat(m, set, &o, r, es, err);
  rg_cost_model_free(cm);
  return st;
}

/* Equality saturation stopped in exploration extracts what is there (not by the ILP); stopped
 * while it costs the e-nodes, it keeps the original. */
static void test_eqsat_stops(rg_model *m, const rg_apply_set *set) {
  static const struct {
    int64_t stop, memory;
    const char *why;
  } cases[] = {{-1, 12, "out of memory"}, {12, -1, "interrupted"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    reset(-1, cases[i].stop, cases[i].memory);
    rg_search_result r;
    rg_eqsat_stats es;
    rg_err err = {0};
    rg_status st = run_eqsat(m, set, RG_EXTRACT_ILP, 1000000, 1000, &r, &es, &err);
    CHECK_MSG(st == RG_OK, "eqsat case %zu: %s", i, err.msg);
    if (st) continue;
    check_kept(m, &r, cases[i].why, "eqsat");
    CHECK_MSG(es.stop_reason && !strcmp(es.stop_reason, cases[i].why) && es.iterations > 1 && !es.ilp_run,
              "case %zu: exploration stopped (%s) after %d iterations, ILP run %d", i, es.stop_reason, es.iterations,
              es.ilp_run);
    rg_search_result_free(&r);
  }
  reset(-1, 0, -1); /* Ctrl-C at the first cost extraction asks */
  rg_search_result r;
  rg_eqsat_stats es;
  rg_err err = {0};
  if (run_eqsat(m, set, RG_EXTRACT_GREEDY, 3, 0, &r, &es, &err) != RG_OK) {
    CHECK_MSG(false, "eqsat stopped while costing: %s", err.msg);
    return;
  }
  CHECK_MSG(r.cost_after == r.cost_before && r.n_steps == 0 && r.roots, "stopped while costing: %g -> %g, %d steps",
            r.cost_before, r.cost_after, r.n_steps);
  CHECK_MSG(r.stop_reason && !strcmp(r.stop_reason, "interrupted") && !strcmp(es.stop_reason, "iterations"),
            "stopped: %s (exploration: %s)", r.stop_reason ? r.stop_reason : "(none)", es.stop_reason);
  rg_search_result_free(&r);
}

int main(void) {
  rg_ruleset rules;
  rg_apply_set *set = apply_set_of(rules_text, &rules);
  rg_model *m = model();
  if (set) {
    test_queue(m, set);
    test_backtrack_stops(m, set);
    test_eqsat_stops(m, set);
  }
  rg_model_free(m);
  rg_apply_set_free(set);
  rg_ruleset_free(&rules);
  return check_done("test_optimizer_stop");
}
