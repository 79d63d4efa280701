#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
/* tests/test_certify.c: box-mode checks, certificates and their audit.
 *  - PET Fig. 1: exactly the border boxes are NEQ, the correction regions cover them, and in
 *    full mode every differing element lies in a region (the corrected mutant is equivalent);
 *    box mode agrees with full mode box by box, for every built-in mutant;
 *  - differences only inside a later box, or only at positions that are not corners of the
 *    undivided tensor (an interleaving reshape), are caught;
 *  - certificates are deterministic, round-trip through their text, and forged ones (flipped
 *    verdict, dropped region, altered value, other seed, ...) are rejected;
 *  - bad input: p not prime, p not an implemented field, t = 0, truncated certificate;
 *  - the 127-bit field: the mutants and hidden differences above in both fields, certificates
 *    in F_(2^127-1) (values, seed, error bound with that p) and their forgeries. */
#include "certify_helpers.h"

static const rg_pet_opts opts3 = {3, RG_ZP_P, NULL};
static const rg_pet_opts opts3w = {3, RG_Z127_Q, NULL};
static const rg_pet_opts *const both[2] = {&opts3, &opts3w};

static rg_pet_pair *open_mutant(rg_mutant_kind kind, rg_mutant_dims d) {
  rg_mutant m;
  rg_err err;
  if (rg_mutant_make(kind, &d, &m, &err)) {
    CHECK_MSG(0, "mutant %s: %s", rg_mutant_name(kind), err.msg);
    return NULL;
  }
  return open_pair(m.original, m.mutant, m.shapes);
}

/* Box mode against full mode (in the certificate's field): a box is NEQ exactly when some
 * element of it differs; and every differing element lies in a correction region. Returns the
 * NEQ boxes. */
static int64_t cross_check(const rg_pet_pair *pp, const rg_cert *c, const char *what) {
  uint8_t *diff[RG_RULE_MAX_OUTPUTS] = {0};
  rg_err err;
  int64_t neq = 0, differing, outside;
  rg_pet_opts o = {c->res.trials, c->res.p, NULL};
  if (rg_cert_full_check(pp, c, &o, &differing, &outside, diff, &err)) {
    CHECK_MSG(0, "%s: full mode: %s", what, err.msg);
    return -1;
  }
  CHECK_MSG(outside == 0, "%s: %lld of %lld differing elements lie outside the correction regions", what,
            (long long)outside, (long long)differing);
  for (int64_t i = 0; i < c->res.n_boxes; i++) {
    const rg_box_result *b = &c->res.box[i];
    const rg_cuts *cu = &c->res.cuts[b->output];
    rg_shape s = rg_shape_make(cu->rank, cu->dim);
    bool any = false;
    int32_t pos[RG_MAX_RANK];
    memcpy(pos, b->lo, sizeof pos);
    for (;;) {
      any |= diff[b->output][rg_shape_flat(&s, pos)] != 0;
      int d = cu->rank - 1;
      while (d >= 0 && ++pos[d] == b->hi[d]) pos[d] = b->lo[d], d--;
      if (d < 0) break;
    }
    CHECK_MSG(any == (b->verdict == RG_BOX_NEQ), "%s: box %lld is %s in box mode, full mode %s", what,
              (long long)i, b->verdict ? "NEQ" : "EQ", any ? "differs" : "agrees");
    neq += b->verdict == RG_BOX_NEQ;
  }
  for (int k = 0; k < RG_RULE_MAX_OUTPUTS; k++) free(diff[k]);
  return neq;
}

static bool make_cert(const rg_pet_pair *pp, const rg_pet_opts *o, rg_cert *c) {
  rg_pet_result res;
  rg_err err;
  if (rg_pet_check(pp, o, &res, &err) || rg_cert_make(pp, &res, c, &err)) {
    CHECK_MSG(0, "certify: %s", err.msg);
    return false;
  }
  return true;
}

