/* synth/finish.c: pruning, proofs, derivability and output after random testing (the
 * order and its reasons are in synth/finish.h). Every rule keeps its index into the candidate
 * set throughout, so proofs, removals and the output refer to one numbering. */
#define _POSIX_C_SOURCE 200809L
#include "finish.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "checkpoint.h"
#include "derive_spread.h"
#include "hollow.h"
#include "prune/prune.h"
#include "renamings.h"
#include "rounds.h"
#include "rulesdb/rulesdb.h"
#include "spread.h"
#include "verify/journal.h"
#include "verify/proofcache.h"

/* One proof round's records (rg_rule_proofs_free releases what they own). */
typedef struct {
  rg_rule_proof *p;
  int n;
  double seconds; /* the round's wall time, the ranks' part under mpirun included */
} proof_block;

typedef struct {
  const rg_finish_opts *o;
  rg_ruleset cand;        /* every candidate, owned; a removed one may be hollow (NULL) */
  rg_hollow hollow;       /* the hollow candidates' text */
  rg_renamings renamings; /* the candidates made hollow as they were parsed */
  rg_prune_result before; /* renaming, subgraph, supergraph over cand */
  rg_rule_proof **proof;  /* [cand.n]: NULL until the rule is sent to the solvers or given a
                           * renamed copy's verdict (it then points to its original's); the
                           * records live in blocks, one per proof round, since most candidates
                           * never reach the solvers */
  proof_block *blocks;    /* [n_blocks], owned */
  int n_blocks;
  bool *copied;           /* [cand.n]: verdict copied from the unproved rule it renames */
  rg_prove_summary sum;   /* totals over every proof call */
  char journal[4200];     /* where the solvers' answers are kept, for the report ("" none) */
  int cache_refused;      /* its lines not believed */
  int *verified;          /* indices into cand of the rules that passed --require */
  int n_verified;
  rg_prune_result derive; /* over the verified rules, in the order of verified[] */
  bool derive_run;
  double t_prune, t_prove, t_derive;
  int reinstated;
  int renamed_unproved; /* reinstated renamed copies that took their original's failed verdict */
  int rederived;        /* reinstated rules derived again (removed again, not proved) */
  rg_progress line;     /* of the pruning stage running */
  bool checkpoints;     /* saved next to the output (a file, not a device) */
  rg_checkpoint_key key;
  rg_checkpoint_key final_key; /* OUT.final's: key and the proved rules */
  rg_rounds *rounds;           /* OUT.rounds, while the proof rounds run (NULL: none) */
} finish;

/* Whether Ctrl-C (rg_finish_opts.stop) asked the run to stop. */
static bool asked_to_stop(const rg_finish_opts *o) { return o->stop && *o->stop; }

/* Where the stage table's rows go. */
static FILE *T(const rg_finish_opts *o) { return o->table ? o->table : stderr; }

static void prune_progress(void *ctx, const char *stage, int done, int total) {
  finish *f = ctx;
  if (!strcmp(stage, "derivability")) rg_kill_point("derive", done);
  if (!strcmp(stage, "derivability, second pass")) rg_kill_point("derive2", done);
  rg_progress_stage(&f->line, stage, "rules", done, total, !f->o->quiet);
}

/* A ruleset that borrows some of cand's rules (never freed with rg_ruleset_free). */
static rg_ruleset borrow(const finish *f, const int *idx, int n) {
  rg_ruleset rs = {malloc(sizeof(rg_rule *) * (size_t)(n ? n : 1)), n, n};
  for (int i = 0; rs.rules && i < n; i++) rs.rules[i] = f->cand.rules[idx[i]];
  if (!rs.rules) rs.n = 0;
  return rs;
}

/* Rules put back are first searched against the proved rules and the put-back rules kept
 * before them: one they derive needs no proof of its own (and comes back only if a put-back rule
 * its record names fails), so a round sends the solvers what derivability would have kept of
 * the put-back rules, not all of them. */
static rg_status rederive_put_back(finish *f, const bool *dropped, bool *taken, rg_err *err) {
  int n = f->cand.n;
  bool *usable = calloc((size_t)n + 1, sizeof(bool)), *retry = calloc((size_t)n + 1, sizeof(bool));
  rg_status st = usable && retry ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < n; i++) {
    usable[i] = f->proof[i] && f->proof[i]->shipped && !f->copied[i];
    retry[i] = f->before.e[i].fate == RG_FATE_KEPT && !f->proof[i];
  }
  rg_prune_opts po = rg_prune_opts_default();
  po.stop = f->o->stop;
  po.progress = prune_progress, po.progress_ctx = f;
  int removed = 0, from = f->before.removal_seq_n;
  /* A resumed run or a warm rerun takes the round's removals from OUT.rounds (synth/rounds.h). */
  if (!st) rg_rounds_next(f->rounds, dropped, usable, retry, n);
  if (!st)
    st = rg_rounds_take(f->rounds, (const rg_rule *const *)f->cand.rules, n, &f->before, usable,
                        retry, taken, &removed, err);
  if (!st && !*taken) { /* the talk closed whatever happened once opened */
    rg_derive_spread ds;
    st = rg_derive_spread_open(&ds, &po, err);
    if (!st) st = rg_prune_rederive(&f->cand, &po, &f->before, usable, retry, &removed, err);
    st = rg_derive_spread_close(&ds, &po, st, err);
  }
  if (!st && !*taken && !f->before.interrupted) rg_rounds_save(f->rounds, &f->before, from);
  rg_progress_finish(&f->line);
  f->rederived += removed;
  free(usable);
  free(retry);
  return st;
}

/* A renamed copy of a rule that failed its proof has the same obligation up to variable names:
 * once put back, it takes that verdict (never a proof) instead of burning the solvers'
 * timeouts. renamed_from[i] is the rule i renames (-1: none), as before the reinstatement. */
static void copy_failed_verdicts(finish *f, const int *renamed_from, bool *dropped) {
  for (int i = 0; i < f->cand.n; i++)
    if (renamed_from[i] >= 0 && f->before.e[i].fate == RG_FATE_KEPT && dropped[renamed_from[i]]) {
      f->proof[i] = f->proof[renamed_from[i]];
      dropped[i] = f->copied[i] = true;
      f->renamed_unproved++;
    }
}

