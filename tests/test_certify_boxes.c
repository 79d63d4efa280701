/* tests/test_certify_boxes.c: box propagation.
 *  - hand-derived cuts for single operators (padding borders, stride, dilation, groups,
 *    concat seams, pad/slice borders, reshape periods);
 *  - brute force: inside every box of every test program, the input elements read at each
 *    position are an affine function of the position (the hypothesis of PET's Theorem 1),
 *    checked at every position of every box from fresh single-element evaluations;
 *  - non-multilinear programs are rejected, naming the operator; degrees. */
#include "certify_helpers.h"

/* Cuts of the original's first output, dimension d, as "1 7". */
static void cuts_str(const rg_pet_pair *pp, int side, int d, char *buf, int n) {
  const rg_cuts *c = rg_boxmap_cuts(pp->boxes[side], side ? pp->rule->tgt[0] : pp->rule->src[0]);
  int used = 0;
  buf[0] = 0;
  for (int32_t i = 0; i < c->cut[d].n && used < n; i++)
    used += snprintf(buf + used, (size_t)(n - used), "%s%d", i ? " " : "", c->cut[d].v[i]);
}

static void expect_cuts(const char *prog, const char *shapes, int d, const char *want) {
  rg_pet_pair *pp = open_pair(prog, prog, shapes);
  if (!pp) return;
  char buf[512];
  cuts_str(pp, 0, d, buf, sizeof buf);
  CHECK_MSG(strcmp(buf, want) == 0, "%s dim %d: cuts '%s', want '%s'", prog, d, buf, want);
  rg_pet_pair_free(pp);
}

static void test_hand_cuts(void) {
  /* 3x3 SAME on width 8: the first and last columns touch padding */
  expect_cuts("(conv2d ?x ?w)", "x=1x2x6x8 w=2x2x3x3", 3, "1 7");
  /* 5x5 SAME: two border columns each side */
  expect_cuts("(conv2d ?x ?w)", "x=1x2x6x8 w=2x2x5x5", 3, "1 2 6 7");
  /* VALID never reads padding: one box */
  expect_cuts("(conv2d 1 1 valid none ?x ?w)", "x=1x2x6x8 w=2x2x3x3", 3, "");
  /* dilation 2, SAME (pad 2): taps o-2, o, o+2; o-2 is padding for o < 2, o+2 for o >= 6 */
  expect_cuts("(conv2d 1 1 same none 2 2 ?x ?w)", "x=1x2x6x8 w=2x2x3x3", 3, "2 6");
  /* stride 2 on 8, SAME: out 4, total pad 1 all after: only the last output reads it */
  expect_cuts("(conv2d 2 2 same none ?x ?w)", "x=1x2x8x8 w=2x2x3x3", 3, "3");
  /* groups: 4 output channels in 2 groups */
  expect_cuts("(conv2d 1 1 same none 1 1 2 ?x ?w)", "x=1x4x3x3 w=4x2x1x1", 1, "2");
  /* a concat seam at 3 pulled back through a 3x3 SAME conv: taps cross it at 2, 3, 4 */
  expect_cuts("(conv2d (concat 3 ?x ?y) ?w)", "x=1x2x4x3 y=1x2x4x5 w=2x2x3x3", 3, "1 2 3 4 7");
  expect_cuts("(concat 1 ?x ?y)", "x=2x3 y=2x5", 1, "3");
  expect_cuts("(split.1 1 (concat 1 ?x (concat 1 ?y ?x)))", "x=2x3 y=2x5", 1, "5");
  expect_cuts("(pad 1 2 3 ?x)", "x=2x4", 1, "2 6");
  expect_cuts("(slice 1 1 7 (pad 1 2 3 ?x))", "x=2x4", 1, "1 5");
  expect_cuts("(transpose 10 (pad 1 2 3 ?x))", "x=2x4", 0, "2 6");
  expect_cuts("(enlarge 5 5 ?w)", "w=2x2x3x1", 3, "2 3");
  expect_cuts("(enlarge 5 5 ?w)", "w=2x2x3x1", 2, "1 4");
  /* reshape: splitting a dim is affine (no cuts); merging cuts at multiples of the inner size */
  expect_cuts("(reshape 2x4 ?x)", "x=8", 1, "");
  expect_cuts("(reshape 8 ?x)", "x=2x4", 0, "4");
  /* a cut at 5 of a 12-long dim split into 3x4: the staircase cuts (1, 2) and (1) */
  expect_cuts("(reshape 3x4 (pad 0 5 0 ?x))", "x=7", 0, "1 2");
  expect_cuts("(reshape 3x4 (pad 0 5 0 ?x))", "x=7", 1, "1");
  /* interleave: 2x3 -> 3x2 (no common refinement): rows and every flat multiple of 3 */
  expect_cuts("(reshape 3x2 ?x)", "x=2x3", 0, "1 2");
  expect_cuts("(reshape 3x2 ?x)", "x=2x3", 1, "1");
  expect_cuts("(Imatmul 3)", "", 1, "1 2");
}

