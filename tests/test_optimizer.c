/* tests/test_optimizer.c: model graphs without files or outside tools: the name table, the
 * comparison and integer conversion of untrusted values, the input generator against
 * models/ort_run.js's, and a small model (rule-vocabulary nodes around an opaque Softmax)
 * evaluated, exported to ONNX in memory and imported again. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "optimizer/eval/eval.h"
#include "optimizer/onnx/onnx.h"
#include "optimizer/proto/proto.h"
#include "optimizer/opaque/opaque.h"

static int failures;
#define CHECK(c)                                                          \
  do {                                                                    \
    if (!(c)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                         \
    }                                                                     \
  } while (0)

static void test_names(void) {
  rg_names t = {0};
  char buf[32];
  int added;
  for (int i = 0; i < 1000; i++) {
    snprintf(buf, sizeof buf, "tensor_%d", i);
    int64_t *v = rg_names_add(&t, buf, &added);
    CHECK(v && added);
    *v = i * 3;
  }
  CHECK(rg_names_add(&t, "tensor_7", &added) && !added);
  for (int i = 0; i < 1000; i++) {
    snprintf(buf, sizeof buf, "tensor_%d", i);
    const int64_t *v = rg_names_find(&t, buf);
    CHECK(v && *v == i * 3);
  }
  CHECK(!rg_names_find(&t, "tensor_1000") && t.n == 1000);
  rg_names_free(&t);
}

static void test_values(void) {
  double a[3] = {1, 2, 4}, b[3] = {1, 2, 4.5}, z[3] = {0, 0, 0};
  CHECK(fabs(rg_values_rel_diff(a, b, 3) - 0.5 / 4.5) < 1e-15);
  CHECK(rg_values_rel_diff(z, z, 3) == 0);
  double n1[1] = {NAN}, n2[1] = {NAN}, one[1] = {1}, inf[1] = {INFINITY};
  CHECK(rg_values_rel_diff(n1, n2, 1) == 0);
  CHECK(isinf(rg_values_rel_diff(n1, one, 1)));
  CHECK(isinf(rg_values_rel_diff(one, inf, 1)) && rg_values_rel_diff(inf, inf, 1) == 0);
  CHECK(rg_to_int(3.9) == 3 && rg_to_int(-2) == -2);
  CHECK(rg_to_int(NAN) < -(1ll << 61) && rg_to_int(1e300) < -(1ll << 61) && rg_to_int(-INFINITY) < -(1ll << 61));
}

/* x (1, 4) -> relu(x W + b) -> Softmax (opaque) and x itself as a second output. */
static rg_model *small_model(void) {
  rg_model *m = rg_model_new();
  rg_shape xs = rg_shape_make(2, (int32_t[]){1, 4}), ws = rg_shape_make(2, (int32_t[]){4, 3}),
           bs = rg_shape_make(1, (int32_t[]){3});
  float *w = malloc(sizeof(float) * 12), *b = malloc(sizeof(float) * 3);
  for (int i = 0; i < 12; i++) w[i] = (float)(i % 5) * 0.25f - 0.5f;
  for (int i = 0; i < 3; i++) b[i] = 0.1f * (float)i;
  int32_t x = rg_model_add_var(m, "x", RG_MVAR_INPUT, RG_ELEM_FLOAT, &xs, NULL);
  int32_t wv = rg_model_add_var(m, "W", RG_MVAR_WEIGHT, RG_ELEM_FLOAT, &ws, w);
  int32_t bv = rg_model_add_var(m, "b", RG_MVAR_WEIGHT, RG_ELEM_FLOAT, &bs, b);
  CHECK(x >= 0 && wv >= 0 && bv >= 0);
  CHECK(rg_model_add_var(m, "x", RG_MVAR_INPUT, RG_ELEM_FLOAT, &xs, NULL) == RG_ERR_ARG);
  rg_err err;
  rg_ref r;
  rg_node mm = rg_node_init(RG_OP_MATMUL);
  mm.n_in = 2, mm.in[0] = rg_model_var_ref(m, x), mm.in[1] = rg_model_var_ref(m, wv);
  CHECK(rg_model_add_node(m, &mm, 0, &r, &err) == RG_OK);
  rg_node bias = rg_node_init(RG_OP_BIAS);
  bias.params[0] = 1, bias.n_in = 2, bias.in[0] = r, bias.in[1] = rg_model_var_ref(m, bv);
  CHECK(rg_model_add_node(m, &bias, 0, &r, &err) == RG_OK);
  rg_node relu = rg_node_init(RG_OP_RELU);
  relu.n_in = 1, relu.in[0] = r;
  CHECK(rg_model_add_node(m, &relu, 0, &r, &err) == RG_OK);
  /* the opaque Softmax over the relu */
  Onnx__NodeProto *sm = malloc(sizeof *sm);
  onnx__node_proto__init(sm);
  sm->op_type = strdup("Softmax"), sm->name = strdup("sm");
  sm->n_input = 1, sm->input = calloc(1, sizeof(char *)), sm->input[0] = strdup("r");
  sm->n_output = 1, sm->output = calloc(1, sizeof(char *)), sm->output[0] = strdup("probs");
  rg_shape ps = rg_shape_make(2, (int32_t[]){1, 3});
  int32_t pv = rg_model_add_var(m, "probs", RG_MVAR_OPAQUE, RG_ELEM_FLOAT, &ps, NULL);
  m->var[pv].opaque = 0, m->var[pv].out = 0;
  m->op = calloc(1, sizeof *m->op), m->cap_op = m->n_op = 1;
  m->op[0] = (rg_opaque){sm, 1, 1, malloc(sizeof(rg_ref)), malloc(sizeof(int32_t)), NULL, NULL};
  m->op[0].in[0] = r, m->op[0].out[0] = pv;
  m->n_out = 2;
  m->out = malloc(2 * sizeof *m->out), m->out_name = malloc(2 * sizeof *m->out_name);
  m->out[0] = rg_model_var_ref(m, pv), m->out_name[0] = strdup("probs");
  m->out[1] = rg_model_var_ref(m, x), m->out_name[1] = strdup("x_again");
  m->opset = 13, m->ir_version = 8;
  return m;
}

