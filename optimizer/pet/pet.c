/* optimizer/pet/pet.c: PET candidates certified into rewrites that hold at their shapes, their
 * rules, and their certificates written for an auditor (pet.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "pet_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/atomic.h"
#include "ir/sha256.h"

void rg_pet_rewrite_free(rg_pet_rewrite *rw) {
  free(rw->original), free(rw->mutant), free(rw->corrected), free(rw->shapes), free(rw->cert), free(rw->checked);
  memset(rw, 0, sizeof *rw);
}

void rg_pet_set_free(rg_pet_set *s) {
  for (int i = 0; i < s->n; i++) rg_pet_rewrite_free(&s->rw[i]);
  free(s->rw);
  memset(s, 0, sizeof *s);
}

static char *cert_text(const rg_cert *c) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_cert_write(c, &sb);
  char *t = strdup(rg_sb_str(&sb));
  rg_sb_free(&sb);
  return t;
}

/* One candidate's certifications under watch: stopped between boxes at Ctrl-C or past its time. */
typedef struct {
  const rg_pet_find_opts *o;
  double until; /* 0: no limit */
  volatile sig_atomic_t cancel;
  bool late;
} watch;

static void tick(void *user, int64_t done, int64_t total) {
  watch *w = user;
  (void)done, (void)total;
  if (w->o->stop && *w->o->stop) w->cancel = 1;
  else if (w->until > 0 && rg_clock_seconds() > w->until) w->cancel = 1, w->late = true;
}

/* Box mode over the pair into a certificate (certify's defaults: 2^61-1). */
static rg_status certify_pair(const rg_pet_pair *pp, watch *w, rg_cert *c, rg_err *err) {
  rg_pet_hooks hooks = {&w->cancel, tick, w};
  rg_pet_opts po = {w->o->trials > 0 ? w->o->trials : 3, RG_ZP_P, &hooks};
  rg_pet_result res;
  rg_status st = rg_pet_check(pp, &po, &res, err);
  if (!st) st = rg_cert_make(pp, &res, c, err);
  else rg_pet_result_free(&res);
  return st;
}

/* Whether a and b make one box together (one inside the other, or equal in every dimension but
 * one and meeting there): then that box into a. */
static bool unite(rg_region *a, const rg_region *b) {
  bool b_in_a = true, a_in_b = true;
  int differ = 0, d0 = 0;
  if (a->output != b->output) return false;
  for (int d = 0; d < RG_MAX_RANK; d++) {
    b_in_a = b_in_a && a->lo[d] <= b->lo[d] && b->hi[d] <= a->hi[d];
    a_in_b = a_in_b && b->lo[d] <= a->lo[d] && a->hi[d] <= b->hi[d];
    if (a->lo[d] != b->lo[d] || a->hi[d] != b->hi[d]) differ++, d0 = d;
  }
  if (a_in_b) *a = *b;
  if (a_in_b || b_in_a) return true;
  if (differ != 1 || a->hi[d0] < b->lo[d0] || b->hi[d0] < a->lo[d0]) return false;
  if (b->lo[d0] < a->lo[d0]) a->lo[d0] = b->lo[d0];
  if (b->hi[d0] > a->hi[d0]) a->hi[d0] = b->hi[d0];
  return true;
}

/* The regions united while any two make one box (certify's certificate merges neighbours once:
 * a depthwise convolution's strips come a channel at a time). */
static void unite_all(rg_region *r, int64_t *n) {
  for (bool again = true; again;) {
    again = false;
    for (int64_t i = 0; i < *n; i++)
      for (int64_t j = i + 1; j < *n; j++)
        if (unite(&r[i], &r[j])) r[j--] = r[--*n], again = true;
  }
}

static int by_width(const void *a, const void *b) {
  int32_t x = ((const rg_region *)a)->lo[3], y = ((const rg_region *)b)->lo[3];
  return (x > y) - (x < y);
}

/* Past RG_PET_FINE_REGIONS regions (a depthwise 5x5 kernel's corners come channel by channel),
 * each run of them that meets along the width becomes one strip of the whole output: more is
 * recomputed, in far fewer pieces. */
