/* optimizer/pet/pet_correct.c: the corrected mutant (pet.h): the mutant where it equals the
 * original, and inside the correction regions the original recomputed from the slices of its
 * inputs that it reads there, assembled by slices and concats. Text in, text out: the result is
 * certified against the original like any program (pet.c), so nothing here is trusted. */
#include "pet_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  int32_t lo[RG_MAX_RANK], hi[RG_MAX_RANK];
} box;

typedef struct {
  const rg_graph *g;
  const rg_plan *plan;
  const char *mutant;
  const rg_region *region;
  int64_t n_region;
  int rank;
  const int32_t *dim; /* the output's */
  rg_strbuf *sb;
  rg_err *err;
} corrector;

static bool whole(const box *b, const rg_shape *s) {
  for (int d = 0; d < s->rank; d++)
    if (b->lo[d] != 0 || b->hi[d] != s->dim[d]) return false;
  return true;
}

/* term (printed by put) sliced to b along every dimension it does not cover whole */
typedef void (*put_fn)(const void *ctx, rg_strbuf *sb);
static void sliced(rg_strbuf *sb, const box *b, const rg_shape *s, put_fn put, const void *ctx) {
  int open = 0;
  for (int d = 0; d < s->rank; d++)
    if (b->lo[d] != 0 || b->hi[d] != s->dim[d]) rg_sb_printf(sb, "(slice %d %d %d ", d, b->lo[d], b->hi[d]), open++;
  put(ctx, sb);
  while (open--) rg_sb_puts(sb, ")");
}

typedef struct {
  const rg_graph *g;
  rg_ref r;
} term;
static void put_term(const void *ctx, rg_strbuf *sb) {
  const term *t = ctx;
  rg_text_print_ref(t->g, t->r, sb);
}
static void put_text(const void *ctx, rg_strbuf *sb) { rg_sb_puts(sb, ctx); }

static rg_status restrict_ref(corrector *c, rg_ref r, const box *b);

/* Output rows lo..hi of a convolution read input rows lo*s - before .. (hi-1)*s - before +
 * (k-1)*dil + 1; what lies outside the input is the padding, zeros: (pad ...) of that many. */
static void window(int32_t lo, int32_t hi, int32_t s, int32_t k, int32_t dil, int32_t before, int32_t in,
                   int32_t *from, int32_t *to, int32_t *pb, int32_t *pa) {
  int32_t a = lo * s - before, z = (hi - 1) * s - before + (k - 1) * dil + 1;
  *from = a < 0 ? 0 : a, *to = z > in ? in : z;
  *pb = a < 0 ? -a : 0, *pa = z > in ? z - in : 0;
}

static rg_status restrict_conv(corrector *c, const rg_node *nd, rg_ref r, const box *b) {
  const int32_t *p = nd->params; /* sh sw pad act dh dw g */
  if (p[3] != RG_ACT_NONE) return rg_err_set(c->err, RG_ERR_ARG, "pet: no correction through a fused activation");
  const rg_shape *xs = rg_plan_shape(c->plan, nd->in[0]), *ws = rg_plan_shape(c->plan, nd->in[1]);
  const rg_shape *os = rg_plan_shape(c->plan, r);
  int32_t groups = p[6], pads[2][2];
  box xb = {{b->lo[0], 0, 0, 0}, {b->hi[0], xs->dim[1], 0, 0}};
  for (int a = 0; a < 2; a++) {
    int32_t k = ws->dim[2 + a], dil = p[4 + a], s = p[a], in = xs->dim[2 + a], out, before;
    rg_window_geometry(in, (k - 1) * dil + 1, s, p[2], &out, &before); /* the original typed: it has a window */
    window(b->lo[2 + a], b->hi[2 + a], s, k, dil, before, in, &xb.lo[2 + a], &xb.hi[2 + a], &pads[a][0], &pads[a][1]);
  }
  bool part_o = b->lo[1] != 0 || b->hi[1] != os->dim[1], slice_w = part_o && groups == 1;
  box wb = {{slice_w ? b->lo[1] : 0, 0, 0, 0}, {slice_w ? b->hi[1] : ws->dim[0], ws->dim[1], ws->dim[2], ws->dim[3]}};
  if (part_o && !slice_w) rg_sb_printf(c->sb, "(slice 1 %d %d ", b->lo[1], b->hi[1]); /* groups: every channel */
  rg_sb_printf(c->sb, "(conv2d %d %d valid none %d %d %d ", p[0], p[1], p[4], p[5], groups);
  int open = 0;
  for (int a = 0; a < 2; a++)
    if (pads[a][0] || pads[a][1]) rg_sb_printf(c->sb, "(pad %d %d %d ", 2 + a, pads[a][0], pads[a][1]), open++;
  rg_status st = restrict_ref(c, nd->in[0], &xb);
  while (open--) rg_sb_puts(c->sb, ")");
  rg_sb_puts(c->sb, " ");
  if (!st) st = restrict_ref(c, nd->in[1], &wb);
  rg_sb_puts(c->sb, part_o && !slice_w ? "))" : ")");
  return st;
}

