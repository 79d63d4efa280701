/* optimizer/cost/cost_cache.h: the SQLite cache of measured costs: one row per (device, operator,
 * configuration) with its cost in microseconds, where the figure came from ("dnnl", "cuda", "ort":
 * timed by oneDNN, on the GPU, in onnxruntime; "roofline": nothing to time or the runtime refused it, the analytic figure)
 * and how many timed runs it is the median of. A cache with "ort" rows is one that programs
 * before --cost ort take for another's (they move it aside). The device is the text the backend makes of what its timings depend on (CPU model,
 * instruction set, threads, library version); the configuration is rg_cost_config's text.
 *
 * The file is checked on opening (SQLite's magic, application id, schema version, quick_check,
 * the exact schema, every cost a finite positive number); one that fails is never read: it is
 * moved aside to PATH.corrupt (and its -wal beside it) with a warning on stderr and an empty
 * cache takes its place. Writes are transactions; the journal is a write-ahead log, so other
 * processes may read while one writes.
 */
#ifndef RG_OPTIMIZER_COST_CACHE_H
#define RG_OPTIMIZER_COST_CACHE_H

#include <stdint.h>

#include "ir/status.h"

typedef struct rg_cost_cache rg_cost_cache;

typedef struct {
  double us;       /* finite, > 0 */
  char source[16]; /* "dnnl", "cuda", "ort" or "roofline" */
  int64_t repeats; /* timed runs the figure is the median of; 0 for "roofline" */
} rg_cost_row;

/* Opens (creating it, and its folder, when missing) the cache at path. RG_ERR_IO naming the
 * path when it cannot be opened or created; a corrupt file is replaced as above, not an error. */
rg_status rg_cost_cache_open(const char *path, rg_cost_cache **out, rg_err *err) RG_MUST_CHECK;
void rg_cost_cache_close(rg_cost_cache *c);

/* The row for (device, op, config): 1 and *row when there is one, 0 when there is none (a row
 * that is not valid counts as none, with a warning: it will be measured and written again), or
 * a negative status. */
int rg_cost_cache_get(rg_cost_cache *c, const char *device, const char *op, const char *config,
                      rg_cost_row *row, rg_err *err);
/* Writes (or replaces) the row, in a transaction. */
rg_status rg_cost_cache_put(rg_cost_cache *c, const char *device, const char *op,
                            const char *config, const rg_cost_row *row, rg_err *err) RG_MUST_CHECK;

#endif
