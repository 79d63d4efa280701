/* tests/test_optimizer_cost.c: the cost models (optimizer/cost/cost.h) on small model graphs built by
 * hand: the roofline's figures against ones worked out here from a test machine file, weight-only
 * values free, oneDNN's timings positive and growing with the work, the SQLite cache answering a
 * second run without timing anything, corrupt caches moved aside, bad machine files named with
 * their line. Runs in tests/ (bad inputs under regress/bad/); scratch files in a fresh folder. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <omp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "optimizer/cost/cost.h"

static char tmp[64];
static char machine[128];

/* A scratch file path: tmp/name. */
static const char *scratch(const char *name) {
  static char buf[4][256];
  static int k;
  char *b = buf[k++ % 4];
  snprintf(b, sizeof buf[0], "%s/%s", tmp, name);
  return b;
}

static void write_file(const char *path, const char *text, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  fwrite(text, 1, n, f);
  fclose(f);
}

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* ---- building model graphs by hand ---- */

static int32_t var(rg_model *m, const char *name, rg_mvar_kind kind, int rank,
                   const int32_t *dims) {
  rg_shape s = rg_shape_make(rank, dims);
  float *data = NULL;
  if (kind == RG_MVAR_WEIGHT) data = calloc((size_t)rg_shape_numel(&s), sizeof *data);
  int32_t v = rg_model_add_var(m, name, kind, RG_ELEM_FLOAT, &s, data);
  CHECK(v >= 0);
  return v;
}

static rg_ref in(rg_model *m, int32_t v) { return rg_model_var_ref(m, v); }

/* A node of op over a and b (b.node < 0: none) with params p (n of them); its first output. */
static rg_ref node(rg_model *m, rg_op op, const int32_t *p, int np, rg_ref a, rg_ref b) {
  rg_node nd = rg_node_init(op);
  for (int k = 0; k < np; k++)
    nd.params[k] = p[k];
  nd.in[nd.n_in++] = a;
  if (b.node >= 0) nd.in[nd.n_in++] = b;
  rg_ref r = {0, 0};
  rg_err err;
  rg_status st = rg_model_add_node(m, &nd, 0, &r, &err);
  CHECK_MSG(st == RG_OK, "%s: %s", rg_op_get(op)->name, err.msg);
  return r;
}

static const rg_ref none = {-1, 0};

/* conv2d sh sw pad act dh dw g */
static rg_ref conv(rg_model *m, rg_ref x, rg_ref w, int s, int pad, int act, int d, int g) {
  return node(m, RG_OP_CONV2D, (int32_t[]){s, s, pad, act, d, d, g}, 7, x, w);
}

static double cost_of(rg_cost_model *cm, rg_model *m, rg_ref r) {
  double us = -1;
  rg_err err;
  rg_status st = rg_cost_node(cm, m, r.node, &us, &err);
  CHECK_MSG(st == RG_OK, "%s", err.msg);
  return us;
}

static rg_cost_model *open_model(const char *name, const char *cache) {
  rg_cost_opts o = {machine, cache};
  rg_cost_model *cm = NULL;
  rg_err err;
  rg_status st = rg_cost_model_open(name, &o, &cm, &err);
  CHECK_MSG(st == RG_OK, "%s", err.msg);
  return cm;
}

/* ---- the roofline ---- */

/* A model of a convolution with a relu (*c, of input *x) and a product (*p). */
static rg_model *conv_and_product(rg_ref *x, rg_ref *c, rg_ref *p) {
  rg_model *m = rg_model_new();
  *x = in(m, var(m, "x", RG_MVAR_INPUT, 4, (int32_t[]){1, 8, 16, 16}));
  rg_ref w = in(m, var(m, "w", RG_MVAR_WEIGHT, 4, (int32_t[]){16, 8, 3, 3}));
  rg_ref a = in(m, var(m, "a", RG_MVAR_INPUT, 2, (int32_t[]){4, 32}));
  rg_ref b = in(m, var(m, "b", RG_MVAR_WEIGHT, 2, (int32_t[]){32, 64}));
  *c = conv(m, *x, w, 1, RG_PAD_SAME, RG_ACT_RELU, 1, 1);
  *p = node(m, RG_OP_MATMUL, (int32_t[]){RG_ACT_NONE}, 1, a, b);
  return m;
}

