/* tests/test_enumerate.c: the enumerator: exact graph counts worked out by hand, each DAG once,
 * every operator of the table enumerable, bias's axes and vectors, input-set parsing and option
 * errors. */
#include "check.h"
#include "enumerate/enumerate.h"

typedef struct {
  uint64_t by_len[RG_ENUM_MAX_DEPTH + 1];
  /* every visited code, to check that no DAG comes twice (as a set of canonical node texts) */
  char (*texts)[1024];
  int n, cap;
  const rg_enum_space *sp;
} counter;

/* Canonical text of a visited graph: its outputs (sinks) printed as terms; they determine the
 * DAG, and print equally whatever order its operators were added in. */
static rg_status visit(void *user, const rg_enum_state *st, bool *extend, rg_err *err) {
  counter *c = user;
  (void)extend;
  /* the weight kept step by step is the code's, recounted, and within the depth */
  CHECK(st->weight == rg_enum_code_weight(c->sp, &st->code) && st->weight <= c->sp->depth);
  if (!st->is_graph) return RG_OK;
  c->by_len[st->n_ops]++;
  if (!c->texts) return RG_OK;
  rg_graph *g = rg_graph_new();
  rg_ref outs[RG_RULE_MAX_OUTPUTS];
  int n_outs;
  rg_status s = rg_enum_graph_prepare(c->sp, g, err);
  if (!s) s = rg_enum_build(c->sp, &st->code, g, outs, &n_outs, err);
  if (!s && c->n < c->cap) {
    rg_strbuf sb;
    rg_sb_init(&sb);
    /* the outputs' terms, sorted, so independent operators in any order print the same */
    char lines[RG_RULE_MAX_OUTPUTS][256];
    int nl = 0;
    for (int i = 0; i < n_outs; i++) {
      rg_sb_clear(&sb);
      rg_text_print_ref(g, outs[i], &sb);
      snprintf(lines[nl++], 256, "%s", rg_sb_str(&sb));
    }
    qsort(lines, (size_t)nl, 256, (int (*)(const void *, const void *))strcmp);
    int used = 0;
    c->texts[c->n][0] = 0;
    for (int i = 0; i < nl && used < 1024; i++)
      used += snprintf(c->texts[c->n] + used, (size_t)(1024 - used), "%s|", lines[i]);
    c->n++;
    rg_sb_free(&sb);
  }
  rg_graph_free(g);
  return s;
}

static const char *input_text = "x 2x4\ny 2x4\n";

static void two_inputs(rg_enum_inputset *in) {
  rg_err err;
  if (rg_enum_inputs_parse(input_text, strlen(input_text), in, &err)) fprintf(stderr, "%s\n", err.msg);
}

static int max_outputs = RG_RULE_MAX_OUTPUTS;
static bool extend_swapped = true, all_inputs = true;

static void run(const char *ops, int depth, int threads, counter *c) {
  rg_enum_choices ch;
  rg_enum_inputset in;
  rg_enum_space sp;
  rg_err err;
  rg_enum_choices_default(&ch);
  two_inputs(&in);
  CHECK(rg_enum_choices_set_ops(&ch, ops, &err) == RG_OK);
  CHECK(rg_enum_space_init(&sp, &ch, &in, depth, &err) == RG_OK);
  c->sp = &sp;
  counter per[4] = {0};
  void *users[4];
  for (int t = 0; t < threads; t++) {
    per[t] = *c;
    memset(per[t].by_len, 0, sizeof per[t].by_len);
    per[t].n = 0;
    per[t].texts = c->texts ? c->texts + t * (c->cap / threads) : NULL;
    per[t].cap = c->cap / threads;
    users[t] = &per[t];
  }
  rg_enum_visitor v = {visit, NULL};
  rg_enum_run_opts o = {.threads = threads, .max_outputs = max_outputs, .extend_swapped = extend_swapped,
                        .all_inputs = all_inputs};
  rg_enum_stats stats;
  CHECK(rg_enum_run(&sp, &v, users, &o, &stats, &err) == RG_OK);
  memset(c->by_len, 0, sizeof c->by_len);
  c->n = 0;
  for (int t = 0; t < threads; t++) {
    for (int k = 0; k <= RG_ENUM_MAX_DEPTH; k++) c->by_len[k] += per[t].by_len[k];
    if (c->texts) {
      memmove(c->texts + c->n, per[t].texts, sizeof *c->texts * (size_t)per[t].n);
      c->n += per[t].n;
    }
  }
  CHECK(stats.graphs == c->by_len[1] + c->by_len[2] + c->by_len[3] + c->by_len[4]);
  rg_enum_space_free(&sp);
}

