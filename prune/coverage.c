/* prune/coverage.c: coverage of another rule set by ours (prune/coverage.h). */
#include "coverage.h"

#include <stdlib.h>
#include <time.h>

#include "canon.h"
#include "rewrite.h"

static int cmp_id(const void *a, const void *b) { return rg_content_id_cmp(a, b); }

/* Whether rule r, or r reversed, has an id in ours (sorted). */
static rg_status contained(const rg_rule *r, const rg_content_id *ours, int n, rg_cover_verdict *v,
                           rg_err *err) {
  for (int d = 0; d < 2; d++) {
    rg_content_id id;
    rg_status st = d ? rg_canon_build_id(r->g, r->tgt, r->n_tgt, r->src, r->n_src, NULL, 0, &id, err)
                     : rg_canon_build_id(r->g, r->src, r->n_src, r->tgt, r->n_tgt, NULL, 0, &id, err);
    if (st) return st;
    if (bsearch(&id, ours, (size_t)n, sizeof id, cmp_id)) {
      *v = d ? RG_COVER_CONTAINED_REVERSED : RG_COVER_CONTAINED;
      return RG_OK;
    }
  }
  return RG_OK;
}

/* Our rules' sorted ids and their rewrite set. */
static rg_status index_ours(const rg_ruleset *ours, rg_content_id **ids, rg_rewrite_set **set, rg_err *err) {
  *ids = malloc(sizeof **ids * ((size_t)ours->n + 1));
  *set = rg_rewrite_set_new();
  rg_status st = *ids && *set ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < ours->n; i++) st = rg_canon_id(ours->rules[i], NULL, &(*ids)[i], err);
  for (int i = 0; !st && i < ours->n; i++) st = rg_rewrite_set_add(*set, ours->rules[i], i, NULL, err);
  if (!st) qsort(*ids, (size_t)ours->n, sizeof **ids, cmp_id);
  return st;
}

/* Rule r of the other set: contained, derived, not covered or not checked. */
static rg_status cover_one(const rg_rule *r, const rg_content_id *ids, int n_ids, const rg_rewrite_set *set,
                           const rg_derive_limits *lim, rg_cover_verdict *v, int *steps, rg_err *err) {
  *v = RG_COVER_NOT_COVERED;
  if (lim->stop && *lim->stop) return *v = RG_COVER_NOT_CHECKED, RG_OK;
  rg_status st = contained(r, ids, n_ids, v, err);
  if (st || *v != RG_COVER_NOT_COVERED) return st;
  rg_derivation d;
  bool found;
  st = rg_derive_search(set, r, lim, -1, &d, &found, err);
  if (!st && found)
    *v = RG_COVER_DERIVED, *steps = d.n;
  else if (!st && lim->stop && *lim->stop)
    *v = RG_COVER_NOT_CHECKED; /* the search was cut short */
  rg_derivation_free(&d);
  return st;
}

rg_status rg_coverage_compute(const rg_ruleset *other, const rg_ruleset *ours, const rg_derive_limits *lim,
                              rg_coverage_progress progress, void *progress_ctx, rg_coverage *c,
                              rg_err *err) {
  *c = (rg_coverage){.verdict = calloc((size_t)other->n + 1, sizeof *c->verdict),
                     .steps = calloc((size_t)other->n + 1, sizeof *c->steps)};
  rg_content_id *ids = NULL;
  rg_rewrite_set *set = NULL;
  rg_status st = c->verdict && c->steps ? index_ours(ours, &ids, &set, err) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int done = 0, failed = -1;
  time_t last = time(NULL);
  /* Each search reads the shared set and owns its scratch graph, so threads share nothing. */
#pragma omp parallel for schedule(dynamic, 1) if (!st)
  for (int i = 0; i < other->n; i++) {
    if (st) continue;
#pragma omp critical(rg_coverage_progress)
    {
      time_t t = time(NULL);
      if (progress && t != last) progress(progress_ctx, done, other->n);
      last = t;
      done++;
    }
    rg_err e;
    if (cover_one(other->rules[i], ids, ours->n, set, lim, &c->verdict[i], &c->steps[i], &e)) {
#pragma omp critical(rg_coverage_error)
      if (failed < 0 || i < failed) failed = i, *err = e;
    }
  }
  if (!st && failed >= 0) {
    st = err->status;
    if (!err->line) err->line = other->rules[failed]->line, err->col = 1;
  }
  for (int i = 0; !st && i < other->n; i++) {
    c->count[c->verdict[i]]++;
    if (c->verdict[i] == RG_COVER_DERIVED && c->steps[i] > c->longest) c->longest = c->steps[i];
  }
  free(ids);
  rg_rewrite_set_free(set);
  return st;
}

void rg_coverage_free(rg_coverage *c) {
  free(c->verdict), free(c->steps);
  *c = (rg_coverage){0};
}

const char *rg_cover_verdict_name(rg_cover_verdict v) {
  switch (v) {
  case RG_COVER_CONTAINED: return "contained";
  case RG_COVER_CONTAINED_REVERSED: return "contained (reversed)";
  case RG_COVER_DERIVED: return "derived";
  case RG_COVER_NOT_CHECKED: return "not checked";
  default: return "NOT COVERED";
  }
}
