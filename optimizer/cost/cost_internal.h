/* optimizer/cost/cost_internal.h: what the cost models share inside optimizer/: the roofline's
 * machine figures and per-node FLOPs and bytes, the canonical text of a node's configuration
 * (the cache's key), and the built-in backends' constructors. */
#ifndef RG_OPTIMIZER_COST_INTERNAL_H
#define RG_OPTIMIZER_COST_INTERNAL_H

#include "cost.h"
#include "ir/datapath.h"

/* The median of v[0..n) (n >= 1), which it sorts: the figure every measuring model keeps. */
double rg_cost_median(double *v, int n);

/* A machine as the roofline sees it (cost_machine.c reads it from a file). */
typedef struct {
  double peak_gflops; /* attainable float32 GFLOP/s, all cores */
  double mem_gbps;    /* memory bandwidth, GB/s */
  double overhead_us; /* fixed cost of running one node */
  double matmul_us;   /* more of it for a matmul (0 when the file leaves it out) */
  double views;       /* 1: the runtime reads split (and slice, how export writes a split's
                       * part), reshape and transpose as views of their operand, which cost
                       * nothing (TASO's GPU runtime); 0 (the default): it
                       * writes a new tensor for each, as onnxruntime does */
} rg_machine;

/* The file machine names: a bare name (no '/', no '.') is one of the machine files shipped in
 * the data folder's machines/ ("gpu-h100"), found as the default is (ir/datapath.h; RG_ERR_IO
 * naming the places tried when none is there); anything else is a path, taken as it is. *path
 * points into f or is machine. */
rg_status rg_machine_path(const char *machine, rg_data_file *f, const char **path,
                          rg_err *err) RG_MUST_CHECK;

/* Reads "key value" lines (# comments, blank lines) naming every field of rg_machine once from
 * the file machine names (rg_machine_path). RG_ERR_IO when the file cannot be read; RG_ERR_PARSE naming file and line for an unknown or
 * repeated key, a value that is not a finite number in range, or a missing key. */
rg_status rg_machine_read(const char *path, rg_machine *mc, rg_err *err) RG_MUST_CHECK;

/* Floating-point operations of node id of m, and the bytes it moves (its float32 operands read
 * and results written). */
void rg_roofline_figures(const rg_model *m, int32_t id, double *flops, double *bytes);
/* max(flops / peak, bytes / bandwidth) + overhead, in microseconds. */
double rg_roofline_us(const rg_machine *mc, double flops, double bytes);
/* Node id's roofline cost on mc: rg_roofline_us of its figures, or 0 for a view (mc->views). */
double rg_roofline_node_us(const rg_machine *mc, const rg_model *m, int32_t id);
/* A measuring model's start on node id's configuration: *row the roofline's figure (source
 * "roofline"), *had the cache's row for it (cache may be NULL); rg_cost_cache_get's answer. */
int rg_roofline_row_and_cached(const rg_machine *mc, rg_cost_cache *cache, const char *device, const rg_model *m,
                               int32_t id, const char *op, const char *config, rg_cost_row *row, rg_cost_row *had,
                               rg_err *err);

/* Node id's configuration as text: its operator's parameters and its operands' and results'
 * dims, "1 1 same relu 1 1 1 : 1x64x56x56 64x64x3x3 -> 1x64x56x56" (seams left out: they do not
 * change the work). Two nodes cost the same when their operator and this text agree. */
void rg_cost_config(const rg_model *m, int32_t id, rg_strbuf *sb);

/* The configurations a measuring model has priced in this run (cost_seen.c): "op\tconfig" ->
 * cost. Zeroed is empty. find: NULL when not seen; add: false when out of memory. */
typedef struct {
  char **key;
  double *us;
  size_t n, cap;
} rg_cost_seen;
double *rg_cost_seen_find(rg_cost_seen *t, const char *key);
bool rg_cost_seen_add(rg_cost_seen *t, const char *key, double us);
void rg_cost_seen_free(rg_cost_seen *t);

/* A measuring model's cost of one configuration (its cache, else a timing): op is the node's
 * operator's name, config rg_cost_config's text. */
typedef rg_status (*rg_cost_measure)(void *ctx, const rg_model *m, int32_t id, const char *op, const char *config,
                                     double *us, rg_err *err);
/* Node id's cost for a measuring model: the figure of its configuration when seen already priced
 * it in this run, else measure's, then remembered; config is scratch. */
rg_status rg_cost_seen_node(rg_cost_seen *seen, rg_strbuf *config, const rg_model *m, int32_t id,
                            rg_cost_measure measure, void *ctx, double *us, rg_err *err) RG_MUST_CHECK;

/* The backend's context of cm (rg_cost_model_new's ctx). */
void *rg_cost_model_ctx(const rg_cost_model *cm);

/* The built-in backends' open functions: rows of the table in cost_backends.c. */
rg_status rg_cost_roofline_open(const rg_cost_opts *o, rg_cost_model **out,
                                rg_err *err) RG_MUST_CHECK;
rg_status rg_cost_dnnl_open(const rg_cost_opts *o, rg_cost_model **out, rg_err *err) RG_MUST_CHECK;
rg_status rg_cost_cuda_open(const rg_cost_opts *o, rg_cost_model **out, rg_err *err) RG_MUST_CHECK;
rg_status rg_cost_ort_open(const rg_cost_opts *o, rg_cost_model **out, rg_err *err) RG_MUST_CHECK;

/* The machine file used when rg_cost_opts names none. */
const char *rg_machine_default_path(void);
/* The CPU's model name (/proc/cpuinfo's), "unknown CPU" when there is none: part of a measuring
 * model's device key. */
void rg_cpu_model(char *buf, size_t n);

/* ---- onnxruntime's probes (ort_probe.c) ---- */

/* Which operands of node id of m are weights (bit k: every leaf under in[k] a weight, as export
 * folds it into an initializer). */
unsigned rg_ort_weight_mask(const rg_model *m, int32_t id);
/* Node base of m and the nodes fused above it (chain[0..n_chain): each reads the one before as
 * its first operand, base first), as a model of its own in ONNX bytes (*buf: free it): base's
 * weight operands and every other operand of the chain's initializers of small numbers, its
 * other operands inputs, the last node's outputs the outputs. Errors: export's (an operator or
 * configuration export has no ONNX form for), RG_ERR_NOMEM. */
rg_status rg_ort_probe(const rg_model *m, int32_t base, const int32_t *chain, int n_chain, uint8_t **buf, size_t *len,
                       rg_err *err) RG_MUST_CHECK;
/* k relus, one after another, over one float: the overheads of a run and of a node. */
rg_status rg_ort_relu_chain(int k, uint8_t **buf, size_t *len, rg_err *err) RG_MUST_CHECK;

#endif