static int cmp_text(const void *a, const void *b) { return strcmp(a, b); }

static void test_counts(void) {
  counter c = {0};
  /* depth 1 over {ewadd, ewmul} and inputs x, y (both 2x4): op(a, b) for a, b in {x, y}: 2*4 */
  run("ewadd,ewmul", 1, 1, &c);
  CHECK_MSG(c.by_len[1] == 8, "%llu", (unsigned long long)c.by_len[1]);
  /* depth 2: two independent first-level nodes: C(8, 2) = 28; or one first-level node t (8
   * choices) and a second node using t: 2 ops x (3*3 - 2*2 = 5 operand pairs containing t) = 10
   * each, 80 in all. 28 + 80 = 108. */
  run("ewadd,ewmul", 2, 1, &c);
  CHECK_MSG(c.by_len[1] == 8 && c.by_len[2] == 108, "%llu %llu", (unsigned long long)c.by_len[1],
            (unsigned long long)c.by_len[2]);
  /* the same with 2 threads */
  run("ewadd,ewmul", 2, 2, &c);
  CHECK(c.by_len[1] == 8 && c.by_len[2] == 108);
  /* at most one output: the 28 pairs of independent nodes are not graphs */
  max_outputs = 1;
  run("ewadd,ewmul", 2, 2, &c);
  CHECK(c.by_len[1] == 8 && c.by_len[2] == 80);
  /* depth 3, one output. Chains t1 -> t2 -> r: t1 8 ways, t2 = op(pair over {x, y, t1} holding
   * t1) 2 x 5 = 10 ways, r = op(pair over {x, y, t1, t2} holding t2) 2 x 7 = 14 ways: 1120.
   * Joins r = op(t, u) of two independent first-level nodes: 28 pairs x 2 ops x 2 orders = 112.
   * 1232 in all. */
  run("ewadd,ewmul", 3, 1, &c);
  CHECK_MSG(c.by_len[3] == 1232, "%llu", (unsigned long long)c.by_len[3]);
  max_outputs = RG_RULE_MAX_OUTPUTS;
  /* swapped commutative operands, ewadd(y, x), are visited but not extended: at depth 2 the
   * graphs holding one first are gone (only a second, last operator may be swapped) */
  extend_swapped = false;
  run("ewadd,ewmul", 2, 1, &c);
  CHECK(c.by_len[1] == 8 && c.by_len[2] < 108);
  extend_swapped = true;
  /* input order: x and y are interchangeable, so a graph must use x if it uses y: at depth 1
   * op(x, x), op(x, y), op(y, x) for both ops, 6 (not op(y, y)) */
  all_inputs = false;
  run("ewadd,ewmul", 1, 1, &c);
  CHECK_MSG(c.by_len[1] == 6, "%llu", (unsigned long long)c.by_len[1]);
  all_inputs = true;
  /* relu over x and y: a graph is a relu chain of length i on x and j on y; with i + j = n
   * operators there are n + 1 of them: 2, 3, 4 graphs of 1, 2, 3 operators */
  run("relu", 3, 1, &c);
  CHECK_MSG(c.by_len[1] == 2 && c.by_len[2] == 3 && c.by_len[3] == 4, "%llu %llu %llu",
            (unsigned long long)c.by_len[1], (unsigned long long)c.by_len[2],
            (unsigned long long)c.by_len[3]);
}