/* mp packed, freed, and imported again (NULL, with a failed check, when it does not import). */
static rg_model *reimport(Onnx__ModelProto *mp) {
  size_t len = onnx__model_proto__get_packed_size(mp);
  uint8_t *buf = malloc(len);
  onnx__model_proto__pack(mp, buf);
  onnx__model_proto__free_unpacked(mp, NULL);
  rg_model *again = NULL;
  rg_err err;
  CHECK(rg_model_import_bytes("again", buf, len, NULL, &again, &err) == RG_OK);
  free(buf);
  return again;
}

static void test_model(void) {
  rg_model *m = small_model();
  /* inputs as ort_run.js --seed 7 draws them (values from its generator) */
  double **in = rg_model_random_inputs(m, 7, 100);
  const double want[4] = {-0.97659051418304443, -0.87608349323272705, 0.95381522178649902, 0.39805734157562256};
  for (int i = 0; i < 4; i++) CHECK(in[0][i] == want[i]);
  double *out[2];
  rg_err err;
  CHECK(rg_model_eval(m, (const double *const *)in, out, &err) == RG_OK);
  /* by hand: softmax(relu(x W + b)) */
  const rg_mvar *w = &m->var[1], *b = &m->var[2];
  double h[3], sum = 0;
  for (int j = 0; j < 3; j++) {
    h[j] = ((const float *)b->data)[j];
    for (int k = 0; k < 4; k++) h[j] += in[0][k] * ((const float *)w->data)[k * 3 + j];
    h[j] = h[j] > 0 ? h[j] : 0;
  }
  double mx = fmax(h[0], fmax(h[1], h[2]));
  for (int j = 0; j < 3; j++) sum += exp(h[j] - mx);
  for (int j = 0; j < 3; j++) CHECK(fabs(out[0][j] - exp(h[j] - mx) / sum) < 1e-12);
  for (int i = 0; i < 4; i++) CHECK(out[1][i] == in[0][i]);
  rg_model_counts c;
  rg_model_count(m, &c);
  CHECK(c.by_op[RG_OP_MATMUL] == 1 && c.by_op[RG_OP_BIAS] == 1 && c.opaque == 1 && c.weights == 15);

  /* out as ONNX and in again: the same values; the bias went into a Gemm */
  Onnx__ModelProto *mp = rg_model_to_onnx(m, &err);
  CHECK(mp != NULL);
  if (mp) {
    bool gemm = false;
    for (size_t i = 0; i < mp->graph->n_node; i++) gemm = gemm || !strcmp(mp->graph->node[i]->op_type, "Gemm");
    CHECK(gemm && mp->graph->n_input == 1 && mp->graph->n_output == 2);
    rg_model *again = reimport(mp);
    double *out2[2] = {0};
    double **in2 = rg_model_random_inputs(again, 7, 100); /* the same draws: its variables are numbered otherwise */
    CHECK(rg_model_eval(again, (const double *const *)in2, out2, &err) == RG_OK);
    for (int j = 0; j < 3 && out2[0]; j++) CHECK(fabs(out2[0][j] - out[0][j]) < 1e-12);
    for (int i = 0; i < 4 && out2[1]; i++) CHECK(out2[1][i] == in[0][i]);
    rg_model_inputs_free(again, in2);
    CHECK(!strcmp(again->out_name[1], "x_again"));
    free(out2[0]), free(out2[1]);
    rg_model_free(again);
  }
  /* an input without values is an error that says so */
  double *none[2];
  CHECK(rg_model_eval(m, NULL, none, &err) == RG_ERR_UNBOUND && strstr(err.msg, "'x'"));
  free(out[0]), free(out[1]);
  rg_model_inputs_free(m, in);
  rg_model_free(m);
}

