/* enumerate/dfs.c: depth-first enumeration in canonical order, parallel over first operators.
 *
 * Each thread keeps a table of the shapes it has seen (so a type is an int) and a cache of
 * applications (variant, operand shape ids) -> result shape id or "invalid", so shape inference
 * runs once per distinct combination instead of once per attempted application.
 */
#include "dfs.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHAPES (1 << 20)

struct rg_enum_shapes {
  rg_shape *s;
  int32_t n, cap;
  rg_hashtab ids; /* canonical shape -> shape id */
};

/* What the threads of one run share: progress counters (updated atomically). */
typedef struct {
  uint64_t graphs;
  int units_done, units_total;
} shared;

typedef struct {
  rg_enum_shapes shapes;
  shared *sh;
  /* application cache: (variant, operand shape ids) as one integer, akey[i], -> result shape id
   * (or -1: does not apply) aval[i]; applied indexes them */
  uint64_t *akey;
  int32_t *aval;
  int32_t an, acap;
  rg_hashtab applied;
  /* Result shape id (or -1) of variant v on the pool's type classes ca, cb (extend's classes:
   * numbered by first appearance, so they stay put along a DFS path): typed[v][ca][cb], valid for
   * class c while typed_sid[c] is the class's shape id. Spares extend a hash lookup per pair. */
  int32_t *typed;
  int32_t typed_sid[RG_ENUM_POOL];
  /* Per shape id (below MAX_ROWS), once computed: the typed entries of a class of that shape
   * against the input classes (which never change), row[(v * n_in_cls + x) * 2 + dir], dir 0
   * with the class as first operand; unary variants at x = 0, dir 0. A class that takes a shape
   * seen before copies them instead of looking each up in the application cache. */
  int32_t **rows;
  int n_in_cls;
  /* gaps: inputs used while the previous input of their type is not (TASO's input order allows
   * none in a graph); next_same[i]: the input whose previous input of the same type is i, or -1 */
  int gaps;
  int8_t next_same[RG_ENUM_MAX_INPUTS];
  rg_enum_state st;
  const rg_enum_visitor *vis;
  void *user;
  const rg_enum_run_opts *o;
  uint64_t graphs, rejected, reported, wide, pruned;
  bool nomem;
  rg_status st_err;
  rg_err *err;
} thr;

const rg_shape *rg_enum_state_shape(const rg_enum_state *st, int p) { return &st->shapes->s[st->sid[p]]; }

static rg_shape canon(const rg_shape *x) {
  rg_shape c;
  memset(&c, 0, sizeof c);
  c.rank = x->rank;
  for (int d = 0; d < x->rank; d++) {
    c.dim[d] = x->dim[d];
    c.nseam[d] = x->nseam[d];
    for (int k = 0; k < x->nseam[d]; k++) c.seam[d][k] = x->seam[d][k];
  }
  return c;
}

static bool shape_eq(const void *t, const void *c, int32_t id) {
  return !memcmp(&((const rg_enum_shapes *)t)->s[id], c, sizeof(rg_shape));
}

/* Interns a shape; returns its id, or -1 when out of memory or over MAX_SHAPES. */
static int32_t intern(rg_enum_shapes *t, const rg_shape *x) {
  rg_shape c = canon(x);
  uint64_t h = rg_hash_bytes(&c, sizeof c); /* canon zeroed its padding */
  size_t pos = rg_hashtab_probe(&t->ids, h, shape_eq, t, &c);
  int32_t found = rg_hashtab_at(&t->ids, pos);
  if (found >= 0) return found;
  if (t->n == MAX_SHAPES) return -1;
  if (!rg_grow(&t->s, &t->cap, t->n, sizeof *t->s, 64)) return -1;
  if (rg_hashtab_set(&t->ids, pos, h, t->n)) return -1;
  t->s[t->n] = c;
  return t->n++;
}

static bool akey_eq(const void *t, const void *key, int32_t i) {
  return ((const thr *)t)->akey[i] == *(const uint64_t *)key;
}

/* Adds (key, res) to the application cache at pos (applied's probe for h); false when out of
 * memory. */
