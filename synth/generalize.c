/* synth/generalize.c: the generalize stage (see synth/generalize.h). */
#define _POSIX_C_SOURCE 200809L
#include "generalize.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/killpoint.h"
#include "verify/smt.h"


void rg_split_ctx_init(rg_split_ctx *c, const rg_enum_space *sp) {
  const rg_enum_inputset *in = &sp->inputs;
  c->sp = sp;
  memset(c->same_shape, 0, sizeof c->same_shape);
  for (int i = 0; i < in->n; i++)
    for (int j = 0; j < in->n; j++)
      c->same_shape[i] += rg_shape_type_eq(&in->in[i].shape, &in->in[j].shape);
}

/* The input-set shape of each variable of r; returns -1, or the first variable that is not an
 * input. */
static int32_t var_shapes(const rg_enum_space *sp, const rg_rule *r, const rg_shape **shapes,
                          int *input) {
  for (int32_t q = 0; q < rg_graph_n_tvars(r->g); q++) {
    input[q] = rg_enum_input_index(sp, rg_graph_tvar_name(r->g, q));
    if (input[q] < 0) return q;
    shapes[q] = &sp->inputs.in[input[q]].shape;
  }
  return -1;
}

/* rg_split_mask from the nt variables' shapes and inputs (var_shapes). */
static uint64_t mask_of(const rg_split_ctx *c, const rg_shape *const *shapes, const int *input,
                        int32_t nt) {
  uint64_t splittable = 0;
  for (int32_t q = 0; q < nt; q++) {
    int used = 0;
    for (int32_t p = 0; p < nt; p++)
      used += rg_shape_type_eq(shapes[p], shapes[q]);
    if (used >= c->same_shape[input[q]]) splittable |= UINT64_C(1) << q;
  }
  return splittable;
}

uint64_t rg_split_mask(const rg_split_ctx *c, const rg_rule *r) {
  int32_t nt = rg_graph_n_tvars(r->g);
  const rg_shape *shapes[RG_ENUM_MAX_INPUTS];
  int input[RG_ENUM_MAX_INPUTS];
  if (nt > RG_ENUM_MAX_INPUTS || nt > 64 || var_shapes(c->sp, r, shapes, input) >= 0) return 0;
  return mask_of(c, shapes, input, nt);
}

/* Generalizes one candidate; appends the lines of the generalizations to sb. */
static rg_status one(const rg_generalize_opts *o, const rg_split_ctx *split,
                     rg_randtest_cache *cache, const rg_rule *r, rg_strbuf *sb,
                     rg_generalize_stats *s, rg_err *err) {
  memset(s, 0, sizeof *s);
  int32_t nt = rg_graph_n_tvars(r->g);
  const rg_shape *shapes[RG_ENUM_MAX_INPUTS];
  int input[RG_ENUM_MAX_INPUTS];
  if (nt > RG_ENUM_MAX_INPUTS || nt > 64) return RG_OK;
  int32_t bad = var_shapes(o->sp, r, shapes, input);
  if (bad >= 0)
    return rg_err_set(err, RG_ERR_UNBOUND, "candidate line %d: ?%s is not an input", r->line,
                      rg_graph_tvar_name(r->g, bad));
  uint64_t splittable = mask_of(split, shapes, input, nt);
  if (!splittable) return RG_OK;
  rg_binding base = {shapes, NULL, NULL};
  rg_ruleset out;
  rg_ruleset_init(&out);
  rg_status st = rg_generalize_rule(r, &base, splittable, &o->rt, cache, &o->lim, &out, s, err);
  for (int i = 0; !st && i < out.n; i++) {
    rg_text_print_rule(out.rules[i], sb);
    rg_sb_puts(sb, "\n");
  }
  rg_ruleset_free(&out);
  return !st && sb->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : st;
}

/* Generalizes every candidate of rs in parallel: sbs[i] gets candidate i's generalizations'
 * lines, stats[i] its counts; *done counts the candidates of the whole stage for pg. */
static rg_status generalize_all(const rg_generalize_opts *o, const rg_ruleset *rs, rg_strbuf *sbs,
                                rg_generalize_stats *stats, rg_randtest_cache *cache, rg_progress *pg, int *done,
                                rg_err *err) {
  rg_split_ctx split;
  rg_split_ctx_init(&split, o->sp);
  rg_status first = RG_OK;
#pragma omp parallel for num_threads(o->threads) schedule(dynamic, 16)
  for (int i = 0; i < rs->n; i++) {
    rg_sb_init(&sbs[i]);
    if (o->stop && *o->stop) continue;
    rg_err e;
    rg_status s = one(o, &split, cache, rs->rules[i], &sbs[i], &stats[i], &e);
    if (s) {
#pragma omp critical(generalize_err)
      if (!first) first = s, *err = e;
    }
    int d;
#pragma omp atomic capture
    d = ++*done;
    if (pg && d % 256 == 0) {
#pragma omp critical(generalize_progress)
      rg_progress_tick(pg, d);
    }
  }
  return first;
}

