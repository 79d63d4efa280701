/* optimizer/search/search.c: the backtracking search (search.h). Models are kept as root arrays over
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
  rg_ref *roots; /* NULL once dropped (its slot free for another) */
  double cost;
  int64_t seq;    /* the order queued: equal costs pop in it */
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
  int32_t *free_slots, n_free; /* slots of dropped states, for new ones */
  uint64_t *seen; /* open addressing, 0 empty */
  size_t cap_seen, n_seen;
  int64_t max_live, applications, queued, dropped, explored;
  int32_t best, current; /* the cheapest so far; the model being rewritten */
  rg_search_watch watch;
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

/* Adds h to the seen set; false when it was there, or when memory ran out (s->failed says so). */
static bool first_time(searcher *s, uint64_t h) {
  if (2 * (s->n_seen + 1) > s->cap_seen) {
    size_t cap = s->cap_seen ? 2 * s->cap_seen : 1024;
    uint64_t *t = calloc(cap, sizeof *t);
    if (!t) return s->failed = rg_err_set(s->err, RG_ERR_NOMEM, "out of memory"), false;
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

static bool before(const void *ctx, int32_t a, int32_t b) {
  const searcher *s = ctx;
  return s->st[a].cost < s->st[b].cost || (s->st[a].cost == s->st[b].cost && s->st[a].seq < s->st[b].seq);
}

static void heap_push(searcher *s, int32_t i) { rg_heap_push(s->heap, &s->n_heap, i, before, s); }

static int32_t heap_pop(searcher *s) { return rg_heap_pop(s->heap, &s->n_heap, before, s); }

/* The models the queue keeps: its limit, and no more than the budget left can pop (a dearer
 * one would never be popped: each pop takes one cheaper). */
static int32_t keep(const searcher *s) {
  int64_t k = s->o->queue_limit > 0 ? s->o->queue_limit : RG_SEARCH_QUEUE_LIMIT, left = s->o->budget - s->explored;
  if (left < k) k = left;
  return k < 1 ? 1 : k > INT32_MAX / 2 ? INT32_MAX / 2 : (int32_t)k;
}

/* Keeps the cheapest k models queued (n_heap >= 2k); the others are dropped, their slots freed.
 * The kept ones are popped in order into the tail each pop frees, then moved to the front: a
 * sorted array is a heap. */
static void drop_dearest(searcher *s, int32_t k) {
  int32_t n = s->n_heap;
  for (int32_t i = 0; i < k; i++) {
    int32_t top = heap_pop(s);
    s->heap[s->n_heap] = top;
  }
  for (int32_t i = 0; i < s->n_heap; i++) {
    state *x = &s->st[s->heap[i]];
    free(x->roots), x->roots = NULL;
    s->free_slots[s->n_free++] = s->heap[i];
  }
  s->dropped += s->n_heap;
  for (int32_t i = 0; i < k; i++) s->heap[i] = s->heap[n - 1 - i]; /* n >= 2k: no overlap */
  s->n_heap = k;
}

/* Room for one more state; false when out of memory. */
static bool room(searcher *s) {
  if (s->n_free > 0 || s->n_st < s->cap_st) return true;
  int32_t cap = s->cap_st ? 2 * s->cap_st : 256;
  state *ns = realloc(s->st, sizeof *ns * (size_t)cap);
  if (ns) s->st = ns;
  int32_t *nh = ns ? realloc(s->heap, sizeof *nh * (size_t)cap) : NULL;
  if (nh) s->heap = nh;
  int32_t *nf = nh ? realloc(s->free_slots, sizeof *nf * (size_t)cap) : NULL;
  if (!nf) return false;
  s->free_slots = nf, s->cap_st = cap;
  return true;
}

/* Stores a model (roots copied) and queues it; its index, or -1 when out of memory. */
static int32_t add_state(searcher *s, const rg_ref *roots, double cost, int32_t parent, const rg_application *a) {
  int32_t k = keep(s);
  if (s->n_heap >= 2 * k) drop_dearest(s, k);
  rg_ref *r = room(s) ? malloc(sizeof *r * (size_t)(s->n_roots + 1)) : NULL;
  if (!r) return -1;
  memcpy(r, roots, sizeof *r * (size_t)s->n_roots);
  int32_t i = s->n_free > 0 ? s->free_slots[--s->n_free] : s->n_st++;
  s->st[i] = (state){r, cost, s->queued++, parent, a ? *a : (rg_application){0}};
  heap_push(s, i);
  return i;
}

/* Each rewritten model: queued when new, small enough and cheap enough. True (stop rewriting)
 * on an error, Ctrl-C or the memory limit (asked every 64 rewrites: a large model makes
 * thousands). */
static bool visit(void *ctx, const rg_application *a, const rg_ref *roots) {
  searcher *s = ctx;
  if (++s->applications % 64 == 0 && rg_search_watch_check(&s->watch)) return true;
  if (!first_time(s, roots_hash(roots, s->n_roots))) return s->failed != RG_OK;
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

/* The original costed, seen and queued. */
static rg_status start(searcher *s, double *cost0) {
  rg_ref *r = malloc(sizeof *r * (size_t)(s->n_roots + 1));
  if (!r) return rg_err_set(s->err, RG_ERR_NOMEM, "out of memory");
  rg_model_roots(s->m, r);
  int64_t ops0 = 0;
  rg_status st = s->o->cost(s->o->cost_ctx, s->m, r, cost0, &ops0, s->err);
  s->max_live = (int64_t)(s->o->max_growth * (double)ops0);
  if (!st && (!first_time(s, roots_hash(r, s->n_roots)) || add_state(s, r, *cost0, -1, NULL) < 0))
    st = rg_err_set(s->err, RG_ERR_NOMEM, "out of memory");
  free(r);
  return st;
}

/* Why the search stops before popping another model, or NULL: a stop found while rewriting
 * the last one first. */
static const char *stop_reason(searcher *s, double t0) {
  if (s->watch.why) return s->watch.why;
  if (s->n_heap == 0) return "queue empty";
  if (s->explored >= s->o->budget) return "budget";
  if (s->o->time_limit > 0 && rg_clock_seconds() - t0 > s->o->time_limit) return "time limit";
  return rg_search_watch_check(&s->watch);
}

/* Pops and rewrites models until a stop; an allocation failure is one (out of memory). */
static rg_status explore(searcher *s, const rg_apply_set *set, double t0, rg_search_result *out) {
  rg_progress line; /* of the budget of models */
  rg_progress_start(&line, "search", "models", s->o->budget, s->o->progress);
  double cost0 = s->st[0].cost;
  rg_status st = RG_OK;
  while (!st && !(out->stop_reason = stop_reason(s, t0))) {
    int32_t i = heap_pop(s);
    bool better = s->st[i].cost < (1 - MIN_GAIN) * s->st[s->best].cost;
    if (better) s->best = i;
    s->current = i;
    s->explored++;
    st = rg_apply_all(set, s->m, s->st[i].roots, visit, s, s->err);
    if (!st) st = s->failed;
    s->failed = RG_OK;
    st = rg_search_watch_nomem(&s->watch, st, s->err);
    if (better || s->explored == 1) /* a run with this budget would stop here, this best found */
      out->explored_to_best = s->explored, out->seconds_to_best = rg_clock_seconds() - t0;
    rg_progress_tick_extra(&line, s->explored, "%d queued, best cost %.4g (%.1f%% of the original)", s->n_heap,
                           s->st[s->best].cost, 100.0 * s->st[s->best].cost / cost0);
  }
  rg_progress_finish(&line);
  return st;
}

rg_status rg_search(rg_model *m, const rg_apply_set *set, const rg_search_opts *o, rg_search_result *out,
                    rg_err *err) {
  memset(out, 0, sizeof *out);
  searcher s = {.m = m, .o = o, .n_roots = rg_model_n_roots(m), .err = err};
  rg_search_watch_start(&s.watch, o->stop, &o->memory);
  double t0 = rg_clock_seconds();
  rg_status st = start(&s, &out->cost_before);
  if (!st) st = explore(&s, set, t0, out);
  out->explored = s.explored, out->queued = s.queued, out->dropped = s.dropped;
  out->applications = s.applications;
  out->seconds = rg_clock_seconds() - t0;
  if (!st) st = result(&s, out, err);
  for (int32_t i = 0; i < s.n_st; i++) free(s.st[i].roots);
  free(s.st), free(s.heap), free(s.free_slots), free(s.seen);
  if (st) rg_search_result_free(out);
  return st;
}

void rg_search_result_free(rg_search_result *r) {
  for (int i = 0; r->steps && i < r->n_steps; i++) free(r->steps[i].roots);
  free(r->steps), free(r->roots);
  memset(r, 0, sizeof *r);
}
