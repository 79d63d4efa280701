/* prune/derive.c: bidirectional bounded BFS over rewrites, in one scratch graph per output pair
 * (hash-consing makes a term's ref its identity, so the visited sets are sets of refs). */
#include "derive.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "match/match.h"

typedef struct {
  rg_ref t;
  int parent; /* index in the same side, -1 for the root */
  int tag;
  bool reverse;
  int depth;
} state;

/* One direction of the search: its states and a ref -> state index table. */
typedef struct {
  state *s;
  int n, cap;
  rg_hashtab index;
} side;

/* Refs are hash-consed identities: (node, out) is the whole key. */
static uint64_t key_hash(rg_ref r) {
  return rg_mix64((uint64_t)(uint32_t)r.node << 32 | (uint64_t)(uint32_t)r.out);
}

static bool ref_eq(const void *sd, const void *r, int32_t i) {
  rg_ref a = ((const side *)sd)->s[i].t, b = *(const rg_ref *)r;
  return a.node == b.node && a.out == b.out;
}

static int side_find(const side *sd, rg_ref r) {
  return rg_hashtab_find(&sd->index, key_hash(r), ref_eq, sd, &r);
}

static rg_status side_add(side *sd, const state *st, rg_err *err) {
  if (!rg_grow(&sd->s, &sd->cap, sd->n, sizeof *sd->s, 64)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (rg_hashtab_add(&sd->index, key_hash(st->t), sd->n))
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  sd->s[sd->n++] = *st;
  return RG_OK;
}

static void side_free(side *sd) {
  free(sd->s);
  rg_hashtab_free(&sd->index);
}

void rg_derivation_free(rg_derivation *d) {
  for (int i = 0; i < d->n; i++)
    free(d->steps[i].state);
  free(d->steps);
  d->steps = NULL;
  d->n = 0;
}

static rg_status add_step(rg_derivation *d, const rg_graph *g, rg_ref t, int tag, bool reverse,
                          int output, rg_err *err) {
  rg_derive_step *p = realloc(d->steps, sizeof *p * ((size_t)d->n + 1));
  if (!p) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  d->steps = p;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_text_print_ref(g, t, &sb);
  if (sb.failed) {
    rg_sb_free(&sb);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  d->steps[d->n++] = (rg_derive_step){tag, reverse, output, sb.s};
  return RG_OK;
}

/* Appends the chain root(a) -> ... -> a[ia] = b[ib] -> ... -> root(b). */
static rg_status emit_chain(rg_derivation *d, const rg_graph *g, const side *a, int ia,
                            const side *b, int ib, int output, rg_err *err) {
  int depth = a->s[ia].depth, base = d->n;
  /* The forward half is stored child -> parent: reserve its steps, then fill them backwards. */
  for (int k = 0; k < depth; k++) {
    rg_status st = add_step(d, g, a->s[ia].t, 0, false, output, err);
    if (st) return st;
  }
  for (int i = ia, k = depth - 1; k >= 0; i = a->s[i].parent, k--) {
    rg_derive_step *sp = &d->steps[base + k];
    free(sp->state);
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_text_print_ref(g, a->s[i].t, &sb);
    if (sb.failed) {
      sp->state = NULL;
      rg_sb_free(&sb);
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    }
    *sp = (rg_derive_step){a->s[i].tag, a->s[i].reverse, output, sb.s};
  }
  for (int i = ib; b->s[i].parent >= 0; i = b->s[i].parent) {
    /* b's state came from its parent by a rewrite; towards root(b) that step runs backwards. */
    rg_status st =
        add_step(d, g, b->s[b->s[i].parent].t, b->s[i].tag, !b->s[i].reverse, output, err);
    if (st) return st;
  }
  return RG_OK;
}

/* What a search knows of each sub-term it has met: the rewriters that may match it
 * (rg_rewrite_set_candidates) and, once tried, whether each matches, the size of its instance and
 * the instance once built. Hash-consing makes a sub-term one ref wherever it occurs, and the
 * states of a search share most of their sub-terms: looking up, matching and sizing them again
 * at every state was most of its time. The graph only grows, so what is known stays true. */
typedef struct {
  int32_t id;    /* a list's first entry: its length; then a rewriter's number */
  int32_t size;  /* its instance's size, NO_MATCH, or UNTRIED */
  rg_ref inst;   /* its instance once built (node -1 before) */
  int32_t least; /* rg_rewriter_least_size there (the first entry: the least of the list's) */
} known_entry;

typedef struct {
  int32_t *list; /* node * RG_MAX_OUTPUTS + out -> 1 + where its list starts in e[], 0 unmet */
  size_t n_keys;
  known_entry *e;
  int32_t n, cap;
} known_subterms;

enum { NO_MATCH = -1, UNTRIED = -2 };

typedef struct {
  const rg_rewrite_set *rs;
  const rg_derive_limits *lim;
  int exclude; /* a tag not used, or -1 */
  rg_graph *g;
  rg_match_env env;
  rg_id_list cand; /* scratch: the rewriters that may match at one position */
  rg_term_sizes sizes; /* of g's nodes, brought up to date at each state expanded */
  known_subterms known;
  int max_size;
  bool rev_fw, rev_bw; /* steps from the source side, from the target side: reversible only */
} search;

static void known_free(known_subterms *k) {
  free(k->list);
  free(k->e);
}

static bool known_room(known_subterms *k, int32_t more) {
  while (k->n + more > k->cap)
    if (!rg_grow_to(&k->e, &k->cap, sizeof *k->e, 1024)) return false;
  return true;
}

/* A term's size as rg_term_size(g, t, 1 << 20) gives it: the sizes around a position. */
static int capped_size(const search *S, rg_ref t) {
  int32_t n = S->sizes.size[t.node];
  return n < (1 << 20) ? n : 1 << 20;
}

/* Where t's list starts in S->known.e (looked up and kept the first time t is met). */
static rg_status subterm_list(search *S, rg_ref t, int32_t *at, rg_err *err) {
  known_subterms *k = &S->known;
  size_t key = (size_t)t.node * RG_MAX_OUTPUTS + (size_t)t.out;
  if (key >= k->n_keys) { /* doubled at least: the graph grows by a few nodes a rewrite */
    size_t n = (size_t)rg_graph_size(S->g) * RG_MAX_OUTPUTS;
    if (n < 2 * k->n_keys) n = 2 * k->n_keys;
    int32_t *list = realloc(k->list, sizeof *list * n);
    if (!list) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    memset(list + k->n_keys, 0, sizeof *list * (n - k->n_keys));
    k->list = list, k->n_keys = n;
  }
  if (!k->list[key]) {
    rg_status st = rg_rewrite_set_candidates(S->rs, S->g, t, &S->cand, err);
    if (st) return st;
    if (!known_room(k, 1 + S->cand.n)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    int32_t least = INT32_MAX, sub_size = capped_size(S, t);
    for (int c = 0; c < S->cand.n; c++) {
      int32_t l = rg_rewriter_least_size(rg_rewrite_set_at(S->rs, S->cand.id[c]), sub_size);
      k->e[k->n + 1 + c] = (known_entry){S->cand.id[c], UNTRIED, {-1, 0}, l};
      least = l < least ? l : least;
    }
    k->e[k->n] = (known_entry){S->cand.n, 0, {-1, 0}, least};
    k->list[key] = k->n + 1;
    k->n += 1 + S->cand.n;
  }
  *at = k->list[key] - 1;
  return RG_OK;
}

/* The instance of rewriter w (known entry i) at sub-term sub, in *inst, when it matches there and
 * its term stays within the size bound with `outside` operators around it; else inst->node -1. */
static rg_status instance_at(search *S, const rg_rewriter *w, int32_t i, rg_ref sub, int outside,
                             rg_ref *inst, rg_err *err) {
  known_entry *k = &S->known.e[i];
  *inst = (rg_ref){-1, 0};
  bool matched = false;
  if (k->size == UNTRIED) {
    rg_match_env_reset(&S->env);
    matched = rg_match(w->g, w->lhs, S->g, sub, &S->env);
    /* exact below the cap, which no size bound reaches (max_size is at most 2^20 + 64) */
    k->size = matched ? rg_instance_size(w->g, w->rhs, &S->env, S->g, &S->sizes, RG_TERM_SIZES_CAP) : NO_MATCH;
  }
  if (k->size == NO_MATCH || outside + k->size > S->max_size) return RG_OK;
  if (k->inst.node < 0) {
    if (!matched) { /* sized in an earlier state, too big there: bind its variables again */
      rg_match_env_reset(&S->env);
      matched = rg_match(w->g, w->lhs, S->g, sub, &S->env);
      assert(matched);
    }
    rg_status st = rg_match_instantiate(w->g, w->rhs, &S->env, S->g, &k->inst, err);
    if (st) return st;
  }
  *inst = k->inst;
  return RG_OK;
}

/* Expands every state of `from` at depth `level`; sets *meet to (index in from, index in other)
 * when a new state is already in `other`. */
static rg_status expand(search *S, side *from, const side *other, bool reversible_only, int level, int *states,
                        int meet[2], rg_err *err) {
  int n_at_start = from->n;
  for (int i = 0; i < n_at_start && meet[0] < 0; i++) {
    if (from->s[i].depth != level) continue;
    if (S->lim->stop && *S->lim->stop) break;
    rg_ref t = from->s[i].t;
    rg_status st = rg_term_sizes_update(&S->sizes, S->g, err);
    if (st) return st;
    int t_size = capped_size(S, t);
    rg_position *pos;
    int npos;
    st = rg_term_positions(S->g, t, &pos, &npos, err);
    /* A term deeper than positions can address is not explored (never a reason to remove). */
    if (st == RG_ERR_LIMIT) continue;
    if (st) return st;
    for (int p = 0; p < npos && meet[0] < 0 && *states < S->lim->max_states; p++) {
      int32_t at = 0;
      if ((st = subterm_list(S, pos[p].sub, &at, err))) {
        free(pos);
        return st;
      }
      /* The rest of t around this position: a rewrite's size is that plus its instance's. */
      int outside = t_size - capped_size(S, pos[p].sub);
      /* least against the room left: an empty list's least is INT32_MAX */
      if (S->known.e[at].least > S->max_size - outside) continue;
      for (int32_t e = at + 1; e <= at + S->known.e[at].id && meet[0] < 0 && *states < S->lim->max_states; e++) {
        if (S->known.e[e].least > S->max_size - outside) continue;
        const rg_rewriter *w = rg_rewrite_set_at(S->rs, S->known.e[e].id);
        if (!rg_rewrite_set_enabled(S->rs, w->tag) || w->tag == S->exclude || (reversible_only && !w->reversible))
          continue;
        rg_ref rhs, nt;
        st = instance_at(S, w, e, pos[p].sub, outside, &rhs, err);
        if (!st && rhs.node < 0) continue;
        if (!st) st = rg_term_replace(S->g, t, pos[p].path, pos[p].depth, rhs, &nt, err);
        if (st) {
          free(pos);
          return st;
        }
        if (side_find(from, nt) >= 0) continue;
        state ns = {nt, i, w->tag, w->reverse, level + 1};
        if ((st = side_add(from, &ns, err))) {
          free(pos);
          return st;
        }
        (*states)++;
        int j = side_find(other, nt);
        if (j >= 0) meet[0] = from->n - 1, meet[1] = j;
      }
    }
    free(pos);
  }
  return RG_OK;
}

static int frontier(const side *sd, int level) {
  int n = 0;
  for (int i = 0; i < sd->n; i++)
    n += sd->s[i].depth == level;
  return n;
}

static rg_status search_pair(search *S, rg_ref src, rg_ref tgt, int output, rg_derivation *d,
                             bool *found, rg_err *err) {
  *found = false;
  if (src.node == tgt.node && src.out == tgt.out) {
    *found = true;
    return RG_OK;
  }
  side fw = {0}, bw = {0};
  int size = rg_term_size(S->g, src, 1 << 20), ts = rg_term_size(S->g, tgt, 1 << 20);
  S->max_size = (size > ts ? size : ts) + S->lim->max_growth;
  state s0 = {src, -1, 0, false, 0}, t0 = {tgt, -1, 0, false, 0};
  rg_status st = side_add(&fw, &s0, err);
  if (!st) st = side_add(&bw, &t0, err);
  int lf = 0, lb = 0, states = 2, meet[2] = {-1, -1};
  while (!st && meet[0] < 0 && lf + lb < S->lim->max_steps && states < S->lim->max_states &&
         !(S->lim->stop && *S->lim->stop)) {
    int nf = frontier(&fw, lf), nb = frontier(&bw, lb);
    if (nf == 0 && nb == 0) break;
    bool forward = nb == 0 || (nf != 0 && nf <= nb);
    if (forward)
      st = expand(S, &fw, &bw, S->rev_fw, lf++, &states, meet, err);
    else
      st = expand(S, &bw, &fw, S->rev_bw, lb++, &states, meet, err);
    if (!st && meet[0] >= 0) {
      *found = true;
      st = forward ? emit_chain(d, S->g, &fw, meet[0], &bw, meet[1], output, err)
                   : emit_chain(d, S->g, &fw, meet[1], &bw, meet[0], output, err);
    }
  }
  side_free(&fw);
  side_free(&bw);
  return st;
}

rg_status rg_derive_search(const rg_rewrite_set *s, const rg_rule *r, const rg_derive_limits *lim, int exclude,
                           rg_derivation *d, bool *found, rg_err *err) {
  memset(d, 0, sizeof *d);
  *found = false;
  if (r->n_tgt == 0)
    return rg_err_set(err, RG_ERR_ARG, "a bare graph is not a rule: nothing to derive");
  search S = {s, lim, exclude, NULL, {0}, {0}, {0}, {0}, 0, false, false};
  int32_t nt, np;
  rg_rewrite_set_max_vars(s, &nt, &np);
  /* The directions graphopt applies r in: each step of a derivation must be one it can take the
   * same way (the target side's steps run backwards in the chain). */
  bool ab = false, ba = false;
  rg_status st = rg_side_covers(r->g, r->src, r->n_src, r->tgt, r->n_tgt, &ab, err);
  if (!st) st = rg_side_covers(r->g, r->tgt, r->n_tgt, r->src, r->n_src, &ba, err);
  S.rev_fw = ba, S.rev_bw = ab;
  if (!st) st = rg_match_env_init(&S.env, nt, np, err);
  if (!st) st = rg_graph_clone(r->g, &S.g, err);
  bool all = true;
  for (int i = 0; !st && all && i < r->n_src; i++) {
    bool ok;
    st = search_pair(&S, r->src[i], r->tgt[i], i, d, &ok, err);
    all = all && ok;
  }
  rg_graph_free(S.g);
  rg_match_env_free(&S.env);
  rg_id_list_free(&S.cand);
  rg_term_sizes_free(&S.sizes);
  known_free(&S.known);
  *found = !st && all;
  if (!*found) rg_derivation_free(d);
  return st;
}
