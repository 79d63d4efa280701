/* prune/pipeline.c: the pruning stages over a rule set (see prune.h). */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include "ir/textpack.h"
#include "prune.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

static const char *const fate_names[] = {"kept", "renaming", "subgraph", "supergraph", "derived"};

const char *rg_prune_fate_name(rg_prune_fate f) { return fate_names[f]; }

static const char *const stage_names[RG_PRUNE_STAGES] = {"renaming", "common subgraph", "common supergraph",
                                                         "derivability"};

const char *rg_prune_stage_name(int k) { return stage_names[k]; }

bool rg_prune_parse_stages(const char *s, unsigned *stages) {
  static const struct {
    const char *w;
    unsigned bits;
  } words[] = {{"renaming", RG_PRUNE_RENAMING},
               {"subgraph", RG_PRUNE_SUBGRAPH | RG_PRUNE_SUPERGRAPH},
               {"supergraph", RG_PRUNE_SUPERGRAPH},
               {"derive", RG_PRUNE_DERIVE},
               {"all", RG_PRUNE_ALL},
               {"none", 0}};
  *stages = 0;
  while (*s) {
    size_t n = strcspn(s, ",");
    bool known = false;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
      if (strlen(words[i].w) == n && strncmp(s, words[i].w, n) == 0) {
        *stages |= words[i].bits;
        known = true;
      }
    if (!known) return false;
    s += n;
    if (*s == ',') s++;
  }
  return true;
}

rg_prune_opts rg_prune_opts_default(void) {
  return (rg_prune_opts){.stages = RG_PRUNE_ALL, .limits = RG_DERIVE_LIMITS_DEFAULT, .second_pass = true};
}

/* Ordering keys of a rule (see prune.h). */
typedef struct {
  int larger, vars, total, distinct;
} rule_key;

rg_status rg_prune_facts_of(const rg_rule *r, rg_prune_facts *f, rg_err *err) {
  *f = (rg_prune_facts){.vars = rg_graph_n_tvars(r->g) + rg_graph_n_pvars(r->g)};
  int s = 0, t = 0;
  for (int i = 0; i < r->n_src; i++)
    s += rg_term_size(r->g, r->src[i], 1 << 20);
  for (int i = 0; i < r->n_tgt; i++)
    t += rg_term_size(r->g, r->tgt[i], 1 << 20);
  f->larger = s > t ? s : t;
  f->total = s + t;
  bool seen[RG_OP_COUNT] = {false};
  for (int32_t id = 0; id < rg_graph_size(r->g); id++) {
    int op = rg_graph_node(r->g, id)->op;
    if (op != RG_OP_INPUT && !seen[op]) seen[op] = true, f->distinct++;
  }
  return rg_canon_id(r, NULL, &f->id, err);
}

static rule_key key_of(const rg_prune_facts *f) { return (rule_key){f->larger, f->vars, f->total, f->distinct}; }

typedef struct {
  const rg_prune_result *res;
  const rule_key *keys;
  int *by_id; /* input indices sorted by (content id, index) */
} ctx;

static int cmp_visit(const void *a, const void *b, void *c_) {
  const ctx *c = c_;
  int i = *(const int *)a, j = *(const int *)b;
  const rule_key *x = &c->keys[i], *y = &c->keys[j];
  if (x->larger != y->larger) return x->larger < y->larger ? -1 : 1;
  if (x->vars != y->vars) return x->vars > y->vars ? -1 : 1;
  if (x->total != y->total) return x->total < y->total ? -1 : 1;
  if (x->distinct != y->distinct) return x->distinct < y->distinct ? -1 : 1;
  int d = rg_content_id_cmp(&c->res->e[i].id, &c->res->e[j].id);
  return d ? d : (i > j) - (i < j);
}

static int cmp_id(const void *a, const void *b, void *c_) {
  const ctx *c = c_;
  int i = *(const int *)a, j = *(const int *)b;
  int d = rg_content_id_cmp(&c->res->e[i].id, &c->res->e[j].id);
  return d ? d : (i > j) - (i < j);
}

