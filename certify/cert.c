/* certify/cert.c: building, writing and parsing certificates (format in cert.h). */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include "cert.h"

#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rg_cert_free(rg_cert *c) {
  free(c->text[0]);
  free(c->text[1]);
  free(c->shapes);
  free(c->region);
  rg_pet_result_free(&c->res);
  memset(c, 0, sizeof *c);
}

void rg_cert_bound(const rg_pet_result *res, int degree, char *out, int n) {
  if (res->eq_positions == 0) {
    snprintf(out, (size_t)n, "none");
    return;
  }
  double b = log2((double)res->eq_positions) +
             res->trials * (log2((double)(degree < 1 ? 1 : degree)) - log2((double)res->p)); /* p < 2^128 */
  snprintf(out, (size_t)n, "%.3f", b);
}

/* Two regions merge when they agree in every dimension but one, and meet in that one. */
static bool try_merge(rg_region *a, const rg_region *b, int rank) {
  if (a->output != b->output) return false;
  int diff = -1;
  for (int d = 0; d < rank; d++)
    if (a->lo[d] != b->lo[d] || a->hi[d] != b->hi[d]) {
      if (diff >= 0) return false;
      diff = d;
    }
  if (diff < 0) return true;
  if (a->hi[diff] == b->lo[diff]) a->hi[diff] = b->hi[diff];
  else if (b->hi[diff] == a->lo[diff]) a->lo[diff] = b->lo[diff];
  else return false;
  return true;
}

/* Merging is quadratic per pass: above this many NEQ boxes the boxes themselves are the
 * regions (still a valid cover). */
#define MERGE_LIMIT 4096

rg_status rg_cert_make(const rg_pet_pair *pp, rg_pet_result *res, rg_cert *c, rg_err *err) {
  memset(c, 0, sizeof *c);
  c->version = RG_CERT_VERSION;
  c->degree = pp->degree;
  c->res = *res;
  memset(res, 0, sizeof *res);
  c->text[0] = strdup(pp->text[0]);
  c->text[1] = strdup(pp->text[1]);
  c->shapes = rg_pet_pair_shapes(pp);
  rg_pet_hex(pp->hash[0], c->hash[0]);
  rg_pet_hex(pp->hash[1], c->hash[1]);
  int64_t n = rg_pet_result_neq(&c->res);
  c->region = malloc(sizeof *c->region * (size_t)(n + 1));
  if (!c->text[0] || !c->text[1] || !c->shapes || !c->region) {
    rg_cert_free(c);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory building a certificate");
  }
  for (int64_t i = 0; i < c->res.n_boxes; i++) {
    const rg_box_result *b = &c->res.box[i];
    if (b->verdict != RG_BOX_NEQ) continue;
    rg_region *r = &c->region[c->n_regions++];
    r->output = b->output;
    memcpy(r->lo, b->lo, sizeof r->lo);
    memcpy(r->hi, b->hi, sizeof r->hi);
  }
  for (bool merged = c->n_regions <= MERGE_LIMIT; merged;) {
    merged = false;
    for (int64_t i = 0; i < c->n_regions; i++)
      for (int64_t j = i + 1; j < c->n_regions; j++)
        if (try_merge(&c->region[i], &c->region[j], c->res.cuts[c->region[i].output].rank)) {
          c->region[j] = c->region[--c->n_regions];
          merged = true;
          j--;
        }
  }
  rg_cert_bound(&c->res, c->degree, c->bound, sizeof c->bound);
  return RG_OK;
}

bool rg_cert_covers(const rg_cert *c, int k, const int32_t *pos) {
  for (int64_t j = 0; j < c->n_regions; j++) {
    bool in = c->region[j].output == k;
    for (int d = 0; d < c->res.cuts[k].rank && in; d++) in = c->region[j].lo[d] <= pos[d] && pos[d] < c->region[j].hi[d];
    if (in) return true;
  }
  return false;
}

