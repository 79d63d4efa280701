/* synth/derive_spread.c: derivability's searches over an MPI job's ranks (derive_spread.h).
 *
 * Rank 0's word to a worker, one message a batch: N_CHANGES, each change TAG LEN TEXT (LEN -1:
 * switched off), then N_ASKS, each ask TAG EXCLUDE LEN TEXT (LEN 0: the rule tagged so in the
 * set). The answer: for
 * each ask STATUS FOUND N_STEPS, each step TAG REVERSE OUTPUT LEN STATE, then (STATUS not 0) LEN
 * MESSAGE; last STOPPED (1: a signal stopped the worker, which wants the run to stop). Numbers are
 * 32-bit, in the ranks' own byte order (one job runs one build). */
#define _POSIX_C_SOURCE 200809L
#include "derive_spread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/clock.h"
#include "ir/crew.h"
#include "ir/killpoint.h"
#include "ir/text.h"
#include "spread.h"

enum { SEARCHES, FOUND }; /* the counters a worker reports */

static void put_i32(rg_strbuf *sb, int32_t v) { rg_sb_append(sb, (const char *)&v, sizeof v); }
static void put_text(rg_strbuf *sb, const char *s, size_t n) {
  put_i32(sb, (int32_t)n);
  rg_sb_append(sb, s, n);
}

/* Reads a message; bad once anything ran past its end. */
typedef struct {
  const char *p, *end;
  bool bad;
} reader;

static int32_t get_i32(reader *r) {
  int32_t v = 0;
  if (r->end - r->p < (long)sizeof v) return r->bad = true, 0;
  memcpy(&v, r->p, sizeof v);
  r->p += sizeof v;
  return v;
}

/* n bytes as a new string (NULL: past the end, or out of memory: bad). */
static char *get_text(reader *r, int32_t n) {
  if (n < 0 || r->end - r->p < n) return r->bad = true, NULL;
  char *s = strndup(r->p, (size_t)n);
  r->p += n;
  if (!s) r->bad = true;
  return s;
}

/* ---- rank 0 ---- */

static rg_status send_batch(void *ctx, const rg_derive_change *changes, int n_changes,
                            const rg_derive_ask *asks, int n, rg_err *err) {
  rg_derive_spread *s = ctx;
  rg_strbuf rule;
  rg_sb_init(&rule);
  rg_sb_clear(&s->changes); /* the same for every worker: each keeps the whole set */
  put_i32(&s->changes, n_changes);
  for (int c = 0; c < n_changes; c++) {
    put_i32(&s->changes, changes[c].tag);
    rg_sb_clear(&rule);
    if (changes[c].rule)
      rg_text_print_rule(changes[c].rule, &rule), put_text(&s->changes, rg_sb_str(&rule), rule.len);
    else
      put_i32(&s->changes, -1);
  }
  rg_status st = RG_OK;
  for (int w = 0; !st && w < s->workers; w++) { /* asks w, w + workers, ... to worker w + 1 */
    rg_sb_clear(&s->say);
    rg_sb_append(&s->say, s->changes.s, s->changes.len);
    put_i32(&s->say, n / s->workers + (w < n % s->workers));
    for (int a = w; a < n; a += s->workers) {
      rg_sb_clear(&rule);
      if (!asks[a].exclude) rg_text_print_rule(asks[a].rule, &rule);
      put_i32(&s->say, asks[a].tag), put_i32(&s->say, asks[a].exclude),
          put_text(&s->say, rg_sb_str(&rule), rule.len);
    }
    st = s->say.failed || rule.failed || s->changes.failed
             ? rg_err_set(err, RG_ERR_NOMEM, "out of memory")
             : rg_cluster_say(w + 1, s->say.s, s->say.len, err);
  }
  rg_sb_free(&rule);
  return st;
}

