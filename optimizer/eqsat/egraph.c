/* optimizer/eqsat/egraph.c: the e-graph (egraph.h): union-find over the values of the model graph,
 * circular member lists, a congruence table keyed by nodes with their operands' classes. */
#include "egraph.h"

#include <stdlib.h>
#include <string.h>

#include "ir/grow.h"
#include "ir/hashtab.h"

struct rg_egraph {
  rg_model *m;
  int32_t n_nodes, cap_nodes; /* nodes of m->g registered; room in the arrays, in nodes */
  int32_t *parent;            /* [value]: union-find; -1 for a value no node has */
  int32_t *next;              /* [value]: the next value of its class (circular) */
  int32_t *members;           /* [root value]: values in its class */
  uint8_t *wonly;             /* [node]: computed from weights alone */
  int32_t n_classes;
  rg_hashtab cong; /* canonical node -> node id */
  uint32_t *stamp; /* [value]: for the walks over classes */
  uint32_t stamp_now;
  int32_t *stack;
  /* A topological order kept through every merge, so that a walk looking for a class can skip
   * every class not above it: level[class] > the level of every class its members read. */
  int32_t *level;              /* [root value] */
  int32_t *use_head, *use_tail; /* [root value]: the class's uses (node * RG_MAX_INPUTS + k), -1 none */
  int32_t *use_next;           /* [use]: the next use of the same class */
  int32_t *raise;              /* classes whose users' levels are being raised */
  int32_t n_raise, cap_raise;
};

int32_t rg_egraph_find(rg_egraph *eg, int32_t v) {
  int32_t r = v;
  while (eg->parent[r] != r) r = eg->parent[r];
  while (eg->parent[v] != r) { /* path compression */
    int32_t up = eg->parent[v];
    eg->parent[v] = r, v = up;
  }
  return r;
}

rg_model *rg_egraph_model(const rg_egraph *eg) { return eg->m; }
int32_t rg_egraph_next(const rg_egraph *eg, int32_t v) { return eg->next[v]; }
int32_t rg_egraph_members(const rg_egraph *eg, int32_t cls) { return eg->members[cls]; }
bool rg_egraph_weight_only(const rg_egraph *eg, int32_t id) { return eg->wonly[id]; }
int32_t rg_egraph_n_nodes(const rg_egraph *eg) { return eg->n_nodes; }
int32_t rg_egraph_n_classes(const rg_egraph *eg) { return eg->n_classes; }

/* n with its operands replaced by their classes' root values (as refs): congruent nodes are
 * equal under this. */
static rg_node canonical(rg_egraph *eg, const rg_node *n) {
  rg_node c = *n;
  if (c.op != RG_OP_INPUT)
    for (int k = 0; k < c.n_in; k++) c.in[k] = rg_egraph_ref(rg_egraph_class(eg, c.in[k]));
  return c;
}

static bool cong_eq(const void *owner, const void *key, int32_t id) {
  rg_egraph *eg = (rg_egraph *)owner;
  rg_node c = canonical(eg, rg_graph_node(eg->m->g, id));
  return memcmp(&c, key, sizeof c) == 0;
}

/* *p resized to n elements of elem bytes (unchanged when out of memory: false). */
static bool resize(void *p, size_t n, size_t elem) {
  void *q = realloc(*(void **)p, n * elem);
  if (q) *(void **)p = q;
  return q != NULL;
}

static bool room(rg_egraph *eg, int32_t nodes) {
  if (nodes <= eg->cap_nodes) return true;
  int32_t cap = eg->cap_nodes ? eg->cap_nodes : 1024;
  while (cap < nodes) cap *= 2;
  size_t nv = (size_t)cap * RG_MAX_OUTPUTS, v4 = sizeof(int32_t);
  bool ok = resize(&eg->parent, nv, v4) && resize(&eg->next, nv, v4) && resize(&eg->members, nv, v4) &&
            resize(&eg->stack, nv, v4) && resize(&eg->stamp, nv, v4) && resize(&eg->level, nv, v4) &&
            resize(&eg->use_head, nv, v4) && resize(&eg->use_tail, nv, v4) &&
            resize(&eg->use_next, (size_t)cap * RG_MAX_INPUTS, v4) && resize(&eg->wonly, (size_t)cap, 1);
  if (!ok) return false;
  memset(eg->stamp + (size_t)eg->cap_nodes * RG_MAX_OUTPUTS, 0, (nv - (size_t)eg->cap_nodes * RG_MAX_OUTPUTS) * v4);
  eg->cap_nodes = cap;
  return true;
}

static void add_use(rg_egraph *eg, int32_t cls, int32_t use) {
  eg->use_next[use] = -1;
  if (eg->use_tail[cls] < 0) eg->use_head[cls] = use;
  else eg->use_next[eg->use_tail[cls]] = use;
  eg->use_tail[cls] = use;
}

/* A new node's values: each its own class, one level above its operands' classes, a use of
 * each operand's class. */