rg_status rg_cert_full_check(const rg_pet_pair *pp, const rg_cert *c, const rg_pet_opts *o,
                             int64_t *differing, int64_t *outside, uint8_t **diff, rg_err *err) {
  uint8_t *own[RG_RULE_MAX_OUTPUTS] = {0};
  uint8_t **dd = diff ? diff : own;
  *differing = *outside = 0;
  rg_status st = rg_pet_full(pp, o, dd, err);
  for (int k = 0; k < c->res.n_out && st == RG_OK; k++) {
    rg_shape s = rg_shape_make(c->res.cuts[k].rank, c->res.cuts[k].dim);
    for (int64_t i = 0; i < rg_shape_numel(&s); i++) {
      if (!dd[k][i]) continue;
      int32_t pos[RG_MAX_RANK];
      rg_shape_unflat(&s, i, pos);
      (*differing)++;
      *outside += !rg_cert_covers(c, k, pos);
    }
  }
  for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++) free(own[k]);
  return st;
}

static void put_box(rg_strbuf *sb, const int32_t *lo, const int32_t *hi, int rank) {
  for (int d = 0; d < rank; d++) rg_sb_printf(sb, "%s%d:%d", d ? "," : "", lo[d], hi[d]);
  if (rank == 0) rg_sb_puts(sb, "-");
}

static void put_pos(rg_strbuf *sb, const int32_t *pos, int rank) {
  for (int d = 0; d < rank; d++) rg_sb_printf(sb, "%s%d", d ? "," : "", pos[d]);
  if (rank == 0) rg_sb_puts(sb, "-");
}

void rg_cert_write(const rg_cert *c, rg_strbuf *sb) {
  const rg_pet_result *r = &c->res;
  rg_sb_printf(sb, "rulegen-pet-certificate %d\n", c->version);
  char p[48];
  rg_z127_format(r->p, p, sizeof p);
  rg_sb_printf(sb, "field %s\ntrials %d\nseed %016" PRIx64 "\ndegree %d\n", p, r->trials, r->seed, c->degree);
  rg_sb_printf(sb, "original %s %s\nmutant %s %s\n", c->hash[0], c->text[0], c->hash[1], c->text[1]);
  rg_sb_printf(sb, "shapes %s\noutputs %d\n", c->shapes, r->n_out);
  for (int k = 0; k < r->n_out; k++) {
    rg_sb_printf(sb, "output %d ", k);
    for (int d = 0; d < r->cuts[k].rank; d++) rg_sb_printf(sb, "%s%d", d ? "x" : "", r->cuts[k].dim[d]);
    rg_sb_puts(sb, r->cuts[k].rank ? "\n" : "scalar\n");
  }
  for (int k = 0; k < r->n_out; k++)
    for (int d = 0; d < r->cuts[k].rank; d++) {
      rg_sb_printf(sb, "cuts %d %d %d", k, d, r->cuts[k].cut[d].n);
      for (int32_t i = 0; i < r->cuts[k].cut[d].n; i++) rg_sb_printf(sb, " %d", r->cuts[k].cut[d].v[i]);
      rg_sb_puts(sb, "\n");
    }
  rg_sb_printf(sb, "boxes %" PRId64 " positions %" PRId64 "\n", r->n_boxes, r->positions);
  int64_t idx = 0;
  for (int64_t i = 0; i < r->n_boxes; i++) {
    const rg_box_result *b = &r->box[i];
    if (i && b->output != r->box[i - 1].output) idx = 0;
    int rank = r->cuts[b->output].rank;
    rg_sb_printf(sb, "box %d %" PRId64 " ", b->output, idx++);
    put_box(sb, b->lo, b->hi, rank);
    if (b->verdict == RG_BOX_EQ) {
      rg_sb_puts(sb, " EQ\n");
      continue;
    }
    rg_sb_printf(sb, " NEQ %d ", b->trial);
    put_pos(sb, b->pos, rank);
    char v0[48], v1[48];
    rg_z127_format(b->val[0], v0, sizeof v0);
    rg_z127_format(b->val[1], v1, sizeof v1);
    rg_sb_printf(sb, " %s %s\n", v0, v1);
  }
  rg_sb_printf(sb, "regions %" PRId64 "\n", c->n_regions);
  for (int64_t i = 0; i < c->n_regions; i++) {
    rg_sb_printf(sb, "region %d ", c->region[i].output);
    put_box(sb, c->region[i].lo, c->region[i].hi, r->cuts[c->region[i].output].rank);
    rg_sb_puts(sb, "\n");
  }
  rg_sb_printf(sb, "error_bound_log2 %s\nend\n", c->bound);
}

