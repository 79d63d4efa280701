/* verify/proofcache.h: proofs that are never paid twice, for programs that must apply only
 * proved rules (graphopt) and for `rulegen prove --proof-cache`.
 *
 * A proof cache is a folder (default $RULEGEN_PROOF_CACHE, else the user's cache folder's
 * rulegen/proofs) holding one answer journal (journal.h: keyed MAC'd lines, its key beside it)
 * per pair of solver versions, answers-<hash of the versions>.journal. It keeps two things:
 *   - every solver answer to every obligation, keyed by the obligation's exact SMT-LIB2 text
 *     (which holds the axioms the obligation asserts), as any journal does;
 *   - the verdict on every rule proved there: a rule counts as proved when every solver proved
 *     all its obligations and the recheck at drawn shapes found no difference (rg_prove_rules
 *     under --require both). The verdict is one unsat line per solver under the key
 *     BLAKE2b-256("rulegen rule verdict 1", the rule's canonical text, the axioms' digest, the
 *     recheck's assignment count), written only after that proof, so a later run with the same
 *     rule, axioms and solvers takes it without asking anyone (and without checking the axioms
 *     again: the verdict was written after they passed);
 *   - the verdict on every rule refuted there (its sides differ in float64 at shapes the
 *     comparison before the solvers found): one sat line under the same key, the counterexample as its core, so
 *     a false rule is not tested again either. Timeouts and other doubts are not kept;
 *   - the passes of the checks around the proofs, the axioms' random test, each rule's
 *     comparison at shape sets and the recheck of each proved rule (proofcache_checks.h),
 *     written by rg_prove_rules whenever its journal is a cache's (journal_cache): a warm
 *     rerun runs none of them again.
 * Every line carries the journal key's MAC: a line edited or forged without the key is never
 * a proof: it is refused (counted, said, its obligation asked again; journal.h's cache mode).
 * The rulegen run and `rulegen prove` journal their answers here too. The key sits beside the journal, so a cache is trusted as far as those who
 * can write it: its folder, journal and key must be the user's and writable by nobody else, or
 * the cache is refused (a copied or shared cache is as trustworthy as whoever wrote it).
 * Processes may share a cache: the journal is opened (key, header) under a lock on the folder,
 * and each appends whole lines.
 */
#ifndef RG_VERIFY_PROOFCACHE_H
#define RG_VERIFY_PROOFCACHE_H

#include "prove.h"

#define RG_PROOF_CACHE_ENV "RULEGEN_PROOF_CACHE"

/* The default cache folder into buf: $RULEGEN_PROOF_CACHE when set, else
 * rg_user_cache_path("proofs"). Its errors. */
rg_status rg_proof_cache_default(char *buf, size_t n, rg_err *err) RG_MUST_CHECK;

/* The cache folder's answer journal for o's solvers (the folder made where missing, it and the
 * journal checked to be the user's alone, the journal and its key made) into path (n bytes):
 * what rg_prove_opts.journal takes, so that every solver answer is kept there and taken from
 * there (a rulegen run, `rulegen prove`). Errors: the folder's or journal's (RG_ERR_IO,
 * RG_ERR_PARSE naming it), a solver that cannot start (its version names the journal). */
rg_status rg_proof_cache_journal(const char *dir, const rg_prove_opts *o, char *path, size_t n,
                                 rg_err *err) RG_MUST_CHECK;

/* The folder a command's --proof-cache / --no-proof-cache name into buf (n bytes): dir where
 * given, else rg_proof_cache_default's; *use false with no_cache. */
rg_status rg_proof_cache_choose(const char *dir, bool no_cache, char *buf, size_t n, bool *use,
                                rg_err *err) RG_MUST_CHECK;

/* Where a command's solver answers go (`rulegen prove`): journal (--journal) where given, else
 * the proof cache (dir, else the default) unless no_cache; into o->journal (buf, n bytes, holds
 * the cache's path) and o->journal_cache. Errors: --journal with --proof-cache or
 * --no-proof-cache, and the cache's. */
rg_status rg_proof_cache_route(rg_prove_opts *o, const char *journal, const char *dir, bool no_cache, char *buf,
                               size_t n, rg_err *err) RG_MUST_CHECK;

typedef struct {
  int n_rules;
  int cached;   /* rules whose verdict (proved or refuted) the cache held */
  int asked;    /* rules sent to rg_prove_rules (the rest of n_rules) */
  int proved;   /* rules proved, from the cache or now */
  rg_prove_summary sum; /* rg_prove_rules' summary over the rules asked */
} rg_proof_cache_stats;

/* Proves rules from ax through the cache folder dir (made when missing; NULL: no cache, every
 * rule asked): proved[i] is true when rule i is proved as above, now or by an earlier run.
 * proofs[i] (rules->n of them) holds the proof of each rule asked now (a cached one: status
 * verified, or unproved and refuted with its counterexample; no obligations): fresh records
 * that own nothing on entry, released with rg_rule_proofs_free whatever the status, as
 * rg_prove_rules takes them. o as rg_prove_rules takes it; its journal is the cache's, its
 * require is both. Errors: rg_prove_rules' (a rule without a target, an unsound axiom, a
 * solver that cannot start), the cache folder or journal (RG_ERR_IO, RG_ERR_PARSE naming it),
 * allocation. */
rg_status rg_prove_cached(const rg_ruleset *rules, const rg_axioms *ax, const char *dir, const rg_prove_opts *o,
                          rg_rule_proof *proofs, bool *proved, rg_proof_cache_stats *stats, rg_err *err) RG_MUST_CHECK;

#endif
