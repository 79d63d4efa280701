/* tests/test_optimizer_cuda.c: the GPU side (optimizer/cuda/) on a GPU: each kernel of ours, and
 * the cuDNN and cuBLAS operators, against the CPU interpreter (rg_eval_op, float64) on random
 * inputs at several shapes; then a conv and a matmul timed three times: positive, and within 20%
 * of each other. Without a device (or in a build without CUDA) it prints why and exits 77, which
 * ctest reports as skipped: CI has no GPU; bench/gpu-check.sh runs it where there is one. */
#include "check.h"
#include "ir/interp.h"
#include "optimizer/cost/cost.h"

#define SKIP 77

static uint64_t rng = 0x9e3779b97f4a7c15u;

static double uniform(void) { /* xorshift64*: [-1, 1) */
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return (double)((rng * 0x2545f4914f6cdd1du) >> 11) / (double)(1ull << 53) * 2 - 1;
}

static rg_shape dims(int rank, int32_t a, int32_t b, int32_t c, int32_t d) {
  int32_t v[4] = {a, b, c, d};
  return rg_shape_make(rank, v);
}

/* op on fresh random operands of shapes in[], on the GPU and by the interpreter; every output
 * element within tol * (1 + |expected|). */
static void check_op(rg_gpu *g, rg_op op, const int32_t *params, int n_in, const rg_shape *in,
                     double tol) {
  const rg_shape *ip[RG_MAX_INPUTS];
  rg_shape out[2];
  rg_err err = {0};
  for (int k = 0; k < n_in; k++)
    ip[k] = &in[k];
  int n_out = rg_op_get(op)->n_outputs;
  if (rg_shape_infer(op, params, n_in, ip, out, &err)) {
    CHECK_MSG(0, "%s: %s", rg_op_get(op)->name, err.msg);
    return;
  }
  rg_gpu_op gop;
  CHECK(rg_gpu_op_make(op, params, n_in, ip, n_out, out, &gop));
  char what[512];
  rg_gpu_op_describe(&gop, what, sizeof what);
  float *fin[RG_MAX_INPUTS] = {0}, *fout[2] = {0};
  rg_value *vin[RG_MAX_INPUTS] = {0}, *vout[2] = {0};
  for (int k = 0; k < n_in; k++) {
    int64_t c = rg_shape_numel(&in[k]);
    fin[k] = malloc(sizeof(float) * (size_t)(c ? c : 1)),
    vin[k] = malloc(sizeof(rg_value) * (size_t)(c ? c : 1));
    for (int64_t i = 0; i < c; i++)
      fin[k][i] = (float)uniform(), vin[k][i].f = fin[k][i];
  }
  for (int k = 0; k < n_out; k++) {
    int64_t c = rg_shape_numel(&out[k]);
    fout[k] = calloc((size_t)(c ? c : 1), sizeof(float)),
    vout[k] = calloc((size_t)(c ? c : 1), sizeof(rg_value));
  }
  rg_eval_ctx ctx;
  rg_eval_ctx_init(&ctx, 1);
  for (int k = 0; k < n_out; k++)
    CHECK_MSG(!rg_eval_op(op, params, n_in, ip, (const rg_value *const *)vin, k, RG_DOM_F64, &ctx,
                          vout[k], &err),
              "%s: %s", what, err.msg);
  char msg[1024];
  rg_gpu_status s = rg_gpu_run(g, &gop, (const float *const *)fin, fout, msg, sizeof msg);
  CHECK_MSG(s == RG_GPU_OK, "%s: %s", what, s == RG_GPU_UNSUPPORTED ? "not run on the GPU" : msg);
  double worst = 0;
  for (int k = 0; k < n_out && s == RG_GPU_OK; k++)
    for (int64_t i = 0, c = rg_shape_numel(&out[k]); i < c; i++) {
      double e = fabs(fout[k][i] - vout[k][i].f) / (1 + fabs(vout[k][i].f));
      if (e > worst) worst = e;
    }
  CHECK_MSG(worst <= tol, "%s: off by %g (tolerance %g)", what, worst, tol);
  printf("  %-70.70s max rel. error %.2g\n", what, worst);
  for (int k = 0; k < RG_MAX_INPUTS; k++)
    free(fin[k]), free(vin[k]);
  for (int k = 0; k < 2; k++)
    free(fout[k]), free(vout[k]);
}