static rg_status restrict_concat(corrector *c, const rg_node *nd, const box *b) {
  int axis = nd->params[0], pieces = 0;
  rg_strbuf parts;
  rg_sb_init(&parts);
  rg_strbuf *keep = c->sb;
  c->sb = &parts;
  rg_status st = RG_OK;
  for (int k = 0, at = 0; !st && k < nd->n_in; k++) {
    int32_t ext = rg_plan_shape(c->plan, nd->in[k])->dim[axis], lo = b->lo[axis] - at, hi = b->hi[axis] - at;
    at += ext;
    if (hi <= 0 || lo >= ext) continue;
    box ib = *b;
    ib.lo[axis] = lo < 0 ? 0 : lo, ib.hi[axis] = hi > ext ? ext : hi;
    rg_sb_puts(&parts, " ");
    st = restrict_ref(c, nd->in[k], &ib), pieces++;
  }
  c->sb = keep;
  if (pieces > 1) rg_sb_printf(c->sb, "(concat %d%s)", axis, rg_sb_str(&parts));
  else rg_sb_puts(c->sb, rg_sb_str(&parts) + 1);
  rg_sb_free(&parts);
  return st;
}

/* Box b of value r of the original, as a term over slices of its inputs. */
static rg_status restrict_ref(corrector *c, rg_ref r, const box *b) {
  const rg_node *nd = rg_graph_node(c->g, r.node);
  const rg_shape *s = rg_plan_shape(c->plan, r);
  term t = {c->g, r};
  if (nd->op == RG_OP_INPUT || whole(b, s)) return sliced(c->sb, b, s, put_term, &t), RG_OK;
  if (nd->op == RG_OP_CONV2D) return restrict_conv(c, nd, r, b);
  if (nd->op == RG_OP_CONCAT) return restrict_concat(c, nd, b);
  return rg_err_set(c->err, RG_ERR_ARG, "pet: no correction through %s", rg_op_get((rg_op)nd->op)->name);
}

