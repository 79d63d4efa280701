/* optimizer/cost/cost_ort.c: the cost model measured in onnxruntime (--cost ort), the runtime the
 * models graphopt writes are run in: each distinct configuration is written as a model of its
 * own (ort_probe.c: the node as export writes it, weights as initializers) and timed in the
 * onnxruntime helper (ort_helper.h: one process for the cost model's life; CPU, 2 intra-op
 * threads, no spinning pool threads; 3 warm-up runs, then the median of at least 10 runs and
 * 20 ms, at most 200; the outputs written into tensors made once). A node's cost is that time
 * less the overhead of a run (the helper's call, the session's set-up of a run): what it adds
 * to a model, its dispatch included.
 *
 * onnxruntime computes a bias and an activation inside the Conv or Gemm below them (cost.h's
 * rg_cost_fuses); their cost is what they add there: the Conv with them timed, less the Conv
 * with one fewer (the fused hook), so that the model's sum is the fused node's time. A concat,
 * split, transpose or reshape is timed as the copy onnxruntime makes of it.
 *
 * The overheads: k relus over one float, for k = 1 and 33; a node's dispatch is the difference
 * over 32, a run's the one-relu model less one node's. Figures go to the cost cache (source
 * "ort") under a device key naming the CPU, the helper's onnxruntime and the threads, so a
 * second run times nothing. A configuration onnxruntime cannot run alone (export has no form
 * for it, or onnxruntime refuses or fails the model) gets the roofline's figure (fallback; its
 * row says "roofline", so it is not tried again); a helper that fails (crashes, hangs, answers
 * garbage) is said once on stderr and every configuration not yet priced gets the roofline's
 * figure. A cost model is not thread-safe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_cache.h"
#include "cost_internal.h"
#include "ort_helper.h"

#define CHAIN_LONG 33 /* relus in the chain whose time gives a node's dispatch */
#define MAX_CHAIN 4   /* fused nodes above a Conv or Gemm followed, at most */

typedef struct {
  rg_machine mc;
  rg_ort *ort;
  rg_cost_cache *cache; /* NULL: none */
  char device[400];
  rg_cost_stats stats;
  rg_cost_seen seen; /* "op\tconfig" -> us, or -1: not measurable */
  rg_strbuf key;
  double run_us, node_us; /* the overheads; run_us < 0 until known */
} ort_ctx;

static const rg_ort_repeats node_repeats = {3, 10, 200, 20}, chain_repeats = {5, 30, 400, 100};

/* ---- keys ---- */

/* base's configuration (cost.c's text), which operands are weights, and the fused nodes above
 * it: "1 1 same none 1 1 1 : 1x64x56x56 64x64x3x3 -> 1x64x56x56 | w 01 | bias 1 relu". */
static void probe_key(const rg_model *m, int32_t base, const int32_t *chain, int n, rg_strbuf *key) {
  rg_sb_clear(key);
  rg_sb_printf(key, "%s\t", rg_op_get((rg_op)rg_graph_node(m->g, base)->op)->name);
  rg_cost_config(m, base, key);
  unsigned mask = rg_ort_weight_mask(m, base);
  rg_sb_puts(key, " | w ");
  for (int k = 0; k < rg_graph_node(m->g, base)->n_in; k++) rg_sb_puts(key, mask >> k & 1 ? "1" : "0");
  for (int i = 0; i < n; i++) {
    const rg_node *nd = rg_graph_node(m->g, chain[i]);
    rg_sb_printf(key, "%s%s", i ? " " : " | ", rg_op_get((rg_op)nd->op)->name);
    if (nd->op == RG_OP_BIAS) rg_sb_printf(key, " %d", nd->params[0]);
  }
}

/* ---- timing ---- */

/* The helper failed: said once, and what is not yet priced gets the roofline's figure. */
static void helper_failed(const rg_err *e) {
  fprintf(stderr, "rulegen: warning: --cost ort: %s; the configurations not yet timed get the roofline's figure\n",
          e->msg);
}

/* Times model bytes in the helper: *us the median (0: not measurable, onnxruntime's why in
 * why), *runs how many. A helper that fails is no error here (helper_failed), memory is. */
static rg_status time_bytes(ort_ctx *c, const uint8_t *buf, size_t len, const rg_ort_repeats *r, double *us,
                            int64_t *runs, char *why, size_t n, rg_err *err) {
  rg_err e = {0};
  *us = 0, *runs = 0;
  if (!rg_ort_alive(c->ort)) return snprintf(why, n, "the helper failed"), RG_OK;
  rg_status st = rg_ort_time(c->ort, buf, len, r, us, runs, why, n, &e);
  if (st == RG_ERR_NOMEM) return rg_err_set(err, st, "%s", e.msg);
  if (st) helper_failed(&e), *us = 0;
  return RG_OK;
}