/* float32 against float64: one rounding per element for our kernels; sums for the others */
#define EXACT 1e-6
#define TRANSCENDENTAL 1e-5
#define SUMS 1e-4

static void check_ours(rg_gpu *g) {
  rg_shape shapes[] = {dims(1, 7, 0, 0, 0), dims(2, 33, 65, 0, 0), dims(4, 2, 16, 9, 11)};
  for (int i = 0; i < 3; i++) {
    rg_shape s = shapes[i], two[2] = {s, s}, scalar[2] = {s, rg_shape_make(0, NULL)};
    check_op(g, RG_OP_EWADD, (int32_t[]){0}, 2, two, EXACT);
    check_op(g, RG_OP_EWMUL, (int32_t[]){0}, 2, two, EXACT);
    check_op(g, RG_OP_SMUL, (int32_t[]){0}, 2, scalar, EXACT);
    for (int axis = 0; axis < s.rank; axis++) {
      rg_shape b[2] = {s, dims(1, s.dim[axis], 0, 0, 0)};
      check_op(g, RG_OP_BIAS, (int32_t[]){axis}, 2, b, EXACT);
      rg_shape c[3] = {s, s, s};
      c[1].dim[axis] += 3;
      check_op(g, RG_OP_CONCAT, (int32_t[]){axis}, 3, c, 0);
      rg_shape x = s;
      x.dim[axis] += 5, x.nseam[axis] = 1, x.seam[axis][0] = s.dim[axis];
      check_op(g, RG_OP_SPLIT, (int32_t[]){axis}, 1, &x, 0);
      check_op(g, RG_OP_PAD, (int32_t[]){axis, 2, 3}, 1, &s, 0);
      if (s.dim[axis] > 2)
        check_op(g, RG_OP_SLICE, (int32_t[]){axis, 1, s.dim[axis] - 1}, 1, &s, 0);
    }
    check_op(g, RG_OP_RELU, (int32_t[]){0}, 1, &s, EXACT);
    check_op(g, RG_OP_TANH, (int32_t[]){0}, 1, &s, TRANSCENDENTAL);
    check_op(g, RG_OP_SIGMOID, (int32_t[]){0}, 1, &s, TRANSCENDENTAL);
  }
  int perms[][4] = {{1, 0}, {0, 2, 3, 1}, {3, 1, 0, 2}};
  rg_shape tshape[] = {dims(2, 33, 65, 0, 0), dims(4, 2, 16, 9, 11), dims(4, 3, 5, 7, 2)};
  for (int i = 0; i < 3; i++)
    check_op(g, RG_OP_TRANSPOSE, (int32_t[]){rg_perm_pack(perms[i], tshape[i].rank)}, 1, &tshape[i],
             0);
  rg_shape r = dims(4, 2, 16, 9, 11);
  check_op(g, RG_OP_RESHAPE, (int32_t[]){2, 32, 99, 0, 0, 0, 0}, 1, &r, 0); /* rank, then dims */
}

static void check_libraries(rg_gpu *g) {
  for (int act = RG_ACT_NONE; act <= RG_ACT_TANH; act++) {
    rg_shape mm[2] = {dims(2, 17, 40, 0, 0), dims(2, 40, 23, 0, 0)};
    check_op(g, RG_OP_MATMUL, (int32_t[]){act}, 2, mm, SUMS);
    rg_shape bmm[2] = {dims(3, 4, 9, 31, 0), dims(3, 4, 31, 12, 0)};
    check_op(g, RG_OP_MATMUL, (int32_t[]){act}, 2, bmm, SUMS);
    /* symmetric windows only: cuDNN pads the same on both sides (gpu_dnn.cu) */
    rg_shape conv[2] = {dims(4, 2, 8, 13, 13), dims(4, 16, 8, 3, 3)};
    check_op(g, RG_OP_CONV2D, (int32_t[]){1, 1, RG_PAD_SAME, act, 1, 1, 1}, 2, conv, SUMS);
    check_op(g, RG_OP_CONV2D, (int32_t[]){2, 2, RG_PAD_VALID, act, 1, 1, 1}, 2, conv, SUMS);
    rg_shape grouped[2] = {dims(4, 1, 8, 12, 12), dims(4, 16, 2, 3, 3)};
    check_op(g, RG_OP_CONV2D, (int32_t[]){1, 1, RG_PAD_SAME, act, 2, 2, 4}, 2, grouped, SUMS);
    rg_shape x = dims(4, 2, 5, 9, 9);
    check_op(g, RG_OP_POOLMAX, (int32_t[]){3, 3, 1, 1, RG_PAD_SAME, act}, 1, &x, EXACT);
    check_op(g, RG_OP_POOLAVG, (int32_t[]){3, 3, 2, 2, RG_PAD_VALID, act}, 1, &x, TRANSCENDENTAL);
  }
}