static void test_roofline(void) {
  rg_cost_model *cm = open_model("roofline", NULL);
  if (!cm) return;
  CHECK(!strcmp(rg_cost_model_name(cm), "roofline"));
  rg_ref x, c, p;
  rg_model *m = conv_and_product(&x, &c, &p);
  /* The test machine: 100 GFLOP/s (1e5 FLOPs a microsecond), 10 GB/s (1e4 bytes a
   * microsecond), 2 us a node.
   * conv: out 1x16x16x16 = 4096 elements, each 8*3*3 = 72 multiply-adds, and a relu:
   *   2*4096*72 + 4096 = 593920 FLOPs -> 5.9392 us; bytes 4*(2048 + 1152 + 4096) = 29184 ->
   *   2.9184 us; compute-bound: 5.9392 + 2.
   * matmul: 4x32 by 32x64: 2*4*64*32 = 16384 FLOPs -> 0.16384 us; bytes 4*(128 + 2048 + 256)
   *   = 9728 -> 0.9728 us; memory-bound: 0.9728 + 2. */
  double cc = cost_of(cm, m, c), cp = cost_of(cm, m, p);
  CHECK_MSG(fabs(cc - 7.9392) < 1e-9, "conv %.9g", cc);
  CHECK_MSG(fabs(cp - 2.9728) < 1e-9, "matmul %.9g", cp);
  /* an input costs nothing; asked again, the memo answers */
  CHECK(cost_of(cm, m, x) == 0);
  rg_cost_stats s;
  rg_cost_model_stats(cm, &s);
  CHECK(s.computed == 2);
  CHECK(cost_of(cm, m, c) == cc);
  rg_cost_model_stats(cm, &s);
  CHECK(s.computed == 2);
  /* a data-movement node costs its bytes: transpose of 1x16x16x16 reads and writes 16 KiB */
  rg_ref t =
      node(m, RG_OP_TRANSPOSE, (int32_t[]){rg_perm_pack((int[]){0, 2, 3, 1}, 4)}, 1, c, none);
  CHECK_MSG(fabs(cost_of(cm, m, t) - (4.0 * 8192 / 1e4 + 2)) < 1e-9, "transpose %.9g",
            cost_of(cm, m, t));
  /* the total of both outputs counts each node once */
  double total;
  rg_err err;
  rg_ref roots[3] = {c, p, t};
  CHECK(rg_cost_values(cm, m, roots, 3, &total, &err) == RG_OK);
  CHECK(fabs(total - (cc + cp + cost_of(cm, m, t))) < 1e-9);
  CHECK(rg_cost_values(cm, m, (rg_ref[]){{9999, 0}}, 1, &total, &err) == RG_ERR_ARG);
  /* a memo entry of another model with the same node ids is not taken for this one's */
  rg_model *m2 = rg_model_new();
  rg_ref x2 = in(m2, var(m2, "x", RG_MVAR_INPUT, 4, (int32_t[]){1, 8, 32, 32}));
  rg_ref w2 = in(m2, var(m2, "w", RG_MVAR_WEIGHT, 4, (int32_t[]){16, 8, 3, 3}));
  in(m2, var(m2, "a", RG_MVAR_INPUT, 2, (int32_t[]){4, 32}));
  in(m2, var(m2, "b", RG_MVAR_WEIGHT, 2, (int32_t[]){32, 64}));
  rg_ref c2 = conv(m2, x2, w2, 1, RG_PAD_SAME, RG_ACT_RELU, 1, 1);
  CHECK(c2.node == c.node);
  CHECK_MSG(fabs(cost_of(cm, m2, c2) - (4 * 5.9392 + 2)) < 1e-9, "%.9g", cost_of(cm, m2, c2));
  rg_model_free(m2);
  rg_model_free(m);
  rg_cost_model_free(cm);
}

