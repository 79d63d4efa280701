/* tests/test_fingerprint.c: fingerprints: incremental values agree with whole-graph evaluation
 * by the interpreter (the bias kernels too), known equivalences collide, the table is the same for 1 and 2 threads and
 * when split over several passes by a small record cap, and a hopeless memory limit is an error. */
#include "check.h"
#include "fingerprint/fingerprint.h"

static rg_enum_space space(const char *ops, const char *inputs, int depth) {
  rg_enum_choices ch;
  rg_enum_inputset in;
  rg_enum_space sp;
  rg_err err;
  rg_enum_choices_default(&ch);
  if (inputs) {
    CHECK(rg_enum_inputs_parse(inputs, strlen(inputs), &in, &err) == RG_OK);
  } else {
    rg_enum_inputs_default(&in);
  }
  CHECK(rg_enum_choices_set_ops(&ch, ops, &err) == RG_OK);
  CHECK(rg_enum_space_init(&sp, &ch, &in, depth, &err) == RG_OK);
  return sp;
}

static rg_fp_opts opts(int threads) {
  return (rg_fp_opts){.threads = threads, .seed = 7, .mem_limit = (size_t)1 << 30, .max_outputs = 2};
}

static bool collect(const rg_enum_space *sp, const rg_fp_opts *o, rg_fp_table *t) {
  rg_enum_stats stats;
  rg_err err;
  rg_status st = rg_fp_collect(sp, o, 0, UINT64_MAX, t, &stats, &err);
  if (st) fprintf(stderr, "collect: %s\n", err.msg);
  return st == RG_OK;
}

/* Text of a record's graph. */
static void text_of(const rg_enum_space *sp, const rg_fp_record *r, char *buf, size_t n) {
  rg_strbuf sb;
  rg_err err;
  rg_sb_init(&sb);
  if (rg_enum_code_print(sp, &r->code, &sb, &err)) snprintf(buf, n, "?");
  else snprintf(buf, n, "%s", rg_sb_str(&sb));
  rg_sb_free(&sb);
}

static uint64_t fp_of(const rg_enum_space *sp, const rg_fp_table *t, const char *text) {
  char buf[512];
  for (size_t i = 0; i < t->n; i++) {
    text_of(sp, &t->r[i], buf, sizeof buf);
    if (!strcmp(buf, text)) return t->r[i].fp;
  }
  CHECK_MSG(false, "graph not enumerated: %s", text);
  return 0;
}

/* Incremental fingerprints (fast kernels) equal whole-graph evaluation by the interpreter. */
static void test_incremental_matches_interpreter(void) {
  rg_enum_space sp = space("all", NULL, 2);
  rg_fp_opts o = opts(2);
  rg_fp_table t;
  CHECK(collect(&sp, &o, &t));
  CHECK(t.n > 10000);
  int bad = 0;
  rg_value **inputs = rg_fp_inputs_new(&sp, o.seed);
  for (size_t i = 0; i < t.n; i += 13) { /* a sample keeps the test quick; the next test is exhaustive */
    uint64_t h[RG_RULE_MAX_OUTPUTS], fp = 0;
    int n = 0;
    rg_err err;
    CHECK(rg_fp_graph_hashes(&sp, &t.r[i].code, o.seed, inputs, h, &n, &fp, &err) == RG_OK);
    if (fp != t.r[i].fp && bad++ < 3) {
      char buf[512];
      text_of(&sp, &t.r[i], buf, sizeof buf);
      fprintf(stderr, "incremental fingerprint differs for %s\n", buf);
    }
  }
  CHECK(bad == 0);
  rg_fp_inputs_free(&sp, inputs);
  rg_fp_table_free(&t);
  rg_enum_space_free(&sp);
}

/* Every graph of up to two operators of ch over in has the same fingerprint record through the
 * kernels as through the interpreter alone; there are more than at_least of them. */
static void kernels_match(const rg_enum_choices *ch, const rg_enum_inputset *in, const char *what,
                          size_t at_least) {
  rg_enum_space sp;
  rg_err err;
  CHECK(rg_enum_space_init(&sp, ch, in, 2, &err) == RG_OK);
  rg_fp_opts fast = opts(2), slow = opts(2);
  fast.keep_redundant = slow.keep_redundant = true;
  slow.interp_only = true;
  rg_fp_table a, b;
  CHECK(collect(&sp, &fast, &a));
  CHECK(collect(&sp, &slow, &b));
  printf("%s vs interpreter: %zu and %zu records\n", what, a.n, b.n);
  CHECK(a.n > at_least && a.n == b.n && !memcmp(a.r, b.r, sizeof *a.r * a.n));
  rg_fp_table_free(&a);
  rg_fp_table_free(&b);
  rg_enum_space_free(&sp);
}