/* A SAME window with odd total padding: cuDNN pads symmetrically, so it is timed (one row and
 * column less of padding after) but never run as the IR's result. */
static void check_asymmetric(rg_gpu *g) {
  rg_shape in[2] = {dims(4, 1, 8, 16, 16), dims(4, 8, 8, 3, 3)}, out[1];
  const rg_shape *ip[2] = {&in[0], &in[1]};
  int32_t p[] = {2, 2, RG_PAD_SAME, RG_ACT_NONE, 1, 1, 1};
  rg_err err = {0};
  rg_gpu_op gop;
  CHECK(!rg_shape_infer(RG_OP_CONV2D, p, 2, ip, out, &err));
  CHECK(rg_gpu_op_make(RG_OP_CONV2D, p, 2, ip, 1, out, &gop));
  char msg[1024];
  double us = 0;
  int64_t reps = 0;
  rg_gpu_status s = rg_gpu_time(g, &gop, &us, &reps, msg, sizeof msg);
  CHECK_MSG(s == RG_GPU_OK && us > 0, "asymmetric SAME conv: %s", msg);
  int64_t nx = rg_shape_numel(&in[0]), nw = rg_shape_numel(&in[1]), ny = rg_shape_numel(&out[0]);
  float *x = calloc((size_t)nx, sizeof *x), *w = calloc((size_t)nw, sizeof *w);
  float *y = calloc((size_t)ny, sizeof *y);
  const float *ins[2] = {x, w};
  float *outs[1] = {y};
  CHECK(rg_gpu_run(g, &gop, ins, outs, msg, sizeof msg) == RG_GPU_UNSUPPORTED);
  free(x), free(w), free(y);
}

/* A cost is positive and three measurements agree within 20%. */
static void check_stable(rg_gpu *g, rg_op op, const int32_t *params, rg_shape a, rg_shape b) {
  const rg_shape *ip[2] = {&a, &b};
  rg_shape out[1];
  rg_err err = {0};
  rg_gpu_op gop;
  CHECK(!rg_shape_infer(op, params, 2, ip, out, &err));
  CHECK(rg_gpu_op_make(op, params, 2, ip, 1, out, &gop));
  char what[512], msg[1024];
  rg_gpu_op_describe(&gop, what, sizeof what);
  double us[3], lo = INFINITY, hi = 0;
  for (int r = 0; r < 3; r++) {
    int64_t reps = 0;
    rg_gpu_status s = rg_gpu_time(g, &gop, &us[r], &reps, msg, sizeof msg);
    CHECK_MSG(s == RG_GPU_OK, "%s: %s", what, msg);
    if (s != RG_GPU_OK) return;
    CHECK_MSG(us[r] > 0 && reps > 0, "%s: %g us", what, us[r]);
    lo = fmin(lo, us[r]), hi = fmax(hi, us[r]);
  }
  printf("  %s: %.2f %.2f %.2f us\n", what, us[0], us[1], us[2]);
  CHECK_MSG(hi <= 1.2 * lo, "%s: %g to %g us, more than 20%% apart", what, lo, hi);
}

