/* verify/proofcache_checks.c: the axiom check and the recheck through a proof cache's journal
 * (proofcache_checks.h). */
#include "proofcache_checks.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ir.h"

#define PASS_TIMEOUT_MS 1 /* a pass's time-limit field: a check has none */
#define AXIOMS_SOUND "axioms-sound"
#define RECHECK_AGREES "recheck-agrees "
#define RECHECK_UNTYPED "recheck-untyped"
#define REFUTE_AGREES "refute-agrees"

/* BLAKE2b-256 of text (and extra bytes, may be NULL), as 64 hex digits. */
static void key_of(const rg_strbuf *text, const unsigned char *extra, size_t n_extra, char hex[65]) {
  crypto_generichash_state st;
  unsigned char h[32];
  crypto_generichash_init(&st, NULL, 0, sizeof h);
  crypto_generichash_update(&st, (const unsigned char *)rg_sb_str(text), text->len);
  if (extra) crypto_generichash_update(&st, extra, n_extra);
  crypto_generichash_final(&st, h, sizeof h);
  sodium_bin2hex(hex, 65, h, sizeof h);
}

/* The core of the pass j holds under key, or NULL. */
static const char *pass_held(const rg_journal *j, const char *key, rg_solver_answer *ans) {
  return rg_journal_lookup(j, key, 0, PASS_TIMEOUT_MS, ans) && ans->result == RG_SMT_UNSAT ? ans->core : NULL;
}

/* Appends a pass; a failure to write it costs the next run the check, not this one its result. */
static void pass_add(rg_journal *j, const char *key, const char *core, double ms) {
  rg_solver_answer ans = {.result = RG_SMT_UNSAT, .ms = ms};
  snprintf(ans.core, sizeof ans.core, "%s", core);
  rg_err e;
  if (rg_journal_append(j, key, 0, PASS_TIMEOUT_MS, &ans, &e))
    fprintf(stderr, "rulegen: warning: a check's pass is not kept in the proof cache: %s\n", e.msg);
}

rg_status rg_axioms_check_journaled(rg_journal *j, const rg_axioms *ax, const rg_axcheck_opts *o,
                                    rg_axiom_verdict *verdicts, int *n_unsound, bool *taken, rg_err *err) {
  *taken = false;
  char key[65];
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_sb_printf(&sb, "rulegen axiom check %d\nseed %llu assignments %d trials %d source_only %d\naxioms ",
               RG_AXCHECK_REVISION, (unsigned long long)o->seed, o->assignments, o->trials, (int)o->source_only);
  key_of(&sb, ax->digest, sizeof ax->digest, key);
  rg_sb_free(&sb);
  rg_solver_answer ans;
  const char *core = j ? pass_held(j, key, &ans) : NULL;
  if (core && !strcmp(core, AXIOMS_SOUND)) {
    memset(verdicts, 0, sizeof *verdicts * (size_t)ax->rules.n);
    for (int i = 0; i < ax->rules.n; i++) verdicts[i].sound = true;
    *n_unsound = 0, *taken = true;
    return RG_OK;
  }
  double t0 = rg_clock_ms();
  rg_status st = rg_axioms_check(ax, o, verdicts, n_unsound, err);
  if (!st && j && *n_unsound == 0) pass_add(j, key, AXIOMS_SOUND, rg_clock_ms() - t0);
  return st;
}

/* r's text without its name, after sb's header. */
static void put_unnamed(const rg_rule *r, rg_strbuf *sb) {
  rg_rule unnamed = *r; /* shares the graph; never freed */
  unnamed.name[0] = 0;
  rg_text_print_rule(&unnamed, sb);
}

bool rg_refute_pass_held(rg_journal *j, const rg_rule *r, int n_sets, uint64_t seed, char key[65]) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_sb_printf(&sb, "rulegen refute %d\nsets %d seed %llu\n", RG_AXCHECK_REVISION, n_sets, (unsigned long long)seed);
  put_unnamed(r, &sb);
  key_of(&sb, NULL, 0, key);
  rg_sb_free(&sb);
  rg_solver_answer ans;
  const char *core = j ? pass_held(j, key, &ans) : NULL;
  return core && !strcmp(core, REFUTE_AGREES);
}

