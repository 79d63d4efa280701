/* rulesdb/records.h: the content of a rule database, in memory.
 *
 * Plain records, independent of the modules that produce them (verify/, certify/, prune/), so
 * that any stage can fill them and the store, the manifest, diff and export read one structure.
 * A rg_db owns every string and byte array its records point to; the add functions copy their
 * arguments. Rules are keyed by content id (rg_rule_content_id); the other records refer to a
 * rule by that id. Records keep the order they were added in; the manifest sorts them itself.
 */
#ifndef RG_RULESDB_RECORDS_H
#define RG_RULESDB_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "ir/rule.h"
#include "ir/status.h"

/* A content id: BLAKE2b-256 in hex. */
#define RG_DB_ID_LEN 64
typedef struct {
  char hex[RG_DB_ID_LEN + 1];
} rg_db_id;

/* How far a rule got. Order matters: diff treats a move from verified/certified to anything
 * below as a regression. */
#define RG_DB_STATUSES(X)                                                                          \
  X(IMPORTED, "imported")   /* from a third-party set, not yet tested or proved */                 \
  X(UNPROVED, "unproved")   /* the solvers did not prove it */                                     \
  X(TESTED, "tested")       /* passed random tests, not proved */                                  \
  X(CERTIFIED, "certified") /* partially equivalent, with a PET certificate */                     \
  X(VERIFIED, "verified")   /* both solvers answered unsat */

typedef enum {
#define X(id, name) RG_DB_##id,
  RG_DB_STATUSES(X)
#undef X
      RG_DB_STATUS_COUNT
} rg_db_status;

const char *rg_db_status_name(rg_db_status s);
/* -1 when the name is not a status. */
int rg_db_status_by_name(const char *name);
/* Verified or certified: the statuses a diff must not lose. */
int rg_db_status_is_proved(rg_db_status s);

typedef struct {
  rg_db_id id;
  char *text;       /* canonical rule text (rg_text_print_rule) */
  int32_t src_size; /* operator nodes of the source side */
  int32_t tgt_size;
  int32_t n_outputs;
  char *ops; /* distinct operator names, sorted, space-separated */
  rg_db_status status;
} rg_db_rule;

/* One solver's answer on the obligation of one output pair of a rule (verify/prove.h makes one
 * obligation per output pair and gives each to both solvers). */
typedef struct {
  rg_db_id rule_id;
  char *solver;        /* "z3", "cvc5" (verify/solver.h names) */
  char *version;
  char *result;        /* rg_smt_result_name: "unsat" (proved), "sat", "unknown", "timeout", ... */
  double seconds;
  char *unsat_core;    /* names of the axioms and facts (verify/smt.h: RG_SMT_FACT) used,
                        * space-separated; "" if none */
  rg_db_id obligation; /* SHA-256 (hex) of the SMT-LIB2 obligation text (verify/smt.h) */
  int32_t output;      /* which output pair */
} rg_db_proof;

/* One random-testing run that the rule passed (or failed), enough to repeat it exactly: it is
 * rg_rule_compare(rule, shapes/params, domain, ctx = rg_eval_ctx_init(seed), seed, trials), as
 * `rulegen eval` runs it; result is the verdict (agree / type / value). */
typedef struct {
  rg_db_id rule_id;
  char *domain; /* "float64" or "Z_p" (rg_domain_name) */
  int32_t trials;
  uint64_t seed;
  char *shapes; /* "x=2x4 y=4x4": shape of each tensor variable */
  char *params; /* "a=1": value of each parameter variable; "" if none */
  char *result; /* "agree", "type", "value" */
} rg_db_test;

/* A PET certificate, kept as the certify module's versioned text, byte for byte. */
typedef struct {
  rg_db_id rule_id;
  int32_t version;
  uint8_t *body;
  size_t len;
} rg_db_cert;

/* A rule removed by pruning, and the kept rules that imply it. */
typedef struct {
  rg_db_id removed_id;
  char *removed_text;
  char *reason;     /* "renaming", "common-subgraph", "derivable(k=2)" ... */
  char *implied_by; /* content ids of kept rules, space-separated */
} rg_db_prune;

/* One row of the stage-count table. */
typedef struct {
  char *name;
  int64_t n_in, n_out;
  char *dropped; /* why: "collision:12 float64:3"; "" if none */
  double seconds;
} rg_db_stage;

