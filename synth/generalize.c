/* synth/generalize.c: the generalize stage (see synth/generalize.h). */
#define _POSIX_C_SOURCE 200809L
#include "generalize.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


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
    if (d % 256 == 0) {
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

/* Sums the candidates' counts into c and their lines onto lines. */
static rg_status take_lines(int n, const rg_strbuf *sbs, const rg_generalize_stats *stats, rg_generalize_counts *c,
                            rg_strbuf *lines, rg_err *err) {
  for (int i = 0; i < n; i++) {
    rg_sb_puts(lines, rg_sb_str(&sbs[i]));
    c->repeated += stats[i].tried > 0;
    c->tried += (uint64_t)stats[i].tried, c->passed += (uint64_t)stats[i].passed;
    c->added += (uint64_t)stats[i].kept, c->capped += stats[i].capped;
  }
  return lines->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
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
 * so that the 3.3 million of a depth-4 run never are at once (they took 5 GB). */
#define CHUNK_RULES 65536

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

/* Generalizes the candidates of text[pos..end) (line numbers from line0), their counts into
 * stats and their generalizations' lines onto lines. */
static rg_status chunk(const rg_generalize_opts *o, const char *text, size_t pos, size_t end, int line0, int m,
                       rg_generalize_stats *stats, rg_randtest_cache *cache, rg_progress *pg, int *done,
                       rg_generalize_counts *c, rg_strbuf *lines, rg_err *err) {
  rg_ruleset rs;
  rg_ruleset_init(&rs);
  rg_status st = rg_text_parse(text + pos, end - pos, &rs, err);
  if (st && err->line) err->line += line0;
  for (int i = 0; !st && i < rs.n; i++) rs.rules[i]->line += line0;
  if (!st && rs.n != m) st = rg_err_at(err, RG_ERR_PARSE, line0 + 1, 1, "%d rules parsed from %d rule lines", rs.n, m);
  rg_strbuf *sbs = st ? NULL : calloc((size_t)rs.n + 1, sizeof *sbs);
  if (!st && !sbs) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = generalize_all(o, &rs, sbs, stats, cache, pg, done, err);
  if (!st) st = take_lines(rs.n, sbs, stats, c, lines, err);
  for (int i = 0; sbs && i < rs.n; i++) rg_sb_free(&sbs[i]);
  free(sbs);
  rg_ruleset_free(&rs);
  return st;
}

rg_status rg_synth_generalize(char **cand, size_t *len, const rg_generalize_opts *o,
                              rg_generalize_counts *c, int **general_off, int **general_of,
                              rg_err *err) {
  double t0 = rg_clock_seconds();
  *general_off = *general_of = NULL;
  memset(c, 0, sizeof *c);
  size_t all_end;
  int all_lines, n = rule_lines(*cand, *len, 0, INT32_MAX, &all_end, &all_lines), done = 0, at = 0, line0 = 0;
  c->in = (uint64_t)n;
  rg_generalize_stats *stats = calloc((size_t)n + 1, sizeof *stats);
  rg_randtest_cache *cache = rg_randtest_cache_new(o->cache_bytes);
  rg_strbuf lines;
  rg_sb_init(&lines);
  rg_status st = stats && cache ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_progress pg;
  rg_progress_start(&pg, "generalize", "candidates", n, !o->quiet);
  for (size_t pos = 0, end; !st && pos < *len && !(o->stop && *o->stop); pos = end) {
    int n_lines, m = rule_lines(*cand, *len, pos, o->chunk_rules > 0 ? o->chunk_rules : CHUNK_RULES, &end, &n_lines);
    st = chunk(o, *cand, pos, end, line0, m, stats + at, cache, &pg, &done, c, &lines, err);
    at += m, line0 += n_lines;
  }
  rg_progress_tick(&pg, done); /* the count the last line shows */
  rg_progress_finish(&pg);
  bool stopped = o->stop && *o->stop;
  if (!st && !stopped) st = append_lines(cand, len, &lines, err);
  if (!st && !stopped) st = general_lists(n, stats, (int)c->added, general_off, general_of, err);
  rg_sb_free(&lines);
  free(stats);
  rg_randtest_cache_free(cache);
  c->seconds = rg_clock_seconds() - t0;
  return st;
}