static bool remember(thr *t, size_t pos, uint64_t h, uint64_t key, int32_t res) {
  if (t->an == t->acap) {
    int32_t cap = t->acap ? 2 * t->acap : 1024;
    uint64_t *k = realloc(t->akey, sizeof *k * (size_t)cap);
    if (k) t->akey = k;
    int32_t *v = realloc(t->aval, sizeof *v * (size_t)cap);
    if (v) t->aval = v;
    if (!k || !v) return false;
    t->acap = cap;
  }
  if (rg_hashtab_set(&t->applied, pos, h, t->an)) return false;
  t->akey[t->an] = key, t->aval[t->an++] = res;
  return true;
}

/* Result shape id of variant v on operands a, b (pool indices), or -1 if it does not apply. */
static int32_t apply(thr *t, int v, int a, int b) {
  const rg_enum_variant *var = &t->st.sp->variants[v];
  int32_t s0 = var->n_in > 0 ? t->st.sid[a] : 0, s1 = var->n_in > 1 ? t->st.sid[b] : 0;
  uint64_t key = (uint64_t)v << 40 | (uint64_t)s0 << 20 | (uint64_t)s1, h = rg_mix64(key);
  size_t pos = rg_hashtab_probe(&t->applied, h, akey_eq, t, &key);
  int32_t known = rg_hashtab_at(&t->applied, pos);
  if (known >= 0) return t->aval[known];
  const rg_shape *in[2] = {&t->shapes.s[s0], &t->shapes.s[s1]};
  rg_shape out[RG_MAX_OUTPUTS];
  int32_t res = -1;
  if (rg_shape_infer((rg_op)var->op, var->params, var->n_in, in, out, NULL) == RG_OK &&
      rg_enum_space_accepts(t->st.sp, v, in, &out[var->out])) {
    res = intern(&t->shapes, &out[var->out]);
    if (res < 0) t->nomem = true;
  }
  if (!remember(t, pos, h, key, res)) {
    t->nomem = true;
    return -1;
  }
  return res;
}

static inline bool op_less(rg_enum_opcode x, rg_enum_opcode y) {
  if (x.variant != y.variant) return x.variant < y.variant;
  if (x.in[0] != y.in[0]) return x.in[0] < y.in[0];
  return x.in[1] < y.in[1];
}

/* Adds delta to the use count of pool tensor x, keeping t->gaps up to date: only an input going
 * from unused to used (or back) changes it, through itself and the next input of its type. */
static inline void add_use(thr *t, int x, int delta) {
  rg_enum_state *st = &t->st;
  bool was = st->uses[x] > 0;
  st->uses[x] = (uint8_t)(st->uses[x] + delta);
  bool now = st->uses[x] > 0;
  if (was == now || x >= st->sp->inputs.n) return;
  int prev = st->sp->prev_same[x], next = t->next_same[x];
  int step = now ? 1 : -1;
  if (prev >= 0 && !st->uses[prev]) t->gaps += step;
  if (next >= 0 && st->uses[next]) t->gaps -= step;
}

static void report(thr *t);
static rg_status extend(thr *t);

/* Whether op (of variant var) may be appended to the operators of st as they stand: in
 * canonical order, not a repeat, its graph still able to come down to max_outputs outputs, not
 * an instance of commutativity, and within the depth (*weight: st's weight after op; a later
 * output of an operator already there is free, and only extend_siblings appends those). Sets
 * *sinks (the outputs after op) and *swapped. */
static bool op_allowed(const thr *t, rg_enum_opcode op, const rg_enum_variant *var, bool sibling,
                       int *sinks, int *weight, bool *swapped) {
  const rg_enum_state *st = &t->st;
  int ni = st->sp->inputs.n, k = st->n_ops;
  int depmax = -1;
  if (k == RG_ENUM_MAX_DEPTH) return false;
  for (int j = 0; j < var->n_in; j++)
    if (op.in[j] >= ni && op.in[j] - ni > depmax) depmax = op.in[j] - ni;
  for (int j = depmax + 1; j < k; j++) /* an earlier greedy step would have placed op */
    if (op_less(op, st->code.op[j])) return false;
  bool free_op = false;
  for (int j = 0; j < k; j++) {
    if (!memcmp(&st->code.op[j], &op, sizeof op)) return false;
    free_op = free_op || rg_enum_op_siblings(st->sp, st->code.op[j], op);
  }
  if (free_op != sibling) return false;
  *weight = st->weight + !free_op;
  if (*weight > st->sp->depth) return false;
  /* outputs after this operator; each later counted one can join at most one pair of them (a
   * free one reads no sink: its operand is its sibling's) */
  *sinks = st->n_sinks + 1;
  for (int j = 0; j < var->n_in; j++)
    if (op.in[j] >= ni && st->uses[op.in[j]] == 0 && (j == 0 || op.in[1] != op.in[0])) --*sinks;
  if (*sinks - (st->sp->depth - *weight) > t->o->max_outputs) return false;
  *swapped = var->n_in == 2 && op.in[0] > op.in[1] && rg_enum_op_commutative((rg_op)var->op);
  return !(*swapped && op.in[0] >= ni && !t->o->extend_swapped);
}