/* qsort_r is not C17; a small merge sort with a context keeps this portable and stable. */
static void sort_idx(int *v, int n, int *tmp, int (*cmp)(const void *, const void *, void *),
                     void *c) {
  if (n < 2) return;
  int h = n / 2;
  sort_idx(v, h, tmp, cmp, c);
  sort_idx(v + h, n - h, tmp, cmp, c);
  int i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = cmp(&v[j], &v[i], c) < 0 ? v[j++] : v[i++];
  while (i < h)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, sizeof *v * (size_t)n);
}

/* The first kept rule with this content id, or -1. */
static int kept_lookup(const rg_content_id *id, void *c_) {
  const ctx *c = c_;
  int lo = 0, hi = c->res->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (rg_content_id_cmp(&c->res->e[c->by_id[mid]].id, id) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < c->res->n && rg_content_id_cmp(&c->res->e[c->by_id[lo]].id, id) == 0; lo++)
    if (c->res->e[c->by_id[lo]].fate == RG_FATE_KEPT) return c->by_id[lo];
  return -1;
}

static rg_status remove_rule(rg_prune_result *res, int i, rg_prune_fate f, const int *by, int n_by,
                             rg_err *err) {
  rg_prune_entry *e = &res->e[i];
  e->by = malloc(sizeof *e->by * ((size_t)n_by + 1));
  if (!e->by) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  memcpy(e->by, by, sizeof *by * (size_t)n_by);
  e->n_by = n_by;
  e->fate = f;
  res->removal_seq[res->removal_seq_n++] = i;
  res->kept--;
  return RG_OK;
}

/* The caller's let_go for rule i, just removed (prune.h). */
static rg_status let_go(const rg_prune_opts *o, int i, rg_err *err) {
  return o->let_go ? o->let_go(o->let_go_ctx, i, err) : RG_OK;
}

/* Each rule's content id and visiting keys: computed, or the caller's for an absent rule. */
static rg_status compute_facts(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res, rule_key *keys,
                               rg_err *err) {
  rg_status first = RG_OK;
  rg_err e0 = {0};
  int bad = -1;
  /* Each rule is read only and each id written by one thread; the first error (by index) wins
   * so the message does not depend on the schedule. */
#pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < rs->n; i++) {
    rg_err e = {0};
    rg_prune_facts f;
    const rg_prune_facts *had = rs->rules[i] || !o->absent ? NULL : o->absent(o->absent_ctx, i);
    rg_status st = rs->rules[i] ? rg_prune_facts_of(rs->rules[i], &f, &e)
                   : had        ? RG_OK
                                : rg_err_set(&e, RG_ERR_ARG, "internal error: rule %d is absent, with no facts", i);
    if (had) f = *had;
    if (!st) res->e[i].id = f.id, keys[i] = key_of(&f);
    if (st) {
#pragma omp critical(rg_prune_ids)
      if (bad < 0 || i < bad) bad = i, first = st, e0 = e;
    }
  }
  if (first && err) *err = e0;
  return first;
}

/* An absent rule must have gone as a renaming of one before it (prune.h). */
static rg_status absent_renamed(const rg_ruleset *rs, const rg_prune_result *res, rg_err *err) {
  for (int i = 0; i < rs->n; i++)
    if (!rs->rules[i] && res->e[i].fate != RG_FATE_RENAMING)
      return rg_err_set(err, RG_ERR_ARG, "internal error: rule %d was let go of before pruning, but renames no rule before it", i);
  return RG_OK;
}

/* Points an error without a position at the rule it happened on. */
static rg_status at_rule(rg_status st, rg_err *err, const rg_rule *r) {
  if (err && !err->line && r) err->line = r->line, err->col = 1;
  return st;
}

/* Whether `general` is usable in every direction rule r is (rg_side_covers: a direction whose
 * right side names a variable its left side lacks is no rewrite): a generalization that only
 * splits (b37851f5: its merging direction would invent a weight) does not stand in for the
 * merge it was made from. */