static void test_fig1(void) {
  rg_pet_pair *pp = open_mutant(RG_MUTANT_FIG1, (rg_mutant_dims){1, 3, 6, 12, 2, 3, 3, 0, 0, 0});
  rg_cert c;
  if (!pp || !make_cert(pp, &opts3, &c)) {
    rg_pet_pair_free(pp);
    return;
  }
  /* three strips of 4 columns: columns 3,4 and 7,8 are the borders; rows are cut at 1 and 5 */
  int64_t neq = 0;
  for (int64_t i = 0; i < c.res.n_boxes; i++) {
    const rg_box_result *b = &c.res.box[i];
    bool border = false;
    for (int32_t w = b->lo[3]; w < b->hi[3]; w++) border |= w == 3 || w == 4 || w == 7 || w == 8;
    CHECK_MSG(border == (b->verdict == RG_BOX_NEQ), "fig1: box %lld (columns %d..%d) is %s", (long long)i,
              b->lo[3], b->hi[3] - 1, b->verdict ? "NEQ" : "EQ");
    if (b->verdict == RG_BOX_NEQ) CHECK(b->hi[3] - b->lo[3] == 1 && b->val[0] != b->val[1]);
    neq += b->verdict == RG_BOX_NEQ;
  }
  CHECK(neq == 4 * 3); /* 4 border columns x 3 row boxes */
  CHECK(c.n_regions == 2); /* merged: columns 3..4 and 7..8, all rows */
  CHECK(cross_check(pp, &c, "fig1") == neq);
  rg_cert_free(&c);
  rg_pet_pair_free(pp);
}

static void test_mutants(void) {
  rg_mutant_dims d = {2, 2, 6, 8, 3, 3, 2, 0, 0, 0};
  for (int k = 0; k < 2 * RG_MUTANT_COUNT; k++) {
    rg_pet_pair *pp = open_mutant((rg_mutant_kind)(k / 2), d);
    rg_cert c;
    if (!pp || !make_cert(pp, both[k % 2], &c)) {
      rg_pet_pair_free(pp);
      continue;
    }
    int64_t neq = cross_check(pp, &c, rg_mutant_name((rg_mutant_kind)(k / 2)));
    /* dilated is exact for even sizes, the merged products everywhere; the others differ at
     * their seams */
    bool exact = k / 2 == RG_MUTANT_DILATED || rg_mutant_is_product((rg_mutant_kind)(k / 2));
    CHECK_MSG(exact ? neq == 0 : neq > 0, "%s: %lld NEQ boxes in field %d",
              rg_mutant_name((rg_mutant_kind)(k / 2)), (long long)neq, k % 2);
    rg_cert_free(&c);
    rg_pet_pair_free(pp);
  }
  rg_mutant m;
  rg_err err;
  CHECK(rg_mutant_make(RG_MUTANT_FIG1, &(rg_mutant_dims){1, 2, 4, 5, 2, 3, 2, 0, 0, 0}, &m, &err) == RG_ERR_ARG &&
        strstr(err.msg, "divide the width 5"));
  CHECK(rg_mutant_make(RG_MUTANT_DILATED, &(rg_mutant_dims){1, 2, 5, 4, 2, 3, 2, 0, 0, 0}, &m, &err) == RG_ERR_ARG &&
        strstr(err.msg, "must be even"));
  /* the merged products with their inputs swapped: every box differs */
  rg_pet_pair *pp = open_pair("(concat 0 (matmul ?x ?w) (matmul ?y ?w))", "(matmul (concat 0 ?y ?x) ?w)",
                              "w=3x4 x=5x3 y=5x3");
  rg_cert c;
  if (pp && make_cert(pp, &opts3, &c)) {
    CHECK_MSG(cross_check(pp, &c, "mmrows swapped") == c.res.n_boxes, "a box of the swapped products agrees");
    rg_cert_free(&c);
  }
  rg_pet_pair_free(pp);
}

