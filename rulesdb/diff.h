/* rulesdb/diff.h: comparing a baseline database with a new one, for CI.
 *
 * Rules are matched by content id, so a rule whose text changed is one removed and one added.
 * A rule present in both is "changed" when its status or its evidence (proof, test or
 * certificate records) differs. A regression is a rule that was verified or certified in the
 * baseline and is, in the new database, either of lower status, or gone without a pruning
 * record in the new database that accounts for it.
 */
#ifndef RG_RULESDB_DIFF_H
#define RG_RULESDB_DIFF_H

#include "ir/strbuf.h"
#include "records.h"

typedef enum { RG_DIFF_ADDED, RG_DIFF_REMOVED, RG_DIFF_CHANGED } rg_diff_kind;

typedef struct {
  rg_diff_kind kind;
  const rg_db_rule *base, *new_; /* NULL for the side where it is absent; point into the dbs */
  int status_changed;            /* CHANGED: the status differs (else only evidence) */
  int pruned;                    /* REMOVED: the new database records it as pruned */
  int regression;
} rg_diff_entry;

typedef struct {
  rg_diff_entry *v;
  size_t n;
  size_t added, removed, changed, regressions;
} rg_db_diff;

/* Computes the differences, sorted by kind then id. The entries point into base and new_,
 * which must outlive the result. Free with rg_db_diff_free. */
rg_status rg_db_diff_compute(const rg_db *base, const rg_db *new_, rg_db_diff *out,
                             rg_err *err) RG_MUST_CHECK;
void rg_db_diff_free(rg_db_diff *d);

/* Human listing ("+ id status text", "- ...", "~ id old -> new", "REGRESSION" marks) and
 * a summary line; or one JSON object with arrays added/removed/changed and the counts. */
void rg_db_diff_print(const rg_db_diff *d, rg_strbuf *out);
void rg_db_diff_print_json(const rg_db_diff *d, rg_strbuf *out);


#endif
