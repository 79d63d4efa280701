/* synth/spread.c: proof rounds over an MPI job's ranks (synth/spread.h). */
#include "spread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "ir/killpoint.h"
#include "verify/journal.h"

enum { ASKED, RECHECKS, COMPARES }; /* the counters a chunk reports */

typedef struct {
  const rg_axioms *ax;
  const rg_prove_opts *po; /* the round's, without its progress line or the axioms' test */
} prove_ctx;

static rg_status open_job(void *ctx, const char *text, size_t len, void **job, rg_err *err) {
  (void)ctx;
  rg_ruleset *rs = malloc(sizeof *rs);
  if (!rs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_ruleset_init(rs);
  rg_status st = rg_text_parse(text, len, rs, err);
  if (st) rg_ruleset_free(rs), free(rs), rs = NULL;
  *job = rs;
  return st;
}

static void close_job(void *ctx, void *job) {
  (void)ctx;
  rg_ruleset_free(job);
  free(job);
}

/* Rules [begin, end) of the round proved into the journal; the records are dropped (rank 0
 * takes the answers from the journal). */
static rg_status run_chunk(void *ctx, void *job, int begin, int end, int64_t counts[RG_CLUSTER_COUNTS],
                           rg_err *err) {
  const prove_ctx *c = ctx;
  const rg_ruleset *all = job;
  rg_kill_point("rank", rg_cluster_rank()); /* a test's rank that dies (ir/killpoint.h) */
  rg_ruleset part = {all->rules + begin, end - begin, end - begin};
  rg_rule_proof *p = calloc((size_t)(end - begin), sizeof *p);
  if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_prove_summary s;
  rg_status st = rg_prove_rules(&part, c->ax, c->po, p, &s, err);
  rg_rule_proofs_free(p, end - begin);
  free(p);
  counts[ASKED] += s.asked, counts[RECHECKS] += s.rechecked - s.recheck_taken;
  counts[COMPARES] += s.compared - s.refute_taken;
  return st;
}

/* The options a rank's chunks are proved with: the round's, quietly, the axioms tested by rank 0. */
static rg_prove_opts chunk_opts(const rg_prove_opts *po) {
  rg_prove_opts q = *po;
  q.progress = false, q.check_axioms = false;
  return q;
}

/* Counter k over every rank and every spread so far. */
static int64_t total(int k) {
  int64_t sum = 0;
  for (int r = 0; r < rg_cluster_size(); r++) sum += rg_cluster_totals(RG_SPREAD_PROVE)[r].counts[k];
  return sum;
}

rg_status rg_spread_prove(const rg_ruleset *rs, const rg_axioms *ax, const rg_prove_opts *po,
                          rg_spread_work *done, rg_err *err) {
  *done = (rg_spread_work){0};
  if (rg_cluster_size() == 1 || !rs->n) return RG_OK;
  if (po->check_axioms) { /* no rules: only the axioms' test (its pass kept in a proof cache) */
    rg_ruleset none = {NULL, 0, 0};
    rg_rule_proof unused;
    rg_prove_summary s;
    rg_status st = rg_prove_rules(&none, ax, po, &unused, &s, err);
    if (st) return st;
    done->axioms_tested = s.axioms_tested, done->axioms_checked = true;
  }
  rg_strbuf text;
  rg_sb_init(&text);
  for (int i = 0; i < rs->n; i++) rg_text_print_rule(rs->rules[i], &text), rg_sb_puts(&text, "\n");
  if (text.failed) return rg_sb_free(&text), rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_prove_opts q = chunk_opts(po);
  prove_ctx c = {ax, &q};
  rg_cluster_work w = {&c, open_job, run_chunk, close_job, 0};
  int64_t asked = total(ASKED), rechecks = total(RECHECKS), compares = total(COMPARES); /* before this round */
  rg_status st = rg_cluster_spread(RG_SPREAD_PROVE, rg_sb_str(&text), text.len, rs->n, &w, (void *)rs, "prove (ranks)",
                                   po->progress, err);
  done->asked = total(ASKED) - asked, done->rechecks = total(RECHECKS) - rechecks;
  done->compares = total(COMPARES) - compares;
  rg_sb_free(&text);
  return st;
}

void rg_spread_account(rg_prove_summary *s, const rg_spread_work *done) {
  int asked = (int)done->asked, rechecks = (int)done->rechecks, compares = (int)done->compares;
  /* what rank 0's round took from the journal that the ranks had just asked */
  if (asked > s->reused) asked = s->reused;
  if (rechecks > s->recheck_taken) rechecks = s->recheck_taken;
  if (compares > s->refute_taken) compares = s->refute_taken;
  s->asked += asked, s->reused -= asked, s->recheck_taken -= rechecks, s->refute_taken -= compares;
  s->axioms_tested += (int)done->axioms_tested; /* the round itself did not test them again */
}

/* One figure of every rank in spreads of kind, after what it is: "busy 1.2, 3.4 s". */
static void per_rank(FILE *out, int kind, const char *what, const char *unit, int digits,
                     double (*of)(const rg_cluster_rank_tally *)) {
  fprintf(out, "%s", what);
  for (int r = 0; r < rg_cluster_size(); r++)
    fprintf(out, "%s%.*f", r ? ", " : " ", digits, of(&rg_cluster_totals(kind)[r]));
  fprintf(out, "%s", unit);
}
static double items_of(const rg_cluster_rank_tally *t) { return (double)t->items; }
static double count0_of(const rg_cluster_rank_tally *t) { return (double)t->counts[0]; }
static double busy_of(const rg_cluster_rank_tally *t) { return t->busy_s; }

/* A rank's peak over every kind (each spread notes the peak so far). */
static int64_t peak_kb(int r) {
  int64_t kb = 0;
  for (int k = 0; k < RG_CLUSTER_KINDS; k++)
    if (rg_cluster_totals(k)[r].peak_kb > kb) kb = rg_cluster_totals(k)[r].peak_kb;
  return kb;
}

/* Whether any rank did work of kind. */
static bool spread_any(int kind) {
  for (int r = 0; r < rg_cluster_size(); r++)
    if (rg_cluster_totals(kind)[r].chunks) return true;
  return false;
}

void rg_spread_print(FILE *out, const char *lead, unsigned kinds) {
  bool any = false;
  for (int k = 0; k < RG_CLUSTER_KINDS; k++) any = any || ((kinds >> k & 1) && spread_any(k));
  if (rg_cluster_size() == 1 || !any) return;
  fprintf(out, "%sspread over %d MPI ranks: ", lead, rg_cluster_size());
  if ((kinds >> RG_SPREAD_ENUMERATE & 1) && spread_any(RG_SPREAD_ENUMERATE)) {
    per_rank(out, RG_SPREAD_ENUMERATE, "units enumerated", "", 0, items_of);
    per_rank(out, RG_SPREAD_ENUMERATE, " (graphs", ")", 0, count0_of);
    per_rank(out, RG_SPREAD_ENUMERATE, ", busy", " s; ", 1, busy_of);
  }
  if ((kinds >> RG_SPREAD_TEST & 1) && spread_any(RG_SPREAD_TEST)) {
    per_rank(out, RG_SPREAD_TEST, "part groups tested", "", 0, items_of);
    per_rank(out, RG_SPREAD_TEST, ", busy", " s; ", 1, busy_of);
  }
  if ((kinds >> RG_SPREAD_GENERALIZE & 1) && spread_any(RG_SPREAD_GENERALIZE)) {
    per_rank(out, RG_SPREAD_GENERALIZE, "generalize chunks", "", 0, items_of);
    per_rank(out, RG_SPREAD_GENERALIZE, ", busy", " s; ", 1, busy_of);
  }
  if ((kinds >> RG_SPREAD_DERIVE & 1) &&
      spread_any(RG_SPREAD_DERIVE)) { /* rank 0 searches beside them */
    per_rank(out, RG_SPREAD_DERIVE, "derivability's searches on the workers (rank 0: none counted)",
             "", 0, count0_of);
    per_rank(out, RG_SPREAD_DERIVE, ", busy", " s; ", 1, busy_of);
  }
  if ((kinds >> RG_SPREAD_PROVE & 1) && spread_any(RG_SPREAD_PROVE)) {
    per_rank(out, RG_SPREAD_PROVE, "rules proved", "", 0, items_of);
    per_rank(out, RG_SPREAD_PROVE, "; solver queries", "", 0, count0_of);
    per_rank(out, RG_SPREAD_PROVE, "; busy", " s; ", 1, busy_of);
  }
  fprintf(out, "peak RSS so far");
  for (int r = 0; r < rg_cluster_size(); r++) fprintf(out, "%s%lld", r ? ", " : " ", (long long)(peak_kb(r) >> 10));
  fprintf(out, " MB; %.2f MB exchanged so far\n", (double)rg_cluster_bytes() / 1e6);
}

void rg_spread_json(FILE *out) {
  int n = rg_cluster_size();
  if (n == 1) return;
  const rg_cluster_rank_tally *p = rg_cluster_totals(RG_SPREAD_PROVE),
                              *e = rg_cluster_totals(RG_SPREAD_ENUMERATE),
                              *t = rg_cluster_totals(RG_SPREAD_TEST),
                              *g = rg_cluster_totals(RG_SPREAD_GENERALIZE),
                              *d = rg_cluster_totals(RG_SPREAD_DERIVE);
  fprintf(out, ",\n \"ranks\": [");
  for (int r = 0; r < n; r++)
    fprintf(
        out,
        "%s{\"rank\": %d, \"rules\": %lld, \"chunks\": %lld, \"asked\": %lld, \"busy_s\": %.3f, "
        "\"units\": %lld, \"graphs\": %lld, \"enumerate_busy_s\": %.3f, \"test_groups\": %lld, "
        "\"pairs\": %lld, \"test_busy_s\": %.3f, \"generalize_chunks\": %lld, "
        "\"generalize_busy_s\": %.3f, \"derive_searches\": %lld, \"derive_busy_s\": %.3f, "
        "\"peak_rss_kb\": %lld}",
        r ? ", " : "", r, (long long)p[r].items, (long long)p[r].chunks,
        (long long)p[r].counts[ASKED], p[r].busy_s, (long long)e[r].items,
        (long long)e[r].counts[0], e[r].busy_s, (long long)t[r].items, (long long)t[r].counts[1],
        t[r].busy_s, (long long)g[r].items, g[r].busy_s, (long long)d[r].counts[0], d[r].busy_s,
        (long long)peak_kb(r));
  fprintf(out, "],\n \"exchanged_bytes\": %lld", (long long)rg_cluster_bytes());
}

int rg_spread_serve(const rg_finish_opts *o, rg_cluster_work works[RG_CLUSTER_KINDS]) {
  rg_axioms ax;
  rg_err err = {0};
  rg_prove_opts po;
  rg_solver solvers[RG_SOLVER_COUNT];
  char *journal = NULL, where[4200];
  const char *path = o->axioms_path ? o->axioms_path : rg_axioms_default_path();
  if (rg_axioms_load(path, &ax, &err) ||
      rg_finish_prove_opts(o, &po, solvers, &journal, where, sizeof where, &err)) {
    fprintf(stderr, "rulegen: rank %d: %s\n", rg_cluster_rank(), err.msg);
    rg_axioms_free(&ax);
    free(journal);
    return 2;
  }
  rg_prove_opts q = chunk_opts(&po);
  rg_journal *kept = NULL; /* read once, then caught up chunk by chunk */
  q.kept_journal = &kept;
  prove_ctx c = {&ax, &q};
  works[RG_SPREAD_PROVE] = (rg_cluster_work){&c, open_job, run_chunk, close_job, 0};
  int rc = rg_cluster_serve(works);
  rg_journal_close(kept);
  rg_axioms_free(&ax);
  free(journal);
  return rc;
}
