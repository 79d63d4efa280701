/* optimizer/optimize/proved_rules.c: the rules graphopt may apply (proved_rules.h). */
#include "proved_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "default_rules.h"
#include "fingerprint/fingerprint.h"
#include "rulesdb/rulesdb.h"
#include "verify/verify.h"

#define LEFT_OUT_LISTED 20 /* rules left out named one by one; the rest counted */

/* Rule i of all, why it is not applied, as one warning line. */
static void left_out_line(const char *path, const rg_rule *r, const rg_rule_proof *p, rg_strbuf *warn) {
  if (r->line > 0) rg_sb_printf(warn, "%s:%d: ", path, r->line);
  else rg_sb_printf(warn, "%s: ", path); /* a database's rule: its id is its name */
  if (p->refuted && !strncmp(p->refutation, "float64", 7))
    rg_sb_printf(warn, "false, its sides differ (%s): not applied: ", p->refutation);
  else if (p->refuted) /* Z_p: relu, tanh, sigmoid and max pooling are keyed random functions there */
    rg_sb_printf(warn, "not provable from the axioms, its sides differ where activations are uninterpreted (%s): "
                       "not applied: ", p->refutation);
  else rg_sb_printf(warn, "not proved (%s), not applied: ", rg_proof_status_name(p->status));
  rg_text_print_rule(r, warn);
  rg_sb_puts(warn, "\n");
}