static rg_status usable_alike(const rg_rule *general, const rg_rule *r, bool *yes, rg_err *err) {
  *yes = true;
  for (int back = 0; back < 2 && *yes; back++) {
    bool ri = false, gi = false;
    rg_status st = rg_side_covers(r->g, back ? r->tgt : r->src, r->n_src, back ? r->src : r->tgt, r->n_tgt, &ri, err);
    if (!st && ri)
      st = rg_side_covers(general->g, back ? general->tgt : general->src, general->n_src,
                          back ? general->src : general->tgt, general->n_tgt, &gi, err);
    if (st) return st;
    *yes = !ri || gi;
  }
  return RG_OK;
}

/* *by: a kept rule the caller named as more general than rule i (through renamings) of which
 * i is an instance, or -1. */
static rg_status general_instance(const rg_ruleset *rs, const rg_prune_opts *o,
                                  const rg_prune_result *res, int i, int *by, rg_err *err) {
  *by = -1;
  for (int k = o->general_off[i]; *by < 0 && k < o->general_off[i + 1]; k++) {
    int g = o->general_of[k];
    if (g >= 0 && g < res->n && res->e[g].fate == RG_FATE_RENAMING) g = res->e[g].by[0];
    if (g < 0 || g >= res->n || g == i || res->e[g].fate != RG_FATE_KEPT) continue;
    bool yes = false;
    rg_status st = rg_rule_is_instance(rs->rules[g], rs->rules[i], &yes, err);
    if (!st && yes) st = usable_alike(rs->rules[g], rs->rules[i], &yes, err);
    if (st) return st;
    if (yes) *by = g;
  }
  return RG_OK;
}

static rg_status taso_stages(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                             ctx *c, rg_err *err) {
  rg_prune_stage *sub = &res->stage[1], *sup = &res->stage[2];
  sub->in = res->kept;
  for (int k = 0; k < res->n; k++) {
    int i = res->order[k];
    if (res->e[i].fate != RG_FATE_KEPT) continue;
    int by = -1;
    rg_status st = RG_OK;
    double t0 = rg_clock_seconds();
    if (o->stages & RG_PRUNE_SUBGRAPH) {
      st = rg_redundant_subgraph(rs->rules[i], kept_lookup, c, &by, err);
      bool alike = true;
      if (!st && by >= 0) st = usable_alike(rs->rules[by], rs->rules[i], &alike, err);
      if (!alike) by = -1;
      if (!st && by < 0 && o->general_off) st = general_instance(rs, o, res, i, &by, err);
      if (!st && by >= 0 && !(st = remove_rule(res, i, RG_FATE_SUBGRAPH, &by, 1, err))) st = let_go(o, i, err);
    }
    double t1 = rg_clock_seconds();
    sub->seconds += t1 - t0;
    if (!st && by < 0 && (o->stages & RG_PRUNE_SUPERGRAPH)) {
      st = rg_redundant_supergraph(rs->rules[i], kept_lookup, c, &by, err);
      if (!st && by >= 0 && !(st = remove_rule(res, i, RG_FATE_SUPERGRAPH, &by, 1, err))) st = let_go(o, i, err);
    }
    sup->seconds += rg_clock_seconds() - t1;
    if (st) return at_rule(st, err, rs->rules[i]);
  }
  int n_sub = 0;
  for (int i = 0; i < res->n; i++)
    n_sub += res->e[i].fate == RG_FATE_SUBGRAPH;
  sub->out = sub->in - n_sub;
  sup->in = sub->out;
  sup->out = res->kept;
  return RG_OK;
}

rg_status rg_prune_remove_derived(rg_prune_result *res, int i, rg_derivation *d, rg_err *err) {
  int *by = malloc(sizeof *by * ((size_t)d->n + 1));
  if (!by) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int n = 0;
  for (int s = 0; s < d->n; s++) {
    bool dup = false;
    for (int j = 0; j < n && !dup; j++)
      dup = by[j] == d->steps[s].tag;
    if (!dup) by[n++] = d->steps[s].tag;
  }
  rg_status st = remove_rule(res, i, RG_FATE_DERIVED, by, n, err);
  free(by);
  return st ? st : rg_prune_hold_derivation(res, i, d, err);
}

/* The rewrite set derivability searches against, and (o->helpers) its changes not yet sent to
 * them. */
