/* rulesdb/dbexchange.h: a database's rules to and from files, as `rulesdb show`, `export` and
 * `import` need them: choosing rules, parsing them back from their stored text, writing them in
 * another format (JSON lines here; TENSAT, TASO, DOT by exchange.h), and a database made of
 * imported rules. The commands read and write the files and print; this is the rest. */
#ifndef RG_RULESDB_DBEXCHANGE_H
#define RG_RULESDB_DBEXCHANGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "enumerate/enumerate.h"
#include "ir/strbuf.h"
#include "records.h"
#include "store.h"

/* Which rules a command means: ids starting with prefix, using operator op, of one status
 * (each NULL or -1: any). */
typedef struct {
  const char *prefix;
  const char *op;
  int status;
} rg_db_select;

bool rg_db_rule_selected(const rg_db_rule *r, const rg_db_select *s);

/* The rules of db of one status (-1: all) parsed back from their text, into rs (initialised
 * here; free it also on error), with *recs[i] the record of rs->rules[i] (malloc'ed; free it).
 * A stored text that does not parse is RG_ERR_PARSE naming the rule's id. */
rg_status rg_db_rules_parse(const rg_db *db, int status, rg_ruleset *rs, const rg_db_rule ***recs,
                            rg_err *err) RG_MUST_CHECK;

/* One JSON object per line for each rule of one status (-1: all): id, status, text, outputs,
 * sizes, operators, proofs. */
