/* fingerprint/collect.c: the fingerprinting visitor and the bounded record store.
 *
 * Each thread evaluates the newest operator of the visited graph (its operands' tensors are kept
 * from the prefixes), hashes the tensor once, and forms the graph's fingerprint from its sinks'
 * sample hashes (hash.h). An operator at the last level is never extended, so it is evaluated
 * only at its sample positions where a kernel allows; earlier ones are evaluated whole, and
 * also fully hashed for the check that stops extending a tensor equal to an older one. Records go
 * to a thread-local batch that is flushed into the shared table under a lock; the flush is where
 * the range narrows when the table is full.
 */
#include "collect.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "kernels.h"
#include "opeval.h"
#include "table.h"

#define BATCH 4096
/* Slots of the sample-position cache, indexed by a hash of the tensor size: indexed by its low
 * four bits, the sizes here (mostly multiples of 16) took turns in one slot and recomputed their
 * positions at nearly every operator. */
#define SAMPLE_SLOTS 64

typedef struct {
  const rg_enum_space *sp;
  const rg_fp_sink *sink;
  int thread;
  rg_fp_opeval *ev;
  const rg_eval_ctx *ctx;
  rg_value *const *inputs;
  rg_value *val[RG_ENUM_POOL]; /* buffers reused across graphs, grown as needed */
  int64_t cap[RG_ENUM_POOL];
  uint64_t hash[RG_ENUM_POOL];   /* full hashes (not kept for last-level operators) */
  uint64_t sample[RG_ENUM_POOL]; /* sample hashes: the fingerprint's */
  rg_fp_sample smp[SAMPLE_SLOTS]; /* sample positions by tensor size, direct-mapped */
  rg_fp_record batch[BATCH];
  int nb;
  bool keep_redundant, interp_only;
} fthr;

size_t rg_fp_record_cap(const rg_fp_opts *o) {
  size_t cap = o->mem_limit > RG_FP_RESERVE ? (o->mem_limit - RG_FP_RESERVE) / sizeof(rg_fp_record) : 0;
  if (o->max_records && o->max_records < cap) cap = o->max_records;
  return cap;
}

static rg_status flush(fthr *f, rg_err *err) {
  rg_status st = f->nb ? f->sink->records(f->sink->user, f->thread, f->batch, f->nb, err) : RG_OK;
  f->nb = 0;
  return st;
}

/* A unit's records all go to the sink before it hears the unit is done. */
static rg_status unit_done(void *user, int unit, const rg_enum_stats *delta, rg_err *err) {
  fthr *f = user;
  rg_status st = flush(f, err);
  return st ? st : f->sink->unit_done(f->sink->user, f->thread, unit, delta, err);
}

static rg_status visit(void *user, const rg_enum_state *st, bool *extend, rg_err *err) {
  fthr *f = user;
  int ni = f->sp->inputs.n, k = st->n_ops - 1, p = ni + k;
  const rg_enum_opcode *oc = &st->code.op[k];
  const rg_enum_variant *var = &f->sp->variants[oc->variant];
  const rg_shape *in[2] = {NULL, NULL};
  int32_t sid[2] = {0, 0};
  const rg_value *vals[2] = {NULL, NULL};
  for (int j = 0; j < var->n_in; j++) {
    int q = oc->in[j];
    in[j] = rg_enum_state_shape(st, q);
    sid[j] = rg_enum_state_sid(st, q);
    vals[j] = q < ni ? f->inputs[q] : f->val[q];
  }
  const rg_shape *os = rg_enum_state_shape(st, p);
  int64_t numel = rg_shape_numel(os);
  rg_fp_sample *smp = &f->smp[rg_mix64((uint64_t)numel) % SAMPLE_SLOTS];
  if (smp->n != numel) rg_fp_sample_init(numel, smp);
  rg_value at[RG_FP_SAMPLES];
  if (rg_enum_state_last(st) && st->is_graph && !f->interp_only &&
      rg_fp_kernel_sample(var, in, os, vals, f->ctx, smp->pos, smp->count, at)) {
    f->sample[p] = rg_fp_sample_hash(os, at, smp->count);
  } else {
    rg_status s = rg_fp_opeval_run(f->ev, oc->variant, in, sid, os, vals, f->interp_only,
                                   &f->val[p], &f->cap[p], err);
    if (s) return s;
    f->sample[p] = rg_fp_tensor_sample_hash(os, f->val[p], smp);
    if (!rg_enum_state_last(st)) {
      f->hash[p] = rg_fp_tensor_hash(os, f->val[p]);
      for (int q = 0; q < p && *extend && !f->keep_redundant; q++)
        if (f->hash[q] == f->hash[p]) *extend = false;
    }
  }
  if (!st->is_graph) return RG_OK;
  uint64_t h[RG_ENUM_MAX_DEPTH];
  int n = 0;
  for (int q = ni; q <= p; q++)
    if (!st->uses[q]) h[n++] = f->sample[q];
  uint64_t fp = rg_fp_combine(h, n);
  if (fp < f->sink->lo || (f->sink->hi && fp > *f->sink->hi)) return RG_OK; /* a stale hi only lets extra records through */
  f->batch[f->nb].fp = fp;
  f->batch[f->nb].code = st->code;
  if (++f->nb == BATCH) return flush(f, err);
  return RG_OK;
}

void rg_fp_table_free(rg_fp_table *t) {
  free(t->r);
  memset(t, 0, sizeof *t);
}

