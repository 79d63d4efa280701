/* certify/audit.c: re-deriving a certificate from the programs and comparing. */
#include "audit.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reject(rg_audit *a, const char *fmt, ...) RG_PRINTF(2, 3);
static bool reject(rg_audit *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a->why, sizeof a->why, fmt, ap);
  va_end(ap);
  a->valid = false;
  return false;
}

static void fmt_box(const int32_t *lo, const int32_t *hi, int rank, char *buf, int n) {
  int used = 0;
  buf[0] = 0;
  for (int d = 0; d < rank && used < n; d++)
    used += snprintf(buf + used, (size_t)(n - used), "%s%d:%d", d ? "," : "", lo[d], hi[d]);
}

/* The header: field, trials, programs, shapes, seed, degree. */
static bool audit_header(const rg_cert *c, const rg_pet_pair *pp, rg_audit *a) {
  rg_err e;
  if (c->res.trials < 1) return reject(a, "the number of trials is %d: at least 1 is needed", c->res.trials);
  if (rg_pet_field_check(c->res.p, &e)) return reject(a, "field: %s", e.msg);
  for (int s = 0; s < 2; s++) {
    const char *who = s ? "mutant" : "original";
    char hex[65];
    rg_pet_hex(pp->hash[s], hex);
    if (strcmp(c->text[s], pp->text[s]) != 0)
      return reject(a, "the certificate's %s is '%s', not the program given ('%s')", who, c->text[s], pp->text[s]);
    if (strcmp(c->hash[s], hex) != 0)
      return reject(a, "the %s's hash %s is not the hash of the program with its shapes (%s)", who, c->hash[s], hex);
  }
  char *shapes = rg_pet_pair_shapes(pp);
  bool same = shapes && strcmp(shapes, c->shapes) == 0;
  free(shapes);
  if (!same) return reject(a, "the shapes '%s' are not those of the programs being audited", c->shapes);
  uint64_t seed = rg_pet_seed(pp, c->res.p, c->res.trials); /* a field check passed: p is known */
  if (seed != c->res.seed)
    return reject(a, "seed %016llx is not the one derived from the two programs' hashes, p and t (%016llx)",
                  (unsigned long long)c->res.seed, (unsigned long long)seed);
  if (c->degree != pp->degree)
    return reject(a, "degree %d is not the programs' degree %d", c->degree, pp->degree);
  return true;
}

static bool audit_boxes(const rg_cert *c, const rg_pet_result *r, rg_audit *a) {
  const rg_pet_result *g = &c->res;
  if (g->n_out != r->n_out) return reject(a, "%d outputs, the programs have %d", g->n_out, r->n_out);
  for (int k = 0; k < r->n_out; k++) {
    if (g->cuts[k].rank != r->cuts[k].rank || memcmp(g->cuts[k].dim, r->cuts[k].dim, sizeof r->cuts[k].dim))
      return reject(a, "output %d has another shape than the programs'", k);
    for (int d = 0; d < r->cuts[k].rank; d++) {
      const rg_cutlist *x = &g->cuts[k].cut[d], *y = &r->cuts[k].cut[d];
      if (x->n != y->n || (y->n && memcmp(x->v, y->v, sizeof *y->v * (size_t)y->n)))
        return reject(a, "the cuts of output %d, dimension %d are not the ones box propagation derives (%d cuts, certificate has %d)",
                      k, d, y->n, x->n);
    }
  }
  if (g->n_boxes != r->n_boxes || g->positions != r->positions)
    return reject(a, "%lld boxes and %lld positions, re-derived %lld and %lld", (long long)g->n_boxes,
                  (long long)g->positions, (long long)r->n_boxes, (long long)r->positions);
  for (int64_t i = 0; i < r->n_boxes; i++) {
    const rg_box_result *x = &g->box[i], *y = &r->box[i];
    int rank = r->cuts[y->output].rank;
    char bx[256];
    fmt_box(y->lo, y->hi, rank, bx, sizeof bx);
    if (x->output != y->output || memcmp(x->lo, y->lo, sizeof y->lo) || memcmp(x->hi, y->hi, sizeof y->hi))
      return reject(a, "box line %lld is not box %s of output %d", (long long)i, bx, y->output);
    if (x->verdict != y->verdict)
      return reject(a, "box %s of output %d: the certificate says %s, re-evaluation finds %s", bx, y->output,
                    x->verdict ? "NEQ" : "EQ", y->verdict ? "NEQ" : "EQ");
    if (y->verdict == RG_BOX_NEQ &&
        (x->trial != y->trial || memcmp(x->pos, y->pos, sizeof y->pos) || x->val[0] != y->val[0] || x->val[1] != y->val[1])) {
      char v0[48], v1[48];
      rg_z127_format(y->val[0], v0, sizeof v0);
      rg_z127_format(y->val[1], v1, sizeof v1);
      return reject(a, "box %s of output %d: the witness (trial, position or values) is not what re-evaluation gives "
                       "(trial %d, values %s and %s)",
                    bx, y->output, y->trial, v0, v1);
    }
  }
  return true;
}

/* Every NEQ box must lie inside one correction region of its output. */
static bool audit_regions(const rg_cert *c, rg_audit *a) {
  const rg_pet_result *g = &c->res;
  for (int64_t i = 0; i < g->n_boxes; i++) {
    const rg_box_result *b = &g->box[i];
    if (b->verdict != RG_BOX_NEQ) continue;
    int rank = g->cuts[b->output].rank;
    bool covered = false;
    for (int64_t j = 0; j < c->n_regions && !covered; j++) {
      const rg_region *r = &c->region[j];
      covered = r->output == b->output;
      for (int d = 0; d < rank && covered; d++) covered = r->lo[d] <= b->lo[d] && b->hi[d] <= r->hi[d];
    }
    if (!covered) {
      char bx[256];
      fmt_box(b->lo, b->hi, rank, bx, sizeof bx);
      return reject(a, "NEQ box %s of output %d lies in no correction region", bx, b->output);
    }
  }
  return true;
}

rg_status rg_cert_audit(const rg_cert *c, const rg_pet_pair *pp, const rg_pet_hooks *hooks, rg_audit *a,
                        rg_err *err) {
  memset(a, 0, sizeof *a);
  a->valid = true;
  if (!audit_header(c, pp, a)) return RG_OK;
  rg_pet_opts o = {c->res.trials, c->res.p, hooks};
  rg_pet_result r;
  rg_status st = rg_pet_check(pp, &o, &r, err);
  if (st) return st;
  a->boxes = r.n_boxes, a->evaluations = r.evaluations;
  char bound[32];
  rg_cert_bound(&r, pp->degree, bound, sizeof bound);
  if (audit_boxes(c, &r, a) && audit_regions(c, a) && strcmp(bound, c->bound) != 0)
    reject(a, "the error bound 2^%s is not the one the boxes give (2^%s)", c->bound, bound);
  rg_pet_result_free(&r);
  return RG_OK;
}