/* Weight-only values (every leaf under them a weight, or none) are folded on export: free. */
static void test_weight_only(void) {
  rg_cost_model *cm = open_model("roofline", NULL);
  if (!cm) return;
  rg_model *m = rg_model_new();
  rg_ref x = in(m, var(m, "x", RG_MVAR_INPUT, 4, (int32_t[]){1, 8, 16, 16}));
  rg_ref wa = in(m, var(m, "wa", RG_MVAR_WEIGHT, 4, (int32_t[]){8, 8, 3, 3}));
  rg_ref wb = in(m, var(m, "wb", RG_MVAR_WEIGHT, 4, (int32_t[]){8, 8, 1, 1}));
  /* TASO's merge of two convolutions: enlarge one kernel, concatenate both, one conv */
  rg_ref big = node(m, RG_OP_ENLARGE, (int32_t[]){3, 3}, 2, wb, none);
  rg_ref w = node(m, RG_OP_CONCAT, (int32_t[]){0}, 1, wa, big);
  rg_ref c = conv(m, x, w, 1, RG_PAD_SAME, RG_ACT_NONE, 1, 1);
  /* an identity kernel has no leaves at all: weight-only too */
  rg_node id = rg_node_init(RG_OP_ICONV);
  id.params[0] = 16, id.params[1] = 1, id.params[2] = 1;
  rg_ref ik;
  rg_err err;
  CHECK(rg_model_add_node(m, &id, 0, &ik, &err) == RG_OK);
  rg_ref c1 = conv(m, c, ik, 1, RG_PAD_SAME, RG_ACT_NONE, 1, 1);
  rg_cost_sum s;
  CHECK(rg_cost_sum_values(cm, m, &c1, 1, &s, &err) == RG_OK);
  CHECK_MSG(fabs(s.total - (cost_of(cm, m, c) + cost_of(cm, m, c1))) < 1e-9, "%.9g", s.total);
  CHECK(s.count[RG_OP_CONV2D] == 2 && s.count[RG_OP_CONCAT] == 0 && s.count[RG_OP_ENLARGE] == 0);
  CHECK(s.folded == 3);
  CHECK(cost_of(cm, m, w) > 0); /* asked alone, the node has its cost: only the sum folds it */
  /* a concatenation with an input under it is computed at run time */
  rg_ref y = in(m, var(m, "y", RG_MVAR_INPUT, 4, (int32_t[]){8, 8, 3, 3}));
  rg_ref mixed = node(m, RG_OP_CONCAT, (int32_t[]){0}, 1, wa, y);
  double total;
  CHECK(rg_cost_values(cm, m, &mixed, 1, &total, &err) == RG_OK);
  CHECK(fabs(total - cost_of(cm, m, mixed)) < 1e-9 && total > 0);
  /* a variable alone costs nothing */
  CHECK(rg_cost_values(cm, m, &x, 1, &total, &err) == RG_OK && total == 0);
  rg_model_free(m);
  rg_cost_model_free(cm);
}

/* A bias and an activation after a Conv (export writes the bias into it, onnxruntime fuses the
 * activation) cost nothing of their own, and after a 2-D product the same (Gemm); not where the
 * Conv has another reader, nor a bias on another axis. */
static void test_fused(void) {
  rg_cost_model *cm = open_model("roofline", NULL);
  if (!cm) return;
  rg_model *m = rg_model_new();
  rg_ref x = in(m, var(m, "x", RG_MVAR_INPUT, 4, (int32_t[]){1, 8, 16, 16}));
  rg_ref w = in(m, var(m, "w", RG_MVAR_WEIGHT, 4, (int32_t[]){8, 8, 3, 3}));
  rg_ref b = in(m, var(m, "b", RG_MVAR_WEIGHT, 1, (int32_t[]){8}));
  rg_ref bh = in(m, var(m, "bh", RG_MVAR_WEIGHT, 1, (int32_t[]){16}));
  rg_ref c = conv(m, x, w, 1, RG_PAD_SAME, RG_ACT_NONE, 1, 1);
  rg_ref cb = node(m, RG_OP_BIAS, (int32_t[]){1}, 1, c, b);
  rg_ref r = node(m, RG_OP_RELU, NULL, 0, cb, none);
  rg_cost_sum s;
  rg_err err;
  CHECK(rg_cost_sum_values(cm, m, &r, 1, &s, &err) == RG_OK);
  CHECK_MSG(s.fused == 2 && fabs(s.total - cost_of(cm, m, c)) < 1e-9, "fused %d, total %g", s.fused, s.total);
  /* the conv read twice: its bias and relu run on their own */
  rg_ref twice[2] = {r, c};
  CHECK(rg_cost_sum_values(cm, m, twice, 2, &s, &err) == RG_OK && s.fused == 0);
  /* a bias on the rows (axis 2) is not a Conv's */
  rg_ref rows = node(m, RG_OP_BIAS, (int32_t[]){2}, 1, c, bh);
  CHECK(rg_cost_sum_values(cm, m, &rows, 1, &s, &err) == RG_OK && s.fused == 0);
  /* a Gemm: 2-D product, bias on its columns, then tanh */
  rg_ref a = in(m, var(m, "a", RG_MVAR_INPUT, 2, (int32_t[]){4, 32}));
  rg_ref wm = in(m, var(m, "wm", RG_MVAR_WEIGHT, 2, (int32_t[]){32, 8}));
  rg_ref p = node(m, RG_OP_MATMUL, (int32_t[]){RG_ACT_NONE}, 1, a, wm);
  rg_ref t = node(m, RG_OP_TANH, NULL, 0, node(m, RG_OP_BIAS, (int32_t[]){1}, 1, p, b), none);
  CHECK(rg_cost_sum_values(cm, m, &t, 1, &s, &err) == RG_OK);
  CHECK_MSG(s.fused == 2 && s.count[RG_OP_MATMUL] == 1 && fabs(s.total - cost_of(cm, m, p)) < 1e-9, "fused %d",
            s.fused);
  rg_model_free(m);
  rg_cost_model_free(cm);
}

