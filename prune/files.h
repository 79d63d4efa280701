/* prune/files.h: the files of a pruning run: the kept rules and the removal records written
 * whole or not at all, and the audit of a records file against a kept rule file.
 */
#ifndef RG_PRUNE_FILES_H
#define RG_PRUNE_FILES_H

#include "record.h"

struct rg_prune_result; /* prune.h */

/* Writes the removal records to records_path, then the kept rules (input order, a count line
 * first) to kept_path, each whole or not at all (ir/atomic.h): the records come first, so a
 * kept set never stands beside the records of another run. */
rg_status rg_prune_save(const char *kept_path, const char *records_path, const rg_ruleset *rs,
                        const struct rg_prune_result *res, rg_err *err) RG_MUST_CHECK;

/* Audits the records file against the kept rule file (an empty kept set is legal: everything
 * removed). Errors as rg_prune_audit's (RG_ERR_ARG: a record does not check), or reading and
 * parsing errors; *where names the file at fault. */
rg_status rg_prune_audit_files(const char *records_path, const char *kept_path, rg_audit_report *rep,
                               const char **where, rg_err *err) RG_MUST_CHECK;

#endif
