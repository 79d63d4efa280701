/* optimizer/cost/cost.h: cost models: what one node of a model graph costs at its concrete shapes,
 * in microseconds, and what a whole set of values costs. The search compares rewritten graphs
 * by these figures.
 *
 * A cost model is a small vtable (rg_cost_iface: a name, the cost of one node and, for ort,
 * what a fused bias or activation adds) behind one handle, as ggml's backends are. The built-in ones are rows of one table (cost_backends.c,
 * rg_cost_backend_get), opened by name with rg_cost_model_open:
 *   roofline  max(FLOPs / peak, bytes moved / memory bandwidth) + a per-node overhead (more for
 *             a product), machine
 *             figures from a data file (optimizer/cost/machines/);
 *   dnnl      each operator configuration timed once with oneDNN primitives on the CPU (median
 *             of repeats), remembered in an SQLite cache (cost_cache.h) so a second run times
 *             nothing; operators oneDNN has no primitive for get the roofline figure.
 *   cuda      the same on the GPU (cost_cuda.c, optimizer/cuda/: cuDNN, cuBLAS and kernels of
 *             ours, CUDA-event timings), cache rows of source "cuda" under the GPU's device key;
 *             opening it with no device, or in a build without CUDA, is RG_ERR_ARG.
 *   ort       each configuration timed in onnxruntime (CPU) as the model graphopt writes runs
 *             it (cost_ort.c: the node with the bias and activation onnxruntime fuses into it,
 *             written by onnx/'s exporter, weights as initializers), in one helper process
 *             (ort_helper.h), less a run's overhead; cache rows of source "ort".
 *
 * Costs are memoized by node id: a node of the hash-consed graph never changes its operator,
 * parameters or operands, and the graph only grows, so a node's cost is asked for once. The memo
 * also checks each entry against the node's configuration (operator, parameters, shapes), so
 * one cost model may serve several models in turn. A cost model is not thread-safe.
 *
 * The room optimizer/cost/ (above model/, cuda/ and onnx/: ort writes what it times with onnx/'s
 * exporter; it runs the helper through verify/child.h):
 * cost.c           the handle: a backend opened by name, the per-node memo, sums
 * cost_backends.c  the table of built-in cost models;  cost_choose.c  a model as a command chose it
 * cost_roofline.c  the analytic model;  cost_machine.c  its machine files (machines/), the CPU's name
 * cost_dnnl.c      oneDNN on the CPU;  cost_cuda.c  the GPU (cuda/)
 * cost_ort.c       onnxruntime;  ort_probe.c  the models it times (a node, its fused epilogue)
 * ort_helper.h/.c  the onnxruntime helper process (verify/child.h's long-lived child): one
 *                  model timed, or two compared in rounds of interleaved pairs (graphopt's guard)
 * cost_cache.h/.c  the SQLite cache of measured costs;  cost_seen.c  configurations priced this run
 * gpu_op.h/.c      a vocabulary node as the GPU module describes it (cuda/cuda.h's rg_gpu_op)
 * cost_internal.h  what the backends share, private here
 */
#ifndef RG_OPTIMIZER_COST_H
#define RG_OPTIMIZER_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "optimizer/model/model.h"

#include "cost_cache.h"
#include "gpu_op.h"
#include "ort_helper.h"

typedef struct {
  /* The roofline's machine figures (the roofline uses them for everything, the measuring
   * models for what they do not time). NULL: the default file of this source tree. */
  const char *machine_file;
  /* dnnl, cuda, ort: the SQLite file of measured costs (created when missing; rg_cost_cache_default_path
   * gives the per-user one). NULL or "": no cache, every configuration is timed. */
  const char *cache_path;
} rg_cost_opts;

/* What a cost model did: a measuring model's counts are of distinct operator configurations
 * (ort's also of the fused chains and the overheads' models it timed), the roofline's of nodes
 * the memo did not answer. */