typedef struct {
  rg_rewrite_set *set;
  bool logged;
  rg_derive_change *log;
  int n, cap;
} mirror;

static rg_status log_change(mirror *m, int tag, const rg_rule *r, rg_err *err) {
  if (!m->logged) return RG_OK;
  if (m->n == m->cap) {
    int cap = m->cap ? 2 * m->cap : 1024;
    rg_derive_change *log = realloc(m->log, sizeof *log * (size_t)cap);
    if (!log) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    m->log = log, m->cap = cap;
  }
  m->log[m->n++] = (rg_derive_change){tag, r};
  return RG_OK;
}

static rg_status mirror_add(mirror *m, const rg_rule *r, int tag, rg_err *err) {
  rg_status st = rg_rewrite_set_add(m->set, r, tag, NULL, err);
  return st ? st : log_change(m, tag, r, err);
}

static rg_status mirror_off(mirror *m, int tag, rg_err *err) {
  rg_rewrite_set_enable(m->set, tag, false);
  return log_change(m, tag, NULL, err);
}

/* One rule's search for a derivation from the enabled rules of set, and the re-check of what it
 * found: what a thread does on its own (the set is only read). */
typedef struct {
  int k;           /* the rule's place in the visiting order */
  rg_derive_ask a; /* a.exclude: against the set less itself (pass 2, where it is in the set) */
} trial;

/* Defence in depth: a derivation is re-checked independently before it removes a rule. */
static void check_found(rg_derive_ask *a, const rg_rule **all, int n) {
  rg_err ce;
  if (!a->st && a->found && rg_derivation_check(a->rule, &a->d, all, n, &ce) != RG_OK)
    a->st = rg_err_set(&a->err, RG_ERR_ARG,
                       "internal error: a found derivation failed its check: %s", ce.msg);
}

static void search_one(const rg_prune_opts *o, const rg_rewrite_set *set, const rg_rule **all,
                       int n, trial *t) {
  rg_derive_limits lim = o->limits;
  lim.stop = o->stop;
  rg_derive_ask *a = &t->a;
  a->st = rg_derive_search(set, a->rule, &lim, a->exclude ? a->tag : -1, &a->d, &a->found, &a->err);
  check_found(a, all, n);
}

/* A batch of searches: task j searches t[idx[j]] (check: only checks what the helpers found). */
typedef struct {
  const rg_prune_opts *o;
  const rg_rewrite_set *set;
  const rg_rule **all;
  int n;
  trial *t;
  int *idx;
  rg_derive_ask *rem; /* the helpers' share */
  bool check;
  double search_s; /* a search's mean time here (moving), to weigh against a helpers' turn */
} searches;

static void search_task(void *ctx, int j) {
  searches *b = ctx;
  trial *t = &b->t[b->idx[j]];
  if (b->check)
    check_found(&t->a, b->all, b->n);
  else
    search_one(b->o, b->set, b->all, b->n, t);
}

/* Searches t[0..m): with helpers, those from the crew's size on of every crew size + their width
 * go to them (each side has its share of the first, whose results are taken first), with the
 * set's changes since the last batch; the rest on the crew; then the crew checks what the
 * helpers found. While a search here takes less than a turn of the helpers (small rules), they
 * are not asked: the results are the same whoever searches. */
static rg_status run_batch(searches *b, rg_crew *crew, mirror *mi, int m, bool helped,
                           rg_err *err) {
  const rg_derive_helpers *h = helped ? b->o->helpers : NULL;
  int nth = rg_crew_size(crew), slots = nth + (h ? h->width : 0), n_loc = 0, n_rem = 0;
  for (int j = 0; j < m; j++) /* j % slots >= nth: the helpers' */
    if (h && j % slots >= nth)
      b->rem[n_rem++] = b->t[j].a;
    else
      b->idx[n_loc++] = j;
  rg_status st = n_rem ? h->send(h->ctx, mi->log, mi->n, b->rem, n_rem, err) : RG_OK;
  if (n_rem) mi->n = 0; /* sent (or the pass ends) */
  b->check = false;
  double t0 = rg_clock_seconds();
  rg_crew_run(crew, st ? 0 : n_loc, search_task, b);
  if (n_loc) /* each thread ran about n_loc / nth of them */
    b->search_s =
        0.9 * b->search_s + 0.1 * (rg_clock_seconds() - t0) * (n_loc < nth ? n_loc : nth) / n_loc;
  if (!st && n_rem) st = h->take(h->ctx, b->rem, n_rem, err);
  int n_chk = 0;
  for (int j = 0, r = 0; j < m; j++)
    if (h && j % slots >= nth) {
      b->t[j].a = b->rem[r++];
      if (b->t[j].a.found) b->idx[n_chk++] = j;
    }
  b->check = true;
  rg_crew_run(crew, st ? 0 : n_chk, search_task, b);
  return st;
}