/* With rules numbered as the grown text has them, the generalizations made from each: candidate
 * i's follow the candidates, in candidate order. */
static rg_status general_lists(int n, const rg_generalize_stats *stats, int added, int **general_off,
                               int **general_of, rg_err *err) {
  int total = n + added;
  int *off = malloc(sizeof *off * ((size_t)total + 1)), *of = malloc(sizeof *of * ((size_t)added + 1));
  if (!off || !of) {
    free(off), free(of);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  int next = 0;
  for (int i = 0; i < total; i++) {
    off[i] = next;
    for (int k = 0; i < n && k < stats[i].kept; k++, next++) of[next] = n + next;
  }
  off[total] = next;
  *general_off = off, *general_of = of;
  return RG_OK;
}

/* Sums the n candidates' counts into c. */
static void sum_counts(int n, const rg_generalize_stats *stats, rg_generalize_counts *c) {
  for (int i = 0; i < n; i++) {
    c->repeated += stats[i].tried > 0;
    c->tried += (uint64_t)stats[i].tried, c->passed += (uint64_t)stats[i].passed;
    c->added += (uint64_t)stats[i].kept, c->capped += stats[i].capped;
  }
}

/* Appends the generalizations' lines to the candidate text. */
static rg_status append_lines(char **cand, size_t *len, const rg_strbuf *lines, rg_err *err) {
  char *grown = realloc(*cand, *len + lines->len + 1);
  if (!grown) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  *cand = grown;
  memcpy(*cand + *len, rg_sb_str(lines), lines->len);
  *len += lines->len;
  (*cand)[*len] = 0;
  return RG_OK;
}

/* Candidates parsed and held as rule graphs at once, unless the options say: about 1.5 KB each,
 * so that the 3.3 million of a depth-4 run never are at once (they took 5 GB). A chunk is also
 * what a run that goes on takes back, and what an MPI rank is handed: small enough that a
 * stopped run loses seconds of it, and that ranks finish together. */
#define CHUNK_RULES 8192

/* Rule lines (not '#', not blank) of text[0..len), and where the chunk of the first max of them
 * from pos ends (*end: just past a newline, or len) after how many lines of any kind (*lines). */
static int rule_lines(const char *text, size_t len, size_t pos, int max, size_t *end, int *lines) {
  int n = 0;
  for (*lines = 0; pos < len && n < max; ++*lines) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t next = nl ? (size_t)(nl - text) + 1 : len;
    size_t k = pos;
    while (k < next && (text[k] == ' ' || text[k] == '\t')) k++;
    n += k < next && text[k] != '#' && text[k] != '\n';
    pos = next;
  }
  *end = pos;
  return n;
}

/* The chunks of text[0..len): at most per rule lines each (*out malloc'ed, *n of them). */
static rg_status chunk_list(const char *text, size_t len, int per, rg_gen_chunk **out, int *n, rg_err *err) {
  int cap = 16, line0 = 0;
  *n = 0;
  *out = malloc(sizeof **out * (size_t)cap);
  for (size_t pos = 0, end; *out && pos < len; pos = end) {
    int lines, m = rule_lines(text, len, pos, per, &end, &lines);
    if (*n == cap) {
      rg_gen_chunk *grown = realloc(*out, sizeof **out * (size_t)(cap *= 2));
      if (!grown) free(*out);
      *out = grown;
      if (!grown) break;
    }
    (*out)[(*n)++] = (rg_gen_chunk){pos, end, line0, m};
    line0 += lines;
  }
  return *out ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
}

rg_status rg_generalize_chunk(const rg_generalize_opts *o, const char *text, const rg_gen_chunk *ch,
                              rg_generalize_stats *stats, rg_randtest_cache *cache, rg_progress *pg, int *done,
                              rg_strbuf *lines, rg_err *err) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_status st = rg_text_parse(text + ch->pos, ch->end - ch->pos, &rs, err);
  if (st && err->line) err->line += ch->line0;
  for (int i = 0; !st && i < rs.n; i++) rs.rules[i]->line += ch->line0;
  if (!st && rs.n != ch->m)
    st = rg_err_at(err, RG_ERR_PARSE, ch->line0 + 1, 1, "%d rules parsed from %d rule lines", rs.n, ch->m);
  rg_strbuf *sbs = st ? NULL : calloc((size_t)rs.n + 1, sizeof *sbs);
  if (!st && !sbs) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int ignore = 0;
  if (!st) st = generalize_all(o, &rs, sbs, stats, cache, pg, done ? done : &ignore, err);
  for (int i = 0; !st && i < rs.n; i++) rg_sb_puts(lines, rg_sb_str(&sbs[i]));
  if (!st && lines->failed) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; sbs && i < rs.n; i++) rg_sb_free(&sbs[i]);
  free(sbs);
  rg_ruleset_free(&rs);
  return st;
}