/* The overheads from the times of the one-relu and the long chain (0 where unknown). */
static void set_overheads(ort_ctx *c, double one, double many) {
  c->node_us = one > 0 && many > one ? (many - one) / (CHAIN_LONG - 1) : 0;
  c->run_us = one > c->node_us ? one - c->node_us : 0;
  c->stats.run_us = c->run_us, c->stats.node_us = c->node_us;
}

/* A cached figure of key (op "ort-overhead"), or one measured now and cached. */
static rg_status chain_time(ort_ctx *c, int k, double *us, rg_err *err) {
  char config[32], why[256];
  snprintf(config, sizeof config, "%d relus over 1 float", k);
  rg_cost_row row;
  int found = c->cache ? rg_cost_cache_get(c->cache, c->device, "ort-overhead", config, &row, err) : 0;
  if (found < 0) return found;
  if (found && !strcmp(row.source, "ort")) return c->stats.cached++, *us = row.us, RG_OK;
  uint8_t *buf;
  size_t len;
  rg_status st = rg_ort_relu_chain(k, &buf, &len, err);
  if (!st) st = time_bytes(c, buf, len, &chain_repeats, us, &row.repeats, why, sizeof why, err);
  free(buf);
  if (!st && *us > 0) {
    c->stats.measured++;
    row.us = *us, snprintf(row.source, sizeof row.source, "ort");
    if (c->cache) st = rg_cost_cache_put(c->cache, c->device, "ort-overhead", config, &row, err);
  }
  return st;
}

/* The overheads from the cache when it has them (for the report: read, not counted). */
static rg_status cached_overheads(ort_ctx *c, rg_err *err) {
  rg_cost_row one, many;
  int a = c->cache ? rg_cost_cache_get(c->cache, c->device, "ort-overhead", "1 relus over 1 float", &one, err) : 0;
  int b = a > 0 ? rg_cost_cache_get(c->cache, c->device, "ort-overhead", "33 relus over 1 float", &many, err) : 0;
  if (a < 0 || b < 0) return a < 0 ? a : b;
  if (a > 0 && b > 0 && !strcmp(one.source, "ort") && !strcmp(many.source, "ort")) set_overheads(c, one.us, many.us);
  return RG_OK;
}

/* The overheads of a run and of a node, known once (measured, or cached); 0 when the helper
 * cannot say. */
static rg_status overheads(ort_ctx *c, rg_err *err) {
  if (c->run_us >= 0) return RG_OK;
  double one, many;
  rg_status st = chain_time(c, 1, &one, err);
  if (!st) st = chain_time(c, CHAIN_LONG, &many, err);
  if (!st) set_overheads(c, one, many);
  return st;
}

/* The time of the probe of base and chain[0..n) less a run's overhead, from the cache or
 * measured now; *us < 0 when it cannot be measured (then a "roofline" row is kept for it). */
static rg_status measure(ort_ctx *c, const rg_model *m, int32_t base, const int32_t *chain, int n, const char *op,
                         const char *config, double *us, rg_err *err) {
  rg_cost_row row = {0, "roofline", 0};
  int found = c->cache ? rg_cost_cache_get(c->cache, c->device, op, config, &row, err) : 0;
  if (found < 0) return found;
  if (found && !strcmp(row.source, "ort")) return c->stats.cached++, *us = row.us, RG_OK;
  if (found) return c->stats.fallback++, c->stats.refused++, *us = -1, RG_OK; /* "roofline": onnxruntime could not run it */
  uint8_t *buf = NULL;
  size_t len = 0;
  char why[512] = "";
  rg_err e = {0};
  rg_status formed = rg_ort_probe(m, base, chain, n, &buf, &len, &e); /* no ONNX form: not measurable */
  if (formed == RG_ERR_NOMEM) return free(buf), rg_err_set(err, formed, "%s", e.msg);
  double t = 0;
  rg_status st = formed ? RG_OK : overheads(c, err);
  if (!st && !formed && rg_ort_alive(c->ort))
    st = time_bytes(c, buf, len, &node_repeats, &t, &row.repeats, why, sizeof why, err);
  free(buf);
  if (st) return st;
  bool refused = t <= 0 && rg_ort_alive(c->ort); /* export or onnxruntime said no: kept so */
  *us = t > 0 ? (t - c->run_us > 1e-3 ? t - c->run_us : 1e-3) : -1;
  if (t > 0) {
    c->stats.measured++;
    row.us = *us, snprintf(row.source, sizeof row.source, "ort");
  } else { /* the row holds the roofline's figure then, which is computed again each time */
    c->stats.fallback++, c->stats.refused += refused;
    row.us = rg_roofline_node_us(&c->mc, m, base), row.repeats = 0;
    row.us = row.us > 1e-3 ? row.us : 1e-3; /* a row's cost is positive (a machine file may say 0 overhead) */
  }
  return c->cache && (t > 0 || refused) ? rg_cost_cache_put(c->cache, c->device, op, config, &row, err) : RG_OK;
}

