/* match/pattern_index.c: a trie over pattern skeletons read root first. Each trie node has a
 * wildcard child (a tensor variable) and operator children found through one hash table of
 * edges keyed by (parent, symbol); a pattern ends at a trie node whose list holds its id. */
#include "pattern_index.h"

#include <stdlib.h>
#include <string.h>

/* One operator position of a skeleton. Parameters count only when none is a variable. */
typedef struct {
  uint16_t op;
  uint8_t n_in;
  bool has_pvar;
  int32_t out;
  const int32_t *params; /* RG_MAX_PARAMS values; unused when has_pvar */
} symbol;

typedef struct {
  int32_t parent;
  int32_t star;       /* child through a tensor variable, -1 none */
  int32_t head, tail; /* ids of the patterns ending here, linked through next[] */
  const rg_graph *g;  /* the incoming edge's symbol: a pattern node of this graph */
  int32_t node, out;
} trie_node;

struct rg_pattern_index {
  trie_node *t;
  int32_t n, cap;
  rg_hashtab edges; /* (parent, symbol) -> id of a non-root, non-star trie node */
  int32_t *next; /* id -> next id ending at the same trie node, -1 last */
  int32_t n_ids, ids_cap;
};

void rg_id_list_free(rg_id_list *l) {
  free(l->id);
  memset(l, 0, sizeof *l);
}

static symbol symbol_of(const rg_graph *g, rg_ref r) {
  const rg_node *nd = rg_graph_node(g, r.node);
  return (symbol){nd->op, nd->n_in, nd->var_mask != 0, r.out, nd->params};
}

static bool symbol_eq(const symbol *a, const symbol *b) {
  return a->op == b->op && a->n_in == b->n_in && a->has_pvar == b->has_pvar && a->out == b->out &&
         (a->has_pvar || memcmp(a->params, b->params, sizeof(int32_t) * RG_MAX_PARAMS) == 0);
}

