/* synth/candidates.c: classes and candidates of each bucket, buckets in parallel
 * (synth/candidates.h). */
#include "candidates.h"

#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "verify/randtest_cache.h"

/* What a bucket's testing shares: options, the space, the fingerprint inputs, the verdict
 * cache and the trial options. */
typedef struct {
  const rg_synth_opts *o;
  const rg_randtest_opts *rt;
  const rg_enum_space *sp;
  rg_value *const *inputs;
  rg_randtest_cache *cache;
} tester;

/* One bucket: members sorted smallest first, its class representatives, the member -> class
 * list for --all-pairs, and its candidate lines. */
typedef struct {
  rg_pair_members pm;
  rg_fp_record *m;
  size_t rep[RG_SYNTH_MAX_CLASSES];
  int n_cls;
  size_t *members, *cls, n_members;
  rg_strbuf *sb;
  rg_synth_counts *c;
} bucket;

static void emit(const rg_rule *r, bucket *b) {
  rg_text_print_rule(r, b->sb);
  rg_sb_puts(b->sb, "\n");
  b->c->written++;
}

static int cmp_len_code(const void *x, const void *y) {
  const rg_fp_record *a = x, *b = y;
  int la = rg_enum_code_len(&a->code), lb = rg_enum_code_len(&b->code);
  if (la != lb) return la < lb ? -1 : 1;
  return memcmp(&a->code, &b->code, sizeof a->code);
}

/* Random-tests candidate r (at the shapes of the inputs it uses: the shape solver works on
 * those alone); *pass says whether it passed. */
static rg_status test_rule(const tester *t, const rg_rule *r, bucket *b, bool *pass, rg_err *err) {
  rg_randtest_verdict v = RG_RANDTEST_PASS;
  const rg_shape *shapes[RG_ENUM_MAX_INPUTS];
  for (int32_t q = 0; q < rg_graph_n_tvars(r->g); q++)
    shapes[q] = &t->sp->inputs.in[rg_enum_input_index(t->sp, rg_graph_tvar_name(r->g, q))].shape;
  rg_binding base = {shapes, NULL, NULL};
  rg_status st = RG_OK;
  if (t->o->stop_after >= RG_SYNTH_STOP_TEST) {
    b->c->pairs++;
    bool hit;
    st = rg_randtest_rule_cached(t->cache, r, &base, t->rt, &v, &hit, err);
    if (!st) b->c->verdict[v]++, b->c->renamed += hit;
  }
  *pass = !st && v == RG_RANDTEST_PASS;
  return st;
}

/* Pairs member i with each class representative in turn: *joined is the class it passed with
 * (-1: none), *derivable whether smaller candidates already say it equals one. */
static rg_status try_classes(const tester *t, bucket *b, size_t i, int *joined, bool *derivable,
                             rg_err *err) {
  *joined = -1, *derivable = false;
  for (int c = 0; c < b->n_cls && *joined < 0 && !*derivable; c++) {
    rg_rule *r = NULL;
    int k = rg_pair_build(&b->pm, i, b->rep[c], &r, err);
    if (k < 0) return err->status ? err->status : RG_ERR_NOMEM;
    if (k == RG_PAIR_MISMATCH) b->c->mismatch++;
    if (k == RG_PAIR_UNBOUND) b->c->unbound++;
    /* equal to the representative by smaller candidates: neither tested nor a class */
    if (k == RG_PAIR_COMMON) b->c->common++, *derivable = true;
    if (k == RG_PAIR_SPLITS) b->c->splits++, *derivable = true;
    if (k == RG_PAIR_CONGRUENT) b->c->congruent++, *derivable = true;
    if (k != RG_PAIR_RULE) continue;
    bool pass;
    rg_status st = test_rule(t, r, b, &pass, err);
    if (!st && pass) {
      *joined = c;
      if (!t->o->all_pairs) emit(r, b);
    }
    rg_rule_free(r);
    if (st) return st;
  }
  return RG_OK;
}

/* --all-pairs: every pair within a class, members in order (passing is transitive on the
 * shared trials, so these need no further test). */