/* ---- parsing ---- */

typedef struct {
  const char *text, *end;
  const char *line, *cur; /* current line and cursor within it */
  const char *eol;
  int lineno;
  rg_err *err;
} rd;

static bool next_line(rd *r) {
  if (r->lineno > 0) r->line = r->eol < r->end ? r->eol + 1 : r->end;
  else r->line = r->text;
  if (r->line >= r->end) return false;
  r->lineno++;
  r->eol = memchr(r->line, '\n', (size_t)(r->end - r->line));
  if (!r->eol) r->eol = r->end;
  r->cur = r->line;
  return true;
}

static rg_status bad(rd *r, const char *what) {
  return rg_err_at(r->err, RG_ERR_PARSE, r->lineno, (int)(r->cur - r->line) + 1,
                   "certificate: expected %s", what);
}

/* Starts the next line, which must begin with keyword kw and a space (or end there). */
static rg_status expect(rd *r, const char *kw) {
  if (!next_line(r))
    return rg_err_at(r->err, RG_ERR_PARSE, r->lineno, 1,
                     "certificate is truncated: it ends after line %d where '%s' was expected", r->lineno, kw);
  size_t n = strlen(kw);
  if ((size_t)(r->eol - r->line) < n || memcmp(r->line, kw, n) != 0 ||
      (r->line + n < r->eol && r->line[n] != ' ')) {
    char what[96];
    snprintf(what, sizeof what, "a '%s' line", kw);
    return bad(r, what);
  }
  r->cur = r->line + n;
  return RG_OK;
}

static bool space(rd *r) {
  if (r->cur >= r->eol || *r->cur != ' ') return false;
  r->cur++;
  return true;
}

/* A decimal/hex number in [lo, hi] at the cursor (up to a separator). */
static rg_status rawnum(rd *r, int base, int64_t lo, int64_t hi, int64_t *out, const char *what) {
  char buf[32];
  size_t n = 0;
  while (r->cur + n < r->eol && r->cur[n] != ' ' && r->cur[n] != ',' && r->cur[n] != ':' && n < sizeof buf - 1)
    buf[n] = r->cur[n], n++;
  buf[n] = 0;
  char *e;
  errno = 0;
  unsigned long long u = strtoull(buf, &e, base);
  if (n == 0 || *e || errno || buf[0] == '-' || u > (unsigned long long)hi || (int64_t)u < lo)
    return bad(r, what);
  r->cur += n;
  *out = (int64_t)u;
  return RG_OK;
}

static rg_status num(rd *r, int base, int64_t lo, int64_t hi, int64_t *out, const char *what) {
  if (!space(r)) return bad(r, what);
  return rawnum(r, base, lo, hi, out, what);
}

static bool sep(rd *r, char ch) {
  if (r->cur >= r->eol || *r->cur != ch) return false;
  r->cur++;
  return true;
}

static rg_status u64(rd *r, int base, uint64_t *out, const char *what) {
  if (!space(r)) return bad(r, what);
  char buf[32];
  size_t n = 0;
  while (r->cur + n < r->eol && r->cur[n] != ' ' && n < sizeof buf - 1) buf[n] = r->cur[n], n++;
  buf[n] = 0;
  char *e;
  errno = 0;
  *out = strtoull(buf, &e, base);
  if (n == 0 || *e || errno || buf[0] == '-') return bad(r, what);
  r->cur += n;
  return RG_OK;
}

/* A decimal field element (below 2^128) at the cursor, after one space. */
static rg_status elt(rd *r, rg_z127 *out, const char *what) {
  if (!space(r)) return bad(r, what);
  char buf[48];
  size_t n = 0;
  while (r->cur + n < r->eol && r->cur[n] != ' ' && n < sizeof buf - 1) buf[n] = r->cur[n], n++;
  buf[n] = 0;
  if (!rg_z127_parse(buf, out)) return bad(r, what);
  r->cur += n;
  return RG_OK;
}