/* Identity applications are not operators: enlarge to 3x3 applies to the 1x3 weight only, and
 * enlarging its result again (now 3x3) is skipped too; a reshape to the input's own shape is
 * skipped, one to the other input-set shape is not. */
static void test_identity_skipped(void) {
  counter c = {0};
  input_text = "w 4x4x3x3\nv 4x4x1x3\n";
  run("enlarge", 2, 1, &c);
  CHECK_MSG(c.by_len[1] == 1 && c.by_len[2] == 0, "%llu %llu", (unsigned long long)c.by_len[1],
            (unsigned long long)c.by_len[2]);
  input_text = "x 2x4\ny 4x2\n";
  /* reshape x to 4x2, y to 2x4 (and the 2-D flattenings are the shapes themselves) */
  run("reshape", 1, 1, &c);
  CHECK_MSG(c.by_len[1] == 2, "%llu", (unsigned long long)c.by_len[1]);
  input_text = "x 2x4\ny 2x4\n";
}

/* A split counts once towards the depth however many of its outputs a graph uses (TASO's split
 * is one operator): at depth 2 over {concat, split} and x, y (2x4), the 3-variant graphs are
 * concat(a, b) on axis 0 or 1 (2 x 4 operand pairs) with both halves of it split on that axis
 * (the one seam): 8. A mutation that counts split.1 beside split.0 gives none. */
static void test_split_counted_once(void) {
  counter c = {0};
  run("concat,split", 2, 1, &c);
  CHECK_MSG(c.by_len[3] == 8 && c.by_len[4] == 0, "%llu %llu", (unsigned long long)c.by_len[3],
            (unsigned long long)c.by_len[4]);
  /* depth 1: no seam to split at, so nothing but the 8 concats */
  run("concat,split", 1, 1, &c);
  CHECK_MSG(c.by_len[1] == 8 && c.by_len[2] == 0, "%llu", (unsigned long long)c.by_len[2]);
  /* depth 3 reaches 4 variants, never 5 (RG_ENUM_MAX_DEPTH) */
  run("concat,split", 3, 2, &c);
  CHECK(c.by_len[4] > 0);
}

/* No DAG is visited twice, at depth 3 over {ewadd, relu, concat, split}. */
static void test_each_dag_once(void) {
  counter c = {0};
  c.cap = 100000;
  c.texts = malloc(sizeof *c.texts * (size_t)c.cap);
  run("ewadd,relu,concat,split", 3, 2, &c);
  CHECK(c.n > 1000 && c.n < c.cap);
  qsort(c.texts, (size_t)c.n, sizeof *c.texts, cmp_text);
  int dups = 0;
  for (int i = 1; i < c.n; i++)
    if (!strcmp(c.texts[i - 1], c.texts[i]) && ++dups < 4) fprintf(stderr, "twice: %s\n", c.texts[i]);
  CHECK_MSG(dups == 0, "%d duplicate DAGs of %d", dups, c.n);
  free(c.texts);
}

/* Every operator of ir/ops.def (but input) has an enumeration entry and, under --ops all with
 * the default inputs, at least one variant. */
static void test_every_op(void) {
  rg_enum_choices ch;
  rg_enum_inputset in;
  rg_err err;
  rg_enum_choices_default(&ch);
  rg_enum_inputs_default(&in);
  CHECK(rg_enum_choices_set_ops(&ch, "all", &err) == RG_OK);
  rg_enum_variant vs[RG_ENUM_MAX_OP_VARIANTS];
  for (int op = 0; op < RG_OP_COUNT; op++) {
    if (op == RG_OP_INPUT) {
      CHECK(!rg_enum_op_supported((rg_op)op));
      continue;
    }
    CHECK_MSG(rg_enum_op_supported((rg_op)op), "operator %s has no entry in enumerate/choices.c",
              rg_op_get((rg_op)op)->name);
    CHECK_MSG(rg_enum_op_variants((rg_op)op, &ch, &in, vs, RG_ENUM_MAX_OP_VARIANTS) > 0,
              "operator %s has no variant under --ops all", rg_op_get((rg_op)op)->name);
  }
}