/* Differences confined to places a naive check would not look at. */
static void hidden_differences(const rg_pet_opts *opts) {
  /* only column 5 differs: the box [5,6) is not the first one, and column 5 is neither the
   * corner nor the step of the undivided row */
  rg_pet_pair *pp = open_pair("?x", "(ewadd ?x (pad 1 5 2 (slice 1 5 6 ?x)))", "x=2x8");
  rg_cert c;
  if (pp && make_cert(pp, opts, &c)) {
    int64_t neq = 0;
    for (int64_t i = 0; i < c.res.n_boxes; i++)
      if (c.res.box[i].verdict == RG_BOX_NEQ) {
        neq++;
        CHECK(c.res.box[i].lo[1] == 5 && c.res.box[i].hi[1] == 6);
      }
    CHECK(neq == 1);
    CHECK(cross_check(pp, &c, "column 5") == 1);
    rg_cert_free(&c);
  }
  rg_pet_pair_free(pp);
  /* only the elements at (odd row, odd column) differ: the mutant scales one phase of a
   * space-to-batch split; none of (0,0), (1,0), (0,1) of the undivided 4x4 sees it, but the
   * interleaving reshape cuts the boxes finely enough that every phase has its own box */
  const char *t = "(reshape 4x1x2x2 (transpose 350124 (reshape 1x1x2x2x2x2 ?x)))";
  char mut[1024];
  snprintf(mut, sizeof mut,
           "(reshape 1x1x4x4 (transpose 234051 (reshape 2x2x1x1x2x2 (concat 0 (smul (slice 0 0 3 %s) ?s) (slice 0 3 4 %s)))))",
           t, t);
  pp = open_pair("(smul ?x ?s)", mut, "x=1x1x4x4 s=scalar");
  if (pp && make_cert(pp, opts, &c)) {
    int64_t neq = 0;
    for (int64_t i = 0; i < c.res.n_boxes; i++) {
      const rg_box_result *b = &c.res.box[i];
      bool odd_odd = false;
      for (int32_t h = b->lo[2]; h < b->hi[2]; h++)
        for (int32_t w = b->lo[3]; w < b->hi[3]; w++) odd_odd |= (h & 1) && (w & 1);
      CHECK_MSG(odd_odd == (b->verdict == RG_BOX_NEQ), "phase: box %lld rows %d..%d cols %d..%d is %s", (long long)i,
                b->lo[2], b->hi[2] - 1, b->lo[3], b->hi[3] - 1, b->verdict ? "NEQ" : "EQ");
      neq += b->verdict == RG_BOX_NEQ;
    }
    CHECK(neq > 0);
    CHECK(cross_check(pp, &c, "phase") == neq);
    rg_cert_free(&c);
  }
  rg_pet_pair_free(pp);
}

static void test_hidden_differences(void) {
  hidden_differences(&opts3);
  hidden_differences(&opts3w);
}

static char *cert_text(const rg_cert *c) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_cert_write(c, &sb);
  char *s = strdup(rg_sb_str(&sb));
  rg_sb_free(&sb);
  return s;
}

/* Parses text and audits it against pp: 1 valid, 0 rejected (why in *why), -1 parse error. */
static int audit_text(const char *text, const rg_pet_pair *pp, char *why, int n) {
  rg_cert c;
  rg_err err;
  if (rg_cert_parse(text, strlen(text), &c, &err)) {
    snprintf(why, (size_t)n, "%s", err.msg);
    return -1;
  }
  rg_audit a;
  int r = -1;
  if (rg_cert_audit(&c, pp, NULL, &a, &err) == RG_OK) {
    r = a.valid;
    snprintf(why, (size_t)n, "%s", a.why);
  }
  rg_cert_free(&c);
  return r;
}

/* Replaces the first occurrence of `from` (after `after`, if given) by `to`. */
static char *edit(const char *text, const char *after, const char *from, const char *to) {
  const char *start = after ? strstr(text, after) : text;
  const char *p = start ? strstr(start, from) : NULL;
  if (!p) return NULL;
  size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
  return s;
}