rg_status rg_db_export_json(const rg_db *db, int status, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

/* TENSAT text of rs (recs as rg_db_rules_parse gives them; variables of the shapes of inputs,
 * as rg_db_input_set gives them): single-output rules into single, two-output ones into multi,
 * lines joined by newlines with none at the end; a rule that does not map is left out with a
 * line "rule ID: CATEGORY: detail" in skipped. *written: the rules written. */
void rg_db_export_tensat(const rg_ruleset *rs, const rg_db_rule *const *recs, const rg_enum_inputset *inputs,
                         rg_strbuf *single, rg_strbuf *multi, rg_strbuf *skipped, size_t *written);
/* "dir/name.txt" -> "dir/name_multi.txt": where TENSAT keeps the two-output rules beside
 * path (converted.txt / converted_multi.txt). */
void rg_tensat_multi_path(const char *path, char *out, size_t n);

/* rg_taso_export of rs (shapes of inputs), rules named by their short ids in skipped. */
rg_status rg_db_export_taso(const rg_ruleset *rs, const rg_db_rule *const *recs, const rg_enum_inputset *inputs,
                            uint8_t **buf, size_t *len, size_t *written, rg_strbuf *skipped, rg_err *err) RG_MUST_CHECK;
/* The input set db's rules were made over (dbinputs.c): the configuration's input.NAME values,
 * else TASO's inputs and the bias vectors b1, b2. RG_ERR_PARSE when those values are not an
 * input set. */
rg_status rg_db_input_set(const rg_db *db, rg_enum_inputset *s, rg_err *err) RG_MUST_CHECK;

/* The rules of the file at path in format fmt ("taso", "tensat", "tensat-multi", "text"),
 * appended to rs; rules with no counterpart of ours skipped with a line each in skipped.
 * RG_ERR_ARG for another format (naming the choices); errors of the file as the importers give
 * them (err->line set where the text format knows it). */
rg_status rg_db_import_file(const char *fmt, const char *path, rg_ruleset *rs, rg_strbuf *skipped,
                            rg_err *err) RG_MUST_CHECK;
/* Whether fmt is one rg_db_import_file reads. */
bool rg_db_import_format_known(const char *fmt);

/* A new database of rs's rules (status imported, sorted by id, each distinct rule once: *dups
 * counts the ones left out as identical after parsing), with configuration created_by,
 * import.source = src and import.format = fmt. */
rg_status rg_db_from_rules(const rg_ruleset *rs, const char *src, const char *fmt, rg_db **out, int *dups,
                           rg_err *err) RG_MUST_CHECK;

/* What `rulesdb show` prints: with a filter (sel: prefix, op, status), only the matching rules
 * (with their records when chosen by prefix); without one, a summary (counts of records, of
 * rules by status and by source/target size, the stage table), after the whole rule list when
 * list. config adds the configuration (record blobs by their size). */
typedef struct {
  rg_db_select sel;
  bool list, config;
} rg_db_show_opts;
/* Whether sel chooses rules (prefix, op or status given). */
bool rg_db_select_any(const rg_db_select *sel);
/* `rulesdb show` as text into out, as o says. Errors: rg_db_groups_build's. */
rg_status rg_db_show(const rg_db *db, const rg_db_show_opts *o, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;
/* Rule i in full (g: db's groups): its id, operators, proof, test and certificate records. */
void rg_db_show_records(const rg_db *db, const rg_db_groups *g, size_t i, rg_strbuf *out);
/* The stage-count table (nothing when there are no stages). */
void rg_db_show_stages(const rg_db *db, rg_strbuf *out);
/* The configuration, one value a line; a multi-line value (prune.records) by its size. */
void rg_db_show_config(const rg_db *db, rg_strbuf *out);

/* The one rule of db whose id starts with prefix drawn by Graphviz (`dot -T<fmt> -o out`, the
 * program found on PATH; inputs with their shapes, rg_db_input_set). Errors: RG_ERR_ARG when
 * the prefix matches no rule or several (saying how many), RG_ERR_IO when dot is not installed
 * (saying how to get it), fails, or a file cannot be written. */
rg_status rg_db_render_rule(const rg_db *db, const char *prefix, const char *fmt, const char *out,
                            rg_err *err) RG_MUST_CHECK;

/* The rules at path: a database's verified ones, as rg_db_load_verified loads them, when path
 * ends in .db; else rule text (an error's message then starts "path:line:col: "). */
rg_status rg_db_load_rules(const char *path, const char *pub_path, int allow_unsigned, rg_ruleset *out,
                           rg_strbuf *warning, rg_err *err) RG_MUST_CHECK;
/* Whether path names a database (ends in .db) rather than rule text. */
bool rg_db_path_is_db(const char *path);

/* What `rulesdb export` writes: fmt "tensat", "taso", "json" or "dot" (the caller checks it),
 * rules of one status (-1: all), to out (tensat, taso and dot need it; NULL: std_out). dot
 * writes a folder (dir, else out): one OUT/<id16>.dot per rule (inputs with the shapes of
 * rg_db_input_set) and OUT/index.txt, one line per rule: file, status, rule text. */
typedef struct {
  const char *fmt, *out, *dir;
  int status;
} rg_db_export_opts;
/* Writes db's rules as o says (files whole or not at all); the lines for the user (files
 * written, "N of M rules written", the rules skipped and why) are appended to log, also after
 * an error. Errors: parsing the stored rules, the format's, RG_ERR_IO naming the file. */
rg_status rg_db_export_files(const rg_db *db, const rg_db_export_opts *o, FILE *std_out, rg_strbuf *log,
                             rg_err *err) RG_MUST_CHECK;
/* rg_db_import_file of in, with what the user is told: the rules skipped (no counterpart of
 * ours) and the count read, as lines in log; an error's message names in (and line:col where
 * the format knows it), except for an unknown format, when nothing was read. */
rg_status rg_db_import_read(const char *fmt, const char *in, rg_ruleset *rs, rg_strbuf *log, rg_err *err) RG_MUST_CHECK;
/* Imported rules rs (read from src in format fmt) written to out: a database (signed with key
 * when not NULL; wo as rg_db_save takes it) when out ends in .db, with a line saying so in
 * log; otherwise our rule text, one per line. */
rg_status rg_db_import_write(const rg_ruleset *rs, const char *out, const char *key, const char *src,
                             const char *fmt, const rg_db_write_opts *wo, rg_strbuf *log, rg_err *err) RG_MUST_CHECK;

/* `rulesdb migrate`: the database at path rewritten in schema version RG_DB_SCHEMA_VERSION
 * (atomically; wo as rg_db_write takes it), its signature carried over unchanged (the manifest
 * is the same in every version); nothing is written when it is of that version already. What
 * happened goes to log. Errors: rg_db_read's, rg_db_write's. */
rg_status rg_db_migrate_file(const char *path, const rg_db_write_opts *wo, rg_strbuf *log, rg_err *err) RG_MUST_CHECK;

/* What `rulesdb sign` signs with: the secret key's file, a signed database's current public key
 * (NULL: the secret key's own), and whether only the verified rules are kept. */
typedef struct {
  const char *key_path, *old_pub;
  bool verified_only;
} rg_db_sign_opts;

/* `rulesdb sign`: the database at path signed with the secret key and written back atomically
 * (wo as rg_db_write takes it). An unsigned database is signed as it is; a signed one only when
 * its signature verifies with old_pub, or with the secret key's own (RG_ERR_ARG saying why
 * otherwise; nothing is written). With verified_only, what is signed is rg_db_keep_verified's
 * part of it. What happened goes to log. Errors: the key's, rg_db_read's, rg_db_write's. */
rg_status rg_db_sign_file(const char *path, const rg_db_sign_opts *so, const rg_db_write_opts *wo, rg_strbuf *log,
                          rg_err *err) RG_MUST_CHECK;

#endif
