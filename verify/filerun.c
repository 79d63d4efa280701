/* verify/filerun.c: the verify stages over files (filerun.h). */
#include "filerun.h"

#include <stdlib.h>
#include <string.h>

#include "ir/text.h"

/* Loads the rule file path into *rules, every rule with a target (bare: what it cannot do). */
static rg_status load_rules(const char *path, rg_ruleset *rules, const char *bare, rg_err *err) {
  rg_status st = rg_text_parse_file(path, rules, err);
  for (int i = 0; !st && bare && i < rules->n; i++)
    if (rules->rules[i]->n_tgt == 0)
      st = rg_err_at(err, RG_ERR_ARG, rules->rules[i]->line, 1, "a bare graph (no '=> target') %s",
                     bare);
  return st;
}

rg_status rg_prove_check_outputs(const rg_prove_opts *o, const char *json, rg_err *err) {
  char probe[4096];
  rg_err e;
  snprintf(probe, sizeof probe, "%s/x.smt2", o->dump_dir ? o->dump_dir : ".");
  const char *opt = o->journal && rg_path_check_writable(o->journal, &e) ? "--journal"
                    : o->dump_dir && rg_path_check_writable(probe, &e)   ? "--dump"
                    : json && rg_path_check_writable(json, &e)           ? "--json"
                                                                          : NULL;
  return opt ? rg_err_set(err, RG_ERR_IO, "%s: %s", opt, e.msg) : RG_OK;
}

rg_status rg_prove_file(const char *rules_path, const char *axioms_path, const rg_prove_opts *o,
                        rg_prove_run *run, const char **file, rg_err *err) {
  memset(run, 0, sizeof *run);
  rg_ruleset_init(&run->rules);
  *file = axioms_path;
  rg_status st = rg_axioms_load(axioms_path, &run->ax, err);
  if (st) return st;
  *file = rules_path;
  st = rg_text_parse_file(rules_path, &run->rules, err);
  if (st) return st;
  *file = NULL;
  run->proofs = calloc((size_t)run->rules.n + 1, sizeof *run->proofs);
  if (!run->proofs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  st = rg_prove_rules(&run->rules, &run->ax, o, run->proofs, &run->sum, err);
  /* Errors with a line are about a rule of the rule file, or an axiom of the axiom file. */
  if (st && err->line) *file = !strncmp(err->msg, "axiom ", 6) ? axioms_path : rules_path;
  return st;
}

void rg_prove_run_free(rg_prove_run *run) {
  rg_rule_proofs_free(run->proofs, run->rules.n);
  free(run->proofs);
  rg_ruleset_free(&run->rules);
  rg_axioms_free(&run->ax);
  memset(run, 0, sizeof *run);
}

const char *rg_proof_error(const rg_rule_proof *p) {
  if (p->false_proof)
    return "a solver proved the rule, but its sides differ at some shapes: an axiom of its unsat "
           "cores is unsound (run rulegen check-axioms --assignments 200)";
  if (p->disagree)
    return "the solvers disagree: one proved the rule, the other refuted it (sat): an axiom or a "
           "solver is wrong";
  return NULL;
}

rg_status rg_recheck_file(const char *path, const rg_recheck_opts *o, rg_recheck_run *run,
                          const char **file, rg_err *err) {
  memset(run, 0, sizeof *run);
  rg_ruleset_init(&run->rules);
  *file = path;
  rg_status st = load_rules(path, &run->rules, "has nothing to recheck", err);
  if (st) return st;
  *file = NULL;
  run->verdicts = calloc((size_t)run->rules.n + 1, sizeof *run->verdicts);
  if (!run->verdicts) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return rg_recheck_rules(&run->rules, NULL, o, run->verdicts, &run->differ, err);
}

void rg_recheck_run_free(rg_recheck_run *run) {
  free(run->verdicts);
  rg_ruleset_free(&run->rules);
  memset(run, 0, sizeof *run);
}

rg_status rg_axioms_check_file(const char *path, const rg_axcheck_opts *o, rg_axcheck_run *run,
                               const char **file, rg_err *err) {
  memset(run, 0, sizeof *run);
  *file = path;
  rg_status st = rg_axioms_load(path, &run->ax, err);
  if (st) return st;
  *file = NULL;
  run->verdicts = calloc((size_t)run->ax.rules.n + 1, sizeof *run->verdicts);
  if (!run->verdicts) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return rg_axioms_check(&run->ax, o, run->verdicts, &run->unsound, err);
}

void rg_axcheck_run_free(rg_axcheck_run *run) {
  free(run->verdicts);
  rg_axioms_free(&run->ax);
  memset(run, 0, sizeof *run);
}