void rg_refute_pass_keep(rg_journal *j, const char key[65], double ms) { pass_add(j, key, REFUTE_AGREES, ms); }

/* The key of rule r's recheck under o (proofcache_checks.h). */
static void recheck_key(const rg_rule *r, const rg_recheck_opts *o, char key[65]) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_sb_printf(&sb, "rulegen recheck %d\nseed %llu assignments %d trials %d\n", RG_AXCHECK_REVISION,
               (unsigned long long)o->seed, o->assignments, o->trials);
  put_unnamed(r, &sb);
  for (int32_t v = 0; v < rg_graph_n_tvars(r->g); v++) {
    const char *name = rg_graph_tvar_name(r->g, v);
    const rg_shape *s = o->var_shape ? o->var_shape(o->var_shape_ctx, name) : NULL;
    char buf[160];
    rg_sb_printf(&sb, "\n%s %s", name, s ? rg_shape_format_seams(s, buf, sizeof buf) : "-");
  }
  key_of(&sb, NULL, 0, key);
  rg_sb_free(&sb);
}

/* The verdict a kept pass says into *v; false when the core is none of a pass's. */
static bool verdict_of(const char *core, rg_recheck_verdict *v) {
  memset(v, 0, sizeof *v);
  size_t n = strlen(RECHECK_AGREES);
  if (!strcmp(core, RECHECK_UNTYPED)) {
    v->untyped = true;
    snprintf(v->why, sizeof v->why, "no assignment types both sides (kept in the proof cache)");
    return true;
  }
  if (strncmp(core, RECHECK_AGREES, n)) return false;
  char *end;
  long a = strtol(core + n, &end, 10);
  if (end == core + n || *end || a < 0) return false;
  v->assignments = (int)a;
  return true;
}

typedef struct {
  rg_journal *j;
  char (*keys)[65];
} pass_sink;

/* A recheck's pass kept as soon as it is known (rg_recheck_opts.on_verdict). */
static void keep_pass(void *ctx, int i, const rg_recheck_verdict *v, double ms) {
  const pass_sink *s = ctx;
  if (v->differs || v->skipped) return;
  char core[64];
  if (v->untyped) snprintf(core, sizeof core, "%s", RECHECK_UNTYPED);
  else snprintf(core, sizeof core, "%s%d", RECHECK_AGREES, v->assignments);
  pass_add(s->j, s->keys[i], core, ms);
}

rg_status rg_recheck_rules_journaled(rg_journal *j, const rg_ruleset *rules, const bool *pick,
                                     const rg_recheck_opts *o, rg_recheck_verdict *verdicts, int *n_differ,
                                     bool *taken, int *n_taken, rg_err *err) {
  *n_taken = 0;
  if (taken) memset(taken, 0, sizeof *taken * (size_t)rules->n);
  if (!j) return rg_recheck_rules(rules, pick, o, verdicts, n_differ, err);
  char (*keys)[65] = calloc((size_t)rules->n + 1, sizeof *keys);
  bool *run = calloc((size_t)rules->n + 1, sizeof *run);
  if (!keys || !run) return free(keys), free(run), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; i < rules->n; i++) {
    if (pick && !pick[i]) continue;
    recheck_key(rules->rules[i], o, keys[i]);
    rg_solver_answer ans;
    const char *core = pass_held(j, keys[i], &ans);
    bool held = core && verdict_of(core, &verdicts[i]);
    run[i] = !held;
    *n_taken += held;
    if (taken) taken[i] = held;
  }
  pass_sink sink = {j, keys};
  rg_recheck_opts ro = *o;
  ro.on_verdict = keep_pass, ro.verdict_ctx = &sink;
  rg_status st = rg_recheck_rules(rules, run, &ro, verdicts, n_differ, err);
  free(keys), free(run);
  return st;
}