/* Tries to append (v, a, b), whose result has shape id sid (>= 0: shape inference accepted it),
 * a later output of an operator already there when sibling is set; visits and recurses when it
 * is new and canonical. */
static rg_status try_op(thr *t, int v, int a, int b, int32_t sid, bool sibling) {
  rg_enum_state *st = &t->st;
  const rg_enum_variant *var = &st->sp->variants[v];
  int ni = st->sp->inputs.n, k = st->n_ops;
  rg_enum_opcode op = {(uint16_t)v, {(uint8_t)(var->n_in > 0 ? a : 0), (uint8_t)(var->n_in > 1 ? b : 0)}};
  int sinks, weight;
  bool swapped;
  if (!op_allowed(t, op, var, sibling, &sinks, &weight, &swapped)) {
    t->rejected++;
    return RG_OK;
  }
  /* inputs used out of class order (a later input of a class before an earlier one): each
   * remaining operand can fix one */
  for (int j = 0; j < var->n_in; j++) add_use(t, op.in[j], 1);
  int gaps = t->gaps, left = st->sp->depth - weight;
  if (gaps > 2 * left && !t->o->all_inputs) {
    for (int j = var->n_in - 1; j >= 0; j--) add_use(t, op.in[j], -1);
    t->rejected++;
    return RG_OK;
  }
  int old_sinks = st->n_sinks, old_weight = st->weight;
  bool old_is_graph = st->is_graph;
  st->code.op[k] = op;
  st->sid[ni + k] = sid;
  st->n_ops = k + 1;
  st->weight = weight;
  st->n_sinks = sinks;
  st->is_graph = sinks <= t->o->max_outputs && (gaps == 0 || t->o->all_inputs);
  if (st->is_graph) t->graphs++;
  else t->wide++;
  bool more = t->o->extend_swapped || !swapped;
  rg_status s = t->vis->visit(t->user, st, &more, t->err);
  if (!more) t->pruned++;
  if (!s && more) s = extend(t);
  if (t->vis->leave) t->vis->leave(t->user, st);
  st->n_ops = k;
  st->weight = old_weight;
  st->n_sinks = old_sinks;
  st->is_graph = old_is_graph;
  for (int j = var->n_in - 1; j >= 0; j--) add_use(t, op.in[j], -1);
  st->code.op[k] = (rg_enum_opcode){RG_ENUM_NO_OP, {0, 0}};
  if ((t->graphs & 0xffff) == 0) report(t);
  return s;
}

/* The pool's tensors grouped by type: class c has members[first[c] .. first[c + 1]), in
 * increasing pool order, all of shape id sid[c]. */
typedef struct {
  int n;
  int32_t sid[RG_ENUM_POOL];
  int first[RG_ENUM_POOL + 1];
  uint8_t members[RG_ENUM_POOL];
  /* the members that are sinks (operator tensors no operator uses), in the same order:
   * sinks[sfirst[c] .. sfirst[c + 1]) for class c */
  int sfirst[RG_ENUM_POOL + 1];
  uint8_t sinks[RG_ENUM_POOL];
  bool is_sink[RG_ENUM_POOL];
} type_classes;

static void group_by_type(const rg_enum_state *st, int pool, type_classes *tc) {
  int cls_of[RG_ENUM_POOL], count[RG_ENUM_POOL];
  tc->n = 0;
  for (int p = 0; p < pool; p++) {
    int c = 0;
    while (c < tc->n && tc->sid[c] != st->sid[p]) c++;
    if (c == tc->n) tc->sid[tc->n] = st->sid[p], count[tc->n++] = 0;
    cls_of[p] = c;
    count[c]++;
  }
  tc->first[0] = 0;
  for (int c = 0; c < tc->n; c++) tc->first[c + 1] = tc->first[c] + count[c], count[c] = tc->first[c];
  for (int p = 0; p < pool; p++) tc->members[count[cls_of[p]]++] = (uint8_t)p;
  int ns = 0;
  for (int c = 0; c < tc->n; c++) {
    tc->sfirst[c] = ns;
    for (int i = tc->first[c]; i < tc->first[c + 1]; i++) {
      int p = tc->members[i];
      tc->is_sink[p] = p >= st->sp->inputs.n && st->uses[p] == 0;
      if (tc->is_sink[p]) tc->sinks[ns++] = (uint8_t)p;
    }
  }
  tc->sfirst[tc->n] = ns;
}

