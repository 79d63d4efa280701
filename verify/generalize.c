/* verify/generalize.c: splitting repeated variables of a candidate (the method and its bounds
 * are in generalize.h).
 *
 * A rule's sides are walked as the terms the text printer writes (source outputs, then target
 * outputs, inputs left to right), so "the j-th occurrence of v" means the same leaf in every
 * walk; a hash-consed node used twice is two occurrences. Generalizations are rebuilt from
 * those walks into a fresh graph, whose hash-consing merges what became equal again.
 */
#define _POSIX_C_SOURCE 200809L
#include "generalize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Leaves of the unfolded terms of one rule; larger rules are not generalized (an enumerated
 * candidate of depth 4 has at most a few dozen). */
#define MAX_LEAVES 256
/* Tensor variables of a rule that is compared with others for generality. */
#define MAX_VARS 64

rg_generalize_limits rg_generalize_limits_default(void) {
  return (rg_generalize_limits){RG_GENERALIZE_MAX_OCCURRENCES, RG_GENERALIZE_MAX_TRIES};
}

/* ---- walking and rebuilding ---- */

typedef struct {
  const rg_graph *from;
  rg_graph *to;
  int32_t split; /* the variable being split, or -1 */
  uint32_t mask; /* bit j-1: its j-th occurrence (j >= 1) becomes the fresh variable */
  int32_t fresh; /* tensor-variable index of the fresh variable in `to` */
  bool canon;    /* name variables v0, v1, ... by first occurrence (a key up to renaming) */
  int seen;      /* occurrences of `split` walked so far */
  int leaves;
  int32_t *canon_of; /* [n_tvars of from]: canonical index, or -1 before its first occurrence */
} walk;

/* Copies the term at ref into w->to; returns the new node id, or a negative status. */
static int32_t copy_term(walk *w, rg_ref ref) {
  const rg_node *n = rg_graph_node(w->from, ref.node);
  if (n->op == RG_OP_INPUT) {
    int32_t t = n->params[0];
    if (++w->leaves > MAX_LEAVES) return RG_ERR_LIMIT;
    if (t == w->split && w->seen++ > 0 && (w->mask >> (w->seen - 2) & 1u)) t = w->fresh;
    if (w->canon) {
      if (w->canon_of[t] < 0) {
        char name[32];
        int len = snprintf(name, sizeof name, "v%d", rg_graph_n_tvars(w->to));
        int32_t k = rg_graph_tvar(w->to, name, len);
        if (k < 0) return k;
        w->canon_of[t] = k;
      }
      t = w->canon_of[t];
    }
    return rg_graph_input(w->to, t);
  }
  rg_node c = *n;
  for (int k = 0; k < n->n_in; k++) {
    int32_t id = copy_term(w, n->in[k]);
    if (id < 0) return id;
    c.in[k].node = id;
  }
  return rg_graph_add(w->to, &c);
}

/* Builds the rule r with the split of w's fields applied; variables keep r's indices (and the
 * fresh one is the last) unless w->canon. On success *out is a new rule. */