/* Removes the line starting at the first occurrence of `prefix`. */
static char *drop_line(const char *text, const char *prefix) {
  const char *p = strstr(text, prefix);
  if (!p) return NULL;
  const char *e = strchr(p, '\n');
  size_t n = strlen(text) + 1;
  char *s = malloc(n);
  snprintf(s, n, "%.*s%s", (int)(p - text), text, e ? e + 1 : "");
  return s;
}

static void expect_forged(char *text, const rg_pet_pair *pp, const char *what, const char *needle) {
  char why[600] = "";
  if (!text) {
    CHECK_MSG(0, "%s: could not forge", what);
    return;
  }
  int r = audit_text(text, pp, why, sizeof why);
  CHECK_MSG(r == 0 && strstr(why, needle), "%s: audit gives %d '%s', want rejection with '%s'", what, r, why, needle);
  free(text);
}

static void test_certificates(void) {
  rg_pet_pair *pp = open_mutant(RG_MUTANT_MERGED, (rg_mutant_dims){1, 2, 4, 4, 2, 3, 2, 0, 0, 0});
  rg_cert c1, c2;
  if (!pp || !make_cert(pp, &opts3, &c1)) {
    rg_pet_pair_free(pp);
    return;
  }
  CHECK(make_cert(pp, &opts3, &c2));
  char *t1 = cert_text(&c1), *t2 = cert_text(&c2);
  CHECK_MSG(strcmp(t1, t2) == 0, "the same inputs gave two different certificates");
  /* round trip: parse and print again */
  rg_cert back;
  rg_err err;
  CHECK(rg_cert_parse(t1, strlen(t1), &back, &err) == RG_OK);
  char *t3 = cert_text(&back);
  CHECK_MSG(strcmp(t1, t3) == 0, "certificate text does not round-trip");
  rg_cert_free(&back);
  free(t3);
  char why[600];
  CHECK_MSG(audit_text(t1, pp, why, sizeof why) == 1, "a genuine certificate is rejected: %s", why);
  /* another t gives another seed */
  rg_cert c4;
  if (make_cert(pp, &(rg_pet_opts){4, RG_ZP_P, NULL}, &c4)) {
    CHECK(c4.res.seed != c1.res.seed && c4.res.trials == 4);
    rg_cert_free(&c4);
  }

  /* forgeries */
  char seedline[64];
  snprintf(seedline, sizeof seedline, "seed %016llx", (unsigned long long)c1.res.seed);
  char other[64];
  snprintf(other, sizeof other, "seed %016llx", (unsigned long long)(c1.res.seed ^ 1));
  expect_forged(edit(t1, NULL, seedline, other), pp, "other seed", "is not the one derived");
  char *flip = edit(t1, "box ", " NEQ ", " EQ ");
  if (flip) { /* cut the witness off the flipped line so that it parses */
    char *nl = strstr(strstr(flip, " EQ "), " EQ ") + 3;
    char *eol = strchr(nl, '\n');
    memmove(nl, eol, strlen(eol) + 1);
  }
  expect_forged(flip, pp, "NEQ flipped to EQ", "the certificate says EQ, re-evaluation finds NEQ");
  /* EQ -> NEQ with a made-up witness at the box's corner */
  for (int64_t i = 0; i < c1.res.n_boxes; i++) {
    const rg_box_result *b = &c1.res.box[i];
    if (b->verdict != RG_BOX_EQ) continue;
    char box[200] = "", pos[100] = "", from[300], to[400];
    for (int d = 0; d < 4; d++) {
      snprintf(box + strlen(box), sizeof box - strlen(box), "%s%d:%d", d ? "," : "", b->lo[d], b->hi[d]);
      snprintf(pos + strlen(pos), sizeof pos - strlen(pos), "%s%d", d ? "," : "", b->lo[d]);
    }
    snprintf(from, sizeof from, "box 0 %lld %s EQ\n", (long long)i, box);
    snprintf(to, sizeof to, "box 0 %lld %s NEQ 0 %s 1 2\n", (long long)i, box, pos);
    expect_forged(edit(t1, NULL, from, to), pp, "EQ flipped to NEQ", "the certificate says NEQ, re-evaluation finds EQ");
    break;
  }
  /* altered witness value */
  const char *neq = strstr(t1, " NEQ ");
  if (neq) {
    const char *eol = strchr(neq, '\n');
    const char *lastsp = eol;
    while (lastsp[-1] != ' ') lastsp--;
    char val[32], bumped[32];
    snprintf(val, sizeof val, " %.*s\n", (int)(eol - lastsp), lastsp);
    unsigned long long v = strtoull(lastsp, NULL, 10);
    snprintf(bumped, sizeof bumped, " %llu\n", (v + 1) % RG_ZP_P);
    expect_forged(edit(t1, " NEQ ", val, bumped), pp, "altered value", "the witness");
  }
  /* dropped region: the count says one less and the line is gone */
  char *dropped = drop_line(t1, "region 0 ");
  char cnt[32], less[32];
  snprintf(cnt, sizeof cnt, "regions %lld\n", (long long)c1.n_regions);
  snprintf(less, sizeof less, "regions %lld\n", (long long)c1.n_regions - 1);
  char *dropped2 = dropped ? edit(dropped, NULL, cnt, less) : NULL;
  free(dropped);
  expect_forged(dropped2, pp, "dropped region", "lies in no correction region");
  /* altered cuts: one cut fewer in the width */
  expect_forged(edit(t1, NULL, "cuts 0 3 5 1 3 4 5 7", "cuts 0 3 4 1 3 5 7"), pp, "dropped cut", "");
  expect_forged(edit(t1, NULL, "error_bound_log2 -", "error_bound_log2 -1"), pp, "better bound", "error bound");
  expect_forged(edit(t1, NULL, "degree 2", "degree 1"), pp, "degree", "degree");
  expect_forged(edit(t1, NULL, "trials 3", "trials 2"), pp, "fewer trials", "seed");
  expect_forged(edit(t1, NULL, "field 2305843009213693951", "field 4294967291"), pp, "small field", "field");
  expect_forged(edit(t1, NULL, "field 2305843009213693951", "field 4294967296"), pp, "not a field", "not prime");
  expect_forged(edit(t1, "mutant ", "(conv2d (concat", "(conv2d 1 1 same none (concat"), pp, "other mutant", "mutant");
  /* a certificate for other programs does not pass for these */
  rg_pet_pair *other_pp = open_mutant(RG_MUTANT_MERGED, (rg_mutant_dims){1, 2, 4, 6, 2, 3, 2, 0, 0, 0});
  if (other_pp) {
    CHECK(audit_text(t1, other_pp, why, sizeof why) == 0 && strstr(why, "shapes"));
    rg_pet_pair_free(other_pp);
  }

  /* every single-character change is a parse error or a rejection, never a crash and never
   * accepted (unless it leaves the certificate's meaning, hence its canonical text, intact) */
  int accepted = 0;
  for (size_t i = 0; i < strlen(t1); i++) {
    static const char repl[] = "0719 x-:,\n";
    char *m = strdup(t1);
    m[i] = repl[i % (sizeof repl - 1)] == m[i] ? '3' : repl[i % (sizeof repl - 1)];
    rg_cert x;
    if (rg_cert_parse(m, strlen(m), &x, &err) == RG_OK) {
      rg_audit a;
      if (rg_cert_audit(&x, pp, NULL, &a, &err) == RG_OK && a.valid) {
        char *again = cert_text(&x);
        CHECK_MSG(strcmp(again, t1) == 0, "a certificate changed at byte %zu is accepted", i);
        free(again);
        accepted++;
      }
      rg_cert_free(&x);
    }
    free(m);
  }
  CHECK(accepted < 5);

  /* truncated and malformed text */
  for (size_t cut = 0; cut < strlen(t1); cut += 37) {
    char *tr = strndup(t1, cut);
    rg_cert x;
    rg_status st = rg_cert_parse(tr, strlen(tr), &x, &err);
    CHECK_MSG(st == RG_ERR_PARSE, "a certificate cut after %zu bytes parses", cut);
    if (st == RG_OK) rg_cert_free(&x);
    free(tr);
  }
  char *tr = strndup(t1, strlen(t1) - 4);
  CHECK(rg_cert_parse(tr, strlen(tr), &back, &err) == RG_ERR_PARSE && strstr(err.msg, "truncated"));
  free(tr);
  CHECK(rg_cert_parse("rulegen-pet-certificate 2\n", 26, &back, &err) == RG_ERR_PARSE && strstr(err.msg, "version 2"));
  free(t1);
  free(t2);
  rg_cert_free(&c1);
  rg_cert_free(&c2);
  rg_pet_pair_free(pp);
}