static bool stopped(const rg_prune_opts *o, rg_prune_result *res) {
  if (o->stop && *o->stop) res->interrupted = true;
  return res->interrupted;
}

/* Marks res as derivability part way (pass, going on from next) and hands it to o->save when
 * save_every seconds have passed since *last_save. */
static void maybe_save(const rg_prune_opts *o, rg_prune_result *res, int pass, int next, int seq1,
                       double *last_save) {
  if (!o->save || rg_clock_seconds() - *last_save < o->save_every) return;
  res->derive_pass = pass, res->derive_next = next, res->derive_seq1 = seq1;
  o->save(o->save_ctx, res);
  *last_save = rg_clock_seconds();
}

/* One pass of derivability in batches, from place from of the visiting order: pass 1 forward
 * (set: the rules kept before from), each rule against the set as it stands; pass 2 backward
 * from the largest (a rule kept because the rules that derive it came later in the order goes
 * now, so that small rules are the ones that stay), each rule against the set less itself. The
 * next kept rules are searched at once, each on a thread, and their results taken in order up
 * to the first that changes the set (pass 1: a rule kept joins it; pass 2: a rule removed
 * leaves it): the rules after it in the batch are searched again in the next. The result is
 * the one-by-one pass's, for any number of threads. A batch is one to four rules a thread:
 * halved after a change cut one short (its later searches were wasted: where most rules are
 * kept, a batch of two a thread made two threads slower than one), doubled after one taken
 * whole (more rules a thread even out long searches where few are kept, as at depth 4). With
 * helpers (rg_prune_opts.helpers) their width counts as threads.
 * *next: where it stopped (done: n in pass 1, -1 in pass 2). */
#define BATCH_MAX 4096
typedef struct {
  int pass, from, seq1;
  const bool *only; /* NULL, or the kept rules to search (the others stay as they are) */
  const char *stage; /* the progress line's name */
} pass_spec;

/* Is the rule at place k of the visiting order one the pass searches? */
static bool searched(const rg_prune_result *res, const pass_spec *p, int k) {
  int i = res->order[k];
  return res->e[i].fate == RG_FATE_KEPT && (!p->only || p->only[i]);
}

/* What a pass keeps between its batches. */
typedef struct {
  const rg_ruleset *rs;
  const rg_prune_opts *o;
  rg_prune_result *res;
  mirror *mi;
  const rg_rule **all;
  const pass_spec *p;
  int done, total, *last;
} pass_state;

/* The batch's results t[0..m) taken in order up to the first that changes the set; returns how
 * many were taken. */
static int take_results(pass_state *ps, trial *t, int m, rg_status *st, rg_err *err) {
  const rg_prune_opts *o = ps->o;
  int pass = ps->p->pass, j = 0;
  for (bool changed = false; j < m && !changed && !*st && !stopped(o, ps->res); j++) {
    rg_derive_ask *a = &t[j].a;
    *ps->last = a->tag;
    if ((*st = a->st))
      *err = a->err;
    else if (a->found && !(*st = rg_prune_remove_derived(ps->res, a->tag, &a->d, err)) && pass == 2)
      *st = mirror_off(ps->mi, a->tag, err), changed = true;
    else if (a->found && !*st && o->let_go) /* pass 1: it never joins the set */
      ps->all[a->tag] = NULL, *st = let_go(o, a->tag, err);
    else if (!a->found && pass == 1)
      *st = mirror_add(ps->mi, ps->rs->rules[a->tag], a->tag, err), changed = true;
    if (o->progress && (++ps->done % 64 == 0 || ps->done == ps->total))
      o->progress(o->progress_ctx, ps->p->stage, ps->done, ps->total);
  }
  return j;
}