/* ---- brute-force affinity ---- */

#define MAX_READS 4096
typedef struct {
  int n;
  int32_t tvar[MAX_READS];
  int64_t flat[MAX_READS];
} reads;

static rg_value record(void *user, int32_t tvar, int64_t flat) {
  reads *r = user;
  if (r->n < MAX_READS) r->tvar[r->n] = tvar, r->flat[r->n] = flat;
  r->n++;
  return rg_random_value(RG_DOM_ZP, 7, tvar, flat);
}

static void reads_at(const rg_plan *plan, rg_ref out, const int32_t *pos, reads *r) {
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, 1);
  r->n = 0;
  rg_elem_eval *e = rg_elem_eval_new(plan, RG_DOM_ZP, &ctx, record, r);
  rg_value v;
  rg_err err;
  CHECK(e && rg_elem_eval_at(e, out, pos, &v, &err) == RG_OK);
  rg_elem_eval_free(e);
}

/* Checks every position of every box of side `side` of the pair; returns boxes checked. */
static int64_t check_affine(const rg_pet_pair *pp, int side, const char *what) {
  rg_ref out = side ? pp->rule->tgt[0] : pp->rule->src[0];
  const rg_plan *plan = pp->plan[side];
  const rg_cuts *c = rg_boxmap_cuts(pp->boxes[side], out);
  static reads base, step[RG_MAX_RANK], cur;
  int64_t nb = rg_cuts_boxes(c), bad = 0;
  for (int64_t k = 0; k < nb && bad == 0; k++) {
    int32_t lo[RG_MAX_RANK], hi[RG_MAX_RANK], pos[RG_MAX_RANK];
    rg_cuts_box(c, k, lo, hi);
    reads_at(plan, out, lo, &base);
    for (int d = 0; d < c->rank; d++) {
      if (hi[d] - lo[d] < 2) continue;
      memcpy(pos, lo, sizeof pos);
      pos[d]++;
      reads_at(plan, out, pos, &step[d]);
    }
    /* walk the box */
    memcpy(pos, lo, sizeof pos);
    for (;;) {
      reads_at(plan, out, pos, &cur);
      bool ok = cur.n == base.n && cur.n <= MAX_READS;
      for (int i = 0; ok && i < cur.n; i++) {
        int64_t want = base.flat[i];
        for (int d = 0; d < c->rank; d++)
          if (pos[d] > lo[d]) {
            ok = ok && step[d].n == base.n && step[d].tvar[i] == base.tvar[i];
            want += (int64_t)(pos[d] - lo[d]) * (step[d].flat[i] - base.flat[i]);
          }
        ok = ok && cur.tvar[i] == base.tvar[i] && cur.flat[i] == want;
      }
      if (!ok) {
        CHECK_MSG(0, "%s (%s): reads at a position of box %lld are not affine in the position", what,
                  side ? "mutant" : "original", (long long)k);
        bad++;
        break;
      }
      int d = c->rank - 1;
      while (d >= 0 && ++pos[d] == hi[d]) pos[d] = lo[d], d--;
      if (d < 0) break;
    }
  }
  return nb;
}