static void strips(rg_region *r, int64_t *n, const rg_cuts *out) {
  if (*n <= RG_PET_FINE_REGIONS || out->rank != 4) return;
  qsort(r, (size_t)*n, sizeof *r, by_width);
  int64_t m = 0;
  for (int64_t i = 0; i < *n; i++) {
    if (m && r[i].lo[3] <= r[m - 1].hi[3]) {
      if (r[i].hi[3] > r[m - 1].hi[3]) r[m - 1].hi[3] = r[i].hi[3];
      continue;
    }
    rg_region s = {0, {0, 0, 0, r[i].lo[3]}, {out->dim[0], out->dim[1], out->dim[2], r[i].hi[3]}};
    r[m++] = s;
  }
  *n = m;
}

/* The regions the correction covers: the certificate's, united; for tests the last one cut short
 * by o->shrink along the width (every kind's output is NCHW). */
static rg_region *regions_for(const rg_cert *c, const rg_pet_find_opts *o, int64_t *n) {
  rg_region *r = malloc(sizeof *r * (size_t)(c->n_regions + 1));
  if (!r) return NULL;
  memcpy(r, c->region, sizeof *r * (size_t)c->n_regions);
  *n = c->n_regions;
  unite_all(r, n);
  strips(r, n, &c->res.cuts[0]);
  if (o->shrink > 0 && *n > 0) {
    rg_region *last = &r[*n - 1];
    last->hi[3] -= o->shrink;
    if (last->hi[3] <= last->lo[3]) --*n;
  }
  return r;
}

static void refuse(rg_pet_rewrite *rw, const char *why) {
  rw->refused = true;
  snprintf(rw->why, sizeof rw->why, "%s", why);
}