/* r as m's one output, y, at opset 13 (a model built in memory, then exported). */
static void set_output(rg_model *m, rg_ref r) {
  m->n_out = 1;
  m->out = malloc(sizeof *m->out), m->out_name = malloc(sizeof *m->out_name);
  m->out[0] = r, m->out_name[0] = strdup("y");
  m->opset = 13, m->ir_version = 8;
}

/* again (NULL: nothing) computes m's one output, of n values, on the same seeded inputs; freed. */
static void check_same_output(const rg_model *m, rg_model *again, uint32_t seed, int64_t n) {
  if (!again) return;
  rg_err err;
  double **in = rg_model_random_inputs(m, seed, 100), **in2 = rg_model_random_inputs(again, seed, 100);
  double *out[1] = {0}, *out2[1] = {0};
  CHECK(rg_model_eval(m, (const double *const *)in, out, &err) == RG_OK);
  CHECK(rg_model_eval(again, (const double *const *)in2, out2, &err) == RG_OK);
  for (int64_t i = 0; i < n && out[0] && out2[0]; i++) CHECK(out[0][i] == out2[0][i]);
  rg_model_inputs_free(m, in), rg_model_inputs_free(again, in2);
  free(out[0]), free(out2[0]);
  rg_model_free(again);
}

/* x padded by two pad nodes (rows 1 and 2 before and after, columns 1 and 0), then a 1x1 SAME
 * conv, as the importer writes a Pad before a 1x1 Conv: exported as one Conv whose pads are the
 * pad nodes' (SAME adds none here), computing what the model computes. */