static void add_values(rg_egraph *eg, int32_t id, const rg_node *nd) {
  int outs = rg_op_get((rg_op)nd->op)->n_outputs, lvl = 0;
  for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) {
    int32_t c = rg_egraph_class(eg, nd->in[k]);
    if (eg->level[c] + 1 > lvl) lvl = eg->level[c] + 1;
    add_use(eg, c, id * RG_MAX_INPUTS + k);
  }
  for (int o = 0; o < RG_MAX_OUTPUTS; o++) {
    int32_t v = id * RG_MAX_OUTPUTS + o;
    eg->parent[v] = o < outs ? v : -1, eg->next[v] = v, eg->members[v] = 1;
    eg->level[v] = lvl, eg->use_head[v] = eg->use_tail[v] = -1;
  }
  eg->n_classes += outs;
}

/* Registers the nodes m->g gained since the last call: each value its own class, each node in
 * the congruence table (under the node it is congruent to, when there is one: rebuild merges). */
static rg_status sync(rg_egraph *eg, rg_err *err) {
  int32_t size = rg_graph_size(eg->m->g);
  if (!room(eg, size)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t id = eg->n_nodes; id < size; id++) {
    const rg_node *nd = rg_graph_node(eg->m->g, id);
    add_values(eg, id, nd);
    bool w = nd->op == RG_OP_INPUT ? eg->m->var[nd->params[0]].kind == RG_MVAR_WEIGHT : true;
    for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) w = w && eg->wonly[nd->in[k].node];
    eg->wonly[id] = w;
    if (nd->op == RG_OP_INPUT) continue;
    rg_node c = canonical(eg, nd);
    uint64_t h = rg_hash_bytes(&c, sizeof c);
    size_t pos = rg_hashtab_probe(&eg->cong, h, cong_eq, eg, &c);
    if (rg_hashtab_at(&eg->cong, pos) < 0 && rg_hashtab_set(&eg->cong, pos, h, id))
      return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  eg->n_nodes = size;
  return RG_OK;
}

rg_egraph *rg_egraph_new(rg_model *m) {
  rg_egraph *eg = calloc(1, sizeof *eg);
  if (!eg) return NULL;
  eg->m = m;
  rg_err e;
  if (sync(eg, &e)) {
    rg_egraph_free(eg);
    return NULL;
  }
  return eg;
}

void rg_egraph_free(rg_egraph *eg) {
  if (!eg) return;
  free(eg->parent), free(eg->next), free(eg->members), free(eg->wonly), free(eg->stamp), free(eg->stack);
  free(eg->level), free(eg->use_head), free(eg->use_tail), free(eg->use_next), free(eg->raise);
  rg_hashtab_free(&eg->cong);
  free(eg);
}

rg_status rg_egraph_add(rg_egraph *eg, const rg_node *n, int out_index, rg_ref *out, rg_err *err) {
  rg_node c = canonical(eg, n);
  int32_t found = rg_hashtab_find(&eg->cong, rg_hash_bytes(&c, sizeof c), cong_eq, eg, &c);
  if (found >= 0) {
    *out = (rg_ref){found, out_index};
    return RG_OK;
  }
  rg_status st = rg_model_add_node(eg->m, &c, out_index, out, err);
  return st ? st : sync(eg, err);
}

/* Restores the levels' order above class c after a merge: the uses of c from `first` on (those
 * that may now sit at or below it) go above it, and so on up. Acyclic (merges that would make a
 * cycle are not made), so it ends; a level past the number of values would mean a cycle, and
 * stops it. */
static void raise_users(rg_egraph *eg, int32_t c, int32_t first) {
  eg->n_raise = 0;
  if (rg_grow(&eg->raise, &eg->cap_raise, eg->n_raise, sizeof *eg->raise, 256)) eg->raise[eg->n_raise++] = c;
  while (eg->n_raise > 0) {
    int32_t x = eg->raise[--eg->n_raise];
    for (int32_t u = x == c ? first : eg->use_head[x]; u >= 0; u = eg->use_next[u]) {
      int32_t id = u / RG_MAX_INPUTS;
      for (int o = 0; o < rg_op_get((rg_op)rg_graph_node(eg->m->g, id)->op)->n_outputs; o++) {
        int32_t y = rg_egraph_find(eg, id * RG_MAX_OUTPUTS + o);
        if (eg->level[y] > eg->level[x] || eg->level[x] > eg->n_nodes * RG_MAX_OUTPUTS) continue;
        eg->level[y] = eg->level[x] + 1;
        if (rg_grow(&eg->raise, &eg->cap_raise, eg->n_raise, sizeof *eg->raise, 256)) eg->raise[eg->n_raise++] = y;
      }
    }
  }
}