/* One answer from r into a (a's rule and tag stay). */
static void read_answer(reader *r, rg_derive_ask *a, int from) {
  a->st = (rg_status)get_i32(r), a->found = get_i32(r) != 0;
  int32_t n = get_i32(r);
  if (n < 0 || n > r->end - r->p) r->bad = true, n = 0;
  a->d = (rg_derivation){0, n ? calloc((size_t)n, sizeof(rg_derive_step)) : NULL};
  if (n && !a->d.steps) r->bad = true, n = 0;
  for (int k = 0; k < n && !r->bad; k++, a->d.n++) {
    rg_derive_step *step = &a->d.steps[k];
    step->tag = get_i32(r), step->reverse = get_i32(r) != 0, step->output = get_i32(r);
    step->state = get_text(r, get_i32(r));
  }
  if (a->st) {
    char *msg = get_text(r, get_i32(r));
    rg_err_set(&a->err, a->st, "rank %d: %s", from, msg ? msg : "(no message)");
    free(msg);
  }
}

/* Worker from says a signal stopped it: the run stops as on Ctrl-C (between batches, its work
 * kept); without a stop flag to set, an error. */
static rg_status worker_stopped(rg_derive_spread *s, int from, rg_err *err) {
  if (!s->stop)
    return rg_err_set(err, RG_ERR_ARG, "rank %d: stopped by a signal before its work was done",
                      from);
  if (!*s->stop)
    fprintf(stderr, "rulegen: rank %d was stopped by a signal: the run stops as on Ctrl-C\n", from);
  *s->stop = 1;
  return RG_OK;
}

