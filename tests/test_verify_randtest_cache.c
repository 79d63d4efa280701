/* tests/test_verify_randtest_cache.c: the verdict cache of renamed candidates. A renaming of a
 * tested rule (same shapes) is answered from the cache with the same verdict; other shapes or a
 * different rule are tested; false rules stay dropped through the cache with their reason; the
 * verdict is the one rg_randtest_rule gives on the renamed rule; a zero budget stores nothing. */
#include "check.h"
#include "verify/randtest_cache.h"

/* The verdict on rule at shapes: through cache c (*hit says whether it was known), or by
 * rg_randtest_rule itself when c is NULL. */
static rg_randtest_verdict run(rg_randtest_cache *c, const char *rule, const char *shapes,
                               bool *hit) {
  t_graph t;
  rg_randtest_verdict v = RG_RANDTEST_COUNT;
  *hit = false;
  if (t_graph_open(&t, rule, shapes)) return v;
  rg_randtest_opts o;
  rg_err err;
  rg_randtest_opts_default(&o);
  rg_status st = c ? rg_randtest_rule_cached(c, t.r, &t.b, &o, &v, hit, &err)
                   : rg_randtest_rule(t.r, &t.b, &o, &v, &err);
  if (st) fprintf(stderr, "%s: %s\n", rule, err.msg);
  t_graph_close(&t);
  return v;
}

static rg_randtest_verdict direct(const char *rule, const char *shapes) {
  bool hit;
  return run(NULL, rule, shapes, &hit);
}

#define EXPECT(c, rule, shapes, want, want_hit)                                                  \
  do {                                                                                           \
    bool hit_;                                                                                   \
    rg_randtest_verdict v_ = run(c, rule, shapes, &hit_);                                        \
    CHECK_MSG(v_ == (want) && hit_ == (want_hit), "%s [%s]: got %s%s, want %s%s", rule, shapes, \
              rg_randtest_verdict_name(v_), hit_ ? " (cached)" : "",                            \
              rg_randtest_verdict_name(want), (want_hit) ? " (cached)" : "");                   \
  } while (0)

int main(void) {
  rg_randtest_cache *c = rg_randtest_cache_new(1 << 20);
  CHECK(c != NULL);
  const char *comm = "(ewadd ?x1 ?x2) => (ewadd ?x2 ?x1)";
  EXPECT(c, comm, "x1=2x4 x2=2x4", RG_RANDTEST_PASS, false);
  EXPECT(c, comm, "x1=2x4 x2=2x4", RG_RANDTEST_PASS, true);
  EXPECT(c, "(ewadd ?x2 ?x3) => (ewadd ?x3 ?x2)", "x2=2x4 x3=2x4", RG_RANDTEST_PASS, true);
  EXPECT(c, "(ewadd ?b ?a) => (ewadd ?a ?b)", "a=2x4 b=2x4", RG_RANDTEST_PASS, true);
  /* other shapes, or another rule, are a new key */
  EXPECT(c, comm, "x1=4x4 x2=4x4", RG_RANDTEST_PASS, false);
  EXPECT(c, "(ewmul ?x1 ?x2) => (ewmul ?x2 ?x1)", "x1=2x4 x2=2x4", RG_RANDTEST_PASS, false);

  /* false rules are dropped for their reason, renamed or not */
  const char *wrong = "(ewadd ?x1 ?x2) => (ewmul ?x1 ?x2)";
  rg_randtest_verdict want = direct("(ewadd ?v0 ?v1) => (ewmul ?v0 ?v1)", "v0=2x4 v1=2x4");
  CHECK(want == RG_RANDTEST_ZP);
  EXPECT(c, wrong, "x1=2x4 x2=2x4", want, false);
  EXPECT(c, "(ewadd ?w1 ?w2) => (ewmul ?w1 ?w2)", "w1=2x4 w2=2x4", want, true);
  /* true only at width 1: the shape sets decide, and the renaming keeps that verdict */
  const char *w1 = "(matmul ?x ?y) => (matmul ?y ?x)";
  want = direct("(matmul ?v0 ?v1) => (matmul ?v1 ?v0)", "v0=1x1 v1=1x1");
  CHECK(want == RG_RANDTEST_SHAPES_ZP);
  EXPECT(c, w1, "x=1x1 y=1x1", want, false);
  EXPECT(c, "(matmul ?b ?a) => (matmul ?a ?b)", "a=1x1 b=1x1", want, true);
  rg_randtest_cache_free(c);

  /* a budget too small for any key: every call tests, none is remembered */
  c = rg_randtest_cache_new(0);
  CHECK(c != NULL);
  EXPECT(c, comm, "x1=2x4 x2=2x4", RG_RANDTEST_PASS, false);
  EXPECT(c, comm, "x1=2x4 x2=2x4", RG_RANDTEST_PASS, false);
  rg_randtest_cache_free(c);
  return check_done("test_verify_randtest_cache");
}