/* Sends the m rules idx[] to the solvers as one proof round (its records a new block). */
static rg_status prove_round(finish *f, const rg_axioms *ax, rg_prove_opts *po, const int *idx, int m,
                             bool *dropped, rg_err *err) {
  rg_rule_proof *p = calloc((size_t)m, sizeof *p);
  proof_block *grown = realloc(f->blocks, sizeof *grown * (size_t)(f->n_blocks + 1));
  if (grown) f->blocks = grown;
  if (!p || !grown) {
    free(p);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  double t0 = rg_clock_seconds();
  f->blocks[f->n_blocks++] = (proof_block){p, m, 0};
  rg_ruleset rs = borrow(f, idx, m);
  rg_prove_summary s;
  rg_spread_work ranks; /* under mpirun, the ranks prove the round first (synth/spread.h) */
  rg_status st = rs.rules ? rg_spread_prove(&rs, ax, po, &ranks, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_prove_opts round = *po;
  round.check_axioms = po->check_axioms && !ranks.axioms_checked;
  if (!st) st = rg_prove_rules(&rs, ax, &round, p, &s, err);
  if (!st) rg_spread_account(&s, &ranks);
  f->blocks[f->n_blocks - 1].seconds = rg_clock_seconds() - t0;
  free(rs.rules);
  if (st) return st;
  if (s.cache_refused > f->cache_refused) f->cache_refused = s.cache_refused; /* counted across rounds */
  rg_prove_summary_add(&f->sum, &s);
  for (int k = 0; k < m; k++) {
    f->proof[idx[k]] = &p[k];
    dropped[idx[k]] = !p[k].shipped;
  }
  return RG_OK;
}

/* Puts back the rules whose removal a failed proof justified; returns how many, and sends
 * what derivability keeps of them to the next round. */
static rg_status reinstate(finish *f, int round, int *renamed_from, bool *dropped, int *back, rg_err *err) {
  int n = f->cand.n;
  for (int i = 0; i < n; i++)
    renamed_from[i] = f->before.e[i].fate == RG_FATE_RENAMING && f->before.e[i].n_by ? f->before.e[i].by[0] : -1;
  int copied_before = f->renamed_unproved, derived_before = f->rederived;
  *back = rg_prune_reinstate(&f->before, dropped);
  f->reinstated += *back;
  if (!*back) return RG_OK;
  rg_status st = RG_OK;
  for (int i = 0; !st && i < n; i++)
    if (f->before.e[i].fate == RG_FATE_KEPT) st = rg_hollow_restore(&f->hollow, &f->cand, i, err);
  if (st) return st;
  copy_failed_verdicts(f, renamed_from, dropped);
  bool taken = false;
  st = rederive_put_back(f, dropped, &taken, err);
  /* Said as it happens: on a large run the rounds are where the time can go (not when Ctrl-C
   * cut the search short: its counts are not the round's). */
  if (!st && !f->o->quiet && !asked_to_stop(f->o))
    fprintf(stderr,
            "rulegen: round %d: %d rules put back: %d derived again%s, %d "
            "renamed copies of unproved rules, %d to the solvers\n",
            round + 1, *back, f->rederived - derived_before,
            taken ? " (taken from OUT.rounds)" : "", f->renamed_unproved - copied_before,
            *back - (f->rederived - derived_before) - (f->renamed_unproved - copied_before));
  return st;
}

rg_status rg_finish_prove_opts(const rg_finish_opts *o, rg_prove_opts *po,
                               rg_solver solvers[RG_SOLVER_COUNT], char **journal, char *where,
                               size_t where_size, rg_err *err) {
  char dir[4096], file[4400];
  bool use;
  *po = o->prove, *journal = NULL;
  memset(solvers, 0, sizeof *solvers * RG_SOLVER_COUNT);
  po->kept_solvers = solvers; /* set up once, by the first call that needs them */
  rg_status st =
      rg_proof_cache_choose(o->proof_cache, o->no_proof_cache, dir, sizeof dir, &use, err);
  if (!st && use) st = rg_proof_cache_journal(dir, po, file, sizeof file, err);
  if (st) return st;
  *journal = use ? strdup(file) : o->out_path ? rg_path_with_suffix(o->out_path, ".proofs") : NULL;
  if ((use || o->out_path) && !*journal) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  snprintf(where, where_size, "%s%s", use ? "the proof cache " : "", use ? dir : *journal ? *journal : "");
  po->journal = *journal, po->journal_cache = !o->no_proof_cache;
  return RG_OK;
}

/* Proves the kept rules not yet attempted; repeats while failed proofs reinstate rules whose
 * removal they justified. */
static rg_status prove_kept(finish *f, const rg_axioms *ax, rg_err *err) {
  int n = f->cand.n, *idx = malloc(sizeof(int) * (size_t)(n ? n : 1));
  int *renamed_from = malloc(sizeof(int) * (size_t)(n ? n : 1));
  bool *dropped = calloc((size_t)n + 1, sizeof(bool));
  rg_prove_opts po;
  rg_solver solvers[RG_SOLVER_COUNT];
  /* Answers go to the proof cache as they come (else OUT.proofs): a run stopped in its proofs
   * and started again, or any later run, asks the solvers only what they had not answered. */
  char *journal = NULL;
  rg_status st =
      rg_finish_prove_opts(f->o, &po, solvers, &journal, f->journal, sizeof f->journal, err);
  if (!st && !(idx && dropped && renamed_from)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_journal *kept = NULL; /* the rounds read the journal once, then what was appended since */
  po.kept_journal = &kept;
  f->rounds = f->checkpoints ? rg_rounds_open(f->o->out_path, &f->key) : NULL;
  for (int round = 0, back = 1; st == RG_OK && back; round++) {
    int m = 0;
    for (int i = 0; i < n; i++)
      if (f->before.e[i].fate == RG_FATE_KEPT && !f->proof[i]) idx[m++] = i;
    if (m == 0) break;
    po.check_axioms = round == 0; /* the axioms do not change between rounds */
    st = prove_round(f, ax, &po, idx, m, dropped, err);
    if (st || asked_to_stop(f->o)) break;
    rg_kill_point("prove", round + 1); /* its answers in the cache, its bookkeeping not done */
    st = reinstate(f, round, renamed_from, dropped, &back, err);
  }
  rg_journal_close(kept);
  rg_rounds_close(f->rounds);
  f->rounds = NULL;
  free(renamed_from), free(idx), free(dropped), free(journal);
  return st;
}

/* A checkpoint that cannot be saved costs a resumed run that stage again, not this run. */
static void save_checkpoint(const finish *f, rg_checkpoint_kind kind, const rg_checkpoint_key *k,
                            const rg_prune_result *res) {
  rg_err err;
  if (f->checkpoints && rg_checkpoint_save(f->o->out_path, kind, k, res, &err))
    fprintf(stderr, "rulegen: warning: the checkpoint was not saved (%s): a resumed run does this stage again\n",
            err.msg);
}

/* OUT.final as it stands (rg_prune_opts.save while derivability over the proved rules runs,
 * and once it ends). */
static void save_final(void *ctx, const rg_prune_result *res) {
  const finish *f = ctx;
  save_checkpoint(f, RG_CHECKPOINT_FINAL, &f->final_key, res);
}

static void final_progress(void *ctx, const char *stage, int done, int total) {
  rg_kill_point("final", done);
  prune_progress(ctx, stage, done, total);
}

/* Derivability over the proved rules: taken from OUT.final when an earlier run of the same
 * candidates proved the same rules (a warm rerun), gone on with when it was saved part way. */
static rg_status run_derive(finish *f, rg_err *err) {
  rg_ruleset rs = borrow(f, f->verified, f->n_verified);
  if (!rs.rules) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_prune_opts po = rg_prune_opts_default();
  po.stages = RG_PRUNE_DERIVE;
  po.stop = f->o->stop;
  po.progress = final_progress, po.progress_ctx = f;
  if (f->checkpoints) {
    rg_checkpoint_key_final(&f->final_key, &f->key, f->verified, f->n_verified);
    po.save = save_final, po.save_ctx = f, po.save_every = f->o->save_every;
  }
  bool saved = f->checkpoints && rg_checkpoint_final(f->o->out_path, &f->final_key, &f->derive);
  bool part_way = saved && f->derive.derive_pass;
  rg_status st = RG_OK;
  if (!saved || part_way) { /* the talk closed whatever happened once opened */
    rg_derive_spread ds;
    st = rg_derive_spread_open(&ds, &po, err);
    if (!st)
      st = saved ? rg_prune_run_derive(&rs, &po, &f->derive, err)
                 : rg_prune_run(&rs, &po, &f->derive, err);
    st = rg_derive_spread_close(&ds, &po, st, err);
  }
  rg_progress_finish(&f->line);
  /* Ctrl-C: its progress is kept for the next run */
  if (!st && (!saved || part_way) && (!f->derive.interrupted || f->derive.derive_pass))
    save_final(f, &f->derive);
  f->derive_run = st == RG_OK;
  free(rs.rules);
  return st;
}

/* Is verified rule k (index into verified[]) in the final set? */
static bool final_kept(const finish *f, int k) {
  return !f->derive_run || f->derive.e[k].fate == RG_FATE_KEPT;
}

/* ---- output ---- */

static rg_status write_text(const finish *f, FILE *out, rg_err *err) {
  int kept = 0;
  char versions[RG_SOLVER_COUNT * 100];
  for (int k = 0; k < f->n_verified; k++) kept += final_kept(f, k);
  if (f->o->stop_after < RG_FINISH_PROVE)
    fprintf(out, "# rulegen: %d rules after pruning, not proved (--stop-after prune)\n", kept);
  else if (!kept)
    fprintf(out, "# rulegen: 0 rules (solvers: %s)\n", rg_prove_summary_versions(&f->sum, versions, sizeof versions));
  else
    fprintf(out, "# rulegen: %d rules, each verified by %s (%s)\n", kept,
            f->o->prove.require == RG_REQUIRE_BOTH ? "both z3 and cvc5" : "z3 or cvc5",
            rg_prove_summary_versions(&f->sum, versions, sizeof versions));
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int k = 0; k < f->n_verified; k++) {
    if (!final_kept(f, k)) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(f->cand.rules[f->verified[k]], &sb);
    fprintf(out, "%s\n", rg_sb_str(&sb));
  }
  bool failed = sb.failed;
  rg_sb_free(&sb);
  return failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* The removal records of both pruning runs, in removal order, and their end line
 * (prune/record.h). */
static rg_status write_records(const finish *f, FILE *fp, rg_err *err) {
  rg_status st =
      rg_prune_write_records_texts(fp, &f->cand, rg_hollow_text, &f->hollow, &f->before, err);
  if (!st && f->derive_run) {
    rg_ruleset rs = borrow(f, f->verified, f->n_verified);
    st = rs.rules ? rg_prune_write_records(fp, &rs, &f->derive, err)
                  : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    free(rs.rules);
  }
  if (!st) st = rg_prune_write_records_end(fp, err);
  return st;
}

/* The rules left unproved, each with its status and, where there is one, its counterexample. */
static void write_unproved(const finish *f, FILE *fp) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int i = 0; i < f->cand.n; i++) {
    const rg_rule_proof *p = f->proof[i];
    if (!p || p->shipped) continue;
    rg_sb_clear(&sb);
    rg_text_print_rule(f->cand.rules[i], &sb);
    fprintf(fp, "# %s%s\n", rg_proof_status_name(p->status),
            f->copied[i]     ? " (a renamed copy of an unproved rule, not sent to the solvers)"
            : p->disagree    ? " (the solvers disagree)"
            : p->false_proof ? " (FALSE PROOF: proved, but the sides differ at some shapes)"
            : p->refuted     ? " (the sides differ at some shapes, not sent to the solvers)"
                             : "");
    if ((p->refuted || p->false_proof) && !f->copied[i]) fprintf(fp, "#   %s\n", p->refutation);
    if (p->false_proof && !f->copied[i]) {
      char suspects[1024];
      rg_proof_suspects(p, suspects, sizeof suspects);
      fprintf(fp, "#   suspect axioms (its unsat cores): %s\n", suspects);
    }
    fprintf(fp, "%s\n", rg_sb_str(&sb));
  }
  rg_sb_free(&sb);
}

/* OUT.removed (removal records of both pruning runs, prune/record.h) and OUT.unproved, each
 * written whole or not at all; they are written before OUT, so that a new OUT never stands
 * beside old side files. */
static rg_status write_side_files(const finish *f, const char *out_path, rg_err *err) {
  size_t n = strlen(out_path) + 16;
  char *path = malloc(n);
  if (!path) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_atomic_file a;
  snprintf(path, n, "%s.removed", out_path);
  rg_status st = rg_atomic_open(&a, path, err);
  if (!st) {
    st = write_records(f, a.f, err);
    if (!st) st = rg_atomic_commit(&a, err);
    else rg_atomic_abort(&a);
  }
  snprintf(path, n, "%s.unproved", out_path);
  if (!st) st = rg_atomic_open(&a, path, err);
  if (!st) write_unproved(f, a.f), st = rg_atomic_commit(&a, err);
  free(path);
  return st;
}

static char *joined_ids(const rg_db_id *ids, int n) {
  char *s = calloc((size_t)n * (RG_DB_ID_LEN + 1) + 1, 1);
  for (int i = 0; s && i < n; i++) {
    if (i) strcat(s, " ");
    strcat(s, ids[i].hex);
  }
  return s;
}

/* Test records: each stored rule is compared again, in both domains, at shapes the solver finds
 * for it (from its variables' input-set shapes, where they type it), exactly as `rulesdb audit`
 * re-runs them (rg_rule_compare with rg_eval_ctx_init(seed)). A rule the solver finds no shapes
 * for (a reshape to a fixed size of a conv's output, named otherwise than the inputs) gets no
 * test record, and is counted in *untested: that must not sink the run. */
static rg_status add_tests(rg_db *db, const finish *f, const rg_rule *r, const rg_db_id *id, int *untested,
                           rg_err *err) {
  uint64_t seed = f->o->test_seed;
  int32_t nt = rg_graph_n_tvars(r->g);
  const rg_shape **named = calloc((size_t)nt + 1, sizeof *named);
  if (!named) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  bool all = f->o->prove.var_shape != NULL;
  for (int32_t v = 0; all && v < nt; v++)
    all = (named[v] = f->o->prove.var_shape(f->o->prove.var_shape_ctx, rg_graph_tvar_name(r->g, v)));
  rg_binding base = {named, NULL, NULL};
  rg_assignment_list l;
  rg_status st = rg_shapes_solve(r, all ? &base : NULL, seed, 1, &l, err);
  free(named);
  if (st == RG_ERR_SHAPE) {
    (*untested)++;
    rg_assignment_list_free(&l);
    return RG_OK;
  }
  rg_strbuf shapes, params;
  rg_sb_init(&shapes), rg_sb_init(&params);
  for (int32_t v = 0; !st && v < rg_graph_n_tvars(r->g); v++) {
    char buf[96];
    rg_sb_printf(&shapes, "%s%s=%s", v ? " " : "", rg_graph_tvar_name(r->g, v),
                 rg_shape_format_seams(&l.items[0].shapes[v], buf, sizeof buf));
  }
  for (int32_t v = 0; !st && v < rg_graph_n_pvars(r->g); v++)
    rg_sb_printf(&params, "%s%s=%d", v ? " " : "", rg_graph_pvar_name(r->g, v), l.items[0].pvar_values[v]);
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, seed);
  for (int d = 0; !st && d < 2; d++) {
    rg_cmp_result res;
    st = rg_rule_compare(r, &l.items[0].binding, (rg_domain)d, &ctx, seed, 2, &res, err);
    const char *verdict = res.verdict == RG_CMP_AGREE ? "agree" : res.verdict == RG_CMP_TYPE ? "type" : "value";
    if (!st)
      st = rg_db_add_test(db, &(rg_db_test){*id, (char *)rg_domain_name((rg_domain)d), 2, seed,
                                             (char *)rg_sb_str(&shapes), (char *)rg_sb_str(&params),
                                             (char *)verdict},
                          err);
  }
  rg_sb_free(&shapes), rg_sb_free(&params);
  rg_assignment_list_free(&l);
  return st;
}