/* Moves the rules of all that keep[] says into out (the rest are freed with all). */
static rg_status keep_rules(rg_ruleset *all, const bool *keep, rg_ruleset *out, rg_err *err) {
  for (int i = 0; i < all->n; i++) {
    if (!keep[i]) continue;
    rg_rule *r = all->rules[i];
    all->rules[i] = NULL;
    if (rg_ruleset_add(out, r)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  return RG_OK;
}

/* Proves every rule of all through the cache o names; proved[i] says which passed. */
static rg_status prove_all(const rg_rules_load_opts *o, const rg_ruleset *all, bool *proved, rg_rules_provenance *pv,
                           rg_strbuf *warn, rg_err *err) {
  char cache[4096];
  bool use;
  rg_status st = rg_proof_cache_choose(o->proof_cache, o->no_proof_cache, cache, sizeof cache, &use, err);
  const char *dir = use ? cache : NULL;
  rg_axioms ax = {0};
  const char *axioms = o->axioms ? o->axioms : rg_axioms_default_path();
  if (!st && (st = rg_axioms_load(axioms, &ax, err)) && !strstr(err->msg, axioms)) { /* name the axiom file */
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    if (err->line) rg_err_set(err, st, "%s:%d:%d: %s", axioms, err->line, err->col, why);
    else rg_err_set(err, st, "%s: %s", axioms, why);
  }
  rg_prove_opts po;
  rg_prove_opts_init(&po);
  /* The typing precheck only spares solvers work (a rule typed nowhere is applied nowhere); the
   * shape solver misses some typable rules, and graphopt applies a rule only where it types. */
  po.check_typed = false, po.progress = o->progress, po.stop = o->stop, po.kernel = rg_fp_node_kernel;
  /* Only a rule both solvers prove is applied, so, as the synthesis run does, the second solver
   * is asked only what the first proved, given the first's unsat core: on TASO's 133 rules cvc5
   * then answered in 0.46x the time and proved the two it timed out on. */
  po.fail_fast = po.require == RG_REQUIRE_BOTH;
  rg_rule_proof *proofs = calloc((size_t)all->n + 1, sizeof *proofs);
  if (!st && !proofs) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_proof_cache_stats cs;
  if (!st) st = rg_prove_cached(all, &ax, dir, &po, proofs, proved, &cs, err);
  if (!st && o->stop && *o->stop) /* what was proved is kept in the cache: a rerun goes on from there */
    st = rg_err_set(err, RG_ERR_ARG, "interrupted while proving the rules of %s (%d of %d proved%s): nothing written",
                    o->path, cs.proved, all->n, dir ? "; the proofs so far are kept in the proof cache" : "");
  for (int i = 0, listed = 0; !st && i < all->n; i++) {
    if (proved[i]) continue;
    if (listed++ < LEFT_OUT_LISTED) left_out_line(o->path, all->rules[i], &proofs[i], warn);
    pv->unproved_left_out++;
  }
  if (pv->unproved_left_out > LEFT_OUT_LISTED)
    rg_sb_printf(warn, "%s: %d more rules not proved, not applied\n", o->path, pv->unproved_left_out - LEFT_OUT_LISTED);
  if (!st) pv->proved = cs.proved, pv->cached = cs.cached;
  rg_rule_proofs_free(proofs, all->n);
  free(proofs);
  rg_axioms_free(&ax);
  return st;
}

/* rg_rules_load_proved with the file named (o->path). */
static rg_status load_named(const rg_rules_load_opts *o, rg_ruleset *out, rg_rules_provenance *pv, rg_strbuf *warn,
                            rg_err *err) {
  double t0 = rg_clock_seconds();
  rg_ruleset all;
  rg_ruleset_init(&all);
  rg_status st = rg_db_load_rules(o->path, o->pub, o->allow_unsigned, &all, warn, err);
  bool *keep = calloc((size_t)all.n + 1, sizeof *keep);
  if (!st && !keep) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  pv->read = all.n;
  bool signed_proofs = rg_db_path_is_db(o->path) && o->pub && !o->allow_unsigned;
  for (int i = 0; !st && (signed_proofs || o->allow_unproved) && i < all.n; i++) keep[i] = true;
  if (!st && !signed_proofs && !o->allow_unproved) st = prove_all(o, &all, keep, pv, warn, err);
  if (!st) st = keep_rules(&all, keep, out, err);
  pv->used = out->n;
  pv->signed_proofs = signed_proofs ? out->n : 0;
  pv->unproved_used = !signed_proofs && o->allow_unproved ? out->n : 0;
  if (!st && all.n && !out->n)
    st = rg_err_set(err, RG_ERR_ARG,
                    "%s: none of its %d rules is proved (each is named above): fix them, or give --unproved-rules "
                    "to apply them anyway",
                    o->path, all.n);
  free(keep);
  rg_ruleset_free(&all);
  pv->seconds = rg_clock_seconds() - t0;
  return st;
}

rg_status rg_rules_load_proved(const rg_rules_load_opts *o, rg_ruleset *out, rg_rules_provenance *pv,
                               rg_strbuf *warn, rg_err *err) {
  memset(pv, 0, sizeof *pv);
  if (o->path) return load_named(o, out, pv, warn, err);
  rg_default_rules def; /* its own key unless the user names another (--pub) or none (--allow-unsigned) */
  rg_status st = rg_default_rules_find(!o->pub && !o->allow_unsigned, &def, err);
  if (st) return st;
  rg_rules_load_opts named = *o;
  named.path = def.db, named.pub = o->pub ? o->pub : def.pub;
  pv->default_set = def.db;
  /* Its unproved rules are rulegen's record of candidates it could not prove (rulesdb show lists
   * them), skipped as always: nothing the user can act on, so not a warning here. */
  rg_strbuf quiet;
  rg_sb_init(&quiet);
  st = load_named(&named, out, pv, o->allow_unsigned ? warn : &quiet, err);
  rg_sb_free(&quiet);
  if (st && st != RG_ERR_NOMEM) { /* say whose file it is and what to do */
    char msg[sizeof err->msg];
    int n = snprintf(msg, sizeof msg, "%s", err->msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0; /* the note goes on its line */
    rg_err_set(err, st, "%s (graphopt's default rule set, checked with %s: reinstall graphopt, or name a rule set "
                        "with --rules)", msg, named.pub ? named.pub : "no key (--allow-unsigned)");
  }
  return st;
}

void rg_rules_provenance_print(const rg_rules_provenance *pv, rg_strbuf *out) {
  rg_sb_printf(out, "rules: %d applied of %d read", pv->used, pv->read);
  if (pv->default_set) rg_sb_printf(out, " from the default set (%s)", pv->default_set);
  if (pv->signed_proofs) rg_sb_printf(out, "; proved by the signed database");
  if (pv->proved) rg_sb_printf(out, "; %d proved by z3 and cvc5 (%d from the proof cache)", pv->proved, pv->cached);
  if (pv->unproved_left_out) rg_sb_printf(out, "; %d not proved, left out", pv->unproved_left_out);
  rg_sb_printf(out, " (%.2f s)\n", pv->seconds);
  if (pv->unproved_used)
    rg_sb_printf(out, "WARNING: %d rules applied WITHOUT PROOF (--unproved-rules): the numeric check is all that "
                      "stands behind this model\n", pv->unproved_used);
}

void rg_rules_provenance_json(const rg_rules_provenance *pv, rg_strbuf *out) {
  rg_sb_printf(out,
               "\"rules\": {\"read\": %d, \"used\": %d, \"signed_proofs\": %d, \"proved\": %d, \"from_proof_cache\": %d, "
               "\"unproved_used\": %d, \"unproved_left_out\": %d, \"seconds\": %.3f, \"default_set\": ",
               pv->read, pv->used, pv->signed_proofs, pv->proved, pv->cached, pv->unproved_used, pv->unproved_left_out,
               pv->seconds);
  if (pv->default_set) rg_json_string(out, pv->default_set);
  else rg_sb_puts(out, "null");
  rg_sb_puts(out, "}, ");
}
