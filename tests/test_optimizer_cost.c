/* tests/test_optimizer_cost.c: the cost models (optimizer/cost.h) on small model graphs built by
 * hand: the roofline's figures against ones worked out here from a test machine file, weight-only
 * values free, bad machine files named with their line. Runs in tests/ (bad inputs under
 * regress/bad/); scratch files in a fresh folder. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "optimizer/cost.h"

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

/* ---- building model graphs by hand ---- */

static int32_t var(rg_model *m, const char *name, rg_mvar_kind kind, int rank, const int32_t *dims) {
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
  for (int k = 0; k < np; k++) nd.params[k] = p[k];
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

static rg_cost_model *open_model(const char *name) {
  rg_cost_opts o = {machine};
  rg_cost_model *cm = NULL;
  rg_err err;
  rg_status st = rg_cost_model_open(name, &o, &cm, &err);
  CHECK_MSG(st == RG_OK, "%s", err.msg);
  return cm;
}

/* ---- the roofline ---- */

static void test_roofline(void) {
  rg_cost_model *cm = open_model("roofline");
  if (!cm) return;
  CHECK(!strcmp(rg_cost_model_name(cm), "roofline"));
  rg_model *m = rg_model_new();
  rg_ref x = in(m, var(m, "x", RG_MVAR_INPUT, 4, (int32_t[]){1, 8, 16, 16}));
  rg_ref w = in(m, var(m, "w", RG_MVAR_WEIGHT, 4, (int32_t[]){16, 8, 3, 3}));
  rg_ref a = in(m, var(m, "a", RG_MVAR_INPUT, 2, (int32_t[]){4, 32}));
  rg_ref b = in(m, var(m, "b", RG_MVAR_WEIGHT, 2, (int32_t[]){32, 64}));
  rg_ref c = conv(m, x, w, 1, RG_PAD_SAME, RG_ACT_RELU, 1, 1);
  rg_ref p = node(m, RG_OP_MATMUL, (int32_t[]){RG_ACT_NONE}, 1, a, b);
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
  rg_ref t = node(m, RG_OP_TRANSPOSE, (int32_t[]){rg_perm_pack((int[]){0, 2, 3, 1}, 4)}, 1, c, none);
  CHECK_MSG(fabs(cost_of(cm, m, t) - (4.0 * 8192 / 1e4 + 2)) < 1e-9, "transpose %.9g", cost_of(cm, m, t));
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
  rg_cost_model *cm = open_model("roofline");
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

static void test_bad_machines(void) {
  static const struct {
    const char *file, *want;
    rg_status st;
  } cases[] = {
      {"regress/bad/machine_bad_value.txt", "regress/bad/machine_bad_value.txt:3: mem_gbps wants a finite number > 0, not 'ten'", RG_ERR_PARSE},
      {"regress/bad/machine_unknown_key.txt", "regress/bad/machine_unknown_key.txt:4: unknown key 'overhead'", RG_ERR_PARSE},
      {"regress/bad/machine_missing_key.txt", "regress/bad/machine_missing_key.txt: no overhead_us given", RG_ERR_PARSE},
      {"regress/bad/machine_repeated_key.txt", "regress/bad/machine_repeated_key.txt:4: peak_gflops given again (first on line 1)", RG_ERR_PARSE},
      {"regress/bad/machine_negative.txt", "regress/bad/machine_negative.txt:1: peak_gflops wants a finite number > 0, not '-5'", RG_ERR_PARSE},
      {"regress/bad/no_such_machine.txt", "cannot open regress/bad/no_such_machine.txt", RG_ERR_IO},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    rg_cost_opts o = {cases[i].file};
    rg_cost_model *cm = NULL;
    rg_err err = {0};
    rg_status st = rg_cost_model_open("roofline", &o, &cm, &err);
    CHECK_MSG(st == cases[i].st && cm == NULL && strstr(err.msg, cases[i].want), "%s: %d %s", cases[i].file, st, err.msg);
  }
  rg_cost_model *cm = NULL;
  rg_err err;
  CHECK(rg_cost_model_open("cudnn", NULL, &cm, &err) == RG_ERR_ARG && strstr(err.msg, "the choices: roofline") && !cm);
  /* the default machine file of the source tree reads */
  CHECK(rg_cost_model_open("roofline", NULL, &cm, &err) == RG_OK);
  rg_cost_model_free(cm);
}

static void cleanup(void) {
  remove(scratch("machine.txt"));
  rmdir(tmp);
}

int main(void) {
  snprintf(tmp, sizeof tmp, "/tmp/rg_cost_XXXXXX");
  if (!mkdtemp(tmp)) return perror("mkdtemp"), 1;
  snprintf(machine, sizeof machine, "%s", scratch("machine.txt"));
  const char *figures = "# a test machine\npeak_gflops 100   # 1e5 FLOPs a microsecond\nmem_gbps 10\n\noverhead_us 2\n";
  write_file(machine, figures, strlen(figures));
  test_roofline();
  test_weight_only();
  test_bad_machines();
  cleanup();
  return check_done("test_optimizer_cost");
}