static rg_status add_rule(rg_db *db, const finish *f, int i, rg_db_status status, rg_db_id *id, int *untested,
                          rg_err *err) {
  rg_db_rule rec;
  rg_status st = rg_db_rule_make(f->cand.rules[i], status, &rec, err);
  if (!st) st = rg_db_add_rule(db, &rec, err);
  /* A copied verdict has no obligation of its own: its status says unproved, with no records. */
  if (!st && f->proof[i] && !f->copied[i])
    st = rg_db_add_rule_proof(db, &rec.id, f->proof[i], &f->sum, err);
  if (!st) st = add_tests(db, f, f->cand.rules[i], &rec.id, untested, err);
  *id = rec.id;
  rg_db_rule_clear(&rec);
  return st;
}

/* Pruning records: the removed rule, why, and the content ids of the rules that imply it. */
static rg_status add_prune_records(rg_db *db, const finish *f, const rg_prune_result *res,
                                   const int *map, const rg_db_id *ids, rg_err *err) {
  rg_status st = RG_OK;
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int k = 0; !st && k < res->n; k++) {
    const rg_prune_entry *e = &res->e[k];
    if (e->fate == RG_FATE_KEPT) continue;
    rg_db_id *by = malloc(sizeof *by * (size_t)(e->n_by + 1));
    for (int j = 0; by && j < e->n_by; j++) by[j] = ids[map[e->by[j]]];
    char *implied = by ? joined_ids(by, e->n_by) : NULL;
    rg_sb_clear(&sb);
    rg_hollow_print(&f->hollow, &f->cand, map[k], &sb);
    if (sb.failed)
      st = rg_err_set(err, RG_ERR_NOMEM, "out of memory, or a removed rule's text lost");
    char reason[64];
    if (e->fate == RG_FATE_DERIVED)
      snprintf(reason, sizeof reason, "derivable(k=%d)", e->n_steps);
    else snprintf(reason, sizeof reason, "%s", rg_prune_fate_name(e->fate));
    if (!st)
      st = implied
               ? rg_db_add_prune(
                     db, &(rg_db_prune){ids[map[k]], (char *)rg_sb_str(&sb), reason, implied}, err)
               : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    free(by);
    free(implied);
  }
  rg_sb_free(&sb);
  return st;
}