/* One thread's state: its sink, its input hashes and its operator evaluator. */
static rg_status thread_init(fthr *t, int thread, const rg_enum_space *sp, const rg_fp_opts *o, const rg_fp_sink *sink,
                             const rg_eval_ctx *ctx, rg_value **inputs, rg_err *err) {
  *t = (fthr){.sp = sp,
              .sink = sink,
              .thread = thread,
              .ctx = ctx,
              .inputs = inputs,
              .keep_redundant = o->keep_redundant,
              .interp_only = o->interp_only};
  for (int k = 0; k < SAMPLE_SLOTS; k++)
    t->smp[k].n = -1;
  for (int q = 0; q < sp->inputs.n; q++) {
    t->hash[q] = rg_fp_tensor_hash(&sp->inputs.in[q].shape, inputs[q]);
    t->sample[q] = rg_fp_tensor_sample_hash(&sp->inputs.in[q].shape, inputs[q], NULL);
  }
  t->ev = rg_fp_opeval_new(sp, ctx);
  return t->ev ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

/* The records of the input graphs (each input alone is a graph whose output is that input). */
static rg_status input_records(const rg_enum_space *sp, uint64_t seed, rg_fp_record *r, rg_err *err) {
  rg_value **inputs = rg_fp_inputs_new(sp, seed);
  if (!inputs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; i < sp->inputs.n; i++) {
    uint64_t h = rg_fp_tensor_sample_hash(&sp->inputs.in[i].shape, inputs[i], NULL);
    r[i] = (rg_fp_record){rg_fp_combine(&h, 1), rg_enum_code_input(i)};
  }
  rg_fp_inputs_free(sp, inputs);
  return RG_OK;
}

rg_status rg_fp_store_start(rg_fp_store *s, rg_fp_table *t, const rg_enum_space *sp, const rg_fp_opts *o, uint64_t lo,
                            uint64_t hi, rg_err *err) {
  rg_fp_store_init(s, t, rg_fp_record_cap(o), lo, hi);
  if (s->cap_records < 2) return rg_err_set(err, RG_ERR_LIMIT, "record cap too small to make progress");
  rg_fp_record in[RG_ENUM_MAX_INPUTS];
  rg_status st = input_records(sp, o->seed, in, err);
  return st ? st : rg_fp_store_add(s, in, (size_t)sp->inputs.n, err);
}

rg_status rg_fp_enumerate(const rg_enum_space *sp, const rg_fp_opts *o, const rg_fp_sink *sink, rg_enum_stats *stats,
                          rg_err *err) {
  memset(stats, 0, sizeof *stats);
  int nt = o->threads < 1 ? 1 : o->threads;
  rg_eval_ctx ctx;
  rg_fp_eval_ctx(o->seed, &ctx);
  rg_value **inputs = rg_fp_inputs_new(sp, o->seed);
  fthr *ts = calloc((size_t)nt, sizeof *ts);
  void **users = calloc((size_t)nt, sizeof *users);
  rg_status st = inputs && ts && users ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; i < nt && !st; i++) {
    st = thread_init(&ts[i], i, sp, o, sink, &ctx, inputs, err);
    users[i] = &ts[i];
  }
  if (!st) {
    rg_enum_visitor v = {visit, NULL};
    rg_enum_run_opts ro = {.threads = nt,
                           .max_outputs = o->max_outputs,
                           .extend_swapped = o->keep_redundant,
                           .all_inputs = o->keep_redundant,
                           .stop = o->stop,
                           .progress = o->progress,
                           .progress_user = o->progress_user,
                           .skip = sink->skip,
                           .n_skip = sink->n_skip,
                           .count_only = sink->count_only,
                           .unit_done = sink->unit_done ? unit_done : NULL};
    st = rg_enum_run(sp, &v, users, &ro, stats, err);
  }
  for (int i = 0; i < nt && !st; i++) st = flush(&ts[i], err);
  for (int i = 0; ts && i < nt; i++) {
    rg_fp_opeval_free(ts[i].ev);
    for (int p = 0; p < RG_ENUM_POOL; p++) free(ts[i].val[p]);
  }
  free(ts);
  free(users);
  rg_fp_inputs_free(sp, inputs);
  return st;
}

/* rg_fp_collect's sink: every batch into the one table, under a lock. */
static rg_status to_store(void *user, int thread, const rg_fp_record *r, int n, rg_err *err) {
  (void)thread;
  rg_status st;
#pragma omp critical(rg_fp_store)
  st = rg_fp_store_add(user, r, (size_t)n, err);
  return st;
}

rg_status rg_fp_collect(const rg_enum_space *sp, const rg_fp_opts *o, uint64_t lo, uint64_t hi,
                        rg_fp_table *t, rg_enum_stats *stats, rg_err *err) {
  rg_fp_store s;
  rg_fp_store_init(&s, t, 0, lo, hi); /* t empty whatever the checks below say */
  memset(stats, 0, sizeof *stats);
  if (o->mem_limit < RG_FP_MIN_MEM)
    return rg_err_set(err, RG_ERR_LIMIT,
                      "memory limit of %zu bytes is too small to make progress: give at least %u MB",
                      o->mem_limit, RG_FP_MIN_MEM >> 20);
  rg_status st = rg_fp_store_start(&s, t, sp, o, lo, hi, err);
  rg_fp_sink sink = {to_store, NULL, &s, lo, &s.hi, NULL, 0, false};
  if (!st) st = rg_fp_enumerate(sp, o, &sink, stats, err);
  if (st) return st;
  rg_fp_store_finish(&s, o->threads);
  return RG_OK;
}

bool rg_fp_table_next_bucket(const rg_fp_table *t, size_t *pos, size_t *start, size_t *len,
                             uint64_t *singles) {
  size_t i = *pos;
  while (i < t->n) {
    size_t j = i + 1;
    while (j < t->n && t->r[j].fp == t->r[i].fp) j++;
    if (j - i >= 2) {
      *start = i, *len = j - i, *pos = j;
      return true;
    }
    if (singles) *singles += j - i;
    i = j;
  }
  *pos = i;
  return false;
}