/* Certificates in F_q, q = 2^127-1: the same verdicts as in F_p (the mutant's differences do not
 * depend on the field), values that use the whole field, the seed keyed by q, the bound with
 * log2 q = 127, and forgeries rejected; a certificate moved to another field is rejected. */
static void test_wide_field(void) {
  rg_pet_pair *pp = open_mutant(RG_MUTANT_FIG1, (rg_mutant_dims){1, 3, 6, 12, 2, 3, 3, 0, 0, 0});
  rg_cert cp, cq;
  if (!pp || !make_cert(pp, &opts3, &cp)) {
    rg_pet_pair_free(pp);
    return;
  }
  if (!make_cert(pp, &opts3w, &cq)) {
    rg_cert_free(&cp);
    rg_pet_pair_free(pp);
    return;
  }
  CHECK(cq.res.p == RG_Z127_Q && cq.res.seed != cp.res.seed && cq.res.n_boxes == cp.res.n_boxes);
  int wide = 0, same = 0;
  for (int64_t i = 0; i < cq.res.n_boxes && cq.res.n_boxes == cp.res.n_boxes; i++) {
    same += cq.res.box[i].verdict == cp.res.box[i].verdict;
    if (cq.res.box[i].verdict == RG_BOX_NEQ)
      wide += cq.res.box[i].val[0] >> 64 != 0 && cq.res.box[i].val[0] < RG_Z127_Q && cq.res.box[i].val[1] < RG_Z127_Q;
  }
  CHECK_MSG(same == cq.res.n_boxes, "%d of %lld boxes have the same verdict in both fields", same, (long long)cq.res.n_boxes);
  CHECK_MSG(wide > 0, "no NEQ witness value above 2^64 in F_q");
  CHECK(cross_check(pp, &cq, "fig1 in F_q") == 12);
  /* the bound: log2(EQ positions) + t (log2 d - log2 q), q = 2^127-1 (log2 q = 127 - 6.6e-39) */
  char want[32];
  snprintf(want, sizeof want, "%.3f", log2((double)cq.res.eq_positions) + 3 * (log2((double)cq.degree) - 127.0));
  CHECK_MSG(strcmp(cq.bound, want) == 0, "bound 2^%s in F_q, want 2^%s", cq.bound, want);
  CHECK(atof(cq.bound) < atof(cp.bound) - 3 * 65);

  char *tq = cert_text(&cq), *tp = cert_text(&cp), why[600];
  CHECK(strstr(tq, "\nfield 170141183460469231731687303715884105727\n") != NULL);
  CHECK_MSG(audit_text(tq, pp, why, sizeof why) == 1, "a genuine F_q certificate is rejected: %s", why);
  rg_cert back;
  rg_err err;
  if (rg_cert_parse(tq, strlen(tq), &back, &err) == RG_OK) {
    char *again = cert_text(&back);
    CHECK_MSG(strcmp(again, tq) == 0, "an F_q certificate does not round-trip");
    free(again);
    rg_cert_free(&back);
  } else {
    CHECK_MSG(0, "an F_q certificate does not parse: %s", err.msg);
  }
  /* altered witness: the mutant's value of the first NEQ box plus one, in F_q */
  for (int64_t i = 0; i < cq.res.n_boxes; i++) {
    const rg_box_result *b = &cq.res.box[i];
    if (b->verdict != RG_BOX_NEQ) continue;
    char v[48], w[48], from[100], to[100];
    rg_z127_format(b->val[1], v, sizeof v);
    rg_z127_format(rg_z127_add(b->val[1], 1), w, sizeof w);
    snprintf(from, sizeof from, " %s\n", v), snprintf(to, sizeof to, " %s\n", w);
    expect_forged(edit(tq, NULL, from, to), pp, "F_q: altered value", "the witness");
    break;
  }
  char *flip = edit(tq, "box ", " NEQ ", " EQ\n");
  if (flip) { /* drop the rest of the flipped line (its witness) */
    char *eq = flip + (strstr(strstr(tq, "box "), " NEQ ") - tq) + 4, *eol = strchr(eq, '\n');
    memmove(eq, eol + 1, strlen(eol + 1) + 1);
  }
  expect_forged(flip, pp, "F_q: NEQ flipped", "the certificate says EQ, re-evaluation finds NEQ");
  char *dropped = drop_line(tq, "region 0 ");
  char *dropped2 = dropped ? edit(dropped, NULL, "regions 2\n", "regions 1\n") : NULL;
  free(dropped);
  expect_forged(dropped2, pp, "F_q: dropped region", "lies in no correction region");
  char seedline[64], other[64];
  snprintf(seedline, sizeof seedline, "seed %016llx", (unsigned long long)cq.res.seed);
  snprintf(other, sizeof other, "seed %016llx", (unsigned long long)cp.res.seed);
  expect_forged(edit(tq, NULL, seedline, other), pp, "F_q: the F_p seed", "is not the one derived");
  /* moved between fields: the seed no longer derives; an unsupported prime is refused */
  expect_forged(edit(tq, NULL, "field 170141183460469231731687303715884105727", "field 2305843009213693951"), pp,
                "F_q certificate claimed for F_p", "is not the one derived");
  expect_forged(edit(tp, NULL, "field 2305843009213693951", "field 170141183460469231731687303715884105727"), pp,
                "F_p certificate claimed for F_q", "is not the one derived");
  expect_forged(edit(tq, NULL, "field 170141183460469231731687303715884105727", "field 618970019642690137449562111"),
                pp, "F_q certificate claimed for F_(2^89-1)", "implements only the fields of 2^61-1");
  expect_forged(edit(tq, NULL, "field 170141183460469231731687303715884105727", "field 170141183460469231731687303715884105729"),
                pp, "composite p above 2^127", "not prime");
  free(tq);
  free(tp);
  rg_cert_free(&cp);
  rg_cert_free(&cq);
  rg_pet_pair_free(pp);
}

