/* rulesdb/audit_internal.h: what audit.c shares with audit_prune.c (private to rulesdb/): the
 * failure lines an audit reports, at most max per category, and the pruning checks. */
#ifndef RG_RULESDB_AUDIT_INTERNAL_H
#define RG_RULESDB_AUDIT_INTERNAL_H

#include "audit.h"

typedef struct {
  rg_audit_result *res;
  rg_strbuf *report;
  size_t max; /* failure lines per category */
} rg_audit_tally;

/* Counts a failure of category c, and reports it (fmt, a line) while the category has had
 * fewer than t->max. */
void rg_audit_fail(rg_audit_tally *t, int c, const char *fmt, ...) RG_PRINTF(3, 4);

/* Pruning records: each removed rule's text must carry its id, and name implying rules that the
 * database holds (kept, or pruned in turn). idx: rg_db_rule_index of db. */
void rg_audit_prune_refs(const rg_db *db, const size_t *idx, rg_audit_tally *t);
/* The removal records prune/ wrote (configuration prune.records) replayed by prune/'s auditor
 * against the rules db keeps; not re-checked when there are none. */
void rg_audit_derivations(const rg_db *db, rg_audit_tally *t);

#endif