static rg_status emit_all_pairs(bucket *b, rg_err *err) {
  for (size_t x = 0; x < b->n_members; x++)
    for (size_t y = 0; y < x; y++) {
      if (b->cls[x] != b->cls[y]) continue;
      rg_rule *r = NULL;
      int k = rg_pair_build(&b->pm, b->members[x], b->members[y], &r, err);
      if (k < 0) return err->status ? err->status : RG_ERR_NOMEM;
      if (k != RG_PAIR_RULE) continue;
      emit(r, b);
      rg_rule_free(r);
    }
  return RG_OK;
}

/* Forms the classes of one bucket (len records) and appends its candidate lines to b->sb. */
static rg_status classes_of(const tester *t, bucket *b, size_t len, rg_err *err) {
  rg_status st = RG_OK;
  b->c->members += len;
  for (size_t i = 0; i < len && !st && !*t->o->stop; i++) {
    int joined;
    bool derivable;
    if ((st = try_classes(t, b, i, &joined, &derivable, err)) || derivable) continue;
    if (joined < 0 && b->n_cls < RG_SYNTH_MAX_CLASSES) {
      b->rep[b->n_cls++] = i;
      joined = b->n_cls - 1;
    } else if (joined < 0) {
      b->c->overflow++; /* a bucket of more than RG_SYNTH_MAX_CLASSES classes: the rest are not tried */
      continue;
    }
    b->members[b->n_members] = i;
    b->cls[b->n_members++] = (size_t)joined;
  }
  b->c->classes += (uint64_t)b->n_cls;
  if (!st && t->o->all_pairs) st = emit_all_pairs(b, err);
  return st;
}

static rg_status do_bucket(const tester *t, const rg_fp_record *recs, size_t len, rg_strbuf *sb,
                           rg_synth_counts *c, rg_err *err) {
  bucket b = {.sb = sb, .c = c};
  b.m = malloc(sizeof *b.m * len);
  b.pm = (rg_pair_members){t->sp, t->o->fp.seed, t->inputs, b.m, malloc(sizeof *b.pm.h * len), calloc(len, 1)};
  b.members = malloc(sizeof *b.members * len), b.cls = malloc(sizeof *b.cls * len);
  rg_status st = b.m && b.pm.h && b.pm.n && b.members && b.cls ? RG_OK
                                                                 : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    memcpy(b.m, recs, sizeof *b.m * len);
    qsort(b.m, len, sizeof *b.m, cmp_len_code);
    st = classes_of(t, &b, len, err);
  }
  free(b.members), free(b.cls), free(b.m), free(b.pm.h), free(b.pm.n);
  return st;
}

