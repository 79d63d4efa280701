/* ir/graph.c: node storage, hash-consing (a hash table over node contents) and the variable
 * name tables. */
#include "graph.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hashtab.h"

typedef struct {
  char **names;
  int32_t n, cap;
  bool packed;      /* names[] and the texts are one block (rg_graph_compact), freed as one */
  rg_hashtab index; /* name -> its position, once the table holds more than INDEX_FROM names */
} name_table;

/* Below this many names a scan is as fast as hashing (a rule's variables); a model has one
 * variable per weight and input, and scanning those made importing a model quadratic. */
#define INDEX_FROM 16

struct rg_graph {
  rg_graph_nodes at; /* first: rg_graph_node reads it through a pointer to the graph */
  rg_hashtab ids; /* node contents -> node id */
  name_table tvars, pvars;
  uint64_t serial; /* rg_graph_serial */
};

rg_graph *rg_graph_new(void) {
  rg_graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  static atomic_uint_least64_t next_serial = 1; /* graphs are made by several threads at once */
  g->serial = atomic_fetch_add(&next_serial, 1);
  return g;
}

uint64_t rg_graph_serial(const rg_graph *g) { return g->serial; }

static void free_names(name_table *t) {
  for (int32_t i = 0; !t->packed && i < t->n; i++) free(t->names[i]);
  free(t->names);
  rg_hashtab_free(&t->index);
}

void rg_graph_free(rg_graph *g) {
  if (!g) return;
  free(g->at.nodes);
  rg_hashtab_free(&g->ids);
  free_names(&g->tvars);
  free_names(&g->pvars);
  free(g);
}


rg_node rg_node_init(rg_op op) {
  rg_node n;
  memset(&n, 0, sizeof n);
  n.op = (uint16_t)op;
  return n;
}

static bool node_eq(const void *g, const void *n, int32_t id) {
  return memcmp(&((const rg_graph *)g)->at.nodes[id], n, sizeof(rg_node)) == 0;
}

static char *copy_name(const char *name, size_t len) {
  char *copy = malloc(len + 1);
  if (copy) memcpy(copy, name, len), copy[len] = 0;
  return copy;
}

/* One block for the table: the n pointers, then the texts they point to. A rule's names are a
 * few bytes each, and one allocation of its own (32 bytes) each cost a depth-4 run about 1 GB.
 * Out of memory, the table stays as it was: packing saves room, nothing needs it. */
static void pack_names(name_table *t) {
  if (t->packed || !t->n) return;
  size_t bytes = sizeof *t->names * (size_t)t->n;
  for (int32_t i = 0; i < t->n; i++) bytes += strlen(t->names[i]) + 1;
  char **block = malloc(bytes);
  if (!block) return;
  char *text = (char *)(block + t->n);
  for (int32_t i = 0; i < t->n; i++) {
    size_t len = strlen(t->names[i]) + 1;
    memcpy(text, t->names[i], len);
    free(t->names[i]);
    block[i] = text, text += len;
  }
  free(t->names);
  t->names = block, t->cap = t->n, t->packed = true;
}

/* Before a new name: every name its own allocation again (a packed block cannot grow). */
static bool unpack_names(name_table *t) {
  if (!t->packed) return true;
  char **names = malloc(sizeof *names * (size_t)t->n);
  for (int32_t i = 0; names && i < t->n; i++)
    if (!(names[i] = copy_name(t->names[i], strlen(t->names[i])))) {
      while (i--) free(names[i]);
      free(names), names = NULL;
    }
  if (!names) return false;
  free(t->names);
  t->names = names, t->packed = false;
  return true;
}

void rg_graph_compact(rg_graph *g) {
  rg_shrink_to_fit(&g->at.nodes, &g->at.cap, g->at.n, sizeof *g->at.nodes);
  pack_names(&g->tvars);
  pack_names(&g->pvars);
  rg_hashtab_free(&g->ids);
}

/* After rg_graph_compact: the node index again, from the nodes (all distinct). */
static rg_status reindex(rg_graph *g) {
  for (int32_t id = 0; id < g->at.n; id++)
    if (rg_hashtab_add(&g->ids, rg_hash_bytes(&g->at.nodes[id], sizeof *g->at.nodes), id) != RG_OK) {
      rg_hashtab_free(&g->ids);
      return RG_ERR_NOMEM;
    }
  return RG_OK;
}

int32_t rg_graph_add(rg_graph *g, const rg_node *n) {
  if (g->at.n && !g->ids.cap && reindex(g) != RG_OK) return RG_ERR_NOMEM;
  /* rg_node has no padding holes that differ between equal nodes: every node is built from
   * rg_node_init (all zero) before its fields are set. */
  uint64_t h = rg_hash_bytes(n, sizeof *n);
  size_t pos = rg_hashtab_probe(&g->ids, h, node_eq, g, n);
  int32_t found = rg_hashtab_at(&g->ids, pos);
  if (found >= 0) return found;
  if (g->at.n == g->at.cap && !rg_grow(&g->at.nodes, &g->at.cap, g->at.n, sizeof *g->at.nodes, 16)) return RG_ERR_NOMEM;
  int32_t id = g->at.n;
  if (rg_hashtab_set(&g->ids, pos, h, id) != RG_OK) return RG_ERR_NOMEM;
  g->at.nodes[g->at.n++] = *n;
  return id;
}