static rg_status take_batch(void *ctx, rg_derive_ask *asks, int n, rg_err *err) {
  rg_derive_spread *s = ctx;
  rg_status st = RG_OK;
  for (int w = 0; w < s->workers; w++) {
    char *msg = NULL;
    size_t len = 0;
    rg_status heard = rg_cluster_hear(w + 1, &msg, &len, err);
    reader r = {msg, msg + len, false};
    for (int a = w; !heard && a < n; a += s->workers)
      read_answer(&r, &asks[a], w + 1);
    if (!heard && get_i32(&r) == 1) heard = worker_stopped(s, w + 1, err);
    if (!heard && (r.bad || r.p != r.end))
      heard = rg_err_set(err, RG_ERR_ARG,
                         "rank %d's answers to derivability's searches are garbled", w + 1);
    if (!st) st = heard;
    free(msg);
  }
  return st;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of the last 7 of 20 empty turns (no change, no search) with every worker: the first
 * dozen took 13 ms each, the rest 23 us, on this machine. */
static rg_status time_turn(rg_derive_spread *s, double *turn_s, rg_err *err) {
  double t[20];
  rg_status st = RG_OK;
  for (int k = 0; !st && k < 20; k++) {
    double t0 = rg_clock_seconds();
    st = send_batch(s, NULL, 0, NULL, 0, err);
    if (!st) st = take_batch(s, NULL, 0, err);
    t[k] = rg_clock_seconds() - t0;
  }
  qsort(t + 13, 7, sizeof *t, cmp_double);
  *turn_s = t[16];
  return st;
}

rg_status rg_derive_spread_open(rg_derive_spread *s, rg_prune_opts *po, rg_err *err) {
  *s = (rg_derive_spread){.workers = rg_cluster_size() - 1, .stop = po->stop};
  if (s->workers < 1) return RG_OK;
  rg_sb_init(&s->changes), rg_sb_init(&s->say);
  char job[96];
  snprintf(job, sizeof job, "%d %d %d\n", po->limits.max_steps, po->limits.max_states,
           po->limits.max_growth);
  rg_status st = rg_cluster_talk_open(RG_SPREAD_DERIVE, job, strlen(job), err);
  s->open = true; /* opened on the workers that could: closed after a failure too */
  /* every rank runs the same -j: a worker searches as many at once as rank 0 */
  s->h = (rg_derive_helpers){s, s->workers * rg_crew_omp_threads(), 0, send_batch, take_batch};
  if (!st) st = time_turn(s, &s->h.turn_s, err);
  const char *turn = getenv("RULEGEN_TEST_DERIVE_TURN"); /* a test's: 0 asks the workers always */
  if (turn) s->h.turn_s = atof(turn);
  if (!st) po->helpers = &s->h;
  return st;
}

rg_status rg_derive_spread_close(rg_derive_spread *s, rg_prune_opts *po, rg_status st,
                                 rg_err *err) {
  rg_err e2 = {0};
  rg_status closed = s->open ? rg_cluster_talk_close(&e2) : RG_OK;
  if (!st && closed) st = closed, *err = e2;
  rg_sb_free(&s->changes), rg_sb_free(&s->say);
  po->helpers = NULL;
  *s = (rg_derive_spread){0};
  return st;
}

/* ---- a worker ---- */

typedef struct {
  volatile sig_atomic_t *flag; /* the worker's Ctrl-C/SIGTERM flag (NULL: none) */
} stop_flag;
static stop_flag worker_stop_; /* one worker's, set once before it serves */

/* A worker's copy of the set, the rules it holds (by tag) and one batch's searches. */
typedef struct {
  rg_derive_limits lim;
  rg_rewrite_set *set;
  rg_rule **rules; /* [cap], by tag: those in the set */
  int cap;
  rg_crew *crew;
  rg_derive_ask *asks;
  bool *own; /* asks[k].rule parsed for this batch (freed after it) */
  int n, n_cap;
} worker;

static void close_worker(void *ctx, void *job) {
  (void)ctx;
  worker *w = job;
  if (!w) return;
  rg_rewrite_set_free(w->set);
  for (int t = 0; t < w->cap; t++)
    rg_rule_free(w->rules[t]);
  free(w->rules), free(w->asks), free(w->own);
  rg_crew_free(w->crew);
  free(w);
}

static rg_status open_worker(void *ctx, const char *text, size_t len, void **job, rg_err *err) {
  (void)ctx, (void)len;
  worker *w = calloc(1, sizeof *w);
  *job = w;
  if (!w || !(w->set = rg_rewrite_set_new())) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  w->lim = RG_DERIVE_LIMITS_DEFAULT; /* lim.stop NULL: rank 0 stops between batches */
  if (sscanf(text, "%d %d %d", &w->lim.max_steps, &w->lim.max_states, &w->lim.max_growth) != 3)
    return rg_err_set(err, RG_ERR_ARG, "derivability's limits garbled in rank 0's job");
  return rg_crew_new_omp(&w->crew, err);
}

/* Rule text t (tag) parsed; *out NULL on error. */
static rg_status parse_rule(char *t, int tag, rg_rule **out, rg_err *err) {
  *out = NULL;
  if (!t) return rg_err_set(err, RG_ERR_ARG, "rank 0's message garbled");
  rg_status st = rg_text_parse_rule(t, out, err);
  if (st) st = rg_err_set(err, st, "rule %d from rank 0 does not parse: %s", tag, err->msg);
  free(t);
  return st;
}

/* A change: the rule tagged so added (its text) or switched off (len -1). */
static rg_status apply_change(worker *w, reader *r, rg_err *err) {
  int32_t tag = get_i32(r), len = get_i32(r);
  if (r->bad || tag < 0) return rg_err_set(err, RG_ERR_ARG, "rank 0's message garbled");
  if (len < 0) {
    if (tag >= w->cap || !w->rules[tag])
      return rg_err_set(err, RG_ERR_ARG, "rule %d is not in this rank's set", tag);
    rg_rewrite_set_enable(w->set, tag, false);
    return RG_OK;
  }
  if (tag >= w->cap) {
    int cap = tag + 1 > 2 * w->cap ? tag + 1 : 2 * w->cap;
    rg_rule **rules = realloc(w->rules, sizeof *rules * (size_t)cap);
    if (!rules) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    memset(rules + w->cap, 0, sizeof *rules * (size_t)(cap - w->cap));
    w->rules = rules, w->cap = cap;
  }
  if (w->rules[tag])
    return rg_err_set(err, RG_ERR_ARG, "rule %d added twice to this rank's set", tag);
  rg_status st = parse_rule(get_text(r, len), tag, &w->rules[tag], err);
  return st ? st : rg_rewrite_set_add(w->set, w->rules[tag], tag, NULL, err);
}

/* An ask read into w->asks[w->n]. */
static rg_status read_ask(worker *w, reader *r, rg_err *err) {
  rg_derive_ask *a = &w->asks[w->n];
  *a = (rg_derive_ask){.tag = get_i32(r), .exclude = get_i32(r) != 0};
  int32_t len = get_i32(r);
  w->own[w->n] = len > 0;
  if (r->bad || a->tag < 0) return rg_err_set(err, RG_ERR_ARG, "rank 0's message garbled");
  if (len > 0) {
    rg_rule *rule = NULL;
    rg_status st = parse_rule(get_text(r, len), a->tag, &rule, err);
    a->rule = rule;
    return st;
  }
  if (a->tag >= w->cap || !w->rules[a->tag])
    return rg_err_set(err, RG_ERR_ARG, "rule %d is not in this rank's set", a->tag);
  a->rule = w->rules[a->tag];
  return RG_OK;
}

static void search_task(void *ctx, int k) {
  worker *w = ctx;
  rg_derive_ask *a = &w->asks[k];
  a->st = rg_derive_search(w->set, a->rule, &w->lim, a->exclude ? a->tag : -1, &a->d, &a->found,
                           &a->err);
}

/* One batch: rank 0's message (its changes, then its searches) applied and searched, the answers
 * into out. */
static rg_status do_batch(worker *w, const char *msg, size_t len, rg_strbuf *out, int64_t *counts,
                          rg_err *err) {
  reader r = {msg, msg + len, false};
  int32_t n_changes = get_i32(&r);
  rg_status st =
      r.bad || n_changes < 0 ? rg_err_set(err, RG_ERR_ARG, "rank 0's message garbled") : RG_OK;
  for (int c = 0; !st && c < n_changes; c++)
    st = apply_change(w, &r, err);
  int32_t n = st ? 0 : get_i32(&r);
  if (!st && (r.bad || n < 0)) st = rg_err_set(err, RG_ERR_ARG, "rank 0's message garbled");
  if (!st && n > w->n_cap) {
    free(w->asks), free(w->own);
    w->asks = calloc((size_t)n, sizeof *w->asks), w->own = calloc((size_t)n, sizeof *w->own),
    w->n_cap = n;
    if (!w->asks || !w->own) w->n_cap = 0, st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  for (w->n = 0; !st && w->n < n; w->n++)
    st = read_ask(w, &r, err);
  if (!st) rg_crew_run(w->crew, n, search_task, w);
  for (int k = 0; k < w->n; k++) {
    rg_derive_ask *a = &w->asks[k];
    put_i32(out, a->st), put_i32(out, a->found), put_i32(out, a->d.n);
    for (int s = 0; s < a->d.n; s++) {
      put_i32(out, a->d.steps[s].tag), put_i32(out, a->d.steps[s].reverse),
          put_i32(out, a->d.steps[s].output);
      put_text(out, a->d.steps[s].state, strlen(a->d.steps[s].state));
    }
    if (a->st) put_text(out, a->err.msg, strlen(a->err.msg));
    counts[SEARCHES]++, counts[FOUND] += a->found;
    rg_derivation_free(&a->d);
    if (w->own[k]) rg_rule_free((rg_rule *)a->rule);
  }
  return st ? st : out->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* The talk: batch after batch until rank 0 says it is over. */
static rg_status run_talk(void *ctx, void *job, int b, int e, int64_t counts[RG_CLUSTER_COUNTS],
                          rg_err *err) {
  (void)b, (void)e;
  const stop_flag *stop = ctx;
  worker *w = job;
  rg_strbuf out;
  rg_sb_init(&out);
  rg_status st = RG_OK;
  char *msg;
  size_t len;
  while (!st && rg_cluster_listen(&msg, &len)) {
    rg_kill_point("rank-derive", rg_cluster_rank()); /* a test's rank that dies (ir/killpoint.h) */
    rg_sb_clear(&out);
    st = do_batch(w, msg, len, &out, counts, err);
    put_i32(&out, stop->flag && *stop->flag); /* read after the batch: it is answered whole */
    free(msg);
    if (!st) rg_cluster_reply(rg_sb_str(&out), out.len);
  }
  rg_sb_free(&out);
  return st;
}

void rg_derive_work(volatile sig_atomic_t *stop, rg_cluster_work *w) {
  worker_stop_.flag = stop;
  *w = (rg_cluster_work){&worker_stop_, open_worker, run_talk, close_worker, 1};
}