typedef struct {
  int64_t measured;   /* timed now (dnnl, cuda, ort) */
  int64_t cached;     /* read from the cache (dnnl, cuda, ort) */
  int64_t fallback;   /* given the roofline figure by a model that measures (no primitive, no
                         ONNX form, refused by onnxruntime, its helper failed) */
  int64_t refused;    /* ort: of those, the ones onnxruntime refused or failed (now or, by the
                         cache, before): said apart, since the search then prices them by
                         another model's figures */
  int64_t computed;   /* figured analytically (roofline) */
  const char *device; /* what the figures hold for: dnnl's device key, the roofline's machine
                         file (valid while the model is open); NULL when not known */
  double run_us, node_us; /* ort: a run's overhead (left out of every cost) and a node's
                             dispatch (in its cost), once known; else 0 */
} rg_cost_stats;

/* A backend: name, and the cost of node id of m (m->g's node, its operands' and results' shapes
 * from rg_model_shape) in microseconds, finite and >= 0. Not memoized: rg_cost_node does that.
 * fused (may be NULL: 0) is what a bias or activation node id adds when it is computed inside
 * the Conv or Gemm below it (rg_cost_fuses: its operand's node, and each fused node between),
 * for a backend that measures the fused node as the runtime runs it (ort). */
typedef struct {
  const char *name;
  rg_status (*node)(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err);
  void (*stats)(void *ctx, rg_cost_stats *s); /* may be NULL */
  void (*free)(void *ctx);                    /* may be NULL */
  rg_status (*fused)(void *ctx, const rg_model *m, int32_t id, double *us, rg_err *err);
} rg_cost_iface;

typedef struct rg_cost_model rg_cost_model;

/* A built-in cost model: its name (graphopt --cost NAME), one line saying what it is, and how
 * to open it (o never NULL). The table (cost_backends.c) lists them in the order help shows. */
typedef struct {
  const char *name;
  const char *description;
  bool cached; /* keeps its figures in the cost cache (rg_cost_opts.cache_path) */
  rg_status (*open)(const rg_cost_opts *o, rg_cost_model **out, rg_err *err);
} rg_cost_backend;

/* The built-in cost models: rg_cost_backend_get(0 .. rg_cost_backend_count() - 1); NULL out of
 * range. The first is the default. */
int rg_cost_backend_count(void);
const rg_cost_backend *rg_cost_backend_get(int i);
/* The row called name, or NULL. */
const rg_cost_backend *rg_cost_backend_find(const char *name);
/* "roofline, dnnl": the names in table order, for messages. */
void rg_cost_backend_names(rg_strbuf *sb);

/* Opens the built-in cost model called name (one of the table's; RG_ERR_ARG naming the
 * choices for another). o may be NULL (the defaults). A bad machine file is RG_ERR_PARSE naming
 * file and line; an unreadable one RG_ERR_IO. A cache that is not one (not SQLite, another
 * schema, a cost that is not a finite positive number) is moved aside to PATH.corrupt with a
 * warning on stderr and started afresh. */
rg_status rg_cost_model_open(const char *name, const rg_cost_opts *o, rg_cost_model **out,
                             rg_err *err) RG_MUST_CHECK;
/* A cost model over a caller's backend (ctx is passed to its functions and freed by its free);
 * NULL when out of memory. */
rg_cost_model *rg_cost_model_new(const rg_cost_iface *iface, void *ctx);
void rg_cost_model_free(rg_cost_model *cm);
const char *rg_cost_model_name(const rg_cost_model *cm);
void rg_cost_model_stats(const rg_cost_model *cm, rg_cost_stats *s);

/* Whether a node of operator op may be computed inside the node before it: a bias or an
 * activation. */
bool rg_cost_fusable_op(int op);

/* Whether node nd, reading operand (computed by pn, which nothing else reads), is computed inside
 * pn and costs nothing of its own: a bias on the channel axis of a Conv, or on the columns of a
 * 2-D product (export writes them as one Conv or Gemm), and an activation after a Conv or Gemm
 * or after a bias so fused (pn_fused; onnxruntime fuses them). rg_cost_sum's rule, and
 * extraction's. */
bool rg_cost_fuses(const rg_model *m, const rg_node *nd, rg_ref operand, const rg_node *pn, bool pn_fused);