/* bias: a vector along each of --axes where it is as long as that axis; the default input set
 * gains two vectors of size 4 only on request (TASO's run keeps its 20 inputs). */
static void test_bias(void) {
  counter c = {0};
  /* bias 0 (x, c) and bias 1 (x, b); a vector along its own axis 0: bias 0 (b, b), (c, c) */
  input_text = "x 2x4\nb 4\nc 2\n";
  run("bias", 1, 1, &c);
  CHECK_MSG(c.by_len[1] == 4, "%llu", (unsigned long long)c.by_len[1]);
  input_text = "x 2x4\ny 2x4\n";
  rg_enum_choices ch;
  rg_enum_inputset in;
  rg_err err;
  rg_enum_choices_default(&ch);
  rg_enum_inputs_default(&in);
  rg_enum_variant vs[RG_ENUM_MAX_OP_VARIANTS];
  CHECK(!ch.op[RG_OP_BIAS] && rg_enum_op_variants(RG_OP_BIAS, &ch, &in, vs, RG_ENUM_MAX_OP_VARIANTS) == 0);
  CHECK(rg_enum_choices_set_ops(&ch, "bias", &err) == RG_OK);
  CHECK(rg_enum_op_variants(RG_OP_BIAS, &ch, &in, vs, RG_ENUM_MAX_OP_VARIANTS) == 2 && vs[0].params[0] == 0 &&
        vs[1].params[0] == 1 && vs[0].n_in == 2);
  CHECK(rg_enum_choices_set(&ch, "axes", "1,3", &err) == RG_OK);
  CHECK(rg_enum_op_variants(RG_OP_BIAS, &ch, &in, vs, RG_ENUM_MAX_OP_VARIANTS) == 2 && vs[1].params[0] == 3);
  CHECK(in.n == 20);
  rg_enum_inputs_add_bias(&in);
  CHECK(in.n == 22 && !strcmp(in.in[20].name, "b1") && !strcmp(in.in[21].name, "b2"));
  CHECK(in.in[21].shape.rank == 1 && in.in[21].shape.dim[0] == 4);
}