static void test_affine(void) {
  static const struct {
    const char *prog, *shapes;
  } cases[] = {
      {"(conv2d ?x ?w)", "x=1x2x7x6 w=2x2x3x3"},
      {"(conv2d 2 1 same none ?x ?w)", "x=1x2x7x6 w=2x2x3x3"},
      {"(conv2d 1 1 same none 2 3 2 ?x ?w)", "x=1x2x9x9 w=2x1x3x2"},
      {"(conv2d 2 2 valid none 1 2 2 ?x ?w)", "x=1x2x9x9 w=2x1x3x2"},
      {"(poolavg 3 3 2 2 same none ?x)", "x=1x2x7x6"},
      {"(poolavg 2 3 1 1 valid none ?x)", "x=1x2x7x6"},
      {"(conv2d (concat 3 ?x ?y) ?w)", "x=1x2x4x3 y=1x2x4x5 w=2x2x3x3"},
      {"(concat 3 (conv2d ?x ?w) (conv2d ?y ?w))", "x=1x2x4x3 y=1x2x4x5 w=2x2x3x3"},
      {"(matmul (pad 0 1 2 ?a) (slice 1 1 4 ?b))", "a=2x3 b=3x5"},
      {"(transpose 10 (matmul (transpose 10 (slice 1 1 4 ?b)) (transpose 10 (pad 0 1 2 ?a))))", "a=2x3 b=3x5"},
      {"(reshape 4x3 (transpose 10 (reshape 3x4 ?x)))", "x=12"},
      {"(reshape 2x6 (pad 0 3 1 (reshape 8 ?x)))", "x=4x2"},
      {"(reshape 6x2 (pad 1 1 0 ?x))", "x=3x3"},
      {"(reshape 2x2x3 (transpose 102 (reshape 2x2x3 (pad 1 1 0 ?x))))", "x=3x3"},
      {"(reshape 1x2x6x6 (transpose 12304 (reshape 2x1x2x6x3 (conv2d (reshape 2x2x6x3 (transpose 30124 "
       "(reshape 1x2x6x2x3 ?x))) ?w))))",
       "x=1x2x6x6 w=2x2x3x3"},
      {"(reshape 1x2x4x6 (transpose 234051 (reshape 2x2x1x2x2x3 (conv2d (reshape 4x2x2x3 (transpose 350124 "
       "(reshape 1x2x2x2x3x2 ?x))) ?w))))",
       "x=1x2x4x6 w=2x2x3x3"},
      {"(ewadd (conv2d ?x (enlarge 3 3 ?w)) (conv2d ?x (Iconv 2 3 3)))", "x=1x2x4x4 w=2x2x1x1"},
      {"(matmul (Imatmul 3) (slice 1 0 2 (pad 0 1 0 ?x)))", "x=2x4"},
      {"(split.1 1 (conv2d (concat 1 ?x (slice 3 0 4 (pad 3 1 0 ?x))) (concat 0 ?w ?w)))", "x=1x2x4x4 w=2x4x3x1"},
  };
  int64_t boxes = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    rg_pet_pair *pp = open_pair(cases[i].prog, cases[i].prog, cases[i].shapes);
    if (!pp) continue;
    boxes += check_affine(pp, 0, cases[i].prog);
    rg_pet_pair_free(pp);
  }
  CHECK(boxes > 100);
}

static void expect_reject(const char *orig, const char *mut, const char *shapes, const char *needle) {
  rg_pet_pair *pp = NULL;
  rg_err err;
  rg_status st = rg_pet_pair_new(orig, mut, shapes, &pp, &err);
  CHECK_MSG(st != RG_OK && strstr(err.msg, needle), "%s / %s: status %d '%s', want '%s'", orig, mut, st,
            st ? err.msg : "", needle);
  rg_pet_pair_free(pp);
}

static void test_reject(void) {
  expect_reject("(relu ?x)", "?x", "x=2x2", "original: relu is not multilinear");
  expect_reject("(conv2d ?x ?w)", "(conv2d 1 1 same relu ?x ?w)", "x=1x1x3x3 w=1x1x3x3",
                "mutant: conv2d with activation relu is not multilinear");
  expect_reject("(poolmax 2 2 1 1 same none ?x)", "?x", "x=1x1x3x3", "poolmax is not multilinear");
  expect_reject("(matmul sigmoid ?x ?y)", "(matmul ?x ?y)", "x=2x2 y=2x2", "matmul with activation sigmoid");
  expect_reject("(ewadd ?x ?y)", "?x", "x=2x2", "tensor variable ?y has no shape");
  expect_reject("?x", "(transpose 10 ?x)", "x=2x3", "output 1 has shape 2x3 in the original but 3x2 in the mutant");
  expect_reject("?x", "?z", "x=2x3 z=2x3", "the mutant uses ?z, which the original does not");
  expect_reject("(ewadd ?x", "?x", "x=2", "original:");
  expect_reject("?x", "?x => ?x", "x=2", "mutant: expected one program");
  expect_reject("(ewadd ?x ?y)", "?x", "x=2x2 y=3x3", "original: ewadd: operands 2x2 and 3x3 differ in shape");
}

static void test_degree(void) {
  rg_pet_pair *pp = open_pair("(ewadd (matmul (ewmul ?a ?b) ?c) (smul ?a ?s))", "(matmul ?a ?c)",
                              "a=2x2 b=2x2 c=2x2 s=scalar");
  if (pp) {
    CHECK(rg_boxes_degree(pp->plan[0], pp->rule->src[0]) == 3);
    CHECK(rg_boxes_degree(pp->plan[1], pp->rule->tgt[0]) == 2);
    CHECK(pp->degree == 3);
    rg_pet_pair_free(pp);
  }
}

int main(void) {
  test_hand_cuts();
  test_affine();
  test_reject();
  test_degree();
  return check_done("test_certify_boxes");
}
