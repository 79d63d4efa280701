/* optimizer/search.c: the backtracking search (search.h). Models are kept as root arrays over
 * the one growing graph; a model's hash is its roots' (equal models are equal roots). */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The relative gain below which a model is not better than the best: a sum of the same costs
 * in another node order differs in its last bits (a commuted ewadd is no improvement). */
#define MIN_GAIN 1e-9

typedef struct {
  rg_ref *roots;
  double cost;
  int32_t parent; /* -1 for the original */
  rg_application app;
} state;

typedef struct {
  rg_model *m;
  const rg_search_opts *o;
  int32_t n_roots;
  state *st;
  int32_t n_st, cap_st;
  int32_t *heap; /* state indices, cheapest first (ties: the one queued first) */
  int32_t n_heap;
  uint64_t *seen; /* open addressing, 0 empty */
  size_t cap_seen, n_seen;
  int64_t max_live, applications;
  int32_t best, current; /* the cheapest so far; the model being rewritten */
  rg_status failed;
  rg_err *err;
} searcher;

static uint64_t roots_hash(const rg_ref *r, int32_t n) {
  uint64_t h = 0xcbf29ce484222325u;
  for (int32_t i = 0; i < n; i++) {
    h = (h ^ (uint64_t)(uint32_t)r[i].node) * 0x100000001b3u;
    h = (h ^ (uint64_t)(uint32_t)r[i].out) * 0x100000001b3u;
  }
  return h ? h : 1;
}

/* Adds h to the seen set; false when it was there (or memory ran out: then nothing is queued). */
static bool first_time(searcher *s, uint64_t h) {
  if (2 * (s->n_seen + 1) > s->cap_seen) {
    size_t cap = s->cap_seen ? 2 * s->cap_seen : 1024;
    uint64_t *t = calloc(cap, sizeof *t);
    if (!t) return false;
    for (size_t i = 0; i < s->cap_seen; i++)
      if (s->seen[i])
        for (size_t j = s->seen[i] & (cap - 1);; j = (j + 1) & (cap - 1))
          if (!t[j]) {
            t[j] = s->seen[i];
            break;
          }
    free(s->seen);
    s->seen = t, s->cap_seen = cap;
  }
  for (size_t j = h & (s->cap_seen - 1);; j = (j + 1) & (s->cap_seen - 1)) {
    if (s->seen[j] == h) return false;
    if (!s->seen[j]) {
      s->seen[j] = h, s->n_seen++;
      return true;
    }
  }
}

static bool before(const searcher *s, int32_t a, int32_t b) {
  return s->st[a].cost < s->st[b].cost || (s->st[a].cost == s->st[b].cost && a < b);
}

static void heap_push(searcher *s, int32_t i) {
  int32_t k = s->n_heap++;
  s->heap[k] = i;
  while (k > 0 && before(s, s->heap[k], s->heap[(k - 1) / 2])) {
    int32_t p = (k - 1) / 2, t = s->heap[p];
    s->heap[p] = s->heap[k], s->heap[k] = t, k = p;
  }
}

static int32_t heap_pop(searcher *s) {
  int32_t top = s->heap[0];
  s->heap[0] = s->heap[--s->n_heap];
  for (int32_t k = 0;;) {
    int32_t l = 2 * k + 1, r = l + 1, m = k;
    if (l < s->n_heap && before(s, s->heap[l], s->heap[m])) m = l;
    if (r < s->n_heap && before(s, s->heap[r], s->heap[m])) m = r;
    if (m == k) break;
    int32_t t = s->heap[m];
    s->heap[m] = s->heap[k], s->heap[k] = t, k = m;
  }
  return top;
}

/* Stores a model (roots copied) and queues it; its index, or -1 when out of memory. */
static int32_t add_state(searcher *s, const rg_ref *roots, double cost, int32_t parent, const rg_application *a) {
  if (s->n_st == s->cap_st) {
    int32_t cap = s->cap_st ? 2 * s->cap_st : 256;
    state *ns = realloc(s->st, sizeof *ns * (size_t)cap);
    int32_t *nh = ns ? realloc(s->heap, sizeof *nh * (size_t)cap) : NULL;
    if (ns) s->st = ns;
    if (!nh) return -1;
    s->heap = nh, s->cap_st = cap;
  }
  rg_ref *r = malloc(sizeof *r * (size_t)(s->n_roots + 1));
  if (!r) return -1;
  memcpy(r, roots, sizeof *r * (size_t)s->n_roots);
  int32_t i = s->n_st++;
  s->st[i] = (state){r, cost, parent, a ? *a : (rg_application){0}};
  heap_push(s, i);
  return i;
}

