/* verify/randtest_cache.c: verdicts of renamed candidates: an array of (key text, verdict)
 * and a hash table over it, guarded by one mutex. */
#include "randtest_cache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

typedef struct {
  char *key;
  rg_randtest_verdict verdict;
} entry;

/* What one entry costs against max_bytes besides its key text: the entry and, the table being
 * at most half full, two slots. */
#define ENTRY_BYTES (sizeof(entry) + 2 * sizeof(rg_hashtab_slot))

struct rg_randtest_cache {
  mtx_t lock;
  entry *e;
  size_t n, cap;
  rg_hashtab index; /* key text -> index in e */
  size_t bytes, max_bytes;
};

rg_randtest_cache *rg_randtest_cache_new(size_t max_bytes) {
  rg_randtest_cache *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (mtx_init(&c->lock, mtx_plain) != thrd_success) {
    free(c);
    return NULL;
  }
  c->max_bytes = max_bytes;
  return c;
}

void rg_randtest_cache_free(rg_randtest_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) free(c->e[i].key);
  free(c->e);
  rg_hashtab_free(&c->index);
  mtx_destroy(&c->lock);
  free(c);
}

static uint64_t hash_text(const char *s) { return rg_hash_bytes(s, strlen(s)); }

static bool text_eq(const void *c, const void *key, int32_t i) {
  return !strcmp(((const rg_randtest_cache *)c)->e[i].key, key);
}

static bool lookup(rg_randtest_cache *c, uint64_t h, const char *key, rg_randtest_verdict *v) {
  mtx_lock(&c->lock);
  int32_t i = rg_hashtab_find(&c->index, h, text_eq, c, key);
  if (i >= 0) *v = c->e[i].verdict;
  mtx_unlock(&c->lock);
  return i >= 0;
}

/* Adds (key, v) at table position pos; false when out of memory. Called with the lock held. */
static bool add_entry(rg_randtest_cache *c, size_t pos, uint64_t h, const char *key, size_t len,
                      rg_randtest_verdict v) {
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 256;
    entry *e = realloc(c->e, sizeof *e * cap);
    if (!e) return false;
    c->e = e, c->cap = cap;
  }
  char *copy = malloc(len);
  if (!copy) return false;
  memcpy(copy, key, len);
  if (rg_hashtab_set(&c->index, pos, h, (int32_t)c->n)) {
    free(copy);
    return false;
  }
  c->e[c->n++] = (entry){copy, v};
  return true;
}

/* Remembers a verdict; does nothing when over budget or out of memory (it is only a cache). */
static void store(rg_randtest_cache *c, uint64_t h, const char *key, rg_randtest_verdict v) {
  size_t len = strlen(key) + 1;
  mtx_lock(&c->lock);
  size_t pos = rg_hashtab_probe(&c->index, h, text_eq, c, key);
  /* Over budget, or another thread stored it meanwhile (the same verdict): nothing to do. */
  if (c->bytes + len + ENTRY_BYTES <= c->max_bytes && c->n < INT32_MAX &&
      rg_hashtab_at(&c->index, pos) < 0 && add_entry(c, pos, h, key, len, v))
    c->bytes += len + ENTRY_BYTES;
  mtx_unlock(&c->lock);
}

static bool ident_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_';
}

/* Renames the variables of rule text `text` to ?v0, ?v1, ... by first occurrence into key,
 * records for each new name the index of the old variable in g (order[k]), and appends the
 * shapes in that order. Returns the number of variables, or -1 when one is not a tensor
 * variable of g. */
static int canonical(const rg_graph *g, const char *text, const rg_binding *base, rg_strbuf *key,
                     int32_t *order, int max) {
  int n = 0;
  for (const char *p = text; *p;) {
    if (*p != '?') {
      const char *q = p;
      while (*q && *q != '?') q++;
      rg_sb_append(key, p, (size_t)(q - p));
      p = q;
      continue;
    }
    const char *q = p + 1;
    while (ident_char(*q)) q++;
    char name[128];
    size_t len = (size_t)(q - p - 1);
    if (len == 0 || len >= sizeof name) return -1;
    memcpy(name, p + 1, len);
    name[len] = 0;
    int32_t t = rg_graph_find_tvar(g, name);
    if (t < 0) return -1;
    int k = 0;
    while (k < n && order[k] != t) k++;
    if (k == n) {
      if (n == max) return -1;
      order[n++] = t;
    }
    rg_sb_puts(key, "?v");
    rg_sb_put_int(key, k);
    p = q;
  }
  for (int k = 0; k < n; k++) {
    const rg_shape *s = base->tvar_shapes[order[k]];
    rg_sb_puts(key, k ? ";" : " |");
    for (int d = 0; d < s->rank; d++) { /* appended, not formatted: a key for every rule tested */
      rg_sb_puts(key, " ");
      rg_sb_put_int(key, s->dim[d]);
      for (int j = 0; j < s->nseam[d]; j++) {
        rg_sb_puts(key, "/");
        rg_sb_put_int(key, s->seam[d][j]);
      }
    }
  }
  return n;
}