/* Every rule sent to the solvers, with its status, into db; the ids of all candidates into ids
 * (rules removed before the proofs are stored only as pruning records, which name their ids). */
static rg_status add_rules(rg_db *db, const finish *f, rg_db_id *ids, int *untested, rg_err *err) {
  rg_status st = RG_OK;
  for (int i = 0; !st && i < f->cand.n; i++) {
    if (f->proof[i])
      st = add_rule(db, f, i, rg_db_status_of_proof(f->proof[i]->status), &ids[i], untested, err);
    else
      st = rg_hollow_content_id(&f->hollow, &f->cand, i, &ids[i], err);
  }
  return st;
}

/* The whole stage table: the rows before (pre), pruning's, the proofs', derivability's. */
/* Appends a row, its dropped text copied into the report. */
static void add_row(rg_finish_report *r, rg_finish_stage row) {
  if (r->n_rows == RG_FINISH_MAX_ROWS) return;
  snprintf(r->why[r->n_rows], sizeof r->why[0], "%s", row.dropped ? row.dropped : "");
  row.dropped = r->why[r->n_rows];
  r->rows[r->n_rows++] = row;
}

static void fill_report(const finish *f, const rg_finish_stage *pre, int n_pre, rg_finish_report *r) {
  r->n_rows = 0;
  for (int k = 0; k < n_pre; k++) add_row(r, pre[k]);
  for (int k = 0; k < RG_PRUNE_STAGES; k++)
    if (f->before.stage[k].run)
      add_row(r, (rg_finish_stage){f->before.stage[k].name, f->before.stage[k].in, f->before.stage[k].out, "",
                                   f->before.stage[k].seconds});
  char why[256];
  size_t len = 0;
  for (int k = 0; k < RG_SOLVER_COUNT; k++)
    len += (size_t)snprintf(why + len, sizeof why - len, "%s-only:%d ", rg_solver_kind_name(k), f->sum.only[k]);
  snprintf(why + len, sizeof why - len, "unproved:%d (differ:%d false-proof:%d) skipped:%d", f->sum.unproved,
           f->sum.refuted, f->sum.false_proofs, f->sum.skipped);
  if (f->o->stop_after >= RG_FINISH_PROVE)
    add_row(r, (rg_finish_stage){"prove", f->sum.n_rules, f->sum.shipped, why, f->t_prove});
  if (f->derive_run) add_row(r, (rg_finish_stage){"derivability", f->derive.n, f->derive.kept, "", f->t_derive});
  r->sum = f->sum;
  r->filled = true;
}