static inline int32_t *typed_at(thr *t, int v, int ca, int cb) {
  return &t->typed[((size_t)v * RG_ENUM_POOL + (size_t)ca) * RG_ENUM_POOL + (size_t)cb];
}

#define UNTYPED INT32_MIN /* a typed entry not computed yet */

#define MAX_ROWS (1 << 14)

/* The row block of class c (shape id sid < MAX_ROWS) against the input classes, computed on
 * first use; NULL when out of memory. */
static const int32_t *row_of(thr *t, const type_classes *tc, int c, int32_t sid) {
  if (t->rows[sid]) return t->rows[sid];
  const rg_enum_space *sp = t->st.sp;
  int ni = t->n_in_cls, rc = tc->members[tc->first[c]];
  int32_t *row = malloc(sizeof *row * (size_t)sp->n_variants * (size_t)(ni ? ni : 1) * 2);
  if (!row) return NULL;
  for (int v = 0; v < sp->n_variants; v++) {
    int nin = sp->variants[v].n_in;
    for (int x = 0; x < ni; x++) {
      int32_t *e = &row[((size_t)v * ni + x) * 2];
      int rx = tc->members[tc->first[x]];
      e[0] = nin == 1 && x == 0 ? apply(t, v, rc, 0) : nin == 2 ? apply(t, v, rc, rx) : -1;
      e[1] = nin == 2 ? apply(t, v, rx, rc) : -1;
    }
  }
  return t->rows[sid] = row;
}

/* Brings t->typed up to date for the classes of tc: a class whose shape id changed since its
 * row was filled (a sibling subtree put another type there) gets its entries against the input
 * classes from its shape's row block, and the others marked UNTYPED, to be computed when first
 * read (near the last level most pairs are never read). */
static void refresh_typed(thr *t, const type_classes *tc) {
  const rg_enum_space *sp = t->st.sp;
  for (int c = 0; c < tc->n; c++) {
    if (t->typed_sid[c] == tc->sid[c]) continue;
    const int32_t *row =
        c >= t->n_in_cls && tc->sid[c] < MAX_ROWS ? row_of(t, tc, c, tc->sid[c]) : NULL;
    int known = row ? t->n_in_cls : 0;
    for (int v = 0; v < sp->n_variants; v++) {
      int nin = sp->variants[v].n_in;
      const int32_t *rv = row ? &row[(size_t)v * t->n_in_cls * 2] : NULL;
      if (nin == 1) *typed_at(t, v, c, 0) = row ? rv[0] : UNTYPED;
      if (nin != 2) continue;
      for (int x = 0; x < known; x++)
        *typed_at(t, v, c, x) = rv[2 * x], *typed_at(t, v, x, c) = rv[2 * x + 1];
      for (int x = known; x < tc->n; x++)
        *typed_at(t, v, c, x) = *typed_at(t, v, x, c) = UNTYPED;
    }
    t->typed_sid[c] = tc->sid[c];
  }
  for (int c = tc->n; c < RG_ENUM_POOL && t->typed_sid[c] != -1; c++) t->typed_sid[c] = -1;
}

/* Result shape id (or -1) of variant v on a member of class ca and one of cb. */
static int32_t typed(thr *t, const type_classes *tc, int v, int ca, int cb) {
  int32_t *e = typed_at(t, v, ca, cb);
  if (*e == UNTYPED) {
    int nin = t->st.sp->variants[v].n_in;
    *e = apply(t, v, tc->members[tc->first[ca]], nin == 2 ? tc->members[tc->first[cb]] : 0);
  }
  return *e;
}

/* Applies variant v to every operand tuple the shapes allow, skipping whole type classes that
 * shape inference rejects, tuples with no operand at pool index >= first_new (those would break
 * canonical order) and, when the graph has too many outputs for the operators left, tuples that
 * do not use `need` (1 or 2) of its sinks: near the last level that is nearly every tuple.
 * try_op still checks every operator exactly. */