static uint64_t edge_hash(int32_t parent, const symbol *s) {
  uint64_t h = (uint64_t)(uint32_t)parent * 0x9e3779b97f4a7c15ull;
  h ^= ((uint64_t)s->op << 40 | (uint64_t)s->n_in << 32 | (uint64_t)(uint32_t)s->out) +
       (s->has_pvar ? 0x5bd1e995u : 0);
  h *= 0xbf58476d1ce4e5b9ull;
  for (int k = 0; !s->has_pvar && k < RG_MAX_PARAMS; k++)
    h = (h ^ (uint32_t)s->params[k]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

static symbol node_symbol(const rg_pattern_index *x, int32_t i) {
  return symbol_of(x->t[i].g, (rg_ref){x->t[i].node, x->t[i].out});
}

typedef struct {
  int32_t parent;
  const symbol *s;
} edge_key;

static bool edge_eq(const void *x, const void *key, int32_t i) {
  const edge_key *k = key;
  if (((const rg_pattern_index *)x)->t[i].parent != k->parent) return false;
  symbol c = node_symbol(x, i);
  return symbol_eq(&c, k->s);
}

static int32_t find_edge(const rg_pattern_index *x, int32_t parent, const symbol *s) {
  edge_key k = {parent, s};
  return rg_hashtab_find(&x->edges, edge_hash(parent, s), edge_eq, x, &k);
}

static int32_t new_node(rg_pattern_index *x, int32_t parent, const rg_graph *g, rg_ref r) {
  if (!rg_grow(&x->t, &x->cap, x->n, sizeof *x->t, 256)) return -1;
  x->t[x->n] = (trie_node){parent, -1, -1, -1, g, r.node, r.out};
  return x->n++;
}

/* Adds the edge parent -(s)-> child to the table. */
static bool add_edge(rg_pattern_index *x, int32_t child) {
  symbol s = node_symbol(x, child);
  return rg_hashtab_add(&x->edges, edge_hash(x->t[child].parent, &s), child) == RG_OK;
}

rg_pattern_index *rg_pattern_index_new(void) {
  rg_pattern_index *x = calloc(1, sizeof *x);
  if (x && new_node(x, -1, NULL, (rg_ref){0, 0}) != 0) {
    rg_pattern_index_free(x);
    x = NULL;
  }
  return x;
}

void rg_pattern_index_free(rg_pattern_index *x) {
  if (!x) return;
  free(x->t);
  rg_hashtab_free(&x->edges);
  free(x->next);
  free(x);
}

/* Descends from trie node *at along pattern p, creating what is missing. */
static bool insert(rg_pattern_index *x, const rg_graph *g, rg_ref p, int32_t *at) {
  const rg_node *nd = rg_graph_node(g, p.node);
  if (nd->op == RG_OP_INPUT) {
    if (x->t[*at].star < 0) {
      int32_t c = new_node(x, *at, g, p);
      if (c < 0) return false;
      x->t[*at].star = c;
    }
    *at = x->t[*at].star;
    return true;
  }
  symbol s = symbol_of(g, p);
  int32_t c = find_edge(x, *at, &s);
  if (c < 0) {
    if ((c = new_node(x, *at, g, p)) < 0 || !add_edge(x, c)) return false;
  }
  *at = c;
  for (int k = 0; k < nd->n_in; k++)
    if (!insert(x, g, nd->in[k], at)) return false;
  return true;
}

rg_status rg_pattern_index_add(rg_pattern_index *x, const rg_graph *g, rg_ref p, int32_t id,
                               rg_err *err) {
  if (id != x->n_ids) return rg_err_set(err, RG_ERR_ARG, "pattern ids must be added in order");
  if (!rg_grow(&x->next, &x->ids_cap, x->n_ids, sizeof *x->next, 256))
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int32_t at = 0;
  if (!insert(x, g, p, &at)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  x->next[id] = -1;
  if (x->t[at].tail >= 0)
    x->next[x->t[at].tail] = id;
  else
    x->t[at].head = id;
  x->t[at].tail = id;
  x->n_ids++;
  return RG_OK;
}

/* The sub-terms still to read, as an immutable list living in the callers' frames. */
typedef struct pending {
  rg_ref t;
  const struct pending *next;
} pending;

/* A lookup's answer is the union of the lists of the trie nodes it reaches: each list is in
 * increasing order (ids are added in order) and no id is in two, so the answer is a merge of
 * these runs (sorting it with qsort was a twelfth of the derivation searches' time). */
#define MAX_RUNS 32

typedef struct {
  const rg_pattern_index *x;
  const rg_graph *g;
  rg_id_list *out;
  bool failed;
  int runs;              /* lists emitted (past MAX_RUNS: sorted instead) */
  int32_t run[MAX_RUNS]; /* where each starts in out */
} walk_ctx;

static void emit(walk_ctx *w, int32_t at) {
  if (w->x->t[at].head < 0) return;
  if (w->runs < MAX_RUNS) w->run[w->runs] = w->out->n;
  w->runs++;
  for (int32_t id = w->x->t[at].head; id >= 0; id = w->x->next[id]) {
    rg_id_list *l = w->out;
    if (!rg_grow(&l->id, &l->cap, l->n, sizeof *l->id, 64)) {
      w->failed = true;
      return;
    }
    l->id[l->n++] = id;
  }
}

static void walk(walk_ctx *w, int32_t at, const pending *rest) {
  if (!rest) {
    emit(w, at);
    return;
  }
  const trie_node *tn = &w->x->t[at];
  if (tn->star >= 0) walk(w, tn->star, rest->next);
  const rg_node *nd = rg_graph_node(w->g, rest->t.node);
  if (nd->op == RG_OP_INPUT || !w->x->edges.n) return;
  pending in[RG_MAX_INPUTS];
  for (int k = 0; k < nd->n_in; k++)
    in[k] = (pending){nd->in[k], k + 1 < nd->n_in ? &in[k + 1] : rest->next};
  const pending *below = nd->n_in ? &in[0] : rest->next;
  symbol s = symbol_of(w->g, rest->t);
  /* A term node with concrete parameters is matched by equal ones or by variables; one with a
   * parameter variable only by variables. */
  for (int v = s.has_pvar; v < 2; v++) {
    s.has_pvar = v;
    int32_t c = find_edge(w->x, at, &s);
    if (c >= 0) walk(w, c, below);
  }
}

static int cmp_id(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* Restores the heap order of heads[0..n) (by the id each run is at) below position i. */
static void sift_down(const int32_t *id, const int32_t *at, int8_t *heads, int n, int i) {
  for (;;) {
    int least = i, a = 2 * i + 1, b = a + 1;
    if (a < n && id[at[heads[a]]] < id[at[heads[least]]]) least = a;
    if (b < n && id[at[heads[b]]] < id[at[heads[least]]]) least = b;
    if (least == i) return;
    int8_t t = heads[i];
    heads[i] = heads[least], heads[least] = t;
    i = least;
  }
}

/* Merges l's runs (starting at run[0..runs), each in increasing order, none empty) through the
 * room after them, with a heap of the runs' heads: a lookup at depth 4 returns thousands of ids
 * in up to 32 runs, and scanning every run for each id was a tenth of a derivation search. False
 * when out of memory. */
static bool merge_runs(rg_id_list *l, const int32_t *run, int runs) {
  int n = l->n;
  while (l->cap < 2 * n)
    if (!rg_grow_to(&l->id, &l->cap, sizeof *l->id, 64)) return false;
  int32_t at[MAX_RUNS], end[MAX_RUNS];
  int8_t heads[MAX_RUNS];
  for (int r = 0; r < runs; r++)
    at[r] = run[r], end[r] = r + 1 < runs ? run[r + 1] : n, heads[r] = (int8_t)r;
  int live = runs;
  for (int i = live / 2 - 1; i >= 0; i--)
    sift_down(l->id, at, heads, live, i);
  for (int k = n; k < 2 * n; k++) {
    int r = heads[0];
    l->id[k] = l->id[at[r]++];
    if (at[r] == end[r]) heads[0] = heads[--live];
    sift_down(l->id, at, heads, live, 0);
  }
  memmove(l->id, l->id + n, sizeof *l->id * (size_t)n);
  return true;
}

rg_status rg_pattern_index_lookup(const rg_pattern_index *x, const rg_graph *g, rg_ref t,
                                  rg_id_list *out, rg_err *err) {
  out->n = 0;
  walk_ctx w = {x, g, out, false, 0, {0}};
  pending root = {t, NULL};
  walk(&w, 0, &root);
  if (w.failed) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (w.runs > MAX_RUNS)
    qsort(out->id, (size_t)out->n, sizeof *out->id, cmp_id);
  else if (w.runs > 1 && !merge_runs(out, w.run, w.runs))
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  return RG_OK;
}