static rg_status add_stages(rg_db *db, const finish *f, const rg_finish_stage *pre, int n_pre, rg_err *err) {
  rg_finish_report r;
  fill_report(f, pre, n_pre, &r);
  rg_status st = RG_OK;
  for (int k = 0; !st && k < r.n_rows; k++)
    st = rg_db_add_stage(db, &(rg_db_stage){(char *)r.rows[k].name, r.rows[k].n_in, r.rows[k].n_out,
                                            (char *)r.rows[k].dropped, r.rows[k].seconds}, err);
  return st;
}

/* Configuration: the generator's ("key=value" lines), the removal records in removal order
 * (so that an audit can replay every derivation), then the proof stage's (the audit reads
 * prove.all_axioms). */
static rg_status add_config(rg_db *db, const finish *f, rg_err *err) {
  rg_status st = RG_OK;
  for (const char *c = f->o->config ? f->o->config : ""; !st && *c;) {
    const char *eol = strchr(c, '\n'), *eq = strchr(c, '=');
    size_t len = eol ? (size_t)(eol - c) : strlen(c);
    if (eq && eq < c + len) {
      char *key = strndup(c, (size_t)(eq - c)), *val = strndup(eq + 1, len - (size_t)(eq - c) - 1);
      st = key && val ? rg_db_set_config(db, key, val, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      free(key), free(val);
    }
    c += len + (eol ? 1 : 0);
  }
  char *records = NULL;
  size_t records_len = 0;
  FILE *mf = st ? NULL : open_memstream(&records, &records_len);
  if (!st && !mf) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = write_records(f, mf, err);
  if (mf && fclose(mf) != 0 && !st) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = rg_db_set_config(db, "prune.records", records ? records : "", err);
  free(records);
  char num[32];
  snprintf(num, sizeof num, "%d", f->o->prove.timeout_ms);
  if (!st) st = rg_db_set_config(db, "prove.timeout_ms", num, err);
  if (!st) st = rg_db_set_config(db, "prove.require", f->o->prove.require == RG_REQUIRE_BOTH ? "both" : "any", err);
  if (!st) st = rg_db_set_config(db, "prove.all_axioms", f->o->prove.all_axioms ? "1" : "0", err);
  return st;
}

static rg_status write_db(const finish *f, const rg_finish_stage *pre, int n_pre, rg_err *err) {
  rg_db *db = rg_db_new();
  int n = f->cand.n;
  rg_db_id *ids = calloc((size_t)n + 1, sizeof *ids);
  int *identity = malloc(sizeof(int) * (size_t)(n + 1));
  rg_status st = db && ids && identity ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int untested = 0;
  for (int i = 0; identity && i < n; i++) identity[i] = i;
  if (!st) st = add_rules(db, f, ids, &untested, err);
  if (!st) st = add_prune_records(db, f, &f->before, identity, ids, err);
  if (!st && f->derive_run) st = add_prune_records(db, f, &f->derive, f->verified, ids, err);
  if (!st) st = add_stages(db, f, pre, n_pre, err);
  if (!st) st = add_config(db, f, err);
  if (!st) st = rg_db_save(db, f->o->out_path, f->o->key_path, NULL, err);
  if (!st && untested)
    fprintf(T(f->o), "output       %d rules stored without a test record: the shape solver found no shapes for "
                    "them (rulesdb audit --deep rechecks them from scratch)\n",
            untested);
  rg_db_free(db);
  free(ids);
  free(identity);
  return st;
}

/* Rule text, written whole or not at all to path (or the output's), so a failure or Ctrl-C
 * leaves the previous file (the database writer does the same on its own). */
static rg_status write_rules(const finish *f, const char *path, rg_err *err) {
  if (!path) path = f->o->out_path;
  if (!path) return write_text(f, stdout, err);
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  if (st) return st;
  st = write_text(f, a.f, err);
  if (st) {
    rg_atomic_abort(&a);
    return st;
  }
  if (path == f->o->out_path) rg_kill_point("write", 0); /* the output whole in its temporary */
  return rg_atomic_commit(&a, err);
}

/* After a database could not be written: the rules as text next to it (OUT.rules), said so. */
static void save_as_text(const finish *f) {
  char *path = rg_path_with_suffix(f->o->out_path, ".rules");
  rg_err err;
  if (!path) return;
  if (write_rules(f, path, &err))
    fprintf(stderr, "rulegen: the rules could not be saved as text either: %s\n", err.msg);
  else
    fprintf(stderr, "rulegen: the rules are saved as text in %s (rulesdb import --format text makes a database "
                    "of them)\n", path);
  free(path);
}

/* Printed as soon as pruning ends: a long proof stage that is interrupted keeps them. */
static void print_prune_rows(const finish *f) {
  for (int k = 0; k < RG_PRUNE_STAGES; k++)
    if (f->before.stage[k].run)
      fprintf(T(f->o), "prune        %-18s %8d -> %-8d                       %.2f s\n",
              f->before.stage[k].name, f->before.stage[k].in, f->before.stage[k].out,
              f->before.stage[k].seconds);
  rg_spread_print(T(f->o), "             ", 1u << RG_SPREAD_DERIVE);
}

/* Where a proof stage of several rounds spent its time: the rules and seconds of each (the
 * first 8, then the rest together). */
static void print_rounds(const finish *f) {
  if (f->n_blocks < 2) return;
  fprintf(T(f->o), "             %d proof rounds:", f->n_blocks);
  int rest = 0;
  double rest_s = 0;
  for (int b = 0; b < f->n_blocks; b++)
    if (b < 8)
      fprintf(T(f->o), "%s %d rule%s %.1f s", b ? "," : "", f->blocks[b].n, f->blocks[b].n == 1 ? "" : "s",
              f->blocks[b].seconds);
    else
      rest += f->blocks[b].n, rest_s += f->blocks[b].seconds;
  if (rest) fprintf(T(f->o), ", then %d rules %.1f s in %d more", rest, rest_s, f->n_blocks - 8);
  fprintf(T(f->o), "\n");
}

static void print_rows(const finish *f) {
  if (f->o->stop_after >= RG_FINISH_PROVE) {
    char differ[64] = "";
    if (f->sum.refuted)
      snprintf(differ, sizeof differ, " (%d differ at some shapes)", f->sum.refuted);
    fprintf(T(f->o), "prove        %d rules: %d verified by %s", f->sum.n_rules, f->sum.verified,
            RG_SOLVER_COUNT == 2 ? "both" : "all");
    for (int k = 0; k < RG_SOLVER_COUNT; k++) fprintf(T(f->o), ", %d %s only", f->sum.only[k], rg_solver_kind_name(k));
    fprintf(T(f->o), ", %d unproved%s%s   %.2f s\n", f->sum.unproved, differ,
            f->sum.skipped ? " (some skipped: interrupted)" : "", f->t_prove);
    if (f->journal[0])
      rg_prove_journal_print(T(f->o), "             ", "WARNING      ", f->journal, &f->sum, f->cache_refused);
    rg_prove_answers_print(T(f->o), "             ", &f->sum);
    print_rounds(f);
    rg_spread_print(T(f->o), "             ", 1u << RG_SPREAD_PROVE);
    if (f->reinstated)
      fprintf(T(f->o),
              "             %d rules put back (a rule implying them was not proved): %d derived "
              "again, %d sent to the solvers, %d renamed copies of an "
              "unproved rule left unproved\n",
              f->reinstated, f->rederived, f->reinstated - f->rederived - f->renamed_unproved,
              f->renamed_unproved);
    if (f->sum.disagreements)
      fprintf(T(f->o), "ERROR        the solvers disagree (one unsat, the other sat) on %d obligations: see the .unproved file\n",
              f->sum.disagreements);
    fprintf(T(f->o), "             recheck: %d proved rules at up to %d drawn assignments each: %d differ\n",
            f->sum.rechecked, f->o->prove.recheck, f->sum.false_proofs);
    if (f->sum.false_proofs)
      fprintf(T(f->o), "ERROR        %d rules were proved but differ at some shapes (false proofs, left out): an "
                      "axiom is unsound; the .unproved file names the suspects\n",
              f->sum.false_proofs);
    char versions[RG_SOLVER_COUNT * 100];
    fprintf(T(f->o), "             solvers: %s; %d rules pass --require %s\n",
            rg_prove_summary_versions(&f->sum, versions, sizeof versions), f->n_verified,
            f->o->prove.require == RG_REQUIRE_BOTH ? "both" : "any");
  }
  if (f->derive_run)
    fprintf(T(f->o), "derivability %8d -> %-8d over the proved rules             %.2f s\n",
            f->derive.n, f->derive.kept, f->t_derive);
}

static int fail(const char *what, const rg_err *err) {
  fprintf(stderr, "rulegen: %s: %s\n", what, err->msg);
  return 1;
}

/* Proofs of the kept rules, then derivability over the proved ones; returns the exit status. */
static int prove_and_derive(finish *f, rg_axioms *ax) {
  const rg_finish_opts *o = f->o;
  rg_err err = {0};
  if (rg_axioms_load(o->axioms_path ? o->axioms_path : rg_axioms_default_path(), ax, &err))
    return fail("loading the axioms", &err);
  double t = rg_clock_seconds();
  if (prove_kept(f, ax, &err)) return fail("proving", &err);
  f->t_prove = rg_clock_seconds() - t;
  for (int i = 0; i < f->cand.n; i++)
    if (f->proof[i] && f->proof[i]->shipped && f->before.e[i].fate == RG_FATE_KEPT)
      f->verified[f->n_verified++] = i;
  t = rg_clock_seconds();
  if (o->stop_after >= RG_FINISH_ALL && (o->prune_stages & RG_PRUNE_DERIVE) && !asked_to_stop(o) &&
      run_derive(f, &err))
    return fail("derivability pruning", &err);
  f->t_derive = rg_clock_seconds() - t;
  return 0;
}

/* Derivability as it stands (res is f->before), saved while it runs (rg_prune_opts.save). */
static void save_part_way(void *ctx, const rg_prune_result *res) {
  const finish *f = ctx;
  save_checkpoint(f, RG_CHECKPOINT_DERIVED, &f->key, res);
}

/* Makes the candidates agree with the pruning result as it stands (synth/hollow.h): every rule
 * it removed hollow, but those of derivability's second pass while it is part way there (it reads
 * them again), and every other rule whole (a checkpoint refused after its entries were read may
 * have let go of some). With no result (none), only the rules let go of as renamings while
 * parsing stay hollow: pruning has their facts. */
static rg_status settle(finish *f, bool none, rg_err *err) {
  const rg_prune_result *res = &f->before;
  bool *pass2 = calloc((size_t)f->cand.n + 1, sizeof *pass2);
  if (!pass2) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int q = res->derive_seq1; !none && res->derive_pass == 2 && q < res->removal_seq_n; q++)
    pass2[res->removal_seq[q]] = true;
  rg_status st = RG_OK;
  for (int i = 0; !st && i < f->cand.n; i++) {
    bool hollow = none ? rg_renamings_facts(&f->renamings, i) != NULL : res->e[i].fate != RG_FATE_KEPT && !pass2[i];
    st = hollow ? rg_hollow_rule(&f->hollow, &f->cand, i, err) : rg_hollow_restore(&f->hollow, &f->cand, i, err);
  }
  free(pass2);
#ifdef __GLIBC__
  malloc_trim(0); /* the freed graphs' pages back to the system, not only to malloc's free lists */
#endif
  return st;
}