static rg_status extend_variant(thr *t, int v, const type_classes *tc, int first_new, int need) {
  int nin = t->st.sp->variants[v].n_in;
  rg_status s = RG_OK;
  if (nin == 0) {
    if (first_new > 0 || need > 0) return RG_OK;
    int32_t sid = apply(t, v, 0, 0);
    return sid >= 0 ? try_op(t, v, 0, 0, sid, false) : t->nomem ? RG_ERR_NOMEM : RG_OK;
  }
  if (need > nin) return RG_OK;
  for (int ca = 0; ca < tc->n && !s; ca++) {
    if (nin == 1) {
      const uint8_t *m = need ? tc->sinks : tc->members;
      int lo = need ? tc->sfirst[ca] : tc->first[ca],
          hi = need ? tc->sfirst[ca + 1] : tc->first[ca + 1];
      if (lo == hi || m[hi - 1] < first_new) continue; /* members are in increasing pool order */
      int32_t sid = typed(t, tc, v, ca, 0);
      for (int i = lo; i < hi && sid >= 0 && !s; i++)
        if (m[i] >= first_new) s = try_op(t, v, m[i], 0, sid, false);
      continue;
    }
    bool a_sinks = tc->sfirst[ca + 1] > tc->sfirst[ca];
    if (need == 2 && !a_sinks) continue;
    for (int cb = 0; cb < tc->n && !s; cb++) {
      bool b_sinks = tc->sfirst[cb + 1] > tc->sfirst[cb];
      if ((need == 1 && !a_sinks && !b_sinks) || (need == 2 && !b_sinks)) continue;
      int32_t sid = typed(t, tc, v, ca, cb);
      if (sid < 0) continue;
      for (int i = tc->first[ca]; i < tc->first[ca + 1] && !s; i++) {
        int a = tc->members[i];
        /* a not a sink: b must be one (need 1); a a sink: b is free (need 1) or a sink (need 2) */
        bool b_sink = need == 2 || (need == 1 && !tc->is_sink[a]);
        if (need == 2 && !tc->is_sink[a]) continue;
        const uint8_t *m = b_sink ? tc->sinks : tc->members;
        int lo = b_sink ? tc->sfirst[cb] : tc->first[cb],
            hi = b_sink ? tc->sfirst[cb + 1] : tc->first[cb + 1];
        for (int j = lo; j < hi && !s; j++)
          if (a >= first_new || m[j] >= first_new) s = try_op(t, v, a, m[j], sid, false);
      }
    }
  }
  return s;
}

/* Appends the other outputs of each multi-output operator already there (they cost no depth);
 * try_op keeps those in canonical order. */
static rg_status extend_siblings(thr *t) {
  const rg_enum_state *st = &t->st;
  rg_status s = RG_OK;
  for (int j = 0, k = st->n_ops; j < k && !s; j++) {
    rg_enum_opcode op = st->code.op[j];
    int v = st->sp->sibling[op.variant];
    if (v < 0) continue;
    int32_t sid = apply(t, v, op.in[0], op.in[1]);
    if (sid >= 0) s = try_op(t, v, op.in[0], op.in[1], sid, true);
    else if (t->nomem) s = RG_ERR_NOMEM;
  }
  return s;
}

/* Canonical order bounds the search: an operator whose newest operand is operator d (-1: only
 * inputs) must not be smaller than any operator after d, i.e. than later_max[d + 1], the
 * largest of code.op[d + 1 .. n_ops). later_max only grows towards the front, so for each
 * variant there is a first d it can hang from; tuples of older operands are not tried. */
