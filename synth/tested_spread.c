/* synth/tested_spread.c: the enumeration and the test stage over the ranks of an MPI job
 * (synth/tested.h). Rank 0 hands out work units, then groups of parts, as each rank asks; every
 * rank writes the spill folder they share, each into files of its own (its slots for the
 * records, test-PP-QQ.cand for a group), so what rank 0 reads back afterwards is what one
 * process would have written, and a run stopped half way goes on under any number of ranks. */
#define _POSIX_C_SOURCE 200809L
#include "tested.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster.h"
#include "ir/killpoint.h"
#include "candidates.h"
#include "parts.h"
#include "spread.h"

enum { GRAPHS, PAIRS, LOADS }; /* the counters a chunk reports */

/* A job: the folder and its items, work units (a == b) or groups of parts a..b. */
typedef struct {
  rg_fp_spill *spill;
  bool joined; /* opened for this job (a worker's): closed with it */
  int total;   /* the space's work units */
  int n;
  int (*item)[2];
  rg_randtest_cache *cache; /* a test job's */
} job;

static void job_free(job *j) {
  if (!j) return;
  rg_err ignore;
  if (j->joined && rg_fp_spill_close(j->spill, false, &ignore)) (void)ignore;
  rg_randtest_cache_free(j->cache);
  free(j->item);
  free(j);
}

/* The job's text: the folder, "TOTAL N", N lines "A B", then the folder's header. */
static rg_status job_text(const job *j, rg_strbuf *sb, rg_err *err) {
  const char *dir = rg_fp_spill_dir(j->spill);
  rg_sb_init(sb);
  if (strchr(dir, '\n')) return rg_err_set(err, RG_ERR_ARG, "the spill folder's name holds a line break: give --spill another");
  rg_sb_printf(sb, "%s\n%d %d\n", dir, j->total, j->n);
  for (int i = 0; i < j->n; i++) rg_sb_printf(sb, "%d %d\n", j->item[i][0], j->item[i][1]);
  rg_sb_puts(sb, rg_fp_spill_header(j->spill));
  return sb->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* A job from its text (with a verdict cache for a test job). */
static rg_status open_job(const rg_synth_records_ctx *c, const char *text, bool testing, void **out, rg_err *err) {
  job *j = calloc(1, sizeof *j);
  const char *nl = strchr(text, '\n');
  char *dir = nl ? strndup(text, (size_t)(nl - text)) : NULL;
  const char *p = nl ? nl + 1 : text;
  char *end;
  rg_status st = j && dir ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) j->total = (int)strtol(p, &end, 10), j->n = (int)strtol(end, &end, 10), p = end;
  if (!st && (j->n < 0 || j->total < 0 || !(j->item = calloc((size_t)j->n + 1, sizeof *j->item))))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory for a job of %d items", j->n);
  for (int i = 0; !st && i < j->n; i++)
    j->item[i][0] = (int)strtol(p, &end, 10), j->item[i][1] = (int)strtol(end, &end, 10), p = end;
  if (!st && *p == '\n') p++;
  if (!st) st = rg_fp_spill_join(dir, p, &j->spill, err);
  if (!st) j->joined = true;
  if (!st && testing && !(j->cache = rg_randtest_cache_new(rg_synth_cache_bytes(c->o))))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  free(dir);
  if (st) job_free(j), j = NULL;
  *out = j;
  return st;
}

static rg_status open_units(void *ctx, const char *text, size_t len, void **out, rg_err *err) {
  (void)len;
  return open_job(ctx, text, false, out, err);
}

static rg_status open_groups(void *ctx, const char *text, size_t len, void **out, rg_err *err) {
  (void)len;
  return open_job(ctx, text, true, out, err);
}

static void close_job(void *ctx, void *j) {
  (void)ctx;
  job_free(j);
}

/* The enumeration's options for a chunk: quiet (the spread says how far it is). */
static rg_fp_opts chunk_fp(const rg_synth_records_ctx *c) {
  rg_fp_opts fp = c->o->fp;
  fp.progress = NULL, fp.progress_user = NULL;
  return fp;
}

/* A chunk a signal stopped: not done, and said so (rank 0 must not count it). */
static rg_status stopped(rg_err *err) {
  return rg_err_set(err, RG_ERR_ARG, "stopped by a signal before its work was done");
}

/* Units [b, e) of the job into this rank's own slots. */
static rg_status run_units(void *ctx, void *jp, int b, int e, int64_t counts[RG_CLUSTER_COUNTS], rg_err *err) {
  const rg_synth_records_ctx *c = ctx;
  job *j = jp;
  rg_kill_point("rank-enumerate", rg_cluster_rank()); /* a test's rank that dies (ir/killpoint.h) */
  uint8_t *skip = malloc((size_t)j->total + 1);
  if (!skip) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memset(skip, 1, (size_t)j->total);
  for (int i = b; i < e; i++)
    if (j->item[i][0] >= 0 && j->item[i][0] < j->total) skip[j->item[i][0]] = 0;
  rg_fp_opts fp = chunk_fp(c);
  rg_enum_stats stats = {0};
  /* each rank its own slots, whatever threads the others run */
  int threads = fp.threads < 1 ? 1 : fp.threads, stride = RG_FP_SPILL_SLOTS / rg_cluster_size();
  rg_status st = threads <= stride ? RG_OK
                                   : rg_err_set(err, RG_ERR_ARG, "%d ranks write the spill folder with at most %d "
                                                "threads each, and this one has %d: give -j %d or fewer",
                                                rg_cluster_size(), stride, threads, stride);
  if (!st) st = rg_fp_spill_enumerate_some(j->spill, c->sp, &fp, rg_cluster_rank() * stride, skip, j->total, &stats,
                                           err);
  if (!st && stats.interrupted) st = stopped(err);
  counts[GRAPHS] += (int64_t)stats.graphs;
  free(skip);
  return st;
}