bool rg_egraph_union(rg_egraph *eg, int32_t a, int32_t b) {
  a = rg_egraph_find(eg, a), b = rg_egraph_find(eg, b);
  if (a == b) return false;
  if (eg->members[a] < eg->members[b]) { /* the larger class's root stays */
    int32_t t = a;
    a = b, b = t;
  }
  eg->parent[b] = a;
  eg->members[a] += eg->members[b];
  int32_t t = eg->next[a]; /* splice the two circular lists */
  eg->next[a] = eg->next[b], eg->next[b] = t;
  int32_t b_uses = eg->use_head[b];
  if (b_uses >= 0) { /* and the uses, b's after a's */
    if (eg->use_tail[a] < 0) eg->use_head[a] = eg->use_head[b];
    else eg->use_next[eg->use_tail[a]] = eg->use_head[b];
    eg->use_tail[a] = eg->use_tail[b];
  }
  eg->n_classes--;
  bool rose = eg->level[b] > eg->level[a]; /* then a's users may sit below the merged class; else b's */
  if (rose) eg->level[a] = eg->level[b];
  raise_users(eg, a, rose ? eg->use_head[a] : b_uses);
  return true;
}

int32_t rg_egraph_level(const rg_egraph *eg, int32_t cls) { return eg->level[cls]; }

/* Whether class `to` is reachable from class `from` through operands (from itself counts only
 * when reached again). */
static bool reaches(rg_egraph *eg, int32_t from, int32_t to) {
  if (eg->level[from] <= eg->level[to]) return false; /* only classes above `to` can read it */
  uint32_t s = ++eg->stamp_now;
  int32_t n = 0;
  eg->stack[n++] = from;
  while (n > 0) {
    int32_t c = eg->stack[--n], v = c;
    do {
      const rg_node *nd = rg_graph_node(eg->m->g, v / RG_MAX_OUTPUTS);
      for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) {
        int32_t d = rg_egraph_class(eg, nd->in[k]);
        if (d == to) return true;
        if (eg->level[d] > eg->level[to] && eg->stamp[d] != s) eg->stamp[d] = s, eg->stack[n++] = d;
      }
      v = eg->next[v];
    } while (v != c);
  }
  return false;
}

void rg_egraph_reach(rg_egraph *eg, const int32_t *classes, int n, uint8_t *reached) {
  int32_t *stack = eg->stack, top = 0; /* room for every class, each pushed once */
  for (int i = 0; i < n; i++)
    if (classes[i] >= 0 && !reached[classes[i]]) reached[classes[i]] = 1, stack[top++] = classes[i];
  while (top > 0) {
    int32_t c = stack[--top], v = c;
    do {
      const rg_node *nd = rg_graph_node(eg->m->g, v / RG_MAX_OUTPUTS);
      for (int k = 0; nd->op != RG_OP_INPUT && k < nd->n_in; k++) {
        int32_t d = rg_egraph_class(eg, nd->in[k]);
        if (!reached[d]) reached[d] = 1, stack[top++] = d;
      }
      v = eg->next[v];
    } while (v != c);
  }
}

bool rg_egraph_would_cycle(rg_egraph *eg, int32_t a, int32_t b) {
  a = rg_egraph_find(eg, a), b = rg_egraph_find(eg, b);
  return a != b && (reaches(eg, a, b) || reaches(eg, b, a));
}

/* One pass over every node: a node whose canonical form is another's merges with it. */
static rg_status rebuild_pass(rg_egraph *eg, int64_t *merged, rg_err *err) {
  rg_hashtab_clear(&eg->cong);
  for (int32_t id = 0; id < eg->n_nodes; id++) {
    const rg_node *nd = rg_graph_node(eg->m->g, id);
    if (nd->op == RG_OP_INPUT) continue;
    rg_node c = canonical(eg, nd);
    uint64_t h = rg_hash_bytes(&c, sizeof c);
    size_t pos = rg_hashtab_probe(&eg->cong, h, cong_eq, eg, &c);
    int32_t other = rg_hashtab_at(&eg->cong, pos);
    if (other < 0) {
      if (rg_hashtab_set(&eg->cong, pos, h, id)) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      continue;
    }
    /* Congruent nodes in classes one of which reads the other (a merge of their operands made
     * f(a) and f(b) one value where f(b)'s class holds g(f(a))): merged, the e-graph would
     * hold a cycle, which extraction and the levels cannot have. Left apart, as a rule's merge
     * that would make one is: the e-graph then says less than it could, never something false. */
    int outs = rg_op_get((rg_op)nd->op)->n_outputs;
    bool cycle = false;
    for (int o = 0; o < outs && !cycle; o++) cycle = rg_egraph_would_cycle(eg, id * RG_MAX_OUTPUTS + o, other * RG_MAX_OUTPUTS + o);
    for (int o = 0; o < outs && !cycle; o++)
      *merged += rg_egraph_union(eg, id * RG_MAX_OUTPUTS + o, other * RG_MAX_OUTPUTS + o);
  }
  return RG_OK;
}

rg_status rg_egraph_rebuild(rg_egraph *eg, int64_t *merged, rg_err *err) {
  int64_t total = 0, pass;
  rg_status st;
  do { /* a merge may make other nodes congruent: again until a pass merges nothing */
    pass = 0;
    st = rebuild_pass(eg, &pass, err);
    total += pass;
  } while (!st && pass > 0);
  if (merged) *merged = total;
  return st;
}