static rg_status extend(thr *t) {
  rg_enum_state *st = &t->st;
  int k = st->n_ops;
  if (k == RG_ENUM_MAX_DEPTH) return RG_OK;
  if (t->o->stop && *t->o->stop) return RG_OK;
  rg_status s = extend_siblings(t);
  if (s || st->weight == st->sp->depth) return s;
  int ni = st->sp->inputs.n;
  int later_max_v[RG_ENUM_MAX_DEPTH + 1]; /* variant of later_max[j]; -1 when j == k (none) */
  later_max_v[k] = -1;
  for (int j = k - 1; j >= 0; j--)
    later_max_v[j] = st->code.op[j].variant > later_max_v[j + 1] ? st->code.op[j].variant : later_max_v[j + 1];
  /* sinks the next operator must use so that the operators left can still bring the outputs
   * down to max_outputs (each operator uses up at most two) */
  int need = st->n_sinks + 1 - (st->sp->depth - (st->weight + 1)) - t->o->max_outputs;
  if (need > 2) return RG_OK;
  if (need < 0) need = 0;
  type_classes tc;
  group_by_type(st, ni + k, &tc);
  refresh_typed(t, &tc);
  for (int v = 0; v < st->sp->n_variants && !s; v++) {
    int d = -1; /* the first d with later_max[d + 1] not of a larger variant */
    while (later_max_v[d + 1] > v) d++;
    s = extend_variant(t, v, &tc, d < 0 ? 0 : ni + d, need);
    if (!s && t->nomem) s = RG_ERR_NOMEM;
  }
  return s;
}

/* Adds this thread's new graphs to the shared count and calls the progress callback. */
static void report(thr *t) {
  uint64_t add = t->graphs - t->reported;
  t->reported = t->graphs;
#pragma omp atomic
  t->sh->graphs += add;
  if (!t->o->progress) return;
  rg_enum_progress p;
#pragma omp critical(rg_enum_progress)
  {
    p.graphs = t->sh->graphs;
    p.units_done = t->sh->units_done;
    p.units_total = t->sh->units_total;
    t->o->progress(t->o->progress_user, &p);
  }
}

static rg_status thr_init(thr *t, const rg_enum_space *sp, shared *sh, const rg_enum_visitor *v,
                          void *user, const rg_enum_run_opts *o, rg_err *err) {
  memset(t, 0, sizeof *t);
  t->sh = sh, t->vis = v, t->user = user, t->o = o, t->err = err;
  t->typed = malloc(sizeof *t->typed * (size_t)sp->n_variants * RG_ENUM_POOL * RG_ENUM_POOL);
  t->rows = calloc(MAX_ROWS, sizeof *t->rows);
  for (int c = 0; c < RG_ENUM_POOL; c++) t->typed_sid[c] = -1;
  for (int i = 0; i < RG_ENUM_MAX_INPUTS; i++) t->next_same[i] = -1;
  for (int i = 0; i < sp->inputs.n; i++)
    if (sp->prev_same[i] >= 0) t->next_same[sp->prev_same[i]] = (int8_t)i;
  t->st.sp = sp;
  t->st.shapes = &t->shapes;
  for (int k = 0; k < RG_ENUM_MAX_DEPTH; k++) t->st.code.op[k] = (rg_enum_opcode){RG_ENUM_NO_OP, {0, 0}};
  if (!t->typed || !t->rows) return RG_ERR_NOMEM;
  for (int i = 0; i < sp->inputs.n; i++) {
    t->st.sid[i] = intern(&t->shapes, &sp->inputs.in[i].shape);
    if (t->st.sid[i] < 0) return RG_ERR_NOMEM;
  }
  type_classes tc; /* the inputs' classes come first in every pool, in this order */
  group_by_type(&t->st, sp->inputs.n, &tc);
  t->n_in_cls = tc.n;
  return RG_OK;
}

static void thr_free(thr *t) {
  rg_hashtab_free(&t->applied);
  free(t->akey);
  free(t->aval);
  free(t->typed);
  for (int i = 0; t->rows && i < MAX_ROWS; i++)
    free(t->rows[i]);
  free(t->rows);
  free(t->shapes.s);
  rg_hashtab_free(&t->shapes.ids);
}

typedef struct {
  uint16_t v;
  uint8_t a, b;
} unit;

/* The valid first operators, in (variant, operands) order. */
static rg_status list_units(thr *t, unit **out, int *n) {
  const rg_enum_space *sp = t->st.sp;
  int ni = sp->inputs.n, cap = 64;
  *n = 0;
  *out = malloc(sizeof **out * (size_t)cap);
  if (!*out) return RG_ERR_NOMEM;
  for (int v = 0; v < sp->n_variants; v++) {
    int nin = sp->variants[v].n_in;
    int na = nin >= 1 ? ni : 1, nb = nin >= 2 ? ni : 1;
    for (int a = 0; a < na; a++)
      for (int b = 0; b < nb; b++) {
        if (apply(t, v, a, b) < 0) {
          if (t->nomem) return RG_ERR_NOMEM;
          continue;
        }
        if (*n == cap) {
          unit *nu = realloc(*out, sizeof *nu * (size_t)(cap *= 2));
          if (!nu) return RG_ERR_NOMEM;
          *out = nu;
        }
        (*out)[(*n)++] = (unit){(uint16_t)v, (uint8_t)a, (uint8_t)b};
      }
  }
  return RG_OK;
}