/* rg_prune_opts.let_go: a rule a stage has just removed. */
static rg_status let_go_removed(void *ctx, int i, rg_err *err) {
  finish *f = ctx;
  return rg_hollow_rule(&f->hollow, &f->cand, i, err);
}

/* rg_prune_entry_fn: a rule a checkpoint's entry says was removed, let go of as it is read (but
 * those of derivability's second pass, should it be part way there). */
static rg_status let_go_as_read(void *ctx, const rg_prune_result *res, int i, rg_err *err) {
  rg_prune_fate fate = res->e[i].fate;
  return fate != RG_FATE_KEPT && (fate != RG_FATE_DERIVED || res->derive_pass != 2) ? let_go_removed(ctx, i, err)
                                                                                     : RG_OK;
}

/* A checkpoint read must have removed the rules let go of as renamings while parsing: one that
 * keeps such a rule is not this run's (its key matched by accident or by forgery). It is passed
 * over, as a damaged one is, and pruning starts again; false when it is usable. */
static bool renamings_kept(finish *f) {
  for (int i = 0; i < f->cand.n; i++)
    if (rg_renamings_facts(&f->renamings, i) && f->before.e[i].fate != RG_FATE_RENAMING) {
      fprintf(stderr,
              "rulegen: note: the checkpoint beside %s says candidate %d is %s, but it renames one before it: it is "
              "not this run's, not used (pruning again; this run's replaces it)\n",
              f->o->out_path, i + 1, rg_prune_fate_name(f->before.e[i].fate));
      rg_prune_result_free(&f->before);
      return true;
    }
  return false;
}

