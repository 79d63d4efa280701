/* fingerprint/collect.h: fingerprinting every enumerated graph into records, handed to a sink:
 * a table in bounded memory (table.h), or a spill folder on disk (spill.h); the buckets of
 * equal fingerprints.
 *
 * A record is a 64-bit fingerprint and the 16-byte graph code: 24 bytes per graph. A pass keeps
 * only the records whose fingerprint lies in a range [lo, hi]; when the records would exceed the
 * memory budget, the pass halves its range on the fly (dropping the upper half, which a later
 * pass covers), so a run needs as many passes (full re-enumerations) as the records need budgets.
 * Unless keep_redundant is set, a graph whose newest tensor equals (same type, same
 * fingerprint) an input or an earlier tensor of the graph is recorded but not extended: every
 * extension computes something a smaller graph computes (TASO prunes these too).
 * Records of a pass are sorted by (fingerprint, code): the order is the same for any number of
 * threads.
 */
#ifndef RG_FINGERPRINT_COLLECT_H
#define RG_FINGERPRINT_COLLECT_H

#include "enumerate/enumerate.h"

typedef struct {
  uint64_t fp;
  rg_enum_code code;
} rg_fp_record;

typedef struct {
  rg_fp_record *r; /* owned, sorted */
  size_t n, cap;
  uint64_t lo, hi; /* the fingerprint range this table covers completely, inclusive */
} rg_fp_table;

#define RG_FP_MIN_MEM (24u << 20) /* smallest usable --mem-limit */
#define RG_FP_RESERVE (16u << 20) /* memory kept for everything but the records */

typedef struct {
  int threads;
  uint64_t seed;        /* inputs and keyed functions of the fingerprints */
  size_t mem_limit;     /* bytes for the whole run, >= RG_FP_MIN_MEM */
  size_t max_records;   /* when non-zero, a tighter cap on records held (tests use it) */
  int max_outputs;      /* most outputs of a recorded graph, 1..RG_RULE_MAX_OUTPUTS */
  bool keep_redundant;  /* also extend graphs whose newest tensor equals an older one, and
                           swapped commutative operands (see enumerate/dfs.h) */
  bool interp_only;     /* evaluate with the interpreter only (tests compare the kernels) */
  const volatile sig_atomic_t *stop;
  void (*progress)(void *user, const rg_enum_progress *p);
  void *progress_user;
} rg_fp_opts;

/* Where the enumeration's records go (rg_fp_enumerate): a table in memory (rg_fp_collect) or
 * a spill folder on disk (spill.h). */
typedef struct {
  /* A batch of thread `thread`'s records (fingerprints >= lo, and <= *hi when hi is set). */
  rg_status (*records)(void *user, int thread, const rg_fp_record *r, int n, rg_err *err);
  /* Thread `thread` finished work unit `unit`, all its records handed over (NULL: not told). */
  rg_status (*unit_done)(void *user, int thread, int unit, const rg_enum_stats *delta, rg_err *err);
  void *user;
  uint64_t lo;
  const volatile uint64_t *hi; /* records above *hi are not handed over (it may shrink), or NULL */
  const uint8_t *skip;         /* units an earlier run did (enumerate/dfs.h), or NULL */
  int n_skip;
  bool count_only;             /* only count the units (stats->units), hand over nothing */
} rg_fp_sink;

/* Enumerates every graph of sp under o (threads, seed, max_outputs, keep_redundant, stop,
 * progress) and hands each graph's record to sink; the input graphs' records are not included
 * (rg_fp_store_start adds them). An interrupted run returns RG_OK with stats->interrupted set. Errors:
 * the sink's, RG_ERR_NOMEM. */
rg_status rg_fp_enumerate(const rg_enum_space *sp, const rg_fp_opts *o, const rg_fp_sink *sink, rg_enum_stats *stats,
                          rg_err *err) RG_MUST_CHECK;

/* Starts table t for [lo, hi] under o's record cap (table.h's store) with the records of the
 * input graphs in it (each input alone is a graph whose output is that input), as every table
 * of a run holds them. Errors: a cap below 2 records (RG_ERR_LIMIT), rg_fp_store_add's. */
typedef struct rg_fp_store rg_fp_store;
rg_status rg_fp_store_start(rg_fp_store *s, rg_fp_table *t, const rg_enum_space *sp, const rg_fp_opts *o, uint64_t lo,
                            uint64_t hi, rg_err *err) RG_MUST_CHECK;

/* Records held per pass under o (mem_limit and max_records). */
size_t rg_fp_record_cap(const rg_fp_opts *o);

/* One pass: enumerates every graph of sp (and the input graphs), keeps the records with
 * fingerprint in [lo, hi], narrowing hi when they do not fit; on success t holds them sorted
 * and t->lo, t->hi the covered range. Errors: RG_ERR_LIMIT when even a range of one fingerprint
 * does not fit (memory limit too small to make progress), RG_ERR_NOMEM. An interrupted pass
 * returns RG_OK with stats->interrupted set and t incomplete. Free t with rg_fp_table_free. */
rg_status rg_fp_collect(const rg_enum_space *sp, const rg_fp_opts *o, uint64_t lo, uint64_t hi,
                        rg_fp_table *t, rg_enum_stats *stats, rg_err *err) RG_MUST_CHECK;
void rg_fp_table_free(rg_fp_table *t);

/* Iterates buckets: from *pos, finds the next run of >= 2 records with equal fingerprints,
 * sets *start and *len and advances *pos; returns false at the end. *singles (if non-NULL) is
 * increased by the records skipped because they are alone with their fingerprint. */
bool rg_fp_table_next_bucket(const rg_fp_table *t, size_t *pos, size_t *start, size_t *len,
                             uint64_t *singles);

#endif
