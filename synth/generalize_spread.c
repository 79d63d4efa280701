/* synth/generalize_spread.c: the generalize stage over the ranks of an MPI job
 * (synth/generalize.h). Rank 0 sends every rank the candidate text and the chunks' bounds, then
 * hands out the chunks its folder (OUT.generalize, which every rank must see) lacks, as each
 * rank asks; a rank keeps each chunk it makes there, and rank 0's stage then takes them all in
 * order, as a run that goes on does: the output is one process's. */
#define _POSIX_C_SOURCE 200809L
#include "generalize_spread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "ir/killpoint.h"
#include "spread.h"

enum { CANDIDATES }; /* the counter a chunk reports */

/* A job: the folder, the chunks to make (their numbers in the stage) and the text. */
typedef struct {
  rg_gen_chunks kept;
  int n;
  int *index;
  rg_gen_chunk *chunk;
  char *text; /* a worker's copy (rank 0's: NULL, text below) */
  const char *at;
  rg_randtest_cache *cache;
} job;

/* own: a worker's job, which opened its folder and is freed whole; rank 0's borrows its stage's. */
static void job_free(job *j, bool own) {
  if (!j) return;
  if (own) rg_gen_chunks_close(&j->kept, false);
  rg_randtest_cache_free(j->cache);
  free(j->index), free(j->chunk), free(j->text);
  if (own) free(j);
}

/* "DIR\nKEY\nN\n", N lines "I POS END LINE0 M", then the text (preflight.h refused a DIR with a
 * line break under MPI). */
static rg_status job_text(const job *j, const char *text, size_t len, rg_strbuf *sb, rg_err *err) {
  rg_sb_printf(sb, "%s\n%s\n%d\n", j->kept.dir, j->kept.key, j->n);
  for (int i = 0; i < j->n; i++)
    rg_sb_printf(sb, "%d %zu %zu %d %d\n", j->index[i], j->chunk[i].pos, j->chunk[i].end, j->chunk[i].line0,
                 j->chunk[i].m);
  rg_sb_append(sb, text, len);
  return sb->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* The first line of *p (malloc'ed), *p moved past it. */
static char *line_of(const char **p) {
  const char *nl = strchr(*p, '\n');
  char *s = nl ? strndup(*p, (size_t)(nl - *p)) : NULL;
  if (nl) *p = nl + 1;
  return s;
}

static rg_status open_job(void *ctx, const char *text, size_t len, void **out, rg_err *err) {
  const rg_generalize_opts *o = ctx;
  job *j = calloc(1, sizeof *j);
  if (j) j->kept.lock = -1;
  const char *p = text;
  char *dir = line_of(&p), *key = line_of(&p), *end;
  rg_status st = j && dir && key ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) j->n = (int)strtol(p, &end, 10), p = end;
  if (!st && (j->n < 0 || !(j->index = calloc((size_t)j->n + 1, sizeof *j->index)) ||
              !(j->chunk = calloc((size_t)j->n + 1, sizeof *j->chunk))))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < j->n; i++) {
    rg_gen_chunk *c = &j->chunk[i];
    j->index[i] = (int)strtol(p, &end, 10), c->pos = strtoull(end, &end, 10), c->end = strtoull(end, &end, 10);
    c->line0 = (int)strtol(end, &end, 10), c->m = (int)strtol(end, &end, 10), p = end;
  }
  if (!st && *p == '\n') p++;
  size_t rest = len - (size_t)(p - text);
  if (!st && !(j->text = malloc(rest + 1))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory for the candidates");
  if (!st) memcpy(j->text, p, rest), j->text[rest] = 0, j->at = j->text;
  for (int i = 0; !st && i < j->n; i++)
    if (j->chunk[i].end > rest || j->chunk[i].pos > j->chunk[i].end)
      st = rg_err_set(err, RG_ERR_ARG, "a generalize chunk beyond the candidates sent");
  if (!st) st = rg_gen_chunks_open(&j->kept, dir, key, true, err);
  if (!st && !(j->cache = rg_randtest_cache_new(o->cache_bytes))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  free(dir), free(key);
  if (st) job_free(j, true), j = NULL;
  *out = j;
  return st;
}

static void close_job(void *ctx, void *j) {
  (void)ctx;
  job_free(j, true);
}

/* Chunks [b, e) of the job made and kept. */
static rg_status run_chunks(void *ctx, void *jp, int b, int e, int64_t counts[RG_CLUSTER_COUNTS], rg_err *err) {
  const rg_generalize_opts *o = ctx;
  job *j = jp;
  rg_kill_point("rank-generalize", rg_cluster_rank()); /* a test's rank that dies (ir/killpoint.h) */
  rg_status st = RG_OK;
  for (int i = b; i < e && !st && !(o->stop && *o->stop); i++) {
    rg_gen_chunk *c = &j->chunk[i];
    rg_generalize_stats *stats = calloc((size_t)c->m + 1, sizeof *stats);
    rg_strbuf lines;
    rg_sb_init(&lines);
    st = stats ? rg_generalize_chunk(o, j->at, c, stats, j->cache, NULL, NULL, &lines, err)
               : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (!st && !(o->stop && *o->stop)) st = rg_gen_chunks_save(&j->kept, j->index[i], c->m, stats, rg_sb_str(&lines), lines.len, err);
    counts[CANDIDATES] += c->m;
    rg_sb_free(&lines);
    free(stats);
  }
  if (!st && o->stop && *o->stop) /* not done: rank 0 must not count it */
    st = rg_err_set(err, RG_ERR_ARG, "stopped by a signal before its work was done");
  return st;
}

void rg_generalize_work(const rg_generalize_opts *o, rg_cluster_work *w) {
  *w = (rg_cluster_work){(void *)o, open_job, run_chunks, close_job, 1};
}

rg_status rg_generalize_spread(const rg_generalize_opts *o, const char *text, size_t len, const rg_gen_chunk *chunks,
                               int n, const rg_gen_chunks *kept, int *made, rg_err *err) {
  *made = 0;
  if (rg_cluster_size() == 1) return RG_OK;
  job j = {.kept = *kept, .at = text}; /* borrowed: not closed here */
  rg_status st = (j.index = calloc((size_t)n + 1, sizeof *j.index)) && (j.chunk = calloc((size_t)n + 1, sizeof *j.chunk))
                     ? RG_OK
                     : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < n; i++) /* the chunks not there; one there not whole, rank 0's stage makes */
    if (!rg_gen_chunks_has(kept, i)) j.index[j.n] = i, j.chunk[j.n++] = chunks[i];
  if (!st && j.n && !(j.cache = rg_randtest_cache_new(o->cache_bytes))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_strbuf sb;
  rg_sb_init(&sb);
  if (!st && j.n) st = job_text(&j, text, len, &sb, err);
  rg_cluster_work w;
  rg_generalize_work(o, &w);
  if (!st && j.n)
    st = rg_cluster_spread(RG_SPREAD_GENERALIZE, rg_sb_str(&sb), sb.len, j.n, &w, &j, "generalize (ranks)", !o->quiet, err);
  rg_sb_free(&sb);
  if (!st) *made = j.n;
  job_free(&j, false);
  return st;
}