/* Groups [b, e) of the job tested, each kept in its file. */
static rg_status run_groups(void *ctx, void *jp, int b, int e, int64_t counts[RG_CLUSTER_COUNTS], rg_err *err) {
  const rg_synth_records_ctx *c = ctx;
  job *j = jp;
  rg_kill_point("rank-test", rg_cluster_rank());
  rg_fp_opts fp = chunk_fp(c);
  rg_synth_opts quiet = *c->o;
  quiet.quiet = true;
  rg_status st = RG_OK;
  for (int g = b; g < e && !st && !*c->o->stop; g++) {
    int p = j->item[g][0], q = j->item[g][1];
    char *path = rg_part_path(j->spill, p, q), *text = NULL;
    size_t len = 0;
    rg_synth_counts pc = {0};
    st = path ? rg_part_test(&quiet, &fp, c->sp, j->spill, p, q, j->cache, &text, &len, &pc, err)
              : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (!st && !*c->o->stop) st = rg_part_save(path, p, q, &pc, text, len, err);
    counts[PAIRS] += (int64_t)pc.pairs, counts[LOADS] += pc.passes;
    free(text);
    free(path);
  }
  return !st && *c->o->stop ? stopped(err) : st;
}

void rg_synth_records_works(const rg_synth_records_ctx *c, rg_cluster_work works[RG_CLUSTER_KINDS]) {
  /* a unit or a group can be minutes of work: one at a time at the end */
  works[RG_SPREAD_ENUMERATE] = (rg_cluster_work){(void *)c, open_units, run_units, close_job, 1};
  works[RG_SPREAD_TEST] = (rg_cluster_work){(void *)c, open_groups, run_groups, close_job, 1};
}

/* Rank 0: spreads job j (kind) over the ranks with run, the text naming the folder's header. */
static rg_status spread(int kind, job *j, const rg_synth_records_ctx *c, const char *stage, rg_err *err) {
  rg_strbuf text;
  rg_status st = job_text(j, &text, err);
  rg_cluster_work w[RG_CLUSTER_KINDS] = {{0}};
  rg_synth_records_works(c, w);
  if (!st) st = rg_cluster_spread(kind, rg_sb_str(&text), text.len, j->n, &w[kind], j, stage, c->progress, err);
  rg_sb_free(&text);
  return st;
}

rg_status rg_synth_spread_enumerate(const rg_synth_records_ctx *c, rg_fp_spill *spill, rg_err *err) {
  job j = {.spill = spill};
  rg_status st = rg_fp_spill_units(c->sp, &c->o->fp, &j.total, err);
  if (!st && !(j.item = calloc((size_t)j.total + 1, sizeof *j.item))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int u = 0; !st && u < j.total; u++)
    if (!rg_fp_spill_unit_done(spill, u)) j.item[j.n][0] = j.item[j.n][1] = u, j.n++;
  if (!st && j.n) st = spread(RG_SPREAD_ENUMERATE, &j, c, "enumerate (ranks)", err);
  if (*c->o->stop) st = RG_OK; /* every rank was stopped: the run says it was interrupted */
  free(j.item);
  rg_err e2;
  rg_status s2 = rg_fp_spill_reread(spill, &e2); /* what every rank committed, also after a failure */
  if (s2 && !st) st = s2, *err = e2;
  rg_fp_spill_state ss;
  rg_fp_spill_state_of(spill, &ss);
  rg_enum_stats stats;
  if (!st && !*c->o->stop && ss.units_done < j.total) { /* lost on the way: rank 0 makes them */
    fprintf(stderr, "rulegen: %d work units the ranks did not commit: enumerating them here\n", j.total - ss.units_done);
    rg_fp_opts fp = chunk_fp(c);
    st = rg_fp_spill_enumerate(spill, c->sp, &fp, &stats, err);
  }
  if (!st && !*c->o->stop) st = rg_fp_spill_mark_enumerated(spill, err);
  return st;
}

rg_status rg_synth_spread_test(const rg_synth_records_ctx *c, rg_fp_spill *spill, int *parts, int *loads,
                               rg_err *err) {
  job j = {.spill = spill};
  *parts = *loads = 0;
  rg_status st = (j.item = calloc(RG_FP_SPILL_PARTS, sizeof *j.item)) ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int p = 0, q; !st && p < RG_FP_SPILL_PARTS; p = q + 1) {
    q = rg_part_group_end(spill, &c->o->fp, p);
    char *path = rg_part_path(spill, p, q);
    /* a file there is read once, by rank 0's pass after this; one not whole is tested there */
    if (!path) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else if (access(path, F_OK) != 0) j.item[j.n][0] = p, j.item[j.n][1] = q, j.n++, *parts += q - p + 1;
    free(path);
  }
  if (!st && j.n && !(j.cache = rg_randtest_cache_new(rg_synth_cache_bytes(c->o))))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st && j.n) st = spread(RG_SPREAD_TEST, &j, c, "test (ranks)", err);
  for (int r = 0; r < rg_cluster_size(); r++) *loads += (int)rg_cluster_totals(RG_SPREAD_TEST)[r].counts[LOADS];
  rg_randtest_cache_free(j.cache);
  free(j.item);
  return st;
}