static rg_status derive_pass(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                             mirror *mi, const rg_rule **all, rg_crew *crew, const pass_spec *p,
                             int *next, int *last, rg_err *err) {
  int pass = p->pass, step = pass == 1 ? 1 : -1, end = pass == 1 ? res->n : -1;
  int nth = rg_crew_size(crew), width = o->helpers ? o->helpers->width : 0;
  int cap = 4 * (nth + width) < BATCH_MAX ? 4 * (nth + width) : BATCH_MAX, batch = nth;
  pass_state ps = {rs, o, res, mi, all, p, 0, 0, last};
  for (int k = p->from; k != end; k += step)
    ps.total += searched(res, p, k);
  trial *t = calloc((size_t)cap, sizeof *t);
  int *idx = malloc(sizeof *idx * (size_t)cap);
  rg_derive_ask *rem = malloc(sizeof *rem * (size_t)cap);
  searches b = {o, mi->set, all, res->n, t, idx, rem, false, 0};
  rg_status st = t && idx && rem ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  double last_save = rg_clock_seconds();
  int k = p->from;
  while (!st && k != end && !stopped(o, res)) {
    maybe_save(o, res, pass, k, p->seq1, &last_save);
    bool helped = width && b.search_s >= o->helpers->turn_s;
    int slots = nth + (helped ? width : 0);
    int least = slots < cap ? slots : cap, most = 4 * slots < cap ? 4 * slots : cap;
    batch = batch < least ? least : batch > most ? most : batch;
    int m = 0, after = k;
    for (; after != end && m < batch; after += step)
      if (searched(res, p, after)) {
        int i = res->order[after];
        t[m++] = (trial){.k = after, .a = {.tag = i, .rule = rs->rules[i], .exclude = pass == 2}};
      }
    st = run_batch(&b, crew, mi, m, helped, err);
    int j = st ? 0 : take_results(&ps, t, m, &st, err);
    for (int r = 0; r < m; r++)
      rg_derivation_free(&t[r].a.d);
    if (j == m) k = after, batch = 2 * batch < most ? 2 * batch : most;
    else if (j > 0) k = t[j].k, batch = batch / 2 > least ? batch / 2 : least; /* j == 0: stopped, k stays */
  }
  *next = k; /* stopped: every rule before it (pass 2: after it) decided, none cut short */
  free(t), free(idx), free(rem);
  return st;
}

/* The set as derivability left it at a place where it was saved or stopped: in pass 1 the rules
 * kept before it, in pass 2 every rule pass 1 kept (those pass 2 removed disabled), each added
 * in visiting order as the passes add them. */
static rg_status rebuild_set(const rg_ruleset *rs, const rg_prune_result *res, mirror *mi,
                             rg_err *err) {
  bool pass2 = res->derive_pass == 2;
  int upto = pass2 ? res->n : res->derive_next;
  char *later = pass2 ? calloc((size_t)res->n + 1, 1) : NULL; /* removed in pass 2 */
  if (pass2 && !later) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int q = res->derive_seq1; pass2 && q < res->removal_seq_n; q++) later[res->removal_seq[q]] = 1;
  rg_status st = RG_OK;
  for (int k = 0; !st && k < upto; k++) {
    int i = res->order[k];
    if (res->e[i].fate == RG_FATE_KEPT || (later && later[i]))
      st = mirror_add(mi, rs->rules[i], i, err);
    if (!st && later && later[i]) st = mirror_off(mi, i, err);
  }
  free(later);
  return st;
}

/* What derivability searches with: the set, the rules by tag (the checks'), the crew (aside:
 * the searches allocate in its threads' malloc arenas, not in the main one, which a depth-4 run
 * fills with the freed blocks of millions of removed rules; ir/crew.h). */
