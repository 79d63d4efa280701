/* rulesdb/manifest.h: the canonical manifest of a database's content, the text that is signed.
 *
 * One header line, then one line per record, sorted bytewise:
 *   rulegen-manifest 1
 *   cert <rule id> <digest>        proof <rule id> <digest>     test <rule id> <digest>
 *   config <key> <digest>          prune <removed id> <digest>  rule <id> <digest>
 *   stage <000003> <digest>        (stage rows keep their order through the index)
 * Each digest is BLAKE2b-256 over every field of the record, length-prefixed, so the manifest
 * changes with any change of meaning (a rule's text or status, a proof result, a certificate
 * byte, a configuration value) and with nothing else (row order, VACUUM, page layout).
 */
#ifndef RG_RULESDB_MANIFEST_H
#define RG_RULESDB_MANIFEST_H

#include "ir/strbuf.h"
#include "records.h"

#define RG_DB_MANIFEST_HEADER "rulegen-manifest 1"

/* Appends the manifest of db to out (lines end in '\n'). RG_ERR_NOMEM on allocation failure. */
rg_status rg_db_manifest(const rg_db *db, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

/* Compares a signed manifest with the one recomputed from the content and appends a line per
 * difference to report (at most max lines, then a count of the rest), naming the record kind
 * and key: "rule 3fa2...: changed". Returns the number of differences. */
size_t rg_db_manifest_compare(const char *signed_text, const char *current, size_t max,
                              rg_strbuf *report);

#endif