static rg_status end_of_line(rd *r) { return r->cur == r->eol ? RG_OK : bad(r, "the end of the line"); }

/* The rest of the line after one space, as a new string. */
static rg_status rest(rd *r, char **out, const char *what) {
  if (!space(r) || r->cur == r->eol) return bad(r, what);
  *out = strndup(r->cur, (size_t)(r->eol - r->cur));
  if (!*out) return rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
  r->cur = r->eol;
  return RG_OK;
}

/* "LO:HI,LO:HI" (or a position "P,P" when hi is NULL), one per dimension within dims. */
static rg_status dims_list(rd *r, const int32_t *dim, int rank, int32_t *lo, int32_t *hi, const char *what) {
  if (!space(r)) return bad(r, what);
  if (rank == 0) {
    if (r->cur < r->eol && *r->cur == '-') {
      r->cur++;
      return RG_OK;
    }
    return bad(r, what);
  }
  for (int d = 0; d < rank; d++) {
    if (d && !sep(r, ',')) return bad(r, what);
    int64_t a, b = 0;
    rg_status st = rawnum(r, 10, 0, dim[d] - (hi ? 0 : 1), &a, what);
    if (st == RG_OK && hi) {
      if (!sep(r, ':')) return bad(r, what);
      st = rawnum(r, 10, 1, dim[d], &b, what);
      if (st == RG_OK && b <= a) return bad(r, what);
    }
    if (st) return st;
    lo[d] = (int32_t)a;
    if (hi) hi[d] = (int32_t)b;
  }
  return RG_OK;
}

static rg_status parse_hash(rd *r, char *hash, char **text, const char *kw) {
  rg_status st = expect(r, kw);
  if (st) return st;
  if (!space(r) || r->eol - r->cur < 64) return bad(r, "a 64-digit hash");
  for (int i = 0; i < 64; i++) {
    char ch = r->cur[i];
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return bad(r, "a 64-digit hash");
  }
  memcpy(hash, r->cur, 64);
  hash[64] = 0;
  r->cur += 64;
  return rest(r, text, "the program text");
}

/* The header lines: version, field, trials, seed, degree, the two programs and the shapes. */
static rg_status parse_header(rd *r, rg_cert *c) {
  rg_pet_result *res = &c->res;
  int64_t v = 0;
  rg_status st = expect(r, "rulegen-pet-certificate");
  if (!st) st = num(r, 10, 0, INT32_MAX, &v, "the version number");
  if (!st && v != RG_CERT_VERSION)
    return rg_err_at(r->err, RG_ERR_PARSE, r->lineno, 1, "certificate version %lld is not supported (this is version %d)",
                     (long long)v, RG_CERT_VERSION);
  c->version = (int)v;
  if (!st) st = end_of_line(r);
  if (!st) st = expect(r, "field");
  if (!st) st = elt(r, &res->p, "the prime p");
  if (!st) st = expect(r, "trials");
  if (!st) st = num(r, 10, 0, 1000000, &v, "the number of trials"), res->trials = (int)v;
  if (!st) st = expect(r, "seed");
  if (!st) st = u64(r, 16, &res->seed, "the seed in hex");
  if (!st) st = expect(r, "degree");
  if (!st) st = num(r, 10, 0, 1 << 20, &v, "the degree"), c->degree = (int)v;
  if (!st) st = parse_hash(r, c->hash[0], &c->text[0], "original");
  if (!st) st = parse_hash(r, c->hash[1], &c->text[1], "mutant");
  if (!st) st = expect(r, "shapes");
  if (!st) st = rest(r, &c->shapes, "the variable shapes");
  return st;
}