typedef struct {
  mirror mi;
  const rg_rule **all;
  rg_crew *crew;
} workspace;

static rg_status workspace_open(workspace *w, const rg_ruleset *rs, const rg_prune_opts *o, int n,
                                rg_err *err) {
  *w = (workspace){.mi = {.set = rg_rewrite_set_new(), .logged = o->helpers != NULL}};
  w->all = malloc(sizeof *w->all * ((size_t)n + 1));
  rg_status st = w->mi.set && w->all ? rg_crew_new_omp_aside(&w->crew, err)
                                     : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < n; i++)
    w->all[i] = rs->rules[i];
  return st;
}

static void workspace_close(workspace *w) {
  rg_crew_free(w->crew);
  rg_rewrite_set_free(w->mi.set);
  free(w->mi.log);
  free(w->all);
}

static rg_status derive_stage(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                              rg_err *err) {
  rg_prune_stage *sd = &res->stage[3];
  int pass = res->derive_pass, from = res->derive_next;
  if (!pass) sd->in = res->kept, sd->seconds = 0;
  res->interrupted = false;
  workspace w;
  rg_status st = workspace_open(&w, rs, o, res->n, err);
  double t0 = rg_clock_seconds();
  int last = 0, next = 0, seq1 = res->derive_seq1;
  if (!st && pass) st = rebuild_set(rs, res, &w.mi, err);
  /* Pass 1, Ruler's: each rule against the rules kept before it in visiting order. */
  if (!st && pass != 2) {
    st = derive_pass(rs, o, res, &w.mi, w.all, w.crew,
                     &(pass_spec){1, pass ? from : 0, 0, NULL, "derivability"}, &next, &last, err);
    pass = 1, seq1 = res->removal_seq_n, from = res->n - 1;
  }
  if (!st && !res->interrupted && o->second_pass)
    st = derive_pass(rs, o, res, &w.mi, w.all, w.crew,
                     &(pass_spec){2, from, seq1, NULL, "derivability, second pass"}, &next, &last,
                     err),
    pass = 2;
  bool part_way = !st && res->interrupted && next != (pass == 1 ? res->n : -1);
  res->derive_pass = part_way ? pass : 0, res->derive_next = part_way ? next : 0;
  res->derive_seq1 = part_way && pass == 2 ? seq1 : 0;
  if (st && w.crew) st = at_rule(st, err, rs->rules[last]);
  sd->seconds += rg_clock_seconds() - t0;
  sd->out = res->kept;
  workspace_close(&w);
  return st;
}

rg_status rg_prune_run(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                       rg_err *err) {
  memset(res, 0, sizeof *res);
  for (int s = 0; s < RG_PRUNE_STAGES; s++)
    res->stage[s].name = stage_names[s];
  for (int i = 0; i < rs->n; i++)
    if (rs->rules[i] && rs->rules[i]->n_tgt == 0)
      return rg_err_at(err, RG_ERR_ARG, rs->rules[i]->line, 1,
                       "a bare graph (no '=>') is not a rule: pruning needs rules");
  int n = rs->n;
  res->n = n;
  res->kept = n;
  res->e = calloc((size_t)n + 1, sizeof *res->e);
  res->order = malloc(sizeof(int) * ((size_t)n + 1));
  res->removal_seq = malloc(sizeof(int) * ((size_t)n + 1));
  rule_key *keys = malloc(sizeof *keys * ((size_t)n + 1));
  int *by_id = malloc(sizeof(int) * ((size_t)n + 1)), *tmp = malloc(sizeof(int) * ((size_t)n + 1));
  ctx c = {res, keys, by_id};
  rg_status st = RG_OK;
  if (!res->e || !res->order || !res->removal_seq || !keys || !by_id || !tmp)
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  double t0 = rg_clock_seconds();
  if (!st) st = compute_facts(rs, o, res, keys, err);
  if (!st) {
    for (int i = 0; i < n; i++)
      res->order[i] = i, by_id[i] = i;
    sort_idx(by_id, n, tmp, cmp_id, &c);
    sort_idx(res->order, n, tmp, cmp_visit, &c);
  }
  rg_prune_stage *ren = &res->stage[0];
  ren->in = n;
  ren->run = o->stages & RG_PRUNE_RENAMING;
  if (!st && ren->run) {
    /* by_id lists equal ids together, lowest input index first: that one is the representative. */
    int rep = n ? by_id[0] : -1;
    for (int k = 1; !st && k < n; k++) {
      int i = by_id[k];
      if (rg_content_id_cmp(&res->e[rep].id, &res->e[i].id) == 0 && !(st = remove_rule(res, i, RG_FATE_RENAMING, &rep, 1, err)))
        st = let_go(o, i, err); /* an absent one too: the caller let go of it already */
      else
        rep = i;
    }
  }
  if (!st) st = absent_renamed(rs, res, err);
  ren->out = res->kept;
  ren->seconds = rg_clock_seconds() - t0;
  res->stage[1].run = o->stages & RG_PRUNE_SUBGRAPH;
  res->stage[2].run = o->stages & RG_PRUNE_SUPERGRAPH;
  if (!st) st = taso_stages(rs, o, res, &c, err);
  res->stage[3].in = res->stage[3].out = res->kept;
  if (!st && (o->stages & RG_PRUNE_DERIVE)) st = rg_prune_run_derive(rs, o, res, err);
  free(keys);
  free(by_id);
  free(tmp);
  return st;
}