/* The cost of node id of m (an input node costs 0), memoized by id. */
rg_status rg_cost_node(rg_cost_model *cm, const rg_model *m, int32_t id, double *us,
                       rg_err *err) RG_MUST_CHECK;
/* What bias or activation node id adds computed inside the node below it (the backend's fused:
 * 0 for the roofline, dnnl and cuda), memoized by id. */
rg_status rg_cost_fused_node(rg_cost_model *cm, const rg_model *m, int32_t id, double *us,
                             rg_err *err) RG_MUST_CHECK;

/* *total: the cost of the rule-vocabulary nodes reachable from roots[0..n_roots), each node
 * counted once. Variables (inputs, weights, opaque nodes' outputs) cost 0, fused biases and
 * activations what they add to the node below (rg_cost_fused_node: 0 but for ort), and
 * weight-only nodes (every leaf under them a weight, or none:
 * Iconv and the like), which export folds into initializers. Opaque nodes are not nodes of m->g and are not counted: every graph the search
 * compares holds the same ones. The caller passes what must be computed: the model's outputs and
 * every opaque node's operands. */
rg_status rg_cost_values(rg_cost_model *cm, const rg_model *m, const rg_ref *roots, int n_roots,
                         double *total, rg_err *err) RG_MUST_CHECK;

/* The same by operator: the total, and for each operator the nodes counted and their cost;
 * folded: the weight-only nodes (cost 0); fused: the biases and activations computed inside the
 * Conv or Gemm before them (export writes a bias into its Conv or Gemm, onnxruntime fuses an
 * activation into it), where that operator has no other reader, and fused_us what they add
 * (rg_cost_fused_node; in total, not in us[]). */
typedef struct {
  double total;
  double us[RG_OP_COUNT];
  int32_t count[RG_OP_COUNT];
  int32_t folded, fused;
  double fused_us;
} rg_cost_sum;
rg_status rg_cost_sum_values(rg_cost_model *cm, const rg_model *m, const rg_ref *roots, int n_roots,
                             rg_cost_sum *s, rg_err *err) RG_MUST_CHECK;

/* The per-user cache file: $XDG_CACHE_HOME/rulegen/costs.sqlite, or ~/.cache/rulegen/
 * costs.sqlite. RG_ERR_ARG when neither XDG_CACHE_HOME nor HOME is set; RG_ERR_LIMIT when it
 * does not fit in n bytes. */
rg_status rg_cost_cache_default_path(char *buf, size_t n, rg_err *err) RG_MUST_CHECK;
/* The cache path cost model name uses, as a command line chooses it, into buf: "" with no_cache;
 * else given when not NULL; else the default path for a model that keeps a cache ("" for one
 * that does not, or a name that is no model's). Errors as rg_cost_cache_default_path. */
rg_status rg_cost_cache_choose(const char *name, const char *given, bool no_cache, char *buf, size_t n,
                               rg_err *err) RG_MUST_CHECK;
/* Cost model name opened with the roofline's machine file machine (NULL: the default) and the
 * cache rg_cost_cache_choose picks from cache and no_cache (its path into buf, which must
 * outlive the model); *out NULL on error. Errors: theirs. */
rg_status rg_cost_model_choose(const char *name, const char *machine, const char *cache, bool no_cache, char *buf,
                               size_t n, rg_cost_model **out, rg_err *err) RG_MUST_CHECK;

/* Whether --machine's value (NULL: not given) names the default machine, cpu-default: by its
 * name, or as the file it is (the roofline's figures of this CPU). */
bool rg_cost_machine_is_default(const char *machine);

/* The onnxruntime helper of an ort cost model (NULL for another), which graphopt's guard times
 * whole models in; it lives as long as cm. */
rg_ort *rg_cost_model_ort(rg_cost_model *cm);

/* What cost model cm figures for all of m (its outputs and every opaque node's operands). */
rg_status rg_cost_sum_model(rg_cost_model *cm, const rg_model *m, rg_cost_sum *s, rg_err *err) RG_MUST_CHECK;

#endif