/* "outputs N" and one "output K SHAPE" line each. */
static rg_status parse_outputs(rd *r, rg_pet_result *res) {
  int64_t v = 0;
  rg_status st = expect(r, "outputs");
  if (!st) st = num(r, 10, 1, RG_RULE_MAX_OUTPUTS, &v, "the number of outputs"), res->n_out = (int)v;
  for (int k = 0; k < res->n_out && !st; k++) {
    st = expect(r, "output");
    int64_t kk;
    if (!st) st = num(r, 10, k, k, &kk, "the output number");
    if (!st && !space(r)) st = bad(r, "the output shape");
    rg_shape s;
    if (!st) {
      st = rg_shape_parse(r->cur, (int)(r->eol - r->cur), &s, r->err);
      if (st) st = bad(r, "the output shape");
    }
    if (!st) {
      res->cuts[k].rank = s.rank;
      memcpy(res->cuts[k].dim, s.dim, sizeof s.dim);
      r->cur = r->eol;
    }
  }
  return st;
}

/* One "cuts K D N P..." line: the cut positions of dimension d of output k. */
static rg_status parse_cutlist(rd *r, rg_pet_result *res, int k, int d) {
  int64_t kk, dd, n = 0, v;
  rg_cutlist *l = &res->cuts[k].cut[d];
  rg_status st = expect(r, "cuts");
  if (!st) st = num(r, 10, k, k, &kk, "the output number");
  if (!st) st = num(r, 10, d, d, &dd, "the dimension");
  if (!st) st = num(r, 10, 0, res->cuts[k].dim[d] - 1, &n, "the number of cuts");
  if (!st && n) {
    l->v = malloc(sizeof *l->v * (size_t)n);
    if (!l->v) st = rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
    l->cap = (int32_t)n;
  }
  for (int64_t i = 0; i < n && !st; i++) {
    st = num(r, 10, i ? l->v[i - 1] + 1 : 1, res->cuts[k].dim[d] - 1, &v, "increasing cut positions inside the dimension");
    if (!st) l->v[l->n++] = (int32_t)v;
  }
  if (!st) st = end_of_line(r);
  return st;
}

/* The verdict of box b after its bounds: EQ, or NEQ with the witness. */
static rg_status parse_verdict(rd *r, const rg_pet_result *res, const rg_cuts *cu, rg_box_result *b) {
  int64_t v = 0;
  if (r->eol - r->cur == 2 && memcmp(r->cur, "EQ", 2) == 0) {
    b->verdict = RG_BOX_EQ;
    r->cur += 2;
    return RG_OK;
  }
  if (!(r->eol - r->cur >= 3 && memcmp(r->cur, "NEQ", 3) == 0)) return bad(r, "EQ or NEQ");
  r->cur += 3;
  b->verdict = RG_BOX_NEQ;
  rg_status st = num(r, 10, 0, res->trials - 1, &v, "the witness trial");
  b->trial = (int)v;
  if (!st) st = dims_list(r, cu->dim, cu->rank, b->pos, NULL, "the witness position");
  if (!st) st = elt(r, &b->val[0], "the original's value");
  if (!st) st = elt(r, &b->val[1], "the mutant's value");
  if (!st) st = end_of_line(r);
  return st;
}

/* "boxes N positions P" and the boxes, in order: output by output, index by index from 0. */
static rg_status parse_boxes(rd *r, rg_pet_result *res) {
  rg_status st = expect(r, "boxes");
  if (!st) st = num(r, 10, 0, RG_PET_MAX_BOXES, &res->n_boxes, "the number of boxes");
  if (!st && !(space(r) && r->eol - r->cur >= 9 && memcmp(r->cur, "positions", 9) == 0))
    st = bad(r, "'positions'");
  if (!st) r->cur += 9, st = num(r, 10, 0, INT64_MAX, &res->positions, "the number of positions");
  if (!st) {
    res->box = calloc((size_t)res->n_boxes + 1, sizeof *res->box);
    if (!res->box) st = rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
  }
  int64_t next_idx = 0;
  for (int64_t i = 0; i < res->n_boxes && !st; i++) {
    rg_box_result *b = &res->box[i];
    int64_t k = 0, idx = 0;
    st = expect(r, "box");
    if (!st) st = num(r, 10, 0, res->n_out - 1, &k, "the output number");
    b->output = (int)k;
    const rg_cuts *cu = &res->cuts[k];
    int64_t want = i == 0 || res->box[i - 1].output != b->output ? 0 : next_idx;
    if (!st && i && b->output < res->box[i - 1].output) st = bad(r, "boxes in output order");
    if (!st) st = num(r, 10, want, want, &idx, "the next box index");
    next_idx = idx + 1;
    if (!st) st = dims_list(r, cu->dim, cu->rank, b->lo, b->hi, "the box as LO:HI per dimension");
    if (!st && !space(r)) st = bad(r, "EQ or NEQ");
    if (!st) st = parse_verdict(r, res, cu, b);
  }
  return st;
}