typedef struct {
  char *key, *value;
} rg_db_config;

#define RG_DB_TABLE(type, name)                                                                    \
  struct {                                                                                         \
    type *v;                                                                                       \
    size_t n, cap;                                                                                 \
  } name

/* The Ed25519 signature over the manifest (rulesdb/sign.h). manifest is the exact text signed. */
typedef struct {
  int present;
  int malformed;   /* a signature row is there but not one well-formed signature */
  rg_db_id key_id; /* BLAKE2b-256 of the public key */
  char *manifest;
  uint8_t sig[64];
} rg_db_signature;

typedef struct {
  RG_DB_TABLE(rg_db_rule, rules);
  RG_DB_TABLE(rg_db_proof, proofs);
  RG_DB_TABLE(rg_db_test, tests);
  RG_DB_TABLE(rg_db_cert, certs);
  RG_DB_TABLE(rg_db_prune, prunes);
  RG_DB_TABLE(rg_db_stage, stages);
  RG_DB_TABLE(rg_db_config, config);
  rg_db_signature sig;
  int schema_version; /* of the file it was read from (store.h); 0 when made in memory */
} rg_db;

rg_db *rg_db_new(void); /* NULL when out of memory */
void rg_db_free(rg_db *db);

/* The rules both solvers verified, parsed into out (in the database's order), for an optimizer:
 * certified rules hold only with their correction and are left out. A text that does not parse
 * is an error naming the rule's id. */
rg_status rg_db_verified_rules(const rg_db *db, rg_ruleset *out, rg_err *err) RG_MUST_CHECK;
/* A new database, unsigned, of db's verified rules with their proof, test and certificate
 * records, its stages and its configuration but for the pruning records (prune.records; the
 * prunes table goes too: both name rules no longer there). What an optimizer reads, at a
 * fraction of the size (graphopt's default set: 55 MB to 9 MB). */
rg_status rg_db_keep_verified(const rg_db *db, rg_db **out, rg_err *err) RG_MUST_CHECK;

/* Each add copies its strings and bytes; returns RG_ERR_NOMEM on allocation failure. Rule ids
 * must be unique: the store rejects a duplicate when writing (adding stays O(1)). Setting a
 * config key that is there replaces its value; keys are printable without blanks (RG_ERR_ARG). */
rg_status rg_db_add_rule(rg_db *db, const rg_db_rule *r, rg_err *err) RG_MUST_CHECK;
rg_status rg_db_add_proof(rg_db *db, const rg_db_proof *p, rg_err *err) RG_MUST_CHECK;
rg_status rg_db_add_test(rg_db *db, const rg_db_test *t, rg_err *err) RG_MUST_CHECK;
rg_status rg_db_add_cert(rg_db *db, const rg_db_cert *c, rg_err *err) RG_MUST_CHECK;
rg_status rg_db_add_prune(rg_db *db, const rg_db_prune *p, rg_err *err) RG_MUST_CHECK;
rg_status rg_db_add_stage(rg_db *db, const rg_db_stage *s, rg_err *err) RG_MUST_CHECK;
rg_status rg_db_set_config(rg_db *db, const char *key, const char *value,
                           rg_err *err) RG_MUST_CHECK;

/* The rule with this id, or NULL. Linear in the number of rules. */
const rg_db_rule *rg_db_find_rule(const rg_db *db, const rg_db_id *id);
/* Rule index by id, for many look-ups: sorts a copy of the ids. idx[i] is a rule index in db
 * order sorted by id; free with free(). */
size_t *rg_db_rule_index(const rg_db *db);
/* Binary search in an index from rg_db_rule_index; -1 when absent. */
long rg_db_index_find(const rg_db *db, const size_t *idx, const char *id_hex);

/* The proof, test and certificate records of each rule, as linked lists over record indices:
 * proof[r] is the first proof index of rule r (-1 if none), next_proof[p] the next one, and so
 * on, in record order. Records whose rule id is not in the database are in no list. */
typedef struct {
  long *proof, *next_proof;
  long *test, *next_test;
  long *cert, *next_cert;
} rg_db_groups;

rg_status rg_db_groups_build(const rg_db *db, rg_db_groups *g, rg_err *err) RG_MUST_CHECK;
void rg_db_groups_free(rg_db_groups *g);

#endif