/* matmul_overhead_us: a matmul costs that much more than test_roofline's figures, a convolution
 * and a transpose nothing more. */
static void test_matmul_overhead(void) {
  const char *figures = "peak_gflops 100\nmem_gbps 10\noverhead_us 2\nmatmul_overhead_us 7\n";
  const char *path = scratch("matmul.txt");
  write_file(path, figures, strlen(figures));
  rg_cost_opts o = {path, NULL};
  rg_cost_model *cm = NULL;
  rg_err err;
  CHECK(rg_cost_model_open("roofline", &o, &cm, &err) == RG_OK);
  if (!cm) return;
  rg_ref x, c, p;
  rg_model *m = conv_and_product(&x, &c, &p);
  rg_ref t = node(m, RG_OP_TRANSPOSE, (int32_t[]){rg_perm_pack((int[]){0, 2, 3, 1}, 4)}, 1, c, none);
  CHECK_MSG(fabs(cost_of(cm, m, c) - 7.9392) < 1e-9, "conv %.9g", cost_of(cm, m, c));
  CHECK_MSG(fabs(cost_of(cm, m, p) - (2.9728 + 7)) < 1e-9, "matmul %.9g", cost_of(cm, m, p));
  CHECK_MSG(fabs(cost_of(cm, m, t) - (4.0 * 8192 / 1e4 + 2)) < 1e-9, "transpose %.9g", cost_of(cm, m, t));
  rg_model_free(m);
  rg_cost_model_free(cm);
}