/* Pruning (from the latest checkpoint of this run, when there is one; each stage's result saved
 * as one), then (unless the run stops after it) proofs and derivability; returns the exit
 * status. */
static int run_stages(finish *f, rg_axioms *ax) {
  const rg_finish_opts *o = f->o;
  rg_err err = {0};
  rg_prune_opts po = rg_prune_opts_default();
  po.stages = o->prune_stages;
  po.general_off = o->general_off, po.general_of = o->general_of;
  po.absent = rg_renamings_facts, po.absent_ctx = &f->renamings;
  po.let_go = let_go_removed, po.let_go_ctx = f;
  po.stop = o->stop;
  po.progress = prune_progress, po.progress_ctx = f;
  if (f->checkpoints) po.save = save_part_way, po.save_ctx = f, po.save_every = o->save_every;
  double t = rg_clock_seconds();
  int got = -1;
  bool derive = o->prune_stages & RG_PRUNE_DERIVE;
  int rc = f->checkpoints ? rg_checkpoint_resume(o->out_path, &f->key, derive, &f->before, &got, let_go_as_read, f) : 0;
  if (rc) return rc;
  if (got >= 0 && renamings_kept(f)) got = -1;
  rg_status pst = got < 0 ? settle(f, true, &err) : RG_OK;
  if (!pst && got < 0) {
    rg_kill_point("prune", 0);
    po.stages = o->prune_stages & ~(unsigned)RG_PRUNE_DERIVE;
    pst = rg_prune_run(&f->cand, &po, &f->before, &err);
    if (!pst) save_checkpoint(f, RG_CHECKPOINT_PRUNED, &f->key, &f->before);
  }
  if (!pst) pst = settle(f, false, &err);
  bool part_way = f->before.derive_pass; /* a checkpoint saved while derivability ran */
  if (!pst && derive && (got < RG_CHECKPOINT_DERIVED || part_way) && !asked_to_stop(o)) {
    rg_derive_spread ds; /* the talk closed whatever happened once opened */
    pst = rg_derive_spread_open(&ds, &po, &err);
    if (!pst) pst = rg_prune_run_derive(&f->cand, &po, &f->before, &err);
    pst = rg_derive_spread_close(&ds, &po, pst, &err);
    /* Ctrl-C: derivability's progress is kept for the next run */
    if (!pst && (!f->before.interrupted || f->before.derive_pass))
      save_checkpoint(f, RG_CHECKPOINT_DERIVED, &f->key, &f->before);
    if (!pst) pst = settle(f, false, &err);
  }
  rg_progress_finish(&f->line);
  if (pst) return fail("pruning", &err);
  f->t_prune = rg_clock_seconds() - t;
  if (!asked_to_stop(o)) print_prune_rows(f);
  if (o->stop_after >= RG_FINISH_PROVE && !asked_to_stop(o)) return prove_and_derive(f, ax);
  for (int i = 0; i < f->cand.n; i++)
    if (f->before.e[i].fate == RG_FATE_KEPT) f->verified[f->n_verified++] = i;
  return 0;
}