#define MAX_VARS 64

/* Size of every dimension in the base the other shape sets grow from. */
#define COMMON_SIZE 4

/* The verdict of renamed rule rn (its text: rule_len bytes at rule) at binding b: the trials at
 * b, then those at other shape sets. Those sets grow (ir/shapesolve.h) from a base made of b's
 * ranks alone, every dimension COMMON_SIZE, so their verdict is a function of the text and the
 * ranks, and is stored under "S <ranks> <text>" for every other binding with them: the same rule
 * found over 2x4 and over 4x4 inputs runs those trials once. A rule that does not type at one
 * common size (a constant of fixed shape, a grouped conv), or for which no sets are found from
 * there, gets them from b, as rg_randtest_rule does. */
static rg_status other_shapes_cached(rg_randtest_cache *c, const rg_rule *rn, const char *rule, size_t rule_len,
                                     const rg_binding *b, const rg_randtest_opts *o,
                                     rg_randtest_verdict *v, rg_err *err) {
  rg_status st = rg_randtest_at(rn, b, o, v, err);
  if (st || *v != RG_RANDTEST_PASS) return st;
  int32_t nt = rg_graph_n_tvars(rn->g);
  rg_shape common[MAX_VARS];
  const rg_shape *common_ptrs[MAX_VARS];
  rg_strbuf skey;
  rg_sb_init(&skey);
  rg_sb_puts(&skey, "S");
  for (int32_t q = 0; q < nt; q++) {
    int32_t dims[RG_MAX_RANK];
    int rank = b->tvar_shapes[q]->rank;
    for (int d = 0; d < rank; d++) dims[d] = COMMON_SIZE;
    common[q] = rg_shape_make(rank, dims);
    common_ptrs[q] = &common[q];
    rg_sb_puts(&skey, q ? "," : " ");
    rg_sb_put_int(&skey, rank);
  }
  rg_sb_puts(&skey, " ");
  rg_sb_append(&skey, rule, rule_len);
  if (skey.failed) {
    rg_sb_free(&skey);
    return rg_randtest_other_shapes(rn, b, o, v, err);
  }
  rg_binding cb = {common_ptrs, NULL, NULL};
  uint64_t h = hash_text(rg_sb_str(&skey));
  if (!lookup(c, h, rg_sb_str(&skey), v)) {
    bool common_types = rg_rule_well_typed(rn, &cb);
    st = common_types ? rg_randtest_other_shapes(rn, &cb, o, v, err) : RG_OK;
    if (!st && (!common_types || *v == RG_RANDTEST_NO_SHAPES))
      st = rg_randtest_other_shapes(rn, b, o, v, err);
    else if (!st) store(c, h, rg_sb_str(&skey), *v);
  }
  rg_sb_free(&skey);
  return st;
}

rg_status rg_randtest_rule_cached(rg_randtest_cache *c, const rg_rule *r, const rg_binding *base,
                                  const rg_randtest_opts *o, rg_randtest_verdict *v, bool *hit,
                                  rg_err *err) {
  *hit = false;
  if (rg_graph_n_pvars(r->g) > 0 || rg_graph_n_tvars(r->g) > MAX_VARS)
    return rg_randtest_rule(r, base, o, v, err);
  rg_strbuf text, key;
  rg_sb_init(&text), rg_sb_init(&key);
  rg_text_print_rule(r, &text);
  int32_t order[MAX_VARS];
  int n = text.failed ? -1 : canonical(r->g, rg_sb_str(&text), base, &key, order, MAX_VARS);
  rg_status st = RG_OK;
  if (n < 0 || key.failed) { /* not expressible as a key: test the rule itself */
    st = rg_randtest_rule(r, base, o, v, err);
    goto out;
  }
  uint64_t h = hash_text(rg_sb_str(&key));
  if (lookup(c, h, rg_sb_str(&key), v)) {
    *hit = true;
    goto out;
  }
  /* the rule text is the key up to its " |" shape suffix */
  const char *k = rg_sb_str(&key);
  const char *bar = strstr(k, " |");
  size_t rule_len = bar ? (size_t)(bar - k) : strlen(k);
  char *rule_text = malloc(rule_len + 1);
  if (!rule_text) {
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    goto out;
  }
  memcpy(rule_text, k, rule_len);
  rule_text[rule_len] = 0;
  rg_rule *rn = NULL;
  st = rg_text_parse_rule(rule_text, &rn, err);
  free(rule_text);
  if (st) goto out;
  const rg_shape *shapes[MAX_VARS];
  for (int32_t q = 0; q < rg_graph_n_tvars(rn->g); q++) {
    int idx = atoi(rg_graph_tvar_name(rn->g, q) + 1); /* "v<k>" */
    shapes[q] = base->tvar_shapes[order[idx]];
  }
  rg_binding b = {shapes, NULL, NULL};
  st = other_shapes_cached(c, rn, k, rule_len, &b, o, v, err);
  rg_rule_free(rn);
  if (!st) store(c, h, rg_sb_str(&key), *v);
out:
  rg_sb_free(&text), rg_sb_free(&key);
  return st;
}
