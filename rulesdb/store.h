/* rulesdb/store.h: reading and writing a rule database file (SQLite).
 *
 * Writes are atomic: the new database is built in a temporary file beside the target, synced,
 * and renamed over the target, then the directory is synced; a crash, SIGKILL or a cancelled
 * write leaves either the previous file or the complete new one. The file carries SQLite's
 * application_id 'RGDB' and user_version = RG_DB_SCHEMA_VERSION; a reader reads versions 1 to
 * RG_DB_SCHEMA_VERSION and refuses any other, and files that are empty, not SQLite, damaged (truncated, or a size that does not
 * match the page count) or not ours, each with its own message.
 *
 * The reader takes exactly what the writer writes and nothing else, because the signed manifest
 * is computed from the values read: were a value read otherwise than another SQLite reader sees
 * it, a good signature would cover content that others read differently. So it refuses a schema
 * that is not the writer's (an extra or missing table, column, index, trigger or view), a text
 * encoding other than UTF-8, and any value of another storage type than the writer's (TEXT,
 * INTEGER, REAL, BLOB), text holding a NUL byte, an id that is not exactly RG_DB_ID_LEN
 * lowercase hex digits, an integer outside its field's range (never truncated) and stages not
 * numbered 0, 1, 2, ...; the writer refuses ids the reader would refuse.
 *
 * Schema version 2 (one table per record kind of records.h, columns named as the fields; the
 * derived tables, indexes and the verdict view: schema.h):
 *   rules(id PRIMARY KEY, text, src_size, tgt_size, n_outputs, status)
 *   rule_ops(rule_id, pos, op)                 a rule's operators (its record's ops), in order
 *   rule_vars(rule_id, pos, var, shape)        its tensor variables with their shapes
 *   proofs(rule_id, output, solver, version, result, seconds, unsat_core, obligation)
 *   tests(rule_id, domain, trials, seed, shapes, params, result)
 *   certs(rule_id, version, body BLOB)
 *   prunes(removed_id, removed_text, reason, implied_by)
 *   stages(ord PRIMARY KEY, name, n_in, n_out, dropped, seconds)
 *   config(key PRIMARY KEY, value)
 *   signature(key_id, manifest, sig BLOB)      at most one row
 *   view rule_verdicts(rule_id, status, one column per solver)
 * Version 1 had rules.ops (space-separated) and no derived table, index or view. The reader
 * reads both (the manifest is the same, so a version-1 signature stays good); the writer writes
 * version 2, so rewriting a file (rulesdb migrate, rulesdb sign) upgrades it.
 * Any change to these tables is a new schema version.
 */
#ifndef RG_RULESDB_STORE_H
#define RG_RULESDB_STORE_H

#include <stdint.h>

#include "records.h"
#include "sign.h"

#define RG_DB_SCHEMA_VERSION 2
#define RG_DB_APPLICATION_ID 0x52474442 /* "RGDB" */

/* Called after every batch of rows; a non-zero return cancels the write (the target is left as
 * it was). done/total count rows of every table. */
typedef int (*rg_db_progress_fn)(void *user, int64_t done, int64_t total);

typedef struct {
  rg_db_progress_fn progress; /* may be NULL */
  void *user;
} rg_db_write_opts;

/* Writes db (with its signature, if any) to path, replacing it atomically. opts may be NULL.
 * Errors: RG_ERR_IO (file system, SQLite, cancelled; the message says which and that the
 * previous file is unchanged), RG_ERR_ARG (duplicate rule id, an id that is not a content id). */
rg_status rg_db_write(const rg_db *db, const char *path, const rg_db_write_opts *opts,
                      rg_err *err) RG_MUST_CHECK;

/* What a writer (rulegen -o rules.db, rulesdb import) calls: signs db with the secret key in
 * key_path (when not NULL; the signature replaces any db carries) and writes it atomically. */
rg_status rg_db_save(rg_db *db, const char *path, const char *key_path,
                     const rg_db_write_opts *opts, rg_err *err) RG_MUST_CHECK;

/* Reads the whole database at path into a new rg_db (free with rg_db_free). Does not verify
 * the signature: see rg_db_open. Errors: RG_ERR_IO (missing, empty, not SQLite, not ours, another
 * version, damaged), RG_ERR_PARSE (a schema or value the writer does not write: the message names
 * the file, table, row and column, and says what is wrong), RG_ERR_NOMEM. */
rg_status rg_db_read(const char *path, rg_db **out, rg_err *err) RG_MUST_CHECK;

/* What every reader calls: reads path, then verifies the signature with pub (may be NULL only
 * when allow_unsigned). Refuses (RG_ERR_ARG, message saying unsigned / wrong key / bad
 * signature / which records were tampered) unless allow_unsigned, in which case a failed
 * verification is written to *warning (if non-NULL, else dropped) and the database is returned. */
rg_status rg_db_open(const char *path, const rg_db_pubkey *pub, int allow_unsigned, rg_db **out,
                     rg_strbuf *warning, rg_err *err) RG_MUST_CHECK;

/* rg_db_open as a command line says it: the public key read from the file pub_path (NULL: none
 * given); without one and without allow_unsigned, RG_ERR_UNBOUND before anything is read, the
 * message naming both ways on. A key file that cannot be read is its RG_ERR_IO or RG_ERR_PARSE. */
rg_status rg_db_open_keyed(const char *path, const char *pub_path, int allow_unsigned, rg_db **out,
                           rg_strbuf *warning, rg_err *err) RG_MUST_CHECK;

/* The verified rules (rg_db_verified_rules) of the database at path, opened as rg_db_open_keyed
 * opens it (warning as there), appended to out; an error of the rules names path. A database
 * without a verified rule is an error (RG_ERR_ARG, counting its rules by status); one with
 * rules of other statuses adds a line saying how many were skipped to warning. */
rg_status rg_db_load_verified(const char *path, const char *pub_path, int allow_unsigned, rg_ruleset *out,
                              rg_strbuf *warning, rg_err *err) RG_MUST_CHECK;

#endif