/* "regions N", the regions, the bound and "end" (nothing after it). */
static rg_status parse_tail(rd *r, rg_cert *c) {
  const rg_pet_result *res = &c->res;
  rg_status st = expect(r, "regions");
  if (!st) st = num(r, 10, 0, res->n_boxes, &c->n_regions, "the number of regions");
  if (!st) {
    c->region = calloc((size_t)c->n_regions + 1, sizeof *c->region);
    if (!c->region) st = rg_err_set(r->err, RG_ERR_NOMEM, "out of memory");
  }
  for (int64_t i = 0; i < c->n_regions && !st; i++) {
    int64_t k = 0;
    st = expect(r, "region");
    if (!st) st = num(r, 10, 0, res->n_out - 1, &k, "the output number");
    c->region[i].output = (int)k;
    if (!st) st = dims_list(r, res->cuts[k].dim, res->cuts[k].rank, c->region[i].lo, c->region[i].hi, "the region as LO:HI per dimension");
    if (!st) st = end_of_line(r);
  }
  if (!st) st = expect(r, "error_bound_log2");
  if (!st && (!space(r) || r->eol - r->cur < 1 || r->eol - r->cur >= (long)sizeof c->bound)) st = bad(r, "the bound");
  if (!st) {
    snprintf(c->bound, sizeof c->bound, "%.*s", (int)(r->eol - r->cur), r->cur);
    r->cur = r->eol;
  }
  if (!st) st = expect(r, "end");
  if (!st) st = end_of_line(r);
  if (!st && r->eol < r->end && r->eol + 1 < r->end)
    st = rg_err_at(r->err, RG_ERR_PARSE, r->lineno + 1, 1, "certificate: text after 'end'");
  return st;
}

static rg_status parse_body(rd *r, rg_cert *c) {
  rg_pet_result *res = &c->res;
  rg_status st = parse_header(r, c);
  if (!st) st = parse_outputs(r, res);
  for (int k = 0; k < res->n_out && !st; k++)
    for (int d = 0; d < res->cuts[k].rank && !st; d++) st = parse_cutlist(r, res, k, d);
  if (!st) st = parse_boxes(r, res);
  if (!st) st = parse_tail(r, c);
  return st;
}

/* A certificate is its canonical text or nothing: what parsed must write back byte for byte.
 * The field readers stop at a separator, so a NUL inside a number or a word after the last field
 * would otherwise be read past, and two different files would pass as one certificate. */
static rg_status check_canonical(const char *text, size_t len, const rg_cert *c, rg_err *err) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_cert_write(c, &sb);
  rg_status st = sb.failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory") : RG_OK;
  if (!st && (sb.len != len || memcmp(sb.s, text, len) != 0)) {
    size_t i = 0;
    int line = 1, col = 1;
    for (; i < len && i < sb.len && text[i] == sb.s[i]; i++) col = text[i] == '\n' ? (line++, 1) : col + 1;
    st = rg_err_at(err, RG_ERR_PARSE, line, col,
                   "certificate: not in canonical form here (a stray byte, a NUL, an extra word or "
                   "space): certificates are compared byte for byte");
  }
  rg_sb_free(&sb);
  return st;
}

rg_status rg_cert_parse(const char *text, size_t len, rg_cert *c, rg_err *err) {
  memset(c, 0, sizeof *c);
  rd r = {text, text + len, NULL, NULL, NULL, 0, err};
  rg_status st = parse_body(&r, c);
  if (!st) st = check_canonical(text, len, c, err);
  if (st) rg_cert_free(c);
  return st;
}