/* The rules (text or a database), and the side files next to them; returns the exit status. */
static int write_output(const finish *f, const rg_finish_stage *pre, int n_pre) {
  const rg_finish_opts *o = f->o;
  rg_err err = {0};
  size_t plen = o->out_path ? strlen(o->out_path) : 0;
  bool db = plen > 3 && !strcmp(o->out_path + plen - 3, ".db");
  if (db && o->stop_after < RG_FINISH_PROVE) {
    fprintf(stderr, "rulegen: a .db output needs the proof stage (drop --stop-after prune or write .rules)\n");
    return 2;
  }
  if (o->out_path && o->stop_after >= RG_FINISH_PROVE && write_side_files(f, o->out_path, &err)) {
    int rc = fail("writing the removal records", &err);
    /* the rules themselves are still written: hours of proofs must not be lost */
    if (db ? write_db(f, pre, n_pre, &err) : write_rules(f, NULL, &err)) fail("writing the output", &err);
    return rc;
  }
  if (db ? write_db(f, pre, n_pre, &err) : write_rules(f, NULL, &err)) {
    int rc = fail("writing the output", &err);
    if (db) save_as_text(f); /* hours of proofs must not be lost with the database */
    return rc;
  }
  int kept = 0;
  for (int k = 0; k < f->n_verified; k++) kept += final_kept(f, k);
  fprintf(T(f->o), "output       %d rules%s%s%s\n", kept, o->out_path ? " in " : "",
          o->out_path ? o->out_path : "", db ? (o->key_path ? " (signed)" : " (unsigned: give --key)") : "");
  return f->sum.disagreements || f->sum.false_proofs ? 1 : 0;
}

static void finish_free(finish *f, rg_axioms *ax) {
  rg_axioms_free(ax);
  rg_prune_result_free(&f->before);
  if (f->derive_run) rg_prune_result_free(&f->derive);
  rg_hollow_free(&f->hollow);
  rg_renamings_free(&f->renamings);
  free(f->proof);
  for (int b = 0; b < f->n_blocks; b++) {
    rg_rule_proofs_free(f->blocks[b].p, f->blocks[b].n);
    free(f->blocks[b].p);
  }
  free(f->blocks);
  free(f->copied);
  free(f->verified);
  rg_ruleset_free(&f->cand);
}

/* The candidates parsed (the text let go of as it goes), those that rename one before them
 * hollow already when pruning renames (synth/renamings.h); false after saying why. */
static bool read_candidates(finish *f, char *cand, size_t len) {
  rg_err err = {0};
  bool collapse = f->o->prune_stages & RG_PRUNE_RENAMING;
  rg_status st = rg_hollow_init(&f->hollow, 0, &err);
  rg_renamings_init(&f->renamings, &f->hollow, f->o->prove.threads);
  if (!st) st = rg_text_parse_consuming(cand, len, &f->cand, collapse ? rg_renamings_parsed : NULL, &f->renamings, &err);
  rg_renamings_parse_done(&f->renamings);
  if (!st) st = rg_hollow_grow(&f->hollow, f->cand.n, &err);
  if (st && err.line) /* a damaged candidates file: bad input */
    fprintf(stderr, "rulegen: reading the candidates, line %d: %s\n", err.line, err.msg);
  else if (st)
    fprintf(stderr, "rulegen: reading the candidates: %s\n", err.msg);
  if (st) rg_hollow_free(&f->hollow), rg_renamings_free(&f->renamings), rg_ruleset_free(&f->cand);
  return st != RG_OK;
}

int rg_synth_finish(char **cand, size_t len, const rg_finish_opts *o,
                    const rg_finish_stage *pre, int n_pre) {
  finish f;
  memset(&f, 0, sizeof f);
  f.o = o;
  rg_ruleset_init(&f.cand);
  rg_axioms ax;
  memset(&ax, 0, sizeof ax);
  bool checkpoints = rg_checkpoint_beside(o->out_path);
  if (checkpoints) rg_checkpoint_key_text(&f.key, *cand, len); /* the parse lets go of the text */
  if (read_candidates(&f, *cand, len)) return 2;
  f.proof = calloc((size_t)f.cand.n + 1, sizeof *f.proof);
  f.copied = calloc((size_t)f.cand.n + 1, sizeof *f.copied);
  f.verified = malloc(sizeof(int) * (size_t)(f.cand.n + 1));
  if (checkpoints) {
    f.checkpoints = true;
    rg_checkpoint_key_init(&f.key, f.cand.n, o->prune_stages, o->general_off, o->general_of);
  }
  free(*cand);
  *cand = NULL;
  int rc = f.proof && f.copied && f.verified ? run_stages(&f, &ax)
                                             : fail("pruning", &(rg_err){RG_ERR_NOMEM, 0, 0, "out of memory"});
  bool stopped = asked_to_stop(o);
  if (!rc && stopped) {
    fprintf(stderr, "rulegen: interrupted: nothing written\n");
    rc = 130;
  }
  if (!rc) print_rows(&f);
  if (!rc && o->report) fill_report(&f, pre, n_pre, o->report);
  if (!rc) rc = write_output(&f, pre, n_pre);
  finish_free(&f, &ax);
  return rc;
}
