/* synth/collapse.c: collapsing renamed copies on the candidate text (see
 * synth/collapse.h). */
#define _POSIX_C_SOURCE 200809L
#include "collapse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prune/canon.h"

static bool is_rule_line(const char *s, size_t l) {
  size_t k = strspn(s, " \t");
  return k < l && s[k] != '#';
}

typedef struct {
  rg_content_id id;
  uint64_t extra; /* rg_collapse_opts.extra_key (0: none given) */
} line_key;

static bool key_eq(const line_key *a, const line_key *b) {
  return a->extra == b->extra && !rg_content_id_cmp(&a->id, &b->id);
}

/* Key of the rule on one line (l bytes at s, not NUL-terminated). */
static rg_status line_key_of(const rg_collapse_opts *o, const char *s, size_t l, char **buf,
                             size_t *cap, rg_strbuf *sb, line_key *key, rg_err *err) {
  if (l + 1 > *cap) {
    char *b = realloc(*buf, l + 1);
    if (!b) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    *buf = b, *cap = l + 1;
  }
  memcpy(*buf, s, l);
  (*buf)[l] = 0;
  rg_rule *r = NULL;
  rg_status st = rg_text_parse_rule(*buf, &r, err);
  rg_sb_clear(sb);
  if (!st) st = rg_canon_id(r, sb, &key->id, err);
  key->extra = !st && o->extra_key ? o->extra_key(o->extra_ctx, r) : 0;
  rg_rule_free(r);
  return st;
}

static bool same_key(const void *owner, const void *key, int32_t line) {
  return key_eq(&((const line_key *)owner)[line], key);
}

/* The id's first 8 bytes are already a uniform hash. */
static uint64_t key_hash(const line_key *k) {
  uint64_t h;
  memcpy(&h, k->id.b, sizeof h);
  return h ^ k->extra * UINT64_C(0x9e3779b97f4a7c15);
}

/* Marks keep[i] for the first line of each key (ir/hashtab: line indices, keys in ids). */
static rg_status first_of_each(const line_key *ids, uint64_t n, bool *keep, uint64_t *kept, rg_err *err) {
  if (n > INT32_MAX) return rg_err_set(err, RG_ERR_LIMIT, "more than %d candidate lines", INT32_MAX);
  rg_hashtab t = {0};
  rg_status st = RG_OK;
  *kept = 0;
  for (uint64_t i = 0; !st && i < n; i++) {
    uint64_t h = key_hash(&ids[i]);
    size_t pos = rg_hashtab_probe(&t, h, same_key, ids, &ids[i]);
    if (rg_hashtab_at(&t, pos) >= 0) continue; /* a renaming of that line */
    if (!(st = rg_hashtab_set(&t, pos, h, (int32_t)i))) keep[i] = true, ++*kept;
  }
  rg_hashtab_free(&t);
  return st ? rg_err_set(err, st, "out of memory") : RG_OK;
}

/* The rule lines of cand: where each starts and its line number (for messages). */
typedef struct {
  uint64_t n;
  size_t *start;
  uint32_t *line_no;
} rule_lines;

static rg_status find_rule_lines(const char *cand, rule_lines *rl, rg_err *err) {
  rl->n = 0;
  for (const char *s = cand; *s;) {
    size_t l = strcspn(s, "\n");
    rl->n += is_rule_line(s, l);
    s += l + (s[l] == '\n');
  }
  rl->start = malloc(sizeof *rl->start * (rl->n + 1));
  rl->line_no = malloc(sizeof *rl->line_no * (rl->n + 1));
  if (!rl->start || !rl->line_no) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  uint64_t k = 0, line = 0;
  for (const char *s = cand; *s;) {
    size_t l = strcspn(s, "\n");
    ++line;
    if (is_rule_line(s, l)) rl->start[k] = (size_t)(s - cand), rl->line_no[k++] = (uint32_t)line;
    s += l + (s[l] == '\n');
  }
  return RG_OK;
}

/* The key of every rule line, in parallel. */
static rg_status key_all(const char *cand, const rule_lines *rl, const rg_collapse_opts *o, line_key *ids,
                         rg_err *err) {
  rg_status first = RG_OK;
  uint64_t done = 0;
  rg_progress pg;
  rg_progress_start(&pg, "renaming", "candidates", (int64_t)rl->n, !o->quiet);
#pragma omp parallel num_threads(o->threads)
  {
    char *buf = NULL;
    size_t cap = 0;
    rg_strbuf sb;
    rg_sb_init(&sb);
#pragma omp for schedule(dynamic, 1024)
    for (uint64_t i = 0; i < rl->n; i++) {
      if ((o->stop && *o->stop) || first) continue;
      rg_err e;
      const char *s = cand + rl->start[i];
      rg_status r = line_key_of(o, s, strcspn(s, "\n"), &buf, &cap, &sb, &ids[i], &e);
      if (r) {
#pragma omp critical(collapse_err)
        if (!first) first = r, rg_err_set(err, r, "candidate line %u: %s", rl->line_no[i], e.msg);
      }
      uint64_t d;
#pragma omp atomic capture
      d = ++done;
      if (d % 4096 == 0) {
#pragma omp critical(collapse_progress)
        rg_progress_tick(&pg, (int64_t)d);
      }
    }
    free(buf);
    rg_sb_free(&sb);
  }
  rg_progress_tick(&pg, (int64_t)done); /* the count the last line shows */
  rg_progress_finish(&pg);
  return first;
}

/* Kept lines (and every comment line) move forward, in order. */
static void compact(char *cand, size_t *len, const bool *keep) {
  char *w = cand;
  uint64_t k = 0;
  for (const char *s = cand; *s;) {
    size_t l = strcspn(s, "\n"), step = l + (s[l] == '\n');
    bool rule = is_rule_line(s, l);
    if (!rule || keep[k]) memmove(w, s, step), w += step;
    k += rule;
    s += step;
  }
  *w = 0;
  *len = (size_t)(w - cand);
}

rg_status rg_synth_collapse_renamings(char *cand, size_t *len, const rg_collapse_opts *o,
                                      rg_collapse_counts *c, rg_err *err) {
  double t0 = rg_clock_seconds();
  memset(c, 0, sizeof *c);
  rule_lines rl = {0};
  rg_status st = find_rule_lines(cand, &rl, err);
  line_key *ids = st ? NULL : malloc(sizeof *ids * (rl.n + 1));
  bool *keep = st ? NULL : calloc(rl.n + 1, sizeof *keep);
  if (!st && (!ids || !keep)) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = key_all(cand, &rl, o, ids, err);
  bool stopped = o->stop && *o->stop;
  if (!st && !stopped) st = first_of_each(ids, rl.n, keep, &c->out, err);
  if (!st && !stopped) compact(cand, len, keep);
  c->in = rl.n;
  free(rl.start), free(rl.line_no), free(ids), free(keep);
  c->seconds = rg_clock_seconds() - t0;
  return st;
}
