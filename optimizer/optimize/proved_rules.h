/* optimizer/optimize/proved_rules.h: the rules graphopt may apply, and where their proofs came from.
 *
 * A signed database whose signature was checked against a key (--pub, no --allow-unsigned)
 * holds proofs rulegen made and signed: its verified rules are applied as they are. Every other
 * rule (rule text, an unsigned database's "verified" ones, which anyone could have written) is
 * proved before the search by z3 and cvc5 from the axioms, through the proof cache
 * (verify/proofcache.h: a rule proved once is not proved again), exactly as `rulegen prove`
 * proves it; a rule no solver pair proves is left out and named. Only the user's word
 * (allow_unproved: --unproved-rules) applies rules without proof, and then every report says so.
 */
#ifndef RG_OPTIMIZER_PROVED_RULES_H
#define RG_OPTIMIZER_PROVED_RULES_H

#include <signal.h>

#include "ir/ir.h"

typedef struct {
  const char *path;          /* a .db database or rule text; NULL: the default set (default_rules.h) */
  const char *pub;           /* the database's public key (NULL: none given) */
  bool allow_unsigned;       /* a database whose signature is missing or unchecked */
  bool allow_unproved;       /* apply rules nobody proved (--unproved-rules) */
  const char *proof_cache;   /* the cache folder; NULL: rg_proof_cache_default */
  bool no_proof_cache;       /* prove without a cache (every rule asked, nothing kept) */
  const char *axioms;        /* NULL: the default axiom file */
  bool progress;             /* the prover's progress line on stderr */
  const volatile sig_atomic_t *stop; /* Ctrl-C: the proofs stop, unproved rules are left out */
} rg_rules_load_opts;

typedef struct {
  int read;              /* rules read from the file (a database: its verified ones) */
  int used;              /* rules handed to the search */
  int signed_proofs;     /* of those, proved by the signed database */
  int proved;            /* proved here (from the cache or now) */
  int cached;            /* of those, from the cache */
  int unproved_used;     /* applied without proof (allow_unproved) */
  int unproved_left_out; /* not proved, so not applied */
  double seconds;        /* loading and proving */
  const char *default_set; /* the default set's database when path was NULL, else NULL */
} rg_rules_provenance;

/* The rules to apply into out (initialised by the caller), what happened in *pv, and a line per
 * rule left out (file:line, status, text; at most 20, then a count) and any signature warning in
 * warn. Errors: the file's (rg_db_load_rules: names the file and line), the axioms', the
 * prover's and the cache's; RG_ERR_ARG when the file has rules but none is proved (naming how
 * many and how to go on). */
rg_status rg_rules_load_proved(const rg_rules_load_opts *o, rg_ruleset *out, rg_rules_provenance *pv,
                               rg_strbuf *warn, rg_err *err) RG_MUST_CHECK;

/* The provenance as one line for the final table ("rules: 12 applied of 12 read; 12 proved (10 from
 * the proof cache)", and "WARNING: N rules applied WITHOUT PROOF" when so). */
void rg_rules_provenance_print(const rg_rules_provenance *pv, rg_strbuf *out);
/* The provenance as a JSON member: "rules": {...}, with a trailing ", ". */
void rg_rules_provenance_json(const rg_rules_provenance *pv, rg_strbuf *out);

#endif