/* The probe's figure, memoized for this run by its key; *us < 0: not measurable. */
static rg_status probe_cost(ort_ctx *c, const rg_model *m, int32_t base, const int32_t *chain, int n, double *us,
                            rg_err *err) {
  probe_key(m, base, chain, n, &c->key);
  if (c->key.failed) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  const double *known = rg_cost_seen_find(&c->seen, c->key.s);
  if (known) return *us = *known, RG_OK;
  char *key = malloc(c->key.len + 1); /* measuring may price other keys */
  if (!key) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memcpy(key, c->key.s, c->key.len + 1);
  char *tab = strchr(key, '\t');
  *tab = 0;
  rg_status st = measure(c, m, base, chain, n, key, tab + 1, us, err);
  *tab = '\t';
  if (!st && !rg_cost_seen_add(&c->seen, key, *us)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  free(key);
  return st;
}

/* ---- the backend ---- */

static rg_status node_cost(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err) {
  ort_ctx *c = ctx;
  rg_status st = probe_cost(c, m, id, NULL, 0, us, err);
  if (!st && *us < 0) *us = rg_roofline_node_us(&c->mc, m, id);
  return st;
}

/* What fused node id adds: the probe of the Conv or Gemm below with the chain up to id, less
 * the one up to id's operand. 0 where either cannot be measured, or the difference is noise
 * below 0. */
static rg_status fused_cost(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err) {
  ort_ctx *c = ctx;
  int32_t chain[MAX_CHAIN], n = 0, base = id;
  while (n < MAX_CHAIN && rg_cost_fusable_op(rg_graph_node(m->g, base)->op))
    chain[n++] = base, base = rg_graph_node(m->g, base)->in[0].node;
  for (int i = 0; i < n / 2; i++) { /* base first */
    int32_t t = chain[i];
    chain[i] = chain[n - 1 - i], chain[n - 1 - i] = t;
  }
  *us = 0;
  int op = rg_graph_node(m->g, base)->op;
  if (op != RG_OP_CONV2D && op != RG_OP_MATMUL) return RG_OK;
  double with, without;
  rg_status st = probe_cost(c, m, base, chain, n, &with, err);
  if (!st) st = probe_cost(c, m, base, chain, n - 1, &without, err);
  if (!st && with > 0 && without > 0 && with > without) *us = with - without;
  return st;
}

static void stats(void *ctx, rg_cost_stats *s) {
  const ort_ctx *c = ctx;
  *s = c->stats, s->device = c->device;
}

static void ctx_free(void *ctx) {
  ort_ctx *c = ctx;
  if (c) rg_cost_cache_close(c->cache), rg_ort_free(c->ort), rg_cost_seen_free(&c->seen), rg_sb_free(&c->key);
  free(c);
}

rg_status rg_cost_ort_open(const rg_cost_opts *o, rg_cost_model **out, rg_err *err) {
  ort_ctx *c = calloc(1, sizeof *c);
  if (!c) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_sb_init(&c->key);
  c->run_us = -1;
  rg_status st = rg_machine_read(o->machine_file ? o->machine_file : rg_machine_default_path(), &c->mc, err);
  if (!st) st = rg_ort_start(&c->ort, err);
  if (!st && o->cache_path && o->cache_path[0]) st = rg_cost_cache_open(o->cache_path, &c->cache, err);
  if (!st) {
    char cpu[200];
    rg_cpu_model(cpu, sizeof cpu);
    snprintf(c->device, sizeof c->device, "%s; %s; %d intra-op threads, not spinning", cpu, rg_ort_version(c->ort),
             rg_ort_threads(c->ort));
    st = cached_overheads(c, err);
  }
  static const rg_cost_iface iface = {"ort", node_cost, stats, ctx_free, fused_cost};
  if (!st && !(*out = rg_cost_model_new(&iface, c))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (st) ctx_free(c);
  return st;
}

rg_ort *rg_cost_model_ort(rg_cost_model *cm) {
  return strcmp(rg_cost_model_name(cm), "ort") ? NULL : ((ort_ctx *)rg_cost_model_ctx(cm))->ort;
}