/* The kernels of fingerprint/kernels.c agree with the interpreter: every graph of up to two
 * operators of --ops all, with the widest choices (conv strides 1 and 2, same and valid, every
 * activation, every kernel, all permutations of rank 2-4, axes 0-3), has the same fingerprint
 * both ways. Two operators reach concat seams (split after concat) and chained kernels. */
static void test_kernels_match_interpreter(void) {
  rg_enum_choices ch;
  rg_enum_inputset in;
  rg_err err;
  rg_enum_choices_default(&ch);
  const char *inputs = "x 2x3\ny 2x3\nm 3x3\ni 2x2x4x5\nw 3x2x3x3\nv 2x1x1x3\nu 2x2x3x1\ns scalar\n";
  CHECK(rg_enum_inputs_parse(inputs, strlen(inputs), &in, &err) == RG_OK);
  CHECK(rg_enum_choices_set_ops(&ch, "all", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "conv-stride", "1,2", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "conv-pad", "same,valid", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "conv-dilation", "1,2", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "conv-groups", "1,2", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "conv-act", "none,relu,sigmoid,tanh", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "matmul-act", "none,relu,sigmoid,tanh", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "pool-act", "none,relu", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "kernels", "3x3,1x3,3x1,1x1", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "perms", "all", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "axes", "0,1,2,3", &err) == RG_OK);
  kernels_match(&ch, &in, "kernels", 10000);
}

/* The bias kernels (whole and at sample positions) agree with the interpreter: every graph of up
 * to two operators around a bias on axes 0-3, over vectors as long as each axis (images of more
 * than RG_FP_SAMPLES elements, so the last operator is hashed at samples). */
static void test_bias_kernels_match_interpreter(void) {
  rg_enum_choices ch;
  rg_enum_inputset in;
  rg_err err;
  rg_enum_choices_default(&ch);
  const char *inputs = "x 2x3\ni 2x4x5x6\nw 4x4x3x3\na 2\nb 3\nc 4\nd 5\ne 6\ns scalar\n";
  CHECK(rg_enum_inputs_parse(inputs, strlen(inputs), &in, &err) == RG_OK);
  CHECK(rg_enum_choices_set_ops(&ch, "bias,ewadd,smul,concat,split,transpose,slice,conv2d", &err) == RG_OK);
  CHECK(rg_enum_choices_set(&ch, "axes", "0,1,2,3", &err) == RG_OK);
  kernels_match(&ch, &in, "bias kernels", 1000);
}

static void test_collisions(void) {
  rg_enum_space sp = space("all", "x 2x4\ny 2x4\nz 4x4\nw 4x4\n", 2);
  rg_fp_opts o = opts(1);
  rg_fp_table t;
  CHECK(collect(&sp, &o, &t));
  CHECK(fp_of(&sp, &t, "(ewadd ?x ?y)") == fp_of(&sp, &t, "(ewadd ?y ?x)"));
  CHECK(fp_of(&sp, &t, "(transpose 10 (transpose 10 ?x))") == fp_of(&sp, &t, "?x"));
  CHECK(fp_of(&sp, &t, "(relu (ewadd ?x ?y))") != fp_of(&sp, &t, "(ewadd ?y (relu ?x))"));
  CHECK(fp_of(&sp, &t, "(ewadd ?x ?y)") != fp_of(&sp, &t, "(ewmul ?x ?y)"));
  CHECK(fp_of(&sp, &t, "(split.0 0 (concat 0 ?x ?y))") == fp_of(&sp, &t, "?x"));
  rg_fp_table_free(&t);
  rg_enum_space_free(&sp);
}

static bool same_table(const rg_fp_table *a, const rg_fp_table *b) {
  return a->n == b->n && !memcmp(a->r, b->r, sizeof *a->r * a->n);
}