static rg_status rebuild(const rg_rule *r, walk *w, const char *fresh_name, rg_rule **out,
                         rg_err *err) {
  rg_rule *nr = rg_rule_new();
  if (!nr) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  w->from = r->g, w->to = nr->g, w->seen = 0, w->leaves = 0;
  int32_t st = 0, nt = rg_graph_n_tvars(r->g);
  for (int32_t p = 0; st >= 0 && p < rg_graph_n_pvars(r->g); p++) {
    const char *s = rg_graph_pvar_name(r->g, p);
    st = rg_graph_pvar(nr->g, s, (int)strlen(s));
  }
  for (int32_t t = 0; st >= 0 && !w->canon && t < nt; t++) {
    const char *s = rg_graph_tvar_name(r->g, t);
    st = rg_graph_tvar(nr->g, s, (int)strlen(s));
  }
  w->fresh = nt;
  if (st >= 0 && fresh_name) st = rg_graph_tvar(nr->g, fresh_name, (int)strlen(fresh_name));
  for (int i = 0; st >= 0 && i < 2 * r->n_src; i++) {
    rg_ref ref = i < r->n_src ? r->src[i] : r->tgt[i - r->n_src];
    st = copy_term(w, ref);
    rg_ref *to = i < r->n_src ? &nr->src[i] : &nr->tgt[i - r->n_src];
    *to = (rg_ref){st, ref.out};
  }
  if (st < 0) {
    rg_rule_free(nr);
    return st == RG_ERR_LIMIT ? rg_err_set(err, RG_ERR_LIMIT, "rule too large to generalize")
                              : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  nr->n_src = nr->n_tgt = r->n_src;
  *out = nr;
  return RG_OK;
}

/* Occurrences of each tensor variable (counts[n_tvars]); false when the terms are too large. */
static bool count_occurrences(const rg_graph *g, rg_ref ref, int *counts, int *leaves) {
  const rg_node *n = rg_graph_node(g, ref.node);
  if (n->op == RG_OP_INPUT) {
    counts[n->params[0]]++;
    return ++*leaves <= MAX_LEAVES;
  }
  for (int k = 0; k < n->n_in; k++)
    if (!count_occurrences(g, n->in[k], counts, leaves)) return false;
  return true;
}

/* present[t] |= side bit for every tensor variable t reachable from refs. */
static void mark_vars(const rg_graph *g, const rg_ref *refs, int n, uint8_t *mark, uint8_t *present,
                      uint8_t bit) {
  int32_t size = rg_graph_size(g);
  memset(mark, 0, (size_t)size);
  rg_graph_mark_reachable(g, refs, n, mark);
  for (int32_t id = 0; id < size; id++) {
    const rg_node *nd = rg_graph_node(g, id);
    if (mark[id] && nd->op == RG_OP_INPUT) present[nd->params[0]] |= bit;
  }
}

/* Orients nr so that every target variable occurs in the source: false when neither way does
 * (each side has a variable the other lacks). */
static rg_status orient(rg_rule *nr, bool *ok, rg_err *err) {
  int32_t size = rg_graph_size(nr->g), nt = rg_graph_n_tvars(nr->g);
  uint8_t *mark = malloc((size_t)size + 1), *present = calloc((size_t)nt + 1, 1);
  if (!mark || !present) {
    free(mark), free(present);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  mark_vars(nr->g, nr->src, nr->n_src, mark, present, 1);
  mark_vars(nr->g, nr->tgt, nr->n_tgt, mark, present, 2);
  bool tgt_in_src = true, src_in_tgt = true;
  for (int32_t t = 0; t < nt; t++) {
    if (present[t] == 2) tgt_in_src = false;
    if (present[t] == 1) src_in_tgt = false;
  }
  *ok = tgt_in_src || src_in_tgt;
  if (!tgt_in_src && src_in_tgt)
    for (int i = 0; i < nr->n_src; i++) {
      rg_ref s = nr->src[i];
      nr->src[i] = nr->tgt[i], nr->tgt[i] = s;
    }
  free(mark), free(present);
  return RG_OK;
}

/* The text of r with its variables renamed by first occurrence: equal for renamings. */
static rg_status canonical_key(const rg_rule *r, rg_strbuf *key, rg_err *err) {
  int32_t nt = rg_graph_n_tvars(r->g);
  int32_t *canon_of = malloc(sizeof(int32_t) * (size_t)(nt + 1));
  if (!canon_of) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t t = 0; t < nt; t++)
    canon_of[t] = -1;
  walk w = {.split = -1, .canon = true, .canon_of = canon_of};
  rg_rule *c = NULL;
  rg_status st = rebuild(r, &w, NULL, &c, err);
  free(canon_of);
  if (st) return st;
  rg_sb_clear(key);
  rg_text_print_rule(c, key);
  rg_rule_free(c);
  return key->failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
}

/* ---- the search ---- */

typedef struct {
  rg_rule *r;              /* owned, except the root's */
  const rg_shape **shapes; /* [n_tvars of r], into the base binding's shapes */
  bool general_child;      /* a generalization of it passed */
  bool expanded;
  uint64_t splittable; /* bit t: variable t may be split */
} item;

typedef struct {
  item *items;
  int n, cap;
  char **keys; /* every generalization tested, canonical text */
  bool *pass;  /* [keys] */
  int n_keys;
  rg_rule **refuted; /* the generalizations a trial's values refuted (owned) */
  int n_refuted;
  const rg_binding *base;
  const rg_randtest_opts *o;
  rg_randtest_cache *cache;
  const rg_generalize_limits *lim;
  rg_generalize_stats *stats;
} search;

/* Is term a of rule A an instance of term b of rule B, extending the substitution map[] (B's
 * tensor variables to A's terms; node -1 where unset)? */
static bool instance_term(const rg_graph *ga, rg_ref a, const rg_graph *gb, rg_ref b, rg_ref *map) {
  const rg_node *na = rg_graph_node(ga, a.node), *nb = rg_graph_node(gb, b.node);
  if (nb->op == RG_OP_INPUT) {
    rg_ref *m = &map[nb->params[0]];
    if (m->node < 0) *m = a;
    return m->node == a.node && m->out == a.out; /* hash-consed: equal terms are equal refs */
  }
  if (na->op != nb->op || na->n_in != nb->n_in || na->var_mask != nb->var_mask || a.out != b.out ||
      memcmp(na->params, nb->params, sizeof na->params))
    return false;
  for (int k = 0; k < na->n_in; k++)
    if (!instance_term(ga, na->in[k], gb, nb->in[k], map)) return false;
  return true;
}

/* Is rule A an instance of rule B, either way round? (map: [n_tvars of B]) */
static bool instance_of(const rg_rule *A, const rg_rule *B, rg_ref *map) {
  for (int flip = 0; flip < 2; flip++) {
    for (int32_t t = 0; t < rg_graph_n_tvars(B->g); t++)
      map[t] = (rg_ref){-1, 0};
    bool ok = A->n_src == B->n_src;
    for (int i = 0; ok && i < A->n_src; i++)
      ok = instance_term(A->g, A->src[i], B->g, flip ? B->tgt[i] : B->src[i], map) &&
           instance_term(A->g, A->tgt[i], B->g, flip ? B->src[i] : B->tgt[i], map);
    if (ok) return true;
  }
  return false;
}

/* Is passing item i an instance of another passing item with more variables (one found on
 * another branch of the search)? */
static bool replaced(const search *s, int i) {
  const rg_rule *a = s->items[i].r;
  rg_ref map[MAX_VARS];
  for (int j = 1; j < s->n; j++) {
    const rg_rule *b = s->items[j].r;
    if (j != i && rg_graph_n_tvars(b->g) > rg_graph_n_tvars(a->g) &&
        rg_graph_n_tvars(b->g) <= MAX_VARS && instance_of(a, b, map))
      return true;
  }
  return false;
}

/* "<v>_<n>", the smallest n whose name is unused in g (a v that is itself "<w>_<m>" gives
 * "<w>_<n>": one suffix however often it is split); false if it does not fit. */
static bool fresh_name(const rg_graph *g, int32_t v, char name[RG_RULE_MAX_NAME]) {
  const char *base = rg_graph_tvar_name(g, v), *us = strrchr(base, '_');
  int len0 = (int)strlen(base);
  if (us && us > base && us[1] && strspn(us + 1, "0123456789") == strlen(us + 1))
    len0 = (int)(us - base);
  for (int n = 1; n < 1000; n++) {
    int len = snprintf(name, RG_RULE_MAX_NAME, "%.*s_%d", len0, base, n);
    if (len >= RG_RULE_MAX_NAME) return false;
    if (rg_graph_find_tvar(g, name) < 0) return true;
  }
  return false;
}

/* A refutation in Z_p carries over to every rule it is an instance of: rule G with an instance F
 * (a substitution of G's variables by terms) is false wherever F is, at the shapes and values
 * that refuted F; Z_p arithmetic is exact, so that is a counterexample, not a rounding. A
 * failure in float64 (a tolerance), of type or of finding shape sets does not carry over: the
 * last two depend on the shapes tried, which are G's own. */
static bool refutes_more_general(rg_randtest_verdict v) {
  return v == RG_RANDTEST_ZP || v == RG_RANDTEST_SHAPES_ZP;
}

/* Is some refuted generalization an instance of nr (so nr is false without a trial)? */
static bool instance_refuted(const search *s, const rg_rule *nr) {
  rg_ref map[MAX_VARS];
  if (rg_graph_n_tvars(nr->g) > MAX_VARS) return false;
  for (int k = 0; k < s->n_refuted; k++)
    if (instance_of(s->refuted[k], nr, map)) return true;
  return false;
}

/* Keeps nr, refuted by value, for instance_refuted (or frees it if it cannot be kept). */
static void keep_refuted(search *s, rg_rule *nr) {
  rg_rule **r = realloc(s->refuted, sizeof *r * (size_t)(s->n_refuted + 1));
  if (!r) {
    rg_rule_free(nr); /* only a trial saved fewer */
    return;
  }
  s->refuted = r;
  s->refuted[s->n_refuted++] = nr;
}

/* Index of key among those tested, or -1. */
static int find_key(const search *s, const char *key) {
  for (int k = 0; k < s->n_keys; k++)
    if (!strcmp(s->keys[k], key)) return k;
  return -1;
}

/* Tests nr (a generalization of item i with shapes sh, both owned here) unless a renaming was
 * tested; a passing one becomes a new item. */
static rg_status consider(search *s, int i, rg_rule *nr, const rg_shape **sh, uint64_t splittable,
                          const char *key, rg_err *err) {
  rg_status st = RG_OK;
  int k = find_key(s, key);
  if (k >= 0) {
    if (s->pass[k]) s->items[i].general_child = true;
    goto drop;
  }
  if (s->stats->tried >= s->lim->max_tries) {
    s->stats->capped = true;
    goto drop;
  }
  char *copy = strdup(key);
  char **keys = realloc(s->keys, sizeof *keys * (size_t)(s->n_keys + 1));
  if (keys) s->keys = keys;
  bool *pass = realloc(s->pass, sizeof *pass * (size_t)(s->n_keys + 1));
  if (pass) s->pass = pass;
  item *items = s->items;
  if (s->n == s->cap && (items = realloc(s->items, sizeof *items * (size_t)s->cap * 2)))
    s->items = items, s->cap *= 2;
  if (!copy || !keys || !pass || !items) {
    free(copy);
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    goto drop;
  }
  s->keys[s->n_keys] = copy;
  rg_binding b = {sh, s->base->pvar_values, s->base->pvar_bound};
  rg_randtest_verdict v = RG_RANDTEST_ZP;
  bool hit, inferred = instance_refuted(s, nr);
  if (!inferred)
    st = s->cache ? rg_randtest_rule_cached(s->cache, nr, &b, s->o, &v, &hit, err)
                  : rg_randtest_rule(nr, &b, s->o, &v, err);
  if (st == RG_ERR_SHAPE) st = RG_OK, v = RG_RANDTEST_TYPE; /* it does not type: it fails */
  if (st) {
    free(copy);
    goto drop;
  }
  s->stats->tried++;
  s->pass[s->n_keys++] = v == RG_RANDTEST_PASS;
  /* kept to refute more general ones; an inferred one adds nothing (its instance is kept) */
  if (!inferred && refutes_more_general(v)) {
    free(sh);
    keep_refuted(s, nr);
    return RG_OK;
  }
  if (v != RG_RANDTEST_PASS) goto drop;
  s->stats->passed++;
  s->items[i].general_child = true;
  s->items[s->n++] = (item){nr, sh, false, false, splittable};
  return RG_OK;
drop:
  rg_rule_free(nr);
  free(sh);
  return st;
}

/* Tries every split of every repeated variable of item i. */
static rg_status expand(search *s, int i, rg_strbuf *key, rg_err *err) {
  const rg_rule *r = s->items[i].r;
  int32_t nt = rg_graph_n_tvars(r->g);
  int *counts = calloc((size_t)nt + 1, sizeof *counts), leaves = 0;
  if (!counts) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  bool small = true;
  for (int k = 0; small && k < 2 * r->n_src; k++)
    small =
        count_occurrences(r->g, k < r->n_src ? r->src[k] : r->tgt[k - r->n_src], counts, &leaves);
  if (!small) s->stats->skipped = true;
  rg_status st = RG_OK;
  for (int32_t v = 0; small && !st && v < nt && !s->stats->capped; v++) {
    char name[RG_RULE_MAX_NAME];
    if (v >= 64 || !(s->items[i].splittable >> v & 1) || counts[v] < 2 ||
        counts[v] > s->lim->max_occurrences || !fresh_name(r->g, v, name))
      continue;
    uint32_t masks = (1u << (counts[v] - 1)) - 1;
    for (uint32_t m = 1; !st && m <= masks && !s->stats->capped; m++) {
      walk w = {.split = v, .mask = m};
      rg_rule *nr = NULL;
      st = rebuild(r, &w, name, &nr, err);
      bool ok = false;
      if (!st) st = orient(nr, &ok, err);
      if (!st && ok) st = canonical_key(nr, key, err);
      const rg_shape **sh = !st && ok ? malloc(sizeof *sh * (size_t)(nt + 1)) : NULL;
      if (!st && ok && !sh) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      if (st || !ok) {
        rg_rule_free(nr);
        continue;
      }
      memcpy(sh, s->items[i].shapes, sizeof *sh * (size_t)nt);
      sh[nt] = sh[v]; /* the fresh variable has v's shape */
      /* the fresh variable has v's shape, so it may be split in turn */
      uint64_t split = s->items[i].splittable | (nt < 64 ? UINT64_C(1) << nt : 0);
      st = consider(s, i, nr, sh, split, rg_sb_str(key), err);
    }
  }
  free(counts);
  return st;
}

rg_status rg_generalize_rule(const rg_rule *r, const rg_binding *base, uint64_t splittable,
                             const rg_randtest_opts *o, rg_randtest_cache *cache,
                             const rg_generalize_limits *lim, rg_ruleset *out,
                             rg_generalize_stats *stats, rg_err *err) {
  memset(stats, 0, sizeof *stats);
  if (r->n_tgt == 0 || rg_graph_n_pvars(r->g) > 0) {
    stats->skipped = rg_graph_n_pvars(r->g) > 0;
    return RG_OK;
  }
  search s = {.cap = 8, .base = base, .o = o, .cache = cache, .lim = lim, .stats = stats};
  s.items = malloc(sizeof *s.items * (size_t)s.cap);
  const rg_shape **root_shapes = malloc(sizeof *root_shapes * (size_t)(rg_graph_n_tvars(r->g) + 1));
  rg_status st = s.items && root_shapes ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    memcpy(root_shapes, base->tvar_shapes, sizeof *root_shapes * (size_t)rg_graph_n_tvars(r->g));
    s.items[s.n++] = (item){(rg_rule *)r, root_shapes, false, false, splittable};
  }
  rg_strbuf key;
  rg_sb_init(&key);
  /* The newest passing generalization is split first (depth first), so the tries go towards
   * the most general rules before the budget runs out. */
  for (int i = 0; !st && i >= 0 && !stats->capped;) {
    s.items[i].expanded = true;
    st = expand(&s, i, &key, err);
    for (i = s.n - 1; i >= 0 && s.items[i].expanded; i--)
      continue;
  }
  rg_sb_free(&key);
  bool *keep = calloc((size_t)s.n + 1, sizeof *keep);
  if (!keep && !st) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 1; !st && i < s.n; i++)
    keep[i] = !s.items[i].general_child && !replaced(&s, i);
  for (int i = 1; i < s.n; i++) {
    if (!st && keep[i]) {
      st = rg_ruleset_add(out, s.items[i].r); /* takes the rule, also on failure */
      if (st)
        rg_err_set(err, st, "out of memory");
      else
        stats->kept++;
    } else {
      rg_rule_free(s.items[i].r);
    }
    free(s.items[i].shapes);
  }
  free(keep);
  free(root_shapes);
  for (int k = 0; k < s.n_keys; k++)
    free(s.keys[k]);
  for (int k = 0; k < s.n_refuted; k++)
    rg_rule_free(s.refuted[k]);
  free(s.keys), free(s.pass), free(s.items), free(s.refuted);
  return st;
}
