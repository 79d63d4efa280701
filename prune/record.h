/* prune/record.h: removal records, and their audit.
 *
 * Text, one block per removed rule, in the order the rules were removed:
 *
 *   removed ID REASON by ID[,ID...] [steps N]    ('by -': no rule, for sides already equal)
 *     rule: RULE TEXT                 the removed rule as it was given (name kept)
 *     step OUTPUT ID fwd|rev: TERM    for REASON derived: one line per rewrite step
 *   end                               once, last: records without it are cut (or empty)
 *
 * ID is a content id (canon.h); REASON is renaming, subgraph, supergraph or derived. The audit
 * trusts nothing in the file: it recomputes every id, and re-checks each removal against the
 * rules named: renaming (same id), subgraph (an instance of the named rule), supergraph (follows
 * from the named rule by congruence), derived (replays the steps with replay.h). A named rule
 * must be in the kept set or be removed by a LATER record, so chains of removals end in kept
 * rules and cannot be circular.
 */
#ifndef RG_PRUNE_RECORD_H
#define RG_PRUNE_RECORD_H

#include <stdio.h>

#include "ir/ir.h"

struct rg_prune_result; /* prune.h */

/* Writes the records of res (the result of pruning rs) to f. RG_ERR_IO if writing fails. */
rg_status rg_prune_write_records(FILE *f, const rg_ruleset *rs, const struct rg_prune_result *res,
                                 rg_err *err) RG_MUST_CHECK;
/* The same where the removed rule i may be NULL in rs: text(ctx, rs, i, sb) then appends the
 * text rg_text_print_rule wrote for it (sb->failed: it could not): a run that let go of removed
 * rules' graphs (synth/hollow.h). */
typedef void (*rg_prune_text_fn)(const void *ctx, const rg_ruleset *rs, int i, rg_strbuf *sb);
rg_status rg_prune_write_records_texts(FILE *f, const rg_ruleset *rs, rg_prune_text_fn text,
                                       const void *ctx, const struct rg_prune_result *res,
                                       rg_err *err) RG_MUST_CHECK;

/* Writes the end line, after the last records (several pruning runs may write records into one
 * file before it). RG_ERR_IO if writing fails. */
rg_status rg_prune_write_records_end(FILE *f, rg_err *err) RG_MUST_CHECK;

typedef struct {
  int records;      /* removal records checked */
  int kept;         /* rules of the kept set */
  int by_reason[5]; /* records per rg_prune_fate */
} rg_audit_report;

/* Audits records (text of len bytes) against the kept rule set; errors carry the line.
 * RG_OK when every record checks; otherwise RG_ERR_PARSE (malformed, with line; no end line:
 * cut or empty) or RG_ERR_ARG (a removal that does not check, naming the record's line and
 * why). */
rg_status rg_prune_audit(const rg_ruleset *kept, const char *text, size_t len, rg_audit_report *rep,
                         rg_err *err) RG_MUST_CHECK;

#endif
