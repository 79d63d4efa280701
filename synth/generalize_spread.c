/* synth/generalize_spread.c: the generalize stage over the ranks of an MPI job
 * (synth/generalize.h). Rank 0 writes the candidate text into its folder (OUT.generalize, which
 * every rank must see) and sends every rank the chunks' bounds and their bytes' SHA-256, then
 * hands out the chunks the folder lacks, as each rank asks; a rank reads only its chunks' bytes
 * (checked against the sums) and keeps each chunk it makes there, and rank 0's stage then takes
 * them all in order, as a run that goes on does: the output is one process's. No rank but rank 0
 * holds the whole text (at depth 5 it would not fit), and the messages carry none of it. */
#define _POSIX_C_SOURCE 200809L
#include "generalize_spread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "ir/killpoint.h"
#include "spread.h"
#include "verify/smt.h"

enum { CANDIDATES }; /* the counter a chunk reports */

/* A job: the folder, the chunks to make (their numbers in the stage) and their bytes' sums. */
typedef struct {
  rg_gen_chunks kept;
  int n;
  int *index;
  rg_gen_chunk *chunk;
  char (*sha)[65];
  const char *at; /* rank 0's text; NULL on a worker, which reads its chunks from the folder */
  rg_randtest_cache *cache;
} job;

/* own: a worker's job, which opened its folder and is freed whole; rank 0's borrows its stage's. */
static void job_free(job *j, bool own) {
  if (!j) return;
  if (own) rg_gen_chunks_close(&j->kept, false);
  rg_randtest_cache_free(j->cache);
  free(j->index), free(j->chunk), free(j->sha);
  if (own) free(j);
}

/* "DIR\nKEY\nN\n", then N lines "I POS END LINE0 M SHA" (preflight.h refused a DIR with a line
 * break under MPI). */
static rg_status job_text(const job *j, rg_strbuf *sb, rg_err *err) {
  rg_sb_printf(sb, "%s\n%s\n%d\n", j->kept.dir, j->kept.key, j->n);
  for (int i = 0; i < j->n; i++)
    rg_sb_printf(sb, "%d %zu %zu %d %d %s\n", j->index[i], j->chunk[i].pos, j->chunk[i].end, j->chunk[i].line0,
                 j->chunk[i].m, j->sha[i]);
  return sb->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* The job's arrays for n chunks. */
static bool job_arrays(job *j, int n) {
  return (j->index = calloc((size_t)n + 1, sizeof *j->index)) && (j->chunk = calloc((size_t)n + 1, sizeof *j->chunk)) &&
         (j->sha = calloc((size_t)n + 1, sizeof *j->sha));
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
  (void)len; /* the text ends at its NUL */
  job *j = calloc(1, sizeof *j);
  if (j) j->kept.lock = -1;
  const char *p = text;
  char *dir = line_of(&p), *key = line_of(&p), *end;
  rg_status st = j && dir && key ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) j->n = (int)strtol(p, &end, 10), p = end;
  if (!st && (j->n < 0 || !job_arrays(j, j->n))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < j->n; i++) {
    rg_gen_chunk *c = &j->chunk[i];
    int used = 0;
    j->index[i] = (int)strtol(p, &end, 10), c->pos = strtoull(end, &end, 10), c->end = strtoull(end, &end, 10);
    c->line0 = (int)strtol(end, &end, 10), c->m = (int)strtol(end, &end, 10), p = end;
    if (sscanf(p, " %64[0-9a-f]%n", j->sha[i], &used) != 1 || strlen(j->sha[i]) != 64 || c->pos > c->end)
      st = rg_err_set(err, RG_ERR_ARG, "a generalize chunk's bounds or sum garbled in rank 0's job");
    p += used;
  }
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
    rg_gen_chunk c = j->chunk[i];
    char *mine = NULL; /* a worker's chunk, read from the folder: there its bytes are [0, end - pos) */
    if (!j->at && !(st = rg_gen_chunks_read_text(&j->kept, &c, j->sha[i], &mine, err))) c.end -= c.pos, c.pos = 0;
    rg_generalize_stats *stats = st ? NULL : calloc((size_t)c.m + 1, sizeof *stats);
    rg_strbuf lines;
    rg_sb_init(&lines);
    if (!st) st = stats ? rg_generalize_chunk(o, j->at ? j->at : mine, &c, stats, j->cache, NULL, NULL, &lines, err)
                        : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    if (!st && !(o->stop && *o->stop)) st = rg_gen_chunks_save(&j->kept, j->index[i], c.m, stats, rg_sb_str(&lines), lines.len, err);
    counts[CANDIDATES] += c.m;
    rg_sb_free(&lines);
    free(stats), free(mine);
  }
  if (!st && o->stop && *o->stop) /* not done: rank 0 must not count it */
    st = rg_err_set(err, RG_ERR_ARG, "stopped by a signal before its work was done");
  return st;
}

void rg_generalize_work(const rg_generalize_opts *o, rg_cluster_work *w) {
  *w = (rg_cluster_work){(void *)o, open_job, run_chunks, close_job, 1};
}

/* The chunks the folder lacks into j, each with its bytes' sum (one there not whole, rank 0's
 * stage makes). */
static rg_status chunks_to_make(job *j, const char *text, const rg_gen_chunk *chunks, int n, rg_err *err) {
  if (!job_arrays(j, n)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++)
    if (!rg_gen_chunks_has(&j->kept, i)) {
      j->index[j->n] = i, j->chunk[j->n] = chunks[i];
      rg_sha256_hex(text + chunks[i].pos, chunks[i].end - chunks[i].pos, j->sha[j->n++]);
    }
  return RG_OK;
}

rg_status rg_generalize_spread(const rg_generalize_opts *o, const char *text, size_t len, const rg_gen_chunk *chunks,
                               int n, const rg_gen_chunks *kept, int *made, rg_err *err) {
  *made = 0;
  if (rg_cluster_size() == 1) return RG_OK;
  job j = {.kept = *kept, .at = text}; /* borrowed: not closed here */
  rg_status st = chunks_to_make(&j, text, chunks, n, err);
  if (!st && j.n && !(j.cache = rg_randtest_cache_new(o->cache_bytes))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st && j.n) st = rg_gen_chunks_save_text(kept, text, len, err);
  rg_strbuf sb;
  rg_sb_init(&sb);
  if (!st && j.n) st = job_text(&j, &sb, err);
  rg_cluster_work w;
  rg_generalize_work(o, &w);
  if (!st && j.n)
    st = rg_cluster_spread(RG_SPREAD_GENERALIZE, rg_sb_str(&sb), sb.len, j.n, &w, &j, "generalize (ranks)", !o->quiet, err);
  if (!st && j.n) rg_gen_chunks_drop_text(kept); /* every rank is done with it */
  rg_sb_free(&sb);
  if (!st) *made = j.n;
  job_free(&j, false);
  return st;
}