/* The bridge from nodes (gpu_op.c), which needs no device: run everywhere. */
static void check_mapping(void) {
  rg_shape in[2] = {dims(4, 1, 8, 56, 56), dims(4, 16, 8, 3, 3)}, out[1];
  const rg_shape *ip[2] = {&in[0], &in[1]};
  rg_err err = {0};
  rg_gpu_op g;
  int32_t same2[] = {2, 2, RG_PAD_SAME, RG_ACT_RELU, 1, 1, 1},
          same1[] = {1, 1, RG_PAD_SAME, RG_ACT_NONE, 2, 1, 1};
  CHECK(!rg_shape_infer(RG_OP_CONV2D, same2, 2, ip, out, &err));
  CHECK(rg_gpu_op_make(RG_OP_CONV2D, same2, 2, ip, 1, out, &g));
  /* 56 by 2: 28 rows, total padding 1: none before (cuDNN then pads none after either) */
  CHECK(g.kind == RG_GPU_CONV && g.pad_h == 0 && g.pad_w == 0 && g.act == RG_GPU_ACT_RELU &&
        g.out[0].dim[2] == 28);
  CHECK(!rg_shape_infer(RG_OP_CONV2D, same1, 2, ip, out, &err));
  CHECK(rg_gpu_op_make(RG_OP_CONV2D, same1, 2, ip, 1, out, &g));
  CHECK(g.pad_h == 2 && g.pad_w == 1 && g.dh == 2 && g.dw == 1 && g.kh == 3 && g.groups == 1);
  int perm[3] = {2, 0, 1};
  rg_shape t = dims(3, 2, 3, 4, 0), to[1];
  const rg_shape *tp = &t;
  int32_t tparams[] = {rg_perm_pack(perm, 3)};
  CHECK(!rg_shape_infer(RG_OP_TRANSPOSE, tparams, 1, &tp, to, &err));
  CHECK(rg_gpu_op_make(RG_OP_TRANSPOSE, tparams, 1, &tp, 1, to, &g));
  CHECK(g.perm[0] == 2 && g.perm[1] == 0 && g.perm[2] == 1 && g.out[0].dim[0] == 4);
  int32_t sl[] = {1, 1, 3};
  CHECK(!rg_shape_infer(RG_OP_SLICE, sl, 1, &tp, to, &err));
  CHECK(rg_gpu_op_make(RG_OP_SLICE, sl, 1, &tp, 1, to, &g) && g.axis == 1 && g.begin == 1 &&
        g.end == 3);
  char what[256];
  rg_gpu_op_describe(&g, what, sizeof what);
  CHECK_MSG(strstr(what, "slice : 2x3x4 -> 2x2x4") != NULL, "%s", what);
  int32_t ic[] = {4, 3, 3};
  CHECK(!rg_gpu_op_make(RG_OP_ICONV, ic, 0, NULL, 1, out, &g)); /* weight-only: not run */
  /* --cost cuda is a row of the table, and keeps a cache */
  const rg_cost_backend *b = rg_cost_backend_find("cuda");
  CHECK(b && b->cached && strstr(b->description, "GPU"));
}

int main(void) {
  check_mapping();
  if (check_failures) return check_done("test_optimizer_cuda");
  rg_gpu *g;
  char msg[1024];
  rg_gpu_status s = rg_gpu_open(&g, msg, sizeof msg);
  if (s == RG_GPU_NODEV) {
    printf("test_optimizer_cuda: %d checks of the mapping passed; the GPU checks skipped: %s\n",
           check_count, msg);
    return SKIP;
  }
  CHECK_MSG(s == RG_GPU_OK, "%s", msg);
  if (s != RG_GPU_OK) return check_done("test_optimizer_cuda");
  printf("device: %s\n", rg_gpu_device(g));
  check_ours(g);
  check_libraries(g);
  check_asymmetric(g);
  check_stable(g, RG_OP_CONV2D, (int32_t[]){1, 1, RG_PAD_SAME, RG_ACT_RELU, 1, 1, 1},
               dims(4, 1, 64, 56, 56), dims(4, 64, 64, 3, 3));
  check_stable(g, RG_OP_MATMUL, (int32_t[]){RG_ACT_NONE}, dims(2, 512, 1024, 0, 0),
               dims(2, 1024, 1024, 0, 0));
  rg_gpu_close(g);
  return check_done("test_optimizer_cuda");
}