int32_t rg_graph_input(rg_graph *g, int32_t tvar) {
  rg_node n = rg_node_init(RG_OP_INPUT);
  n.params[0] = tvar;
  return rg_graph_add(g, &n);
}

typedef struct {
  const char *s;
  int len;
} name_key;

static bool name_eq(const void *owner, const void *key, int32_t val) {
  const char *have = ((const name_table *)owner)->names[val];
  const name_key *k = key;
  return !strncmp(have, k->s, (size_t)k->len) && !have[k->len];
}

static int32_t find(const name_table *t, const char *name, int len) {
  if (t->index.cap)
    return rg_hashtab_find(&t->index, rg_hash_bytes(name, (size_t)len), name_eq, t, &(name_key){name, len});
  for (int32_t i = 0; i < t->n; i++)
    if ((int)strlen(t->names[i]) == len && memcmp(t->names[i], name, (size_t)len) == 0) return i;
  return -1;
}

/* Indexes the newest name, or every name when the table passes INDEX_FROM; false when out of
 * memory (the index then holds exactly the names before the newest, or nothing). */
static bool index_names(name_table *t) {
  if (t->n <= INDEX_FROM) return true;
  int32_t from = t->index.cap ? t->n - 1 : 0;
  for (int32_t i = from; i < t->n; i++)
    if (rg_hashtab_add(&t->index, rg_hash_bytes(t->names[i], strlen(t->names[i])), i) != RG_OK) {
      if (!from) rg_hashtab_free(&t->index);
      return false;
    }
  return true;
}

static int32_t intern(name_table *t, const char *name, int len) {
  int32_t i = find(t, name, len);
  if (i >= 0) return i;
  if (!unpack_names(t) || !rg_grow(&t->names, &t->cap, t->n, sizeof *t->names, 8)) return RG_ERR_NOMEM;
  char *copy = copy_name(name, (size_t)len);
  if (!copy) return RG_ERR_NOMEM;
  t->names[t->n++] = copy;
  if (!index_names(t)) {
    free(t->names[--t->n]);
    return RG_ERR_NOMEM;
  }
  return t->n - 1;
}

int32_t rg_graph_tvar(rg_graph *g, const char *name, int len) { return intern(&g->tvars, name, len); }
int32_t rg_graph_pvar(rg_graph *g, const char *name, int len) { return intern(&g->pvars, name, len); }
int32_t rg_graph_n_tvars(const rg_graph *g) { return g->tvars.n; }
int32_t rg_graph_n_pvars(const rg_graph *g) { return g->pvars.n; }
const char *rg_graph_tvar_name(const rg_graph *g, int32_t i) { return g->tvars.names[i]; }
const char *rg_graph_pvar_name(const rg_graph *g, int32_t i) { return g->pvars.names[i]; }
int32_t rg_graph_find_tvar(const rg_graph *g, const char *name) {
  return find(&g->tvars, name, (int)strlen(name));
}
int32_t rg_graph_find_pvar(const rg_graph *g, const char *name) {
  return find(&g->pvars, name, (int)strlen(name));
}

void rg_ids_sort(int32_t *ids, int32_t n, int32_t *tmp) {
  enum { BITS = 11, RADIX = 1 << BITS }; /* least-significant digit first */
  int32_t max = 0;
  for (int32_t i = 0; i < n; i++)
    if (ids[i] > max) max = ids[i];
  for (int shift = 0; shift < 31 && (max >> shift) > 0; shift += BITS) {
    int32_t count[RADIX + 1] = {0};
    for (int32_t i = 0; i < n; i++) count[((ids[i] >> shift) & (RADIX - 1)) + 1]++;
    for (int d = 0; d < RADIX; d++) count[d + 1] += count[d];
    for (int32_t i = 0; i < n; i++) tmp[count[(ids[i] >> shift) & (RADIX - 1)]++] = ids[i];
    memcpy(ids, tmp, sizeof *ids * (size_t)n);
  }
}

int32_t rg_graph_reach(const rg_graph *g, const rg_ref *refs, int n, uint32_t *seen, uint32_t stamp,
                       int32_t *stack, int32_t *order) {
  int32_t count = 0;
  for (int i = 0; i < n; i++) {
    if (refs[i].node < 0 || seen[refs[i].node] == stamp) continue;
    int32_t top = 0;
    seen[refs[i].node] = stamp, stack[top++] = refs[i].node;
    while (top) { /* depth first: a node leaves the stack once its operands have all left it */
      const rg_node *nd = &g->at.nodes[stack[top - 1]];
      int k = 0;
      while (k < nd->n_in && seen[nd->in[k].node] == stamp) k++;
      if (k < nd->n_in) seen[nd->in[k].node] = stamp, stack[top++] = nd->in[k].node;
      else order[count++] = stack[--top];
    }
  }
  return count;
}

void rg_graph_mark_reachable(const rg_graph *g, const rg_ref *refs, int n, uint8_t *mark) {
  for (int i = 0; i < n; i++)
    if (refs[i].node >= 0) mark[refs[i].node] = 1; /* a negative ref is no value (an omitted operand) */
  /* Ids are topological, so one sweep from the top down reaches every ancestor. */
  for (int32_t id = g->at.n - 1; id >= 0; id--) {
    if (!mark[id]) continue;
    const rg_node *nd = &g->at.nodes[id];
    for (int k = 0; k < nd->n_in; k++) mark[nd->in[k].node] = 1;
  }
}