/* (bucket size, bucket index), ordered by decreasing size, ties by index. */
static int by_len_desc(const void *x, const void *y) {
  const size_t *a = x, *b = y;
  if (a[0] != b[0]) return a[0] > b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* The (start, length) of every bucket of t, in order; counts singles and buckets into c. */
static rg_status list_buckets(const rg_fp_table *t, size_t (**out)[2], size_t *n, rg_synth_counts *c,
                              rg_err *err) {
  size_t nb = 0, cap = 1024, pos = 0, start, len;
  size_t (*b)[2] = malloc(sizeof *b * cap);
  if (!b) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  while (rg_fp_table_next_bucket(t, &pos, &start, &len, &c->singles)) {
    if (nb == cap) {
      size_t (*nbuf)[2] = realloc(b, sizeof *b * (cap *= 2));
      if (!nbuf) {
        free(b);
        return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
      }
      b = nbuf;
    }
    b[nb][0] = start, b[nb][1] = len, nb++;
  }
  c->buckets += nb;
  *out = b, *n = nb;
  return RG_OK;
}

/* A chunk of buckets tested in parallel, its lines and counts per bucket. */
typedef struct {
  rg_strbuf *sbs;
  rg_synth_counts *cs;
  size_t (*order)[2];
} chunk_bufs;

/* Tests buckets c0..c1 (largest first, so one big bucket does not leave the other threads idle
 * at the chunk's end), then appends their lines to out in bucket order. */
static rg_status test_chunk(const tester *t, const rg_fp_table *tab, size_t (*b)[2], size_t c0,
                            size_t c1, chunk_bufs *cb, FILE *out, rg_synth_counts *c, rg_err *err) {
  for (size_t i = c0; i < c1; i++) cb->order[i - c0][0] = b[i][1], cb->order[i - c0][1] = i;
  qsort(cb->order, c1 - c0, sizeof *cb->order, by_len_desc);
  rg_status first = RG_OK;
#pragma omp parallel for num_threads(t->o->threads) schedule(dynamic, 1)
  for (size_t k = c0; k < c1; k++) {
    size_t i = cb->order[k - c0][1];
    rg_err e;
    rg_sb_init(&cb->sbs[i - c0]);
    memset(&cb->cs[i - c0], 0, sizeof cb->cs[i - c0]);
    rg_status s = do_bucket(t, tab->r + b[i][0], b[i][1], &cb->sbs[i - c0], &cb->cs[i - c0], &e);
    if (s) {
#pragma omp critical(synth_err)
      if (!first) first = s, *err = e;
    }
  }
  for (size_t i = c0; i < c1; i++) {
    rg_synth_counts_add(c, &cb->cs[i - c0]);
    if (!first && out) fputs(rg_sb_str(&cb->sbs[i - c0]), out);
    rg_sb_free(&cb->sbs[i - c0]);
  }
  return first;
}

/* Progress by buckets; the largest buckets of each chunk go first, so the rate is rough. */
static void progress(rg_progress *pg, const rg_synth_counts *c, size_t done) {
  if (!rg_progress_due(pg)) { /* the RSS is read only for a line printed */
    rg_progress_tick(pg, (int64_t)done);
    return;
  }
  rg_progress_tick_extra(pg, (int64_t)done, "%llu pairs tested, %llu pass, RSS %.0f MB", (unsigned long long)c->pairs,
                         (unsigned long long)c->verdict[RG_RANDTEST_PASS], rg_synth_rss_mb());
}

size_t rg_synth_cache_bytes(const rg_synth_opts *o) {
  return o->fp.mem_limit / 4 < ((size_t)1 << 30) ? o->fp.mem_limit / 4 : (size_t)1 << 30;
}

rg_status rg_synth_test_pass(const rg_synth_opts *o, const rg_enum_space *sp, const rg_fp_table *tab,
                             rg_randtest_cache *cache, FILE *out, rg_synth_counts *c, rg_err *err) {
  size_t (*b)[2] = NULL, nb = 0;
  rg_status st = list_buckets(tab, &b, &nb, c, err);
  if (st) return st;
  /* trials through the direct-access kernels, which tests/test_fingerprint.c checks against the
   * interpreter in both domains */
  rg_randtest_opts rt = o->rt;
  rt.kernel = rg_fp_node_kernel;
  tester t = {o, &rt, sp, rg_fp_inputs_new(sp, o->fp.seed), cache ? cache : rg_randtest_cache_new(rg_synth_cache_bytes(o))};
  /* buckets are written in order, a chunk at a time */
  const size_t chunk = nb < (1 << 14) ? (nb ? nb : 1) : 1 << 14; /* a small part takes little */
  chunk_bufs cb = {calloc(chunk, sizeof *cb.sbs), calloc(chunk, sizeof *cb.cs), calloc(chunk, sizeof *cb.order)};
  if (!t.inputs || !t.cache || !cb.sbs || !cb.cs || !cb.order) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_progress pg;
  rg_progress_start(&pg, "test", "buckets", (int64_t)nb, !o->quiet);
  for (size_t c0 = 0; c0 < nb && !st && !*o->stop; c0 += chunk) {
    size_t c1 = c0 + chunk < nb ? c0 + chunk : nb;
    st = test_chunk(&t, tab, b, c0, c1, &cb, out, c, err);
    progress(&pg, c, c1);
  }
  rg_progress_finish(&pg);
  free(cb.sbs), free(cb.cs), free(cb.order), free(b);
  if (t.inputs) rg_fp_inputs_free(sp, (rg_value **)t.inputs);
  if (!cache) rg_randtest_cache_free(t.cache);
  return st;
}
