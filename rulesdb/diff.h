/* rulesdb/diff.h: comparing a baseline database with a new one, for CI.
 *
 * Rules are matched by content id, so a rule whose text changed is one removed and one added.
 * A rule present in both is "changed" when its status or its evidence (proof, test or
 * certificate records; a proof's seconds aside, which differ on every run) differs. What
 * counts as a regression is the mode's (rg_diff_mode); a rule "gone" is in base's rules and
 * not in new_'s, and a pruning record accounts for it when it names the rule's id as removed
 * (implied by kept rules: renaming, instance, derivable...) and names implying rules that each
 * stand: kept in new_ (proved, when the rule was proved in base), or removed by a record that
 * stands in turn. A record naming no rule, a rule new_ does not hold, or itself through a cycle
 * of records accounts for nothing.
 */
#ifndef RG_RULESDB_DIFF_H
#define RG_RULESDB_DIFF_H

#include "ir/strbuf.h"
#include "records.h"

typedef enum { RG_DIFF_ADDED, RG_DIFF_REMOVED, RG_DIFF_CHANGED } rg_diff_kind;

/* The regressions each mode counts:
 * PROVED  (rulesdb diff) a rule verified or certified in base that new_ has at a status below
 *         both, or that is gone without a pruning record in new_;
 * LOST    (--lost: a regenerated set against its signed reference) any rule of base, whatever
 *         its status, that is gone without a pruning record in new_ (a lost rule), or that new_
 *         has at a lower status (verified > certified > tested > unproved > imported: a lost
 *         proof);
 * SHIPPED (--lost-text: new_ is rule text imported, all "imported", no pruning records) a rule
 *         base ships, verified and named by no pruning record of base, that is gone from new_;
 *         statuses are not compared (text carries none). */
typedef enum { RG_DIFF_PROVED, RG_DIFF_LOST, RG_DIFF_SHIPPED } rg_diff_mode;

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
  size_t lost_rules, lost_proofs; /* the regressions that are gone / at a lower status */
  size_t base_rules;
  rg_diff_mode mode;
} rg_db_diff;

/* Computes the differences, sorted by kind then id. The entries point into base and new_,
 * which must outlive the result. Free with rg_db_diff_free. */
rg_status rg_db_diff_compute(const rg_db *base, const rg_db *new_, rg_diff_mode mode,
                             rg_db_diff *out, rg_err *err) RG_MUST_CHECK;
void rg_db_diff_free(rg_db_diff *d);

/* Human listing ("+ id status text", "- ...", "~ id old -> new", "REGRESSION" marks) and
 * a summary line; in the LOST and SHIPPED modes only the regressions, each with its whole id
 * ("LOST rule ID status text", "LOST proof ID old -> new text"), and what was lost of how many.
 * Or one JSON object: mode, arrays added/removed/changed (regression: what the mode counts)
 * and the counts. */
void rg_db_diff_print(const rg_db_diff *d, rg_strbuf *out);
void rg_db_diff_print_json(const rg_db_diff *d, rg_strbuf *out);

#endif