static void count_progress(void *user, int64_t done, int64_t total) {
  int64_t *last = user;
  CHECK(done == last[0] + 1 && done <= total);
  last[0] = done, last[1] = total;
}

/* --dims: six, seven or ten whole numbers (the last three: kernel width, dilation, groups). */
static void test_dims(void) {
  rg_mutant_dims d;
  rg_err err;
  CHECK(rg_mutant_parse_dims("1,16,14,14,16,5,2,5,1,16", &d, &err) == RG_OK && d.pieces == 2 && d.kw == 5 &&
        d.dilation == 1 && d.groups == 16);
  CHECK(rg_mutant_parse_dims("1,64,56,56,64,3", &d, &err) == RG_OK && d.pieces == 2 && !d.kw && !d.groups);
  CHECK(rg_mutant_parse_dims("1,2,4,8,2,3,2", &d, &err) == RG_OK && d.w == 8 && !d.dilation);
  const char *bad[] = {"1,2,4,8,2,3,2,3", "1,2,4,8,2,3,2,3,1,1,1", "1,2,4,8,2,0", "1,2,4,8,2,3,", ",1,2,4,8,2,3",
                       "1,2,4,8,2,3x", "1,,2,4,8,2,3", "1,2,4,8,2,4097", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_MSG(rg_mutant_parse_dims(bad[i], &d, &err) == RG_ERR_ARG && strstr(err.msg, "bad --dims"), "'%s' taken\n",
              bad[i]);
  rg_pet_pair *pp = open_mutant(RG_MUTANT_FIG1, (rg_mutant_dims){1, 16, 14, 14, 16, 5, 2, 5, 1, 16}); /* depthwise 5x5 */
  rg_pet_result res;
  if (pp && rg_pet_check(pp, &opts3, &res, &err) == RG_OK) rg_pet_result_free(&res);
  else CHECK(!"a depthwise 5x5 fig1 mutant certifies");
  rg_pet_pair_free(pp);
}

static void test_bad_options(void) {
  rg_pet_pair *pp = open_pair("?x", "?x", "x=2x2");
  rg_pet_result res;
  rg_err err;
  if (!pp) return;
  CHECK(rg_pet_check(pp, &(rg_pet_opts){0, RG_ZP_P, NULL}, &res, &err) == RG_ERR_ARG && strstr(err.msg, "at least 1"));
  CHECK(rg_pet_check(pp, &(rg_pet_opts){3, RG_ZP_P + 2, NULL}, &res, &err) == RG_ERR_ARG && strstr(err.msg, "is not prime"));
  CHECK(rg_pet_check(pp, &(rg_pet_opts){3, 2147483647, NULL}, &res, &err) == RG_ERR_ARG &&
        strstr(err.msg, "2^61-1") && strstr(err.msg, "2^127-1"));
  CHECK(rg_pet_check(pp, &(rg_pet_opts){3, RG_Z127_Q - 2, NULL}, &res, &err) == RG_ERR_ARG &&
        strstr(err.msg, "is not prime"));
  CHECK(rg_pet_check(pp, &(rg_pet_opts){3, ((rg_z127)1 << 89) - 1, NULL}, &res, &err) == RG_ERR_ARG &&
        strstr(err.msg, "p = 618970019642690137449562111 is prime, but"));
  /* progress: called once per box and trial, ending at the total */
  int64_t last[2] = {0, 0};
  rg_pet_pair *pf = open_mutant(RG_MUTANT_FIG1, (rg_mutant_dims){1, 2, 4, 8, 2, 3, 2, 0, 0, 0});
  if (pf) {
    CHECK(rg_pet_check(pf, &(rg_pet_opts){3, RG_ZP_P, &(rg_pet_hooks){NULL, count_progress, last}}, &res, &err) == RG_OK);
    CHECK_MSG(last[0] == res.n_boxes * 3 && last[1] == res.n_boxes * 3, "progress ended at %lld of %lld",
              (long long)last[0], (long long)last[1]);
    rg_pet_result_free(&res);
    rg_pet_pair_free(pf);
  }
  volatile sig_atomic_t stop = 1;
  CHECK(rg_pet_check(pp, &(rg_pet_opts){3, RG_ZP_P, &(rg_pet_hooks){&stop, NULL, NULL}}, &res, &err) == RG_ERR_ARG && strstr(err.msg, "interrupted"));
  CHECK(rg_pet_check(pp, &opts3, &res, &err) == RG_OK && res.n_boxes == 1 && res.box[0].verdict == RG_BOX_EQ);
  rg_pet_result_free(&res);
  rg_pet_pair_free(pp);
}

int main(void) {
  test_fig1();
  test_mutants();
  test_hidden_differences();
  test_certificates();
  test_bad_options();
  test_dims();
  test_wide_field();
  return check_done("test_certify");
}
