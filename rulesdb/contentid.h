/* rulesdb/contentid.h: content ids and digests, and rule records made from rules.
 *
 * A rule's content id is defined once, by prune/'s rg_content_id_of_rule (BLAKE2b-256 of the
 * text rg_text_print_rule writes); here it is applied to a rule as given, without prune/'s
 * renaming of variables, and written in hex.
 */
#ifndef RG_RULESDB_CONTENTID_H
#define RG_RULESDB_CONTENTID_H

#include "ir/rule.h"
#include "records.h"

/* BLAKE2b-256 of len bytes, in hex. */
void rg_db_digest(const void *data, size_t len, rg_db_id *out);

/* Text of r (appended to sb) and its content id (rg_content_id_of_rule in hex). Check
 * sb->failed. */
void rg_rule_content_id(const rg_rule *r, rg_strbuf *sb, rg_db_id *out);

/* A rule record for r with the given status: id, canonical text, side sizes (operator nodes,
 * inputs not counted), outputs and sorted distinct operator names. The record's strings are
 * malloc'ed: free them with rg_db_rule_clear, or hand the record to rg_db_add_rule (which
 * copies) and clear it after. */
rg_status rg_db_rule_make(const rg_rule *r, rg_db_status status, rg_db_rule *out,
                          rg_err *err) RG_MUST_CHECK;
void rg_db_rule_clear(rg_db_rule *r);

/* Parses a hex id (exactly 64 lowercase hex digits); false otherwise. */
int rg_db_id_parse(const char *s, rg_db_id *out);

#endif