static void test_errors(void) {
  rg_enum_choices ch;
  rg_enum_inputset in;
  rg_enum_space sp;
  rg_err err;
  rg_enum_choices_default(&ch);
  CHECK(rg_enum_choices_set_ops(&ch, "ewadd,frob", &err) == RG_ERR_ARG);
  CHECK(strstr(err.msg, "unknown operator 'frob'") != NULL);
  CHECK(rg_enum_choices_set_ops(&ch, "input", &err) == RG_ERR_ARG);
  /* groups inside a list: TASO's operators plus the bias, nothing else */
  CHECK(rg_enum_choices_set_ops(&ch, "taso,bias", &err) == RG_OK);
  CHECK(ch.op[RG_OP_BIAS] && ch.op[RG_OP_CONV2D] && ch.op[RG_OP_ENLARGE] && !ch.op[RG_OP_TANH] && !ch.op[RG_OP_PAD]);
  CHECK(rg_enum_choices_set(&ch, "conv-act", "none,frob", &err) == RG_ERR_ARG);
  CHECK(rg_enum_choices_set(&ch, "kernels", "3x3,9x9", &err) == RG_ERR_ARG);
  CHECK(rg_enum_choices_set(&ch, "kernels", "3x3,3x1,1x1", &err) == RG_OK && ch.n_kernels == 3);
  CHECK(rg_enum_choices_set(&ch, "conv-stride", "1,2", &err) == RG_OK && ch.conv_strides == 6);
  CHECK(rg_enum_inputs_parse("x 2x4\nx 4x4\n", 12, &in, &err) == RG_ERR_PARSE && err.line == 2);
  CHECK(rg_enum_inputs_parse("x 2y4\n", 6, &in, &err) == RG_ERR_PARSE && err.line == 1);
  CHECK(rg_enum_inputs_parse("1x 2x4\n", 7, &in, &err) == RG_ERR_PARSE);
  CHECK(rg_enum_inputs_parse("x\n", 2, &in, &err) == RG_ERR_PARSE);
  CHECK(rg_enum_inputs_parse("# none\n", 7, &in, &err) == RG_ERR_PARSE);
  CHECK(rg_enum_inputs_parse("x 2x4 # act\n\ns scalar\n", 22, &in, &err) == RG_OK && in.n == 2 &&
        in.in[1].shape.rank == 0);
  /* seams: where a split may cut, outermost last, as concats would have made them */
  CHECK(rg_enum_inputs_parse("y 2x8[4]\n", 9, &in, &err) == RG_OK && in.in[0].shape.nseam[1] == 1 &&
        in.in[0].shape.seam[1][0] == 4 && in.in[0].shape.dim[1] == 8 && in.in[0].shape.nseam[0] == 0);
  CHECK(rg_enum_inputs_parse("y 8[2,6,4]x3\n", 13, &in, &err) == RG_OK && in.in[0].shape.nseam[0] == 3 &&
        in.in[0].shape.seam[0][2] == 4 && in.in[0].shape.dim[1] == 3);
  CHECK(rg_enum_inputs_parse("y 8[6,2,4]\n", 11, &in, &err) == RG_ERR_PARSE && strstr(err.msg, "in an order concats make"));
  CHECK(rg_enum_inputs_parse("y 8[8]\n", 7, &in, &err) == RG_ERR_PARSE);
  CHECK(rg_enum_inputs_parse("y 8[0]\n", 7, &in, &err) == RG_ERR_PARSE);
  CHECK(rg_enum_inputs_parse("y 8[4,4]\n", 9, &in, &err) == RG_ERR_PARSE);
  CHECK(rg_enum_inputs_parse("y 8[4\n", 6, &in, &err) == RG_ERR_PARSE && strstr(err.msg, "one group of positions"));
  /* one non-empty group per axis, right after its size, no empty or zero-padded positions */
  const char *malformed[] = {"y 2x8[]\n", "y 2x8[4,]\n", "y 2x8[4][2]\n", "y scalar[4]\n", "y 2x8[04]\n", "y [4]8\n",
                             "y 2x8[4]5\n", "y 2x8[4,,2]\n"};
  for (size_t k = 0; k < sizeof malformed / sizeof *malformed; k++)
    CHECK_MSG(rg_enum_inputs_parse(malformed[k], strlen(malformed[k]), &in, &err) == RG_ERR_PARSE, "%s", malformed[k]);
  CHECK(rg_enum_inputs_parse("y 8[4]x6[2]\n", 12, &in, &err) == RG_OK && in.in[0].shape.nseam[1] == 1);
  CHECK(rg_enum_inputs_parse("y 8[1,2,3,5,6]\n", 15, &in, &err) == RG_ERR_PARSE); /* past RG_MAX_SEAMS */
  rg_enum_inputs_default(&in);
  CHECK(in.n == 20);
  CHECK(rg_enum_space_init(&sp, &ch, &in, 0, &err) == RG_ERR_ARG);
  rg_enum_space_free(&sp);
  CHECK(rg_enum_space_init(&sp, &ch, &in, 99, &err) == RG_ERR_ARG);
  rg_enum_space_free(&sp);
  CHECK(rg_enum_inputs_parse("big 100x100\n", 12, &in, &err) == RG_OK);
  CHECK(rg_enum_space_init(&sp, &ch, &in, 2, &err) == RG_ERR_LIMIT);
  rg_enum_space_free(&sp);
}

int main(void) {
  test_counts();
  test_identity_skipped();
  test_split_counted_once();
  test_each_dag_once();
  test_every_op();
  test_bias();
  test_errors();
  return check_done("test_enumerate");
}