static bool visit(void *ctx, const rg_application *a, const rg_ref *roots) {
  searcher *s = ctx;
  s->applications++;
  if (!first_time(s, roots_hash(roots, s->n_roots))) return false;
  double cost;
  int64_t ops;
  if ((s->failed = s->o->cost(s->o->cost_ctx, s->m, roots, &cost, &ops, s->err))) return true;
  if (ops > s->max_live || cost >= s->o->alpha * s->st[s->best].cost) return false;
  if (add_state(s, roots, cost, s->current, a) < 0) {
    s->failed = rg_err_set(s->err, RG_ERR_NOMEM, "out of memory");
    return true;
  }
  return false;
}

static rg_status result(const searcher *s, rg_search_result *out, rg_err *err) {
  out->cost_after = s->st[s->best].cost;
  int n = 0;
  for (int32_t i = s->best; s->st[i].parent >= 0; i = s->st[i].parent) n++;
  out->steps = calloc((size_t)n + 1, sizeof *out->steps);
  out->roots = malloc(sizeof *out->roots * (size_t)(s->n_roots + 1));
  if (!out->steps || !out->roots) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memcpy(out->roots, s->st[s->best].roots, sizeof *out->roots * (size_t)s->n_roots);
  out->n_steps = n;
  for (int32_t i = s->best; s->st[i].parent >= 0; i = s->st[i].parent) {
    rg_search_step *step = &out->steps[--n];
    step->app = s->st[i].app;
    step->cost_before = s->st[s->st[i].parent].cost, step->cost_after = s->st[i].cost;
    if (!(step->roots = malloc(sizeof *step->roots * (size_t)(s->n_roots + 1))))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    memcpy(step->roots, s->st[i].roots, sizeof *step->roots * (size_t)s->n_roots);
  }
  return RG_OK;
}

rg_status rg_search(rg_model *m, const rg_apply_set *set, const rg_search_opts *o, rg_search_result *out,
                    rg_err *err) {
  memset(out, 0, sizeof *out);
  searcher s = {.m = m, .o = o, .n_roots = rg_model_n_roots(m), .err = err};
  double t0 = rg_clock_seconds();
  rg_progress line; /* of the budget of models */
  rg_progress_start(&line, "search", "models", o->budget, o->progress);
  rg_ref *start = malloc(sizeof *start * (size_t)(s.n_roots + 1));
  rg_status st = start ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  double cost0 = 0;
  int64_t ops0 = 0;
  if (!st) {
    rg_model_roots(m, start);
    st = o->cost(o->cost_ctx, m, start, &cost0, &ops0, err);
    s.max_live = (int64_t)(o->max_growth * (double)ops0);
  }
  if (!st && (!first_time(&s, roots_hash(start, s.n_roots)) || add_state(&s, start, cost0, -1, NULL) < 0))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  free(start);
  while (!st && s.n_heap > 0 && out->explored < o->budget) {
    if ((o->time_limit > 0 && rg_clock_seconds() - t0 > o->time_limit) || (o->stop && *o->stop)) {
      out->stopped = true;
      break;
    }
    int32_t i = heap_pop(&s);
    bool better = s.st[i].cost < (1 - MIN_GAIN) * s.st[s.best].cost;
    if (better) s.best = i;
    s.current = i;
    out->explored++;
    st = rg_apply_all(set, m, s.st[i].roots, visit, &s, err);
    if (!st) st = s.failed;
    if (better || out->explored == 1) /* a run with this budget would stop here, this best found */
      out->explored_to_best = out->explored, out->seconds_to_best = rg_clock_seconds() - t0;
    rg_progress_tick_extra(&line, out->explored, "%d queued, best cost %.4g (%.1f%% of the original)", s.n_heap,
                           s.st[s.best].cost, 100.0 * s.st[s.best].cost / cost0);
  }
  rg_progress_finish(&line);
  out->cost_before = cost0;
  out->queued = s.n_st;
  out->applications = s.applications;
  out->seconds = rg_clock_seconds() - t0;
  if (!st) st = result(&s, out, err);
  for (int32_t i = 0; i < s.n_st; i++) free(s.st[i].roots);
  free(s.st), free(s.heap), free(s.seen);
  if (st) rg_search_result_free(out);
  return st;
}

void rg_search_result_free(rg_search_result *r) {
  for (int i = 0; r->steps && i < r->n_steps; i++) free(r->steps[i].roots);
  free(r->steps), free(r->roots);
  memset(r, 0, sizeof *r);
}