static void test_pads_fold_into_same_conv(void) {
  rg_model *m = rg_model_new();
  rg_shape xs = rg_shape_make(4, (int32_t[]){1, 2, 4, 5}), ws = rg_shape_make(4, (int32_t[]){3, 2, 1, 1});
  float *w = malloc(sizeof(float) * 6);
  for (int i = 0; i < 6; i++) w[i] = (float)i * 0.5f - 1;
  int32_t x = rg_model_add_var(m, "x", RG_MVAR_INPUT, RG_ELEM_FLOAT, &xs, NULL);
  int32_t wv = rg_model_add_var(m, "w", RG_MVAR_WEIGHT, RG_ELEM_FLOAT, &ws, w);
  rg_err err;
  rg_ref r = rg_model_var_ref(m, x);
  const int32_t pads[2][3] = {{2, 1, 2}, {3, 1, 0}}; /* axis, before, after */
  for (int k = 0; k < 2; k++) {
    rg_node pad = rg_node_init(RG_OP_PAD);
    memcpy(pad.params, pads[k], sizeof pads[k]);
    pad.n_in = 1, pad.in[0] = r;
    CHECK(rg_model_add_node(m, &pad, 0, &r, &err) == RG_OK);
  }
  rg_node conv = rg_node_init(RG_OP_CONV2D);
  memcpy(conv.params, (int32_t[]){1, 1, RG_PAD_SAME, RG_ACT_NONE, 1, 1, 1}, 7 * sizeof(int32_t));
  conv.n_in = 2, conv.in[0] = r, conv.in[1] = rg_model_var_ref(m, wv);
  CHECK(rg_model_add_node(m, &conv, 0, &r, &err) == RG_OK);
  set_output(m, r);
  Onnx__ModelProto *mp = rg_model_to_onnx(m, &err);
  CHECK(mp && mp->graph->n_node == 1 && !strcmp(mp->graph->node[0]->op_type, "Conv"));
  for (size_t a = 0; mp && a < mp->graph->node[0]->n_attribute; a++) {
    const Onnx__AttributeProto *at = mp->graph->node[0]->attribute[a];
    if (strcmp(at->name, "pads")) continue;
    CHECK(at->n_ints == 4 && at->ints[0] == 1 && at->ints[1] == 1 && at->ints[2] == 2 && at->ints[3] == 0);
  }
  check_same_output(m, mp ? reimport(mp) : NULL, 3, 3 * 7 * 6);
  rg_model_free(m);
}

/* Every initializer export writes is read: a bias along a leading axis is written as an Add of
 * its vector reshaped to broadcast, and the vector itself, read by nothing else, is not written
 * too (in memory and to a file, whose initializers borrow the weights). */
static void test_no_unread_initializer(void) {
  rg_model *m = rg_model_new();
  rg_shape xs = rg_shape_make(2, (int32_t[]){3, 4}), bs = rg_shape_make(1, (int32_t[]){3});
  float *b = malloc(sizeof(float) * 3);
  for (int i = 0; i < 3; i++) b[i] = (float)i + 0.5f;
  int32_t x = rg_model_add_var(m, "x", RG_MVAR_INPUT, RG_ELEM_FLOAT, &xs, NULL);
  int32_t bv = rg_model_add_var(m, "b", RG_MVAR_WEIGHT, RG_ELEM_FLOAT, &bs, b);
  rg_err err;
  rg_node bias = rg_node_init(RG_OP_BIAS);
  bias.params[0] = 0, bias.n_in = 2, bias.in[0] = rg_model_var_ref(m, x), bias.in[1] = rg_model_var_ref(m, bv);
  rg_ref r;
  CHECK(rg_model_add_node(m, &bias, 0, &r, &err) == RG_OK);
  set_output(m, r);
  char path[] = "/tmp/rg_test_initializers_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && rg_model_export(m, path, &err) == RG_OK);
  rg_model *from_file = NULL;
  CHECK(fd >= 0 && rg_model_import(path, NULL, &from_file, &err) == RG_OK);
  if (fd >= 0) close(fd), unlink(path);
  Onnx__ModelProto *mp = rg_model_to_onnx(m, &err);
  CHECK(mp && mp->graph->n_initializer == 1 && mp->graph->n_node == 1 && !strcmp(mp->graph->node[0]->op_type, "Add"));
  for (size_t i = 0; mp && i < mp->graph->n_initializer; i++)
    CHECK(!strcmp(mp->graph->initializer[i]->name, mp->graph->node[0]->input[1])); /* read by the Add */
  check_same_output(m, mp ? reimport(mp) : NULL, 5, 12);
  check_same_output(m, from_file, 5, 12);
  rg_model_free(m);
}

int main(void) {
  test_names();
  test_values();
  test_model();
  test_pads_fold_into_same_conv();
  test_no_unread_initializer();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("test_optimizer: ok\n");
  return failures != 0;
}