rg_status rg_prune_run_derive(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res, rg_err *err) {
  res->stage[3].run = true;
  return derive_stage(rs, o, res, err);
}

int rg_prune_reinstate(rg_prune_result *res, const bool *dropped) {
  int n = 0, w = 0;
  for (int k = 0; k < res->removal_seq_n; k++) {
    int i = res->removal_seq[k];
    rg_prune_entry *e = &res->e[i];
    bool lost = false;
    for (int b = 0; b < e->n_by && !lost; b++) lost = dropped[e->by[b]];
    if (!lost) {
      res->removal_seq[w++] = i;
      continue;
    }
    free(e->by);
    e->by = NULL;
    e->n_by = 0;
    free(e->steps);
    e->steps = NULL, e->n_steps = 0;
    e->fate = RG_FATE_KEPT;
    res->kept++;
    n++;
  }
  res->removal_seq_n = w;
  return n;
}

rg_status rg_prune_rederive(const rg_ruleset *rs, const rg_prune_opts *o, rg_prune_result *res,
                            const bool *usable, const bool *retry, int *n_removed, rg_err *err) {
  *n_removed = 0;
  workspace w;
  rg_status st = workspace_open(&w, rs, o, res->n, err);
  /* The proved rules in visiting order, as pass 1 would have offered them. */
  for (int k = 0; !st && k < res->n; k++)
    if (usable[res->order[k]]) st = mirror_add(&w.mi, rs->rules[res->order[k]], res->order[k], err);
  int before = 0, after = 0, next, last = -1;
  for (int i = 0; i < res->n; i++)
    before += retry[i] && res->e[i].fate == RG_FATE_KEPT;
  /* Pass 1 over the rules put back alone, in batches on the crew as derivability's own; nothing
   * saved part way (the result is not a derivability pass's) and nothing let go of (the caller
   * holds the rules put back). */
  rg_prune_opts q = *o;
  q.save = NULL, q.let_go = NULL;
  if (!st)
    st = derive_pass(rs, &q, res, &w.mi, w.all, w.crew,
                     &(pass_spec){1, 0, 0, retry, "derivability of the rules put back"}, &next,
                     &last, err);
  for (int i = 0; i < res->n; i++)
    after += retry[i] && res->e[i].fate == RG_FATE_KEPT;
  *n_removed = before - after;
  if (st && last >= 0) st = at_rule(st, err, rs->rules[last]);
  workspace_close(&w);
  return st;
}

void rg_prune_result_free(rg_prune_result *res) {
  for (int i = 0; res->e && i < res->n; i++) {
    free(res->e[i].by);
    free(res->e[i].steps);
  }
  rg_textpack_free(res->steps_pack);
  free(res->e);
  free(res->order);
  free(res->removal_seq);
  memset(res, 0, sizeof *res);
}