static void test_threads_and_passes(void) {
  rg_enum_space sp = space("taso", NULL, 2);
  rg_fp_opts o1 = opts(1), o2 = opts(2);
  rg_fp_table t1, t2;
  CHECK(collect(&sp, &o1, &t1));
  CHECK(collect(&sp, &o2, &t2));
  CHECK(same_table(&t1, &t2));
  /* several passes under a small record cap: their concatenation is the one-pass table */
  o2.max_records = t1.n / 3 + 1;
  rg_fp_record *all = malloc(sizeof *all * t1.n);
  size_t n = 0;
  uint64_t lo = 0;
  int passes = 0;
  rg_err err;
  for (;;) {
    rg_fp_table p;
    rg_enum_stats stats;
    CHECK(rg_fp_collect(&sp, &o2, lo, UINT64_MAX, &p, &stats, &err) == RG_OK);
    CHECK(p.n <= o2.max_records);
    if (n + p.n <= t1.n) memcpy(all + n, p.r, sizeof *all * p.n);
    n += p.n;
    passes++;
    uint64_t hi = p.hi;
    rg_fp_table_free(&p);
    if (hi == UINT64_MAX || passes > 64) break;
    lo = hi + 1;
  }
  CHECK(passes >= 3);
  CHECK(n == t1.n && !memcmp(all, t1.r, sizeof *all * n));
  free(all);
  /* buckets: every record is in a bucket or counted as single */
  size_t pos = 0, start, len, in_buckets = 0;
  uint64_t singles = 0;
  while (rg_fp_table_next_bucket(&t1, &pos, &start, &len, &singles)) in_buckets += len;
  CHECK(in_buckets + singles == t1.n && in_buckets > 0);
  rg_fp_table_free(&t1);
  rg_fp_table_free(&t2);
  /* a memory limit below the minimum is an error, not a crash */
  rg_fp_opts tiny = opts(1);
  tiny.mem_limit = 1 << 20;
  rg_fp_table t;
  rg_enum_stats stats;
  CHECK(rg_fp_collect(&sp, &tiny, 0, UINT64_MAX, &t, &stats, &err) == RG_ERR_LIMIT);
  CHECK(strstr(err.msg, "too small to make progress") != NULL);
  rg_fp_table_free(&t);
  rg_enum_space_free(&sp);
}

/* Sample positions: every position of a small tensor; else one in each of RG_FP_SAMPLES equal
 * runs, increasing, the same for every tensor of that size. A change away from the samples
 * keeps the sample hash (the collision testing later drops) but never the full hash. */
static void test_sample_positions(void) {
  rg_fp_sample s, again;
  rg_fp_sample_init(20, &s);
  CHECK(s.count == 20 && s.pos[0] == 0 && s.pos[19] == 19);
  for (int64_t n = RG_FP_SAMPLES; n < 5000; n += 37) {
    rg_fp_sample_init(n, &s);
    rg_fp_sample_init(n, &again);
    CHECK(s.count == RG_FP_SAMPLES && again.count == s.count &&
          !memcmp(s.pos, again.pos, sizeof s.pos));
    for (int k = 0; k < s.count; k++)
      CHECK_MSG(s.pos[k] >= n * k / RG_FP_SAMPLES && s.pos[k] < n * (k + 1) / RG_FP_SAMPLES,
                "n %lld sample %d at %lld", (long long)n, k, (long long)s.pos[k]);
  }
  int32_t dims[4] = {2, 4, 5, 5};
  rg_shape sh = rg_shape_make(4, dims);
  rg_value v[200], w[200];
  for (int i = 0; i < 200; i++)
    v[i].z = w[i].z = (uint64_t)i * 7919;
  rg_fp_sample_init(200, &s);
  int off = s.pos[0] + 1 < s.pos[1] ? (int)s.pos[0] + 1 : (int)s.pos[0] - 1;
  w[off].z += 1;
  CHECK(rg_fp_tensor_sample_hash(&sh, v, &s) == rg_fp_tensor_sample_hash(&sh, w, NULL));
  CHECK(rg_fp_tensor_hash(&sh, v) != rg_fp_tensor_hash(&sh, w));
  w[s.pos[3]].z += 1;
  CHECK(rg_fp_tensor_sample_hash(&sh, v, &s) != rg_fp_tensor_sample_hash(&sh, w, &s));
}

int main(void) {
  test_sample_positions();
  test_incremental_matches_interpreter();
  test_kernels_match_interpreter();
  test_bias_kernels_match_interpreter();
  test_collisions();
  test_threads_and_passes();
  return check_done("test_fingerprint");
}