/* The second certificate: the corrected mutant against the original, every box equal. */
static rg_status certify_corrected(const rg_mutant *mu, watch *w, rg_pet_rewrite *rw, rg_err *err) {
  rg_pet_pair *pp = NULL;
  rg_err e = {0};
  char why[sizeof rw->why];
  if (rg_pet_pair_new(mu->original, rw->corrected, mu->shapes, &pp, &e))
    return snprintf(why, sizeof why, "corrected mutant: %s", e.msg), refuse(rw, why), RG_OK;
  free(rw->corrected); /* its canonical text instead */
  rw->corrected = NULL;
  if (!strcmp(pp->text[0], pp->text[1])) { /* every box corrected: the original itself */
    refuse(rw, "the mutant differs everywhere: its correction is the original");
    rw->corrected = strdup(pp->text[1]);
    rg_pet_pair_free(pp);
    return rw->corrected ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rg_cert c = {0};
  rg_status st = certify_pair(pp, w, &c, err);
  int64_t neq = st ? 0 : rg_pet_result_neq(&c.res);
  if (!st && neq) {
    snprintf(why, sizeof why, "the corrected mutant differs from the original in %lld of %lld boxes",
             (long long)neq, (long long)c.res.n_boxes);
    refuse(rw, why);
  }
  if (!st && !neq && !(rw->checked = cert_text(&c))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (rw->checked) {
    uint8_t h[RG_SHA256_BYTES];
    rg_sha256(h, (const unsigned char *)rw->checked, strlen(rw->checked));
    rg_pet_hex(h, rw->digest);
    snprintf(rw->name, sizeof rw->name, "pet_%s_%.16s", rg_mutant_name(rw->cand.kind), rw->digest);
  }
  if (!(rw->corrected = strdup(pp->text[1])) && !st) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_cert_free(&c);
  rg_pet_pair_free(pp);
  return st;
}

/* The first certificate (where the mutant differs) and the corrected mutant's text. */
static rg_status certify_mutant(const rg_mutant *mu, watch *w, rg_pet_rewrite *rw, rg_pet_pair *pp, rg_err *err) {
  rg_cert c = {0};
  rg_status st = certify_pair(pp, w, &c, err);
  if (st) return st;
  rw->boxes = c.res.n_boxes, rw->neq_boxes = rg_pet_result_neq(&c.res), rw->regions = c.n_regions;
  int64_t n = 0;
  rg_region *r = regions_for(&c, w->o, &n);
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_err e = {0};
  rw->cert = cert_text(&c);
  if (!r || !rw->cert) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  else if (n > RG_PET_MAX_REGIONS) {
    char why[96];
    snprintf(why, sizeof why, "%lld correction regions, more than %d", (long long)n, RG_PET_MAX_REGIONS);
    refuse(rw, why);
  } else if (rg_pet_corrected(pp, mu->mutant, r, n, &sb, &e)) refuse(rw, e.msg);
  else if (!(rw->corrected = strdup(rg_sb_str(&sb)))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_sb_free(&sb);
  free(r);
  rg_cert_free(&c);
  return st;
}

rg_status rg_pet_certify(const rg_pet_candidate *cand, const rg_pet_find_opts *o, rg_pet_rewrite *rw, rg_err *err) {
  memset(rw, 0, sizeof *rw);
  rw->cand = *cand;
  double t0 = rg_clock_seconds();
  rg_mutant mu;
  rg_pet_pair *pp = NULL;
  rg_err e = {0};
  if (rg_mutant_make(cand->kind, &cand->dims, &mu, &e) || rg_pet_pair_new(mu.original, mu.mutant, mu.shapes, &pp, &e))
    return refuse(rw, e.msg), RG_OK;
  rw->original = strdup(pp->text[0]), rw->mutant = strdup(pp->text[1]), rw->shapes = rg_pet_pair_shapes(pp);
  watch w = {o, o->seconds > 0 ? t0 + o->seconds : 0, 0, false};
  rg_status st = rw->original && rw->mutant && rw->shapes ? certify_mutant(&mu, &w, rw, pp, err)
                                                          : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_pet_pair_free(pp);
  if (!st && !rw->refused) st = certify_corrected(&mu, &w, rw, err);
  rw->seconds = rg_clock_seconds() - t0;
  if (st && w.late) { /* a certification past its time: this candidate refused, not the run stopped */
    char why[96];
    snprintf(why, sizeof why, "its certification took more than %g s (a bound of --pet)", o->seconds);
    refuse(rw, why), *err = (rg_err){0}, st = RG_OK;
  }
  return st;
}

rg_status rg_pet_find(const rg_model *m, const rg_pet_find_opts *o, rg_pet_set *out, rg_err *err) {
  memset(out, 0, sizeof *out);
  double t0 = rg_clock_seconds();
  rg_pet_candidate *cand = NULL;
  int n = 0;
  rg_status st = rg_pet_candidates(m, &cand, &n, err);
  if (!st && n && !(out->rw = calloc((size_t)n, sizeof *out->rw))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int i = 0; !st && i < n; i++) {
    if (o->stop && *o->stop) {
      st = rg_err_set(err, RG_ERR_ARG, "interrupted while certifying PET rewrites");
      break;
    }
    rg_pet_rewrite *rw = &out->rw[out->n];
    st = rg_pet_certify(&cand[i], o, rw, err);
    if (st && o->stop && *o->stop) rg_err_set(err, RG_ERR_ARG, "interrupted while certifying PET rewrites");
    if (st) {
      rg_pet_rewrite_free(rw);
      break;
    }
    out->n++;
    out->considered[cand[i].kind]++;
    out->certified[cand[i].kind] += !rw->refused;
    if (o->progress)
      fprintf(stderr, "graphopt: pet %d/%d: %s at %s (%d place%s): %s%s\n", i + 1, n, rg_mutant_name(rw->cand.kind),
              rw->shapes ? rw->shapes : "?", rw->cand.sites, rw->cand.sites == 1 ? "" : "s",
              rw->refused ? "refused: " : "certified", rw->refused ? rw->why : "");
  }
  free(cand);
  out->seconds = rg_clock_seconds() - t0;
  if (st) rg_pet_set_free(out);
  return st;
}

/* rule->at from the shape list "NAME=DIMS ...": every tensor variable's dims. */
static rg_status shapes_at(rg_rule *r, const char *list, rg_err *err) {
  int32_t nv = rg_graph_n_tvars(r->g);
  if (!(r->at = calloc((size_t)nv + 1, sizeof *r->at))) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int32_t v = 0; v < nv; v++) {
    const char *name = rg_graph_tvar_name(r->g, v), *p = list;
    size_t len = strlen(name);
    while (p && !(!strncmp(p, name, len) && p[len] == '=')) p = (p = strchr(p, ' ')) ? p + 1 : NULL;
    if (!p) return rg_err_set(err, RG_ERR_ARG, "pet: no shape for ?%s in '%s'", name, list);
    const char *dims = p + len + 1, *end = strchr(dims, ' ');
    rg_status st = rg_shape_parse(dims, end ? (int)(end - dims) : (int)strlen(dims), &r->at[v], err);
    if (st) return st;
  }
  return RG_OK;
}

rg_status rg_pet_rules(const rg_pet_set *s, rg_ruleset *rules, rg_err *err) {
  rg_status st = RG_OK;
  for (int i = 0; !st && i < s->n; i++) {
    const rg_pet_rewrite *rw = &s->rw[i];
    if (rw->refused) continue;
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_sb_printf(&sb, "%s: %s => %s", rw->name, rw->original, rw->corrected);
    rg_rule *r = NULL;
    st = rg_text_parse_rule(rg_sb_str(&sb), &r, err);
    rg_sb_free(&sb);
    if (!st) st = shapes_at(r, rw->shapes, err);
    if (!st) st = rg_ruleset_add(rules, r), r = NULL;
    if (st == RG_ERR_NOMEM) rg_err_set(err, st, "out of memory");
    rg_rule_free(r);
  }
  return st;
}

const rg_pet_rewrite *rg_pet_of_rule(const rg_pet_set *s, const rg_rule *r) {
  if (!r->at) return NULL;
  for (int i = 0; i < s->n; i++)
    if (!s->rw[i].refused && !strcmp(s->rw[i].name, r->name)) return &s->rw[i];
  return NULL;
}

/* dir/NAME.rules (original => program, a comment naming the shapes) and dir/NAME.cert. */
static rg_status put(const char *dir, const rg_pet_rewrite *rw, const char *ext, const char *program, const char *cert,
                     rg_err *err) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s%s.rules", dir, rw->name, ext) >= (int)sizeof path)
    return rg_err_set(err, RG_ERR_ARG, "--certs: the folder's name is too long");
  rg_strbuf r;
  rg_sb_init(&r);
  const rg_mutant_dims *d = &rw->cand.dims;
  rg_sb_printf(&r, "# %s at -s ", rw->name);
  for (const char *p = rw->shapes; *p; p++) rg_sb_puts(&r, *p == ' ' ? " -s " : (char[2]){*p, 0});
  rg_sb_printf(&r, " (rulegen certify's shapes; check reads them from the certificate); the mutant is rulegen certify "
                   "--mutant %s --dims %d,%d,%d,%d,%d,%d,%d,%d,%d,%d\n%s => %s\n", rg_mutant_name(rw->cand.kind), d->n, d->c,
               d->h, d->w, d->o, d->k, d->pieces, d->kw, d->dilation, d->groups, rw->original, program);
  rg_status st = rg_atomic_write(path, rg_sb_str(&r), r.len, err);
  rg_sb_free(&r);
  snprintf(path + strlen(path) - strlen(".rules"), sizeof ".rules", ".cert");
  return st ? st : rg_atomic_write(path, cert, strlen(cert), err);
}

rg_status rg_pet_certs_folder(const char *dir, const char *out, const char *json, rg_err *err) {
  struct stat sb;
  if (!dir[0]) return rg_err_set(err, RG_ERR_ARG, "--certs names no folder (an empty name)");
  for (int k = 0; k < 2; k++) {
    const char *f = k ? json : out;
    if (f && (!strcmp(f, dir) || rg_path_same_file(f, dir)))
      return rg_err_set(err, RG_ERR_ARG, "--certs %s is also %s's path: give the certificates a folder of their own", dir,
                        k ? "--json" : "-o");
  }
  if (mkdir(dir, 0777) && errno != EEXIST) return rg_err_set(err, RG_ERR_IO, "--certs %s: %s", dir, strerror(errno));
  if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) return rg_err_set(err, RG_ERR_IO, "--certs %s: not a folder", dir);
  if (access(dir, W_OK | X_OK)) return rg_err_set(err, RG_ERR_IO, "--certs %s: %s", dir, strerror(errno));
  return RG_OK;
}

rg_status rg_pet_write_certs(const rg_pet_set *s, const char *dir, rg_err *err) {
  rg_status st = rg_pet_certs_folder(dir, NULL, NULL, err);
  for (int i = 0; !st && i < s->n; i++) {
    if (s->rw[i].refused) continue;
    st = put(dir, &s->rw[i], "", s->rw[i].mutant, s->rw[i].cert, err);
    if (!st) st = put(dir, &s->rw[i], ".corrected", s->rw[i].corrected, s->rw[i].checked, err);
  }
  return st;
}