/* What the kept chunks were made from: the text, the options that change a verdict, the chunk size. */
static void chunks_key(const char *text, size_t len, const rg_generalize_opts *o, int per, char *key, size_t cap) {
  char sha[65];
  rg_sha256_hex(text, len, sha);
  snprintf(key, cap, "text %s chunk %d tries %d occurrences %d seed %llu trials %d+%d shapes %d", sha, per,
           o->lim.max_tries, o->lim.max_occurrences, (unsigned long long)o->rt.seed, o->rt.zp_trials,
           o->rt.f64_trials, o->rt.other_shapes);
}

/* Chunk i of the stage: taken from the kept ones, else made (and kept). */
static rg_status take_or_make(const rg_generalize_opts *o, const char *text, const rg_gen_chunk *ch, int i,
                              const rg_gen_chunks *kept, rg_generalize_stats *stats, rg_randtest_cache *cache,
                              rg_progress *pg, int *done, rg_strbuf *lines, int *taken, rg_err *err) {
  if (kept->dir && rg_gen_chunks_load(kept, i, ch->m, stats, lines)) {
    ++*taken;
    *done += ch->m;
    rg_progress_tick(pg, *done);
    return lines->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
  }
  rg_strbuf mine;
  rg_sb_init(&mine);
  rg_status st = rg_generalize_chunk(o, text, ch, stats, cache, pg, done, &mine, err);
  rg_err e2;
  if (!st && kept->dir && !(o->stop && *o->stop) && rg_gen_chunks_save(kept, i, ch->m, stats, rg_sb_str(&mine), mine.len, &e2))
    fprintf(stderr, "rulegen: warning: %s (a run that goes on makes this chunk again)\n", e2.msg);
  if (!st) rg_sb_append(lines, rg_sb_str(&mine), mine.len);
  rg_sb_free(&mine);
  if (!st) rg_kill_point("generalize", i + 1); /* a test of going on stops here, i + 1 chunks kept */
  return st;
}

rg_status rg_synth_generalize(char **cand, size_t *len, const rg_generalize_opts *o,
                              rg_generalize_counts *c, int **general_off, int **general_of,
                              rg_err *err) {
  double t0 = rg_clock_seconds();
  *general_off = *general_of = NULL;
  memset(c, 0, sizeof *c);
  size_t all_end;
  int all_lines, n = rule_lines(*cand, *len, 0, INT32_MAX, &all_end, &all_lines), done = 0, at = 0, nc = 0;
  int per = o->chunk_rules > 0 ? o->chunk_rules : CHUNK_RULES;
  c->in = (uint64_t)n;
  rg_generalize_stats *stats = calloc((size_t)n + 1, sizeof *stats);
  rg_randtest_cache *cache = rg_randtest_cache_new(o->cache_bytes);
  rg_gen_chunk *chunks = NULL;
  rg_gen_chunks kept = {NULL, NULL, -1};
  rg_strbuf lines;
  rg_sb_init(&lines);
  rg_status st = stats && cache ? chunk_list(*cand, *len, per, &chunks, &nc, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  char key[256];
  if (!st && o->keep_dir) chunks_key(*cand, *len, o, per, key, sizeof key);
  if (!st && o->keep_dir) st = rg_gen_chunks_open(&kept, o->keep_dir, key, false, err);
  int made = 0, taken = 0; /* chunks the ranks made now; chunks taken from the folder */
  if (!st && kept.dir && o->spread) st = o->spread(o, *cand, *len, chunks, nc, &kept, &made, err);
  rg_progress pg;
  rg_progress_start(&pg, "generalize", "candidates", n, !o->quiet);
  for (int i = 0; !st && i < nc && !(o->stop && *o->stop); at += chunks[i++].m)
    st = take_or_make(o, *cand, &chunks[i], i, &kept, stats + at, cache, &pg, &done, &lines, &taken, err);
  rg_progress_tick(&pg, done); /* the count the last line shows */
  rg_progress_finish(&pg);
  if (taken > made)
    fprintf(stderr, "rulegen: %d of %d generalize chunks taken from %s (made by an earlier run)\n", taken - made, nc,
            kept.dir);
  bool stopped = o->stop && *o->stop;
  sum_counts(n, stats, c);
  if (!st && !stopped) st = append_lines(cand, len, &lines, err);
  if (!st && !stopped) st = general_lists(n, stats, (int)c->added, general_off, general_of, err);
  rg_gen_chunks_close(&kept, false);
  rg_sb_free(&lines);
  free(chunks);
  free(stats);
  rg_randtest_cache_free(cache);
  c->seconds = rg_clock_seconds() - t0;
  return st;
}