/* Runs the units on nt threads (dynamically scheduled: their subtrees differ widely in size);
 * returns the first failure, its message in *err. */
static rg_status run_units(thr *ts, int nt, const unit *units, int n_units, shared *sh,
                           const rg_enum_run_opts *o, rg_err *err) {
  rg_status first = RG_OK;
  rg_err *errs = calloc((size_t)nt, sizeof *errs);
  if (!errs) return rg_err_set(err, RG_ERR_NOMEM, "out of memory starting the enumeration");
  volatile int failed = 0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
  for (int u = 0; u < n_units; u++) {
    thr *t = &ts[omp_get_thread_num()];
    if (failed || (o->stop && *o->stop) || (o->skip && o->skip[u])) continue;
    t->err = &errs[omp_get_thread_num()];
    rg_enum_stats before = {t->graphs, t->rejected, t->wide, t->pruned, 0, 0, false};
    int32_t sid = apply(t, units[u].v, units[u].a, units[u].b); /* valid: list_units checked */
    rg_status s = sid >= 0 ? try_op(t, units[u].v, units[u].a, units[u].b, sid, false) : RG_ERR_NOMEM;
    if (!s && o->unit_done && !(o->stop && *o->stop)) { /* a stopped unit may be cut short */
      rg_enum_stats delta = {t->graphs - before.graphs, t->rejected - before.rejected, t->wide - before.wide,
                             t->pruned - before.pruned, n_units, 0, false};
      s = o->unit_done(t->user, u, &delta, t->err);
    }
    if (s) {
#pragma omp critical(rg_enum_fail)
      if (!failed) {
        failed = 1;
        first = s;
        if (err) *err = errs[omp_get_thread_num()];
        if (s == RG_ERR_NOMEM && t->nomem) rg_err_set(err, s, "out of memory while enumerating");
      }
    }
#pragma omp atomic
    sh->units_done++;
    report(t);
  }
  free(errs);
  return first;
}

rg_status rg_enum_run(const rg_enum_space *sp, const rg_enum_visitor *v, void *const *users,
                      const rg_enum_run_opts *o, rg_enum_stats *stats, rg_err *err) {
  memset(stats, 0, sizeof *stats);
  int nt = o->threads < 1 ? 1 : o->threads;
  if (o->max_outputs < 1 || o->max_outputs > RG_RULE_MAX_OUTPUTS)
    return rg_err_set(err, RG_ERR_ARG, "most outputs of a graph must be 1..%d", RG_RULE_MAX_OUTPUTS);
  thr *ts = calloc((size_t)nt, sizeof *ts);
  shared sh = {0, 0, 0};
  unit *units = NULL;
  int n_units = 0;
  rg_status st = ts ? RG_OK : RG_ERR_NOMEM;
  for (int i = 0; i < nt && !st; i++) st = thr_init(&ts[i], sp, &sh, v, users[i], o, err);
  if (!st) st = list_units(&ts[0], &units, &n_units);
  if (st == RG_ERR_NOMEM) {
    rg_err_set(err, st, "out of memory starting the enumeration");
    goto done;
  }
  if (!st && o->skip && o->n_skip != n_units) {
    st = rg_err_set(err, RG_ERR_ARG, "the saved enumeration has %d work units where this one has %d: it was "
                    "made for another operator set or input set", o->n_skip, n_units);
    goto done;
  }
  for (int u = 0; o->skip && u < n_units; u++) stats->units_skipped += o->skip[u] != 0;
  sh.units_total = n_units;
  sh.units_done = stats->units_skipped;
  stats->units = n_units;
  if (!o->count_only) st = run_units(ts, nt, units, n_units, &sh, o, err);
  for (int i = 0; i < nt; i++) {
    stats->graphs += ts[i].graphs;
    stats->rejected += ts[i].rejected;
    stats->wide += ts[i].wide;
    stats->pruned += ts[i].pruned;
  }
  stats->interrupted = o->stop && *o->stop;
done:
  if (ts)
    for (int i = 0; i < nt; i++) thr_free(&ts[i]);
  free(ts);
  free(units);
  return st;
}
