/* fingerprint/table.h: a table of records filled under a memory cap, whatever feeds it (the
 * enumeration, or records read back from a spill folder).
 *
 * The table keeps the records whose fingerprint lies in [t->lo, hi]; when it is full, hi halves
 * (the records above it are dropped, and a later fill covers them), so the table always holds
 * every record of its range [t->lo, hi] that was added. Finishing sorts it by (fingerprint,
 * code), the one order for any number of threads or any order of adding.
 */
#ifndef RG_FINGERPRINT_TABLE_H
#define RG_FINGERPRINT_TABLE_H

#include "collect.h"

struct rg_fp_store {
  rg_fp_table *t;
  size_t cap_records;
  volatile uint64_t hi; /* the current upper end of the range; only shrinks */
};

/* Starts an empty table t for [lo, hi] holding at most cap_records records. */
void rg_fp_store_init(rg_fp_store *s, rg_fp_table *t, size_t cap_records, uint64_t lo, uint64_t hi);

/* Adds the records of b in [t->lo, hi] (callers that add from several threads hold a lock).
 * Errors: RG_ERR_LIMIT when more than cap_records records share one fingerprint (the range
 * cannot shrink further), RG_ERR_NOMEM. */
rg_status rg_fp_store_add(rg_fp_store *s, const rg_fp_record *b, size_t n, rg_err *err) RG_MUST_CHECK;

/* Drops records above the final hi, sets t->hi and sorts t with threads threads. */
void rg_fp_store_finish(rg_fp_store *s, int threads);

#endif