/* 1 when a region contains b, 0 when none meets it, -1 when some meets it in part. */
static int covered(const corrector *c, const box *b) {
  int any = 0;
  for (int64_t i = 0; i < c->n_region; i++) {
    const rg_region *rg = &c->region[i];
    bool meets = true, holds = true;
    for (int d = 0; d < c->rank; d++) {
      meets = meets && rg->lo[d] < b->hi[d] && rg->hi[d] > b->lo[d];
      holds = holds && rg->lo[d] <= b->lo[d] && rg->hi[d] >= b->hi[d];
    }
    if (meets && holds) return 1;
    if (meets) any = -1;
  }
  return any;
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

static rg_status assemble(corrector *c, const box *b, int level, rg_ref out);

/* Pieces from..to of box b cut along d at cut[] (piece i: cut[i] .. cut[i+1]), concatenated at
 * most RG_MAX_INPUTS to a concat, each concat reshaped to its own dims: a reshape drops the seams
 * a concat makes (ops.def), which a type holds only so many of, and which the rewrite's output
 * must not have where its original has none. */
static rg_status join(corrector *c, const box *b, int level, rg_ref out, int d, const int32_t *cut, int from, int to) {
  int n = to - from, parts = n < RG_MAX_INPUTS ? n : RG_MAX_INPUTS;
  box sub = *b;
  sub.lo[d] = cut[from], sub.hi[d] = cut[to];
  if (n == 1) return assemble(c, &sub, level + 1, out);
  rg_sb_puts(c->sb, "(reshape ");
  for (int k = 0; k < c->rank; k++) rg_sb_printf(c->sb, "%s%d", k ? "x" : "", sub.hi[k] - sub.lo[k]);
  rg_sb_printf(c->sb, " (concat %d", d);
  rg_status st = RG_OK;
  for (int k = 0; !st && k < parts; k++) {
    rg_sb_puts(c->sb, " ");
    st = join(c, b, level, out, d, cut, from + n * k / parts, from + n * (k + 1) / parts);
  }
  rg_sb_puts(c->sb, "))");
  return st;
}

/* Box b of the corrected output, cutting along order[level] and the dimensions after it. */
static rg_status assemble(corrector *c, const box *b, int level, rg_ref out) {
  static const int nchw[4] = {3, 2, 0, 1}; /* width first: the regions of every kind are column strips */
  int how = covered(c, b);
  if (how == 1) return restrict_ref(c, out, b);
  rg_shape os = {.rank = (uint8_t)c->rank};
  memcpy(os.dim, c->dim, sizeof *os.dim * (size_t)c->rank);
  if (how == 0) return sliced(c->sb, b, &os, put_text, c->mutant), RG_OK;
  if (level >= c->rank) return rg_err_set(c->err, RG_ERR_ARG, "pet: regions that no cut separates");
  int d = c->rank == 4 ? nchw[level] : c->rank - 1 - level;
  int32_t *cut = malloc(sizeof *cut * (size_t)(2 * c->n_region + 2));
  if (!cut) return rg_err_set(c->err, RG_ERR_NOMEM, "out of memory");
  int n = 0;
  cut[n++] = b->lo[d], cut[n++] = b->hi[d];
  for (int64_t i = 0; i < c->n_region; i++) {
    if (c->region[i].lo[d] > b->lo[d] && c->region[i].lo[d] < b->hi[d]) cut[n++] = c->region[i].lo[d];
    if (c->region[i].hi[d] > b->lo[d] && c->region[i].hi[d] < b->hi[d]) cut[n++] = c->region[i].hi[d];
  }
  qsort(cut, (size_t)n, sizeof *cut, cmp_i32);
  int m = 0; /* the cuts, each once */
  for (int i = 0; i < n; i++)
    if (!m || cut[m - 1] != cut[i]) cut[m++] = cut[i];
  rg_status st = join(c, b, level, out, d, cut, 0, m - 1);
  free(cut);
  return st;
}

/* The whole output: where the original ends in a concat, the same concat of the pieces (its
 * seams are the original's). */
static rg_status top(corrector *c, rg_ref out) {
  box all = {{0}, {0}};
  memcpy(all.hi, c->dim, sizeof *all.hi * (size_t)c->rank);
  const rg_node *nd = rg_graph_node(c->g, out.node);
  if (nd->op != RG_OP_CONCAT) return assemble(c, &all, 0, out);
  int axis = nd->params[0];
  rg_sb_printf(c->sb, "(concat %d", axis);
  rg_status st = RG_OK;
  for (int k = 0, at = 0; !st && k < nd->n_in; k++) {
    box part = all;
    part.lo[axis] = at, part.hi[axis] = at += rg_plan_shape(c->plan, nd->in[k])->dim[axis];
    rg_sb_puts(c->sb, " ");
    st = assemble(c, &part, 0, out);
  }
  rg_sb_puts(c->sb, ")");
  return st;
}

rg_status rg_pet_corrected(const rg_pet_pair *pp, const char *mutant, const rg_region *regions, int64_t n_regions,
                           rg_strbuf *out, rg_err *err) {
  const rg_rule *r = pp->rule;
  if (r->n_src != 1) return rg_err_set(err, RG_ERR_ARG, "pet: a correction for one output only, not %d", r->n_src);
  const rg_shape *os = rg_plan_shape(pp->plan[0], r->src[0]);
  rg_region *mine = malloc(sizeof *mine * (size_t)(n_regions + 1));
  if (!mine) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  int64_t n = 0;
  for (int64_t i = 0; i < n_regions; i++)
    if (regions[i].output == 0) mine[n++] = regions[i];
  corrector c = {r->g, pp->plan[0], mutant, mine, n, os->rank, os->dim, out, err};
  rg_status st = top(&c, r->src[0]);
  free(mine);
  return st;
}