static void test_bad_machines(void) {
  static const struct {
    const char *file, *want;
    rg_status st;
  } cases[] = {
      {"regress/bad/machine_bad_value.txt",
       "regress/bad/machine_bad_value.txt:3: mem_gbps wants a finite number > 0, not 'ten'",
       RG_ERR_PARSE},
      {"regress/bad/machine_unknown_key.txt",
       "regress/bad/machine_unknown_key.txt:4: unknown key 'overhead'", RG_ERR_PARSE},
      {"regress/bad/machine_missing_key.txt",
       "regress/bad/machine_missing_key.txt: no overhead_us given", RG_ERR_PARSE},
      {"regress/bad/machine_repeated_key.txt",
       "regress/bad/machine_repeated_key.txt:4: peak_gflops given again (first on line 1)",
       RG_ERR_PARSE},
      {"regress/bad/machine_negative.txt",
       "regress/bad/machine_negative.txt:1: peak_gflops wants a finite number > 0, not '-5'",
       RG_ERR_PARSE},
      {"regress/bad/machine_matmul_negative.txt",
       "regress/bad/machine_matmul_negative.txt:4: matmul_overhead_us wants a finite number >= 0, not '-1'",
       RG_ERR_PARSE},
      {"regress/bad/machine_huge.txt", "regress/bad/machine_huge.txt:4: matmul_overhead_us wants at most 1e+09, not '1e308'",
       RG_ERR_PARSE},
      {"regress/bad/machine_tiny.txt", "regress/bad/machine_tiny.txt:2: mem_gbps: '1e-320' is too small to hold",
       RG_ERR_PARSE},
      {"regress/bad/no_such_machine.txt", "cannot open regress/bad/no_such_machine.txt", RG_ERR_IO},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    for (int dnnl = 0; dnnl < 2; dnnl++) {
      rg_cost_opts o = {cases[i].file, NULL};
      rg_cost_model *cm = NULL;
      rg_err err = {0};
      rg_status st = rg_cost_model_open(dnnl ? "dnnl" : "roofline", &o, &cm, &err);
      CHECK_MSG(st == cases[i].st && cm == NULL && strstr(err.msg, cases[i].want), "%s: %d %s",
                cases[i].file, st, err.msg);
    }
  rg_cost_model *cm = NULL;
  rg_err err;
  CHECK(rg_cost_model_open("cudnn", NULL, &cm, &err) == RG_ERR_ARG &&
        strstr(err.msg, "roofline, dnnl") && !cm);
  /* the default machine file of the source tree reads */
  CHECK(rg_cost_model_open("roofline", NULL, &cm, &err) == RG_OK);
  rg_cost_model_free(cm);
  /* a shipped machine by its name: the data folder's file; an unknown name says what to give */
  rg_cost_opts named = {"gpu-h100", NULL};
  CHECK(rg_cost_model_open("roofline", &named, &cm, &err) == RG_OK);
  if (cm) {
    rg_cost_stats s = {0};
    rg_cost_model_stats(cm, &s);
    const char *dev = s.device ? s.device : "";
    size_t n = strlen(dev);
    CHECK_MSG(n > 21 && !strcmp(dev + n - 21, "machines/gpu-h100.txt"), "device %s", dev);
    rg_cost_model_free(cm);
  }
  named.machine_file = "gpu-h10";
  cm = NULL;
  CHECK(rg_cost_model_open("roofline", &named, &cm, &err) == RG_ERR_IO && !cm &&
        strstr(err.msg, "no machine named 'gpu-h10'") && strstr(err.msg, "cpu-default, gpu-h100"));
}

/* ---- oneDNN ---- */

/* Every timed operator, at a small and (for conv2d and matmul) a much larger size. */
typedef struct {
  rg_model *m;
  rg_ref conv_small, conv_big, mm_small, mm_big, all[24];
  int n_all;
} zoo;

static void zoo_build(zoo *z) {
  rg_model *m = z->m = rg_model_new();
  rg_ref x = in(m, var(m, "x", RG_MVAR_INPUT, 4, (int32_t[]){1, 8, 16, 16}));
  rg_ref w = in(m, var(m, "w", RG_MVAR_WEIGHT, 4, (int32_t[]){16, 8, 3, 3}));
  rg_ref xb = in(m, var(m, "xb", RG_MVAR_INPUT, 4, (int32_t[]){1, 64, 56, 56}));
  rg_ref wb = in(m, var(m, "wb", RG_MVAR_WEIGHT, 4, (int32_t[]){128, 64, 3, 3}));
  rg_ref wg = in(m, var(m, "wg", RG_MVAR_WEIGHT, 4, (int32_t[]){16, 2, 3, 3}));
  rg_ref a = in(m, var(m, "a", RG_MVAR_INPUT, 2, (int32_t[]){4, 32}));
  rg_ref b = in(m, var(m, "b", RG_MVAR_WEIGHT, 2, (int32_t[]){32, 64}));
  rg_ref ab = in(m, var(m, "ab", RG_MVAR_INPUT, 2, (int32_t[]){512, 1024}));
  rg_ref bb = in(m, var(m, "bb", RG_MVAR_WEIGHT, 2, (int32_t[]){1024, 1024}));
  rg_ref q = in(m, var(m, "q", RG_MVAR_INPUT, 3, (int32_t[]){4, 16, 8}));
  rg_ref k = in(m, var(m, "k", RG_MVAR_INPUT, 3, (int32_t[]){4, 8, 16}));
  rg_ref bias = in(m, var(m, "bias", RG_MVAR_WEIGHT, 1, (int32_t[]){16}));
  rg_ref s = in(m, var(m, "s", RG_MVAR_WEIGHT, 0, NULL));
  int n = 0;
  rg_ref *r = z->all;
  r[n++] = z->conv_small = conv(m, x, w, 1, RG_PAD_SAME, RG_ACT_RELU, 1, 1);
  r[n++] = z->conv_big = conv(m, xb, wb, 1, RG_PAD_SAME, RG_ACT_NONE, 1, 1);
  r[n++] = conv(m, x, wg, 2, RG_PAD_SAME, RG_ACT_TANH, 1, 4);    /* strided, grouped */
  r[n++] = conv(m, x, w, 1, RG_PAD_VALID, RG_ACT_SIGMOID, 2, 1); /* dilated */
  r[n++] = conv(m, x, w, 2, RG_PAD_SAME, RG_ACT_NONE, 2, 1);     /* both, SAME uneven */
  r[n++] = z->mm_small = node(m, RG_OP_MATMUL, (int32_t[]){RG_ACT_NONE}, 1, a, b);
  r[n++] = z->mm_big = node(m, RG_OP_MATMUL, (int32_t[]){RG_ACT_NONE}, 1, ab, bb);
  r[n++] = node(m, RG_OP_MATMUL, (int32_t[]){RG_ACT_RELU}, 1, q, k); /* batched */
  rg_ref c = z->conv_small;
  r[n++] = node(m, RG_OP_POOLMAX, (int32_t[]){3, 3, 2, 2, RG_PAD_SAME, RG_ACT_NONE}, 6, c, none);
  r[n++] = node(m, RG_OP_POOLAVG, (int32_t[]){2, 2, 2, 2, RG_PAD_VALID, RG_ACT_RELU}, 6, c, none);
  r[n++] = node(m, RG_OP_RELU, NULL, 0, c, none);
  r[n++] = node(m, RG_OP_TANH, NULL, 0, c, none);
  r[n++] = node(m, RG_OP_SIGMOID, NULL, 0, c, none);
  r[n++] = node(m, RG_OP_SMUL, NULL, 0, c, s);
  r[n++] = node(m, RG_OP_EWADD, NULL, 0, c, c);
  r[n++] = node(m, RG_OP_EWMUL, NULL, 0, c, c);
  r[n++] = node(m, RG_OP_BIAS, (int32_t[]){1}, 1, c, bias);
  r[n++] = node(m, RG_OP_CONCAT, (int32_t[]){1}, 1, c, c);
  r[n++] = node(m, RG_OP_TRANSPOSE, (int32_t[]){rg_perm_pack((int[]){0, 2, 3, 1}, 4)}, 1, c, none);
  /* no primitive: the roofline's figure */
  rg_ref cat = r[n - 2];
  r[n++] = node(m, RG_OP_SPLIT, (int32_t[]){1}, 1, cat, none);
  r[n++] = node(m, RG_OP_SLICE, (int32_t[]){2, 1, 9}, 3, c, none);
  r[n++] = node(m, RG_OP_PAD, (int32_t[]){3, 1, 2}, 3, c, none);
  r[n++] = node(m, RG_OP_RESHAPE, (int32_t[]){2, 16, 256}, 3, c, none);
  z->n_all = n;
}

static const int zoo_timed = 19, zoo_fallback = 4;

static void test_dnnl(void) {
  rg_cost_model *cm = open_model("dnnl", NULL);
  if (!cm) return;
  CHECK(!strcmp(rg_cost_model_name(cm), "dnnl"));
  zoo z;
  zoo_build(&z);
  for (int i = 0; i < z.n_all; i++) {
    double us = cost_of(cm, z.m, z.all[i]);
    CHECK_MSG(isfinite(us) && us > 0, "%s: %g",
              rg_op_get(rg_graph_node(z.m->g, z.all[i].node)->op)->name, us);
  }
  /* some 400 times the arithmetic: clearly dearer, even on a loaded machine */
  double cs = cost_of(cm, z.m, z.conv_small), cb = cost_of(cm, z.m, z.conv_big);
  double ms = cost_of(cm, z.m, z.mm_small), mb = cost_of(cm, z.m, z.mm_big);
  CHECK_MSG(cb > 4 * cs, "conv %g us, bigger %g us", cs, cb);
  CHECK_MSG(mb > 4 * ms, "matmul %g us, bigger %g us", ms, mb);
  rg_cost_stats s;
  rg_cost_model_stats(cm, &s);
  CHECK_MSG(s.measured == zoo_timed && s.fallback == zoo_fallback && s.cached == 0,
            "%lld %lld %lld", (long long)s.measured, (long long)s.fallback, (long long)s.cached);
  rg_model_free(z.m);
  rg_cost_model_free(cm);
}

/* ---- the cache ---- */

/* Costs of every zoo node into us[]; the model's stats into *s. */
static void zoo_costs(const char *cache, double *us, rg_cost_stats *s) {
  rg_cost_model *cm = open_model("dnnl", cache);
  memset(s, 0, sizeof *s);
  if (!cm) return;
  zoo z;
  zoo_build(&z);
  for (int i = 0; i < z.n_all; i++)
    us[i] = cost_of(cm, z.m, z.all[i]);
  rg_cost_model_stats(cm, s);
  rg_model_free(z.m);
  rg_cost_model_free(cm);
}

static void exec_sql(const char *path, const char *sql) {
  sqlite3 *db;
  CHECK(sqlite3_open(path, &db) == SQLITE_OK);
  char *msg = NULL;
  CHECK_MSG(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s", msg ? msg : "");
  sqlite3_free(msg);
  sqlite3_close(db);
}

/* A corrupt cache is moved aside (its bytes kept) and a fresh one measures everything. */
static void check_rebuilt(const char *path, const char *why) {
  double us[24];
  rg_cost_stats s;
  zoo_costs(path, us, &s);
  char aside[300];
  snprintf(aside, sizeof aside, "%s.corrupt", path);
  CHECK_MSG(exists(aside), "%s: not moved aside", why);
  CHECK_MSG(s.measured == zoo_timed && s.cached == 0, "%s: measured %lld, cached %lld", why,
            (long long)s.measured, (long long)s.cached);
  /* and the new one is good: a second run times nothing */
  zoo_costs(path, us, &s);
  CHECK_MSG(s.measured == 0 && s.cached == zoo_timed, "%s: second run measured %lld", why,
            (long long)s.measured);
  remove(aside);
}

static void test_cache(void) {
  const char *path = scratch("sub/dir/costs.sqlite"); /* its folders are made */
  double first[24], second[24];
  rg_cost_stats s1, s2;
  zoo_costs(path, first, &s1);
  zoo_costs(path, second, &s2);
  CHECK(s1.measured == zoo_timed && s1.cached == 0 && s1.fallback == zoo_fallback);
  CHECK_MSG(s2.measured == 0 && s2.cached == zoo_timed && s2.fallback == zoo_fallback,
            "%lld %lld %lld", (long long)s2.measured, (long long)s2.cached, (long long)s2.fallback);
  for (int i = 0; i < 23; i++)
    CHECK_MSG(first[i] == second[i], "node %d: %.17g then %.17g", i, first[i], second[i]);

  /* garbage bytes */
  const char *g = scratch("garbage.sqlite");
  write_file(g, "this is not a database, only some bytes that say so\n", 52);
  check_rebuilt(g, "garbage");
  /* a file shorter than SQLite's header, which SQLite would read as an empty database */
  write_file(g, "SQLite format 3", 16);
  check_rebuilt(g, "cut short");
  /* a valid SQLite file of another schema */
  const char *w = scratch("wrong.sqlite");
  exec_sql(w, "CREATE TABLE costs (what TEXT, how_much REAL)");
  check_rebuilt(w, "wrong table");
  /* our schema with one more table */
  const char *extra = scratch("extra.sqlite");
  zoo_costs(extra, first, &s1);
  exec_sql(extra, "CREATE TABLE notes (x TEXT)");
  check_rebuilt(extra, "extra table");
  /* a cost that is not a finite positive number, among good ones */
  const char *v = scratch("values.sqlite");
  zoo_costs(v, first, &s1);
  exec_sql(v, "UPDATE costs SET us = -1 WHERE op = 'relu'");
  check_rebuilt(v, "negative cost");
  zoo_costs(v, first, &s1);
  exec_sql(v, "UPDATE costs SET us = 9e999 WHERE op = 'tanh'");
  check_rebuilt(v, "infinite cost");
  zoo_costs(v, first, &s1);
  exec_sql(v, "UPDATE costs SET us = 'fast' WHERE op = 'conv2d'");
  check_rebuilt(v, "text cost");

  /* a folder that cannot be made is an error naming the path */
  rg_cost_opts o = {machine, "/proc/no/such/costs.sqlite"};
  rg_cost_model *cm = NULL;
  rg_err err;
  CHECK(rg_cost_model_open("dnnl", &o, &cm, &err) == RG_ERR_IO &&
        strstr(err.msg, "/proc/no/such/costs.sqlite") && !cm);
}

static void test_default_path(void) {
  char buf[512], *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char *saved_xdg = xdg ? strdup(xdg) : NULL, *saved_home = home ? strdup(home) : NULL;
  rg_err err;
  setenv("XDG_CACHE_HOME", "/x/cache", 1);
  CHECK(rg_cost_cache_default_path(buf, sizeof buf, &err) == RG_OK &&
        !strcmp(buf, "/x/cache/rulegen/costs.sqlite"));
  setenv("XDG_CACHE_HOME", "relative", 1);
  setenv("HOME", "/home/me", 1);
  CHECK(rg_cost_cache_default_path(buf, sizeof buf, &err) == RG_OK &&
        !strcmp(buf, "/home/me/.cache/rulegen/costs.sqlite"));
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  CHECK(rg_cost_cache_default_path(buf, sizeof buf, &err) == RG_ERR_ARG);
  CHECK(rg_cost_cache_default_path(buf, 8, &err) == RG_ERR_ARG);
  setenv("HOME", "/home/me", 1);
  CHECK(rg_cost_cache_default_path(buf, 8, &err) == RG_ERR_LIMIT);
  if (saved_xdg)
    setenv("XDG_CACHE_HOME", saved_xdg, 1);
  else
    unsetenv("XDG_CACHE_HOME");
  if (saved_home)
    setenv("HOME", saved_home, 1);
  else
    unsetenv("HOME");
  free(saved_xdg), free(saved_home);
}

/* Removes the scratch folder (files and the two folder levels test_cache makes). */
static void cleanup(void) {
  static const char *files[] = {"machine.txt",
                                "sub/dir/costs.sqlite",
                                "sub/dir/costs.sqlite-wal",
                                "sub/dir/costs.sqlite-shm",
                                "garbage.sqlite",
                                "wrong.sqlite",
                                "extra.sqlite",
                                "values.sqlite",
                                "threads.sqlite"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    remove(scratch(files[i]));
    char more[300];
    snprintf(more, sizeof more, "%s-wal", scratch(files[i]));
    remove(more);
    snprintf(more, sizeof more, "%s-shm", scratch(files[i]));
    remove(more);
  }
  rmdir(scratch("sub/dir"));
  rmdir(scratch("sub"));
  rmdir(tmp);
}

/* The device key holds the thread count: figures timed on one thread are not another's. */
static void test_threads(void) {
  const char *path = scratch("threads.sqlite");
  rg_cost_stats s;
  for (int run = 0; run < 3; run++) {
    omp_set_num_threads(run < 2 ? 1 : 2);
    rg_cost_model *cm = open_model("dnnl", path);
    if (!cm) return;
    rg_model *m = rg_model_new();
    rg_ref x = in(m, var(m, "x", RG_MVAR_INPUT, 2, (int32_t[]){64, 64}));
    cost_of(cm, m, node(m, RG_OP_RELU, NULL, 0, x, none));
    rg_cost_model_stats(cm, &s);
    CHECK_MSG(s.measured == (run == 1 ? 0 : 1) && s.cached == (run == 1), "run %d: %lld measured",
              run, (long long)s.measured);
    rg_model_free(m);
    rg_cost_model_free(cm);
  }
  omp_set_num_threads(1);
}

int main(void) {
  /* One thread: OpenMP's barriers on a loaded machine (the tests run beside other jobs) wait
   * for descheduled threads, and a small primitive's time would measure the scheduler. */
  omp_set_num_threads(1);
  snprintf(tmp, sizeof tmp, "/tmp/rg_cost_XXXXXX");
  if (!mkdtemp(tmp)) return perror("mkdtemp"), 1;
  snprintf(machine, sizeof machine, "%s", scratch("machine.txt"));
  const char *figures = "# a test machine\npeak_gflops 100   # 1e5 FLOPs a microsecond\nmem_gbps "
                        "10\n\noverhead_us 2\n";
  write_file(machine, figures, strlen(figures));
  test_roofline();
  test_weight_only();
  test_fused();
  test_matmul_overhead();
  test_bad_machines();
  test_dnnl();
  test_cache();
  test_threads();
  test_default_path();
  cleanup();
  return check_done("test_optimizer_cost");
}
