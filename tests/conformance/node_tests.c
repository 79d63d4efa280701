/* tests/conformance/node_tests.c: ONNX's backend node tests through graphopt's import and
 * evaluator, every test in one process (run.sh drives it and writes the report).
 *
 *   node_tests RESULTS DIR...
 *
 * For each DIR (DIR/model.onnx, DIR/test_data_set_0/{input,output}_K.pb) it does what
 * `graphopt info` and then `graphopt eval DIR/model.onnx --inputs D --expect D` do, by the same
 * calls: the model is imported; one with an operator graphopt cannot evaluate is not evaluated;
 * any other is evaluated on the test's inputs and each output compared with the expected one
 * (relative to the output's scale, at most 1e-4, eval's default). Into RESULTS:
 *   verdicts   "NAME running" as a test starts (so a crash is pinned on the test that caused
 *              it), then "NAME VERDICT": unimported, unevaluated, modelled or opaque (every
 *              operator of the rule vocabulary, or some opaque ones: the outputs agree),
 *              modelled-fail or opaque-fail (NAME: DIR's last component);
 *   reasons    a line per test not imported (the import error, which starts with the path) or
 *              not evaluated ("graphopt does not evaluate A, B");
 *   NAME.why   for every test that does not pass, what graphopt says (that line, or the
 *              outputs and any error of the evaluation).
 *
 * One process, not two graphopt runs per test: a start costs more than most tests (0.07 s, and
 * 0.7 s where cuBLAS and cuDNN load with it), and there are over a thousand. Exit 0 once every
 * verdict is written, 2 on a usage or file error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optimizer/onnx/onnx.h"
#include "optimizer/model/model.h"
#include "optimizer/opaque/opaque.h"
#include "optimizer/report/report.h"

/* The operators of m graphopt cannot evaluate, "A, B" into why; false when there are none. */
static bool not_evaluated(const rg_model *m, rg_strbuf *why) {
  rg_opaque_kind *k = malloc(sizeof *k * (size_t)(m->n_op + 1));
  int32_t n = k ? rg_model_opaque_kinds(m, k) : 0, shown = 0;
  for (int32_t i = 0; i < n; i++)
    if (!k[i].evaluated) rg_sb_printf(why, "%s%s", shown++ ? ", " : "graphopt does not evaluate ", k[i].op_type);
  free(k);
  if (shown) rg_sb_puts(why, "\n");
  return shown > 0;
}

/* One test: the verdict (*v) and what graphopt said (why). */
static void run_test(const char *dir, const char **v, rg_strbuf *why) {
  char model[4096], data[4096];
  snprintf(model, sizeof model, "%s/model.onnx", dir);
  snprintf(data, sizeof data, "%s/test_data_set_0", dir);
  rg_import_opts o = rg_import_dims_opts(NULL);
  rg_model *m = NULL;
  rg_err err = {0};
  if (rg_model_import(model, &o, &m, &err)) {
    rg_sb_printf(why, "%s\n", err.msg);
    *v = "unimported";
  } else if (not_evaluated(m, why)) {
    *v = "unevaluated";
  } else {
    rg_model_counts c;
    rg_model_count(m, &c);
    rg_eval_inputs io = {data, NULL, 1, 100};
    rg_eval_refs r = {NULL, NULL, NULL, data, 1e-4};
    bool differs = false;
    rg_status st = rg_eval_run_print(m, &io, &r, &differs, why, &err);
    if (st) rg_sb_printf(why, "graphopt eval: %s\n", err.msg);
    *v = st || differs ? (c.opaque ? "opaque-fail" : "modelled-fail") : c.opaque ? "opaque" : "modelled";
  }
  rg_model_free(m);
}

static FILE *open_in(const char *res, const char *name, const char *mode) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", res, name);
  FILE *f = fopen(path, mode);
  if (!f) fprintf(stderr, "node_tests: cannot write %s\n", path);
  return f;
}

/* DIR's test into the results; false when they cannot be written. */
static bool record_test(const char *res, const char *dir, FILE *verdicts, FILE *reasons) {
  const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir, *v;
  if (fprintf(verdicts, "%s running\n", name) < 0 || fflush(verdicts)) return false;
  rg_strbuf why;
  rg_sb_init(&why);
  run_test(dir, &v, &why);
  bool ok = true;
  if (!strcmp(v, "unimported") || !strcmp(v, "unevaluated")) ok = fputs(rg_sb_str(&why), reasons) >= 0;
  if (strcmp(v, "modelled") && strcmp(v, "opaque")) {
    FILE *f = open_in(res, name, "w");
    ok = f && fputs(rg_sb_str(&why), f) >= 0 && ok;
    ok = f && fclose(f) == 0 && ok;
  }
  rg_sb_free(&why);
  return ok && fprintf(verdicts, "%s %s\n", name, v) >= 0 && fflush(verdicts) == 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: node_tests RESULTS DIR...\n");
    return 2;
  }
  FILE *verdicts = open_in(argv[1], "verdicts", "a"), *reasons = open_in(argv[1], "reasons", "a");
  bool ok = verdicts && reasons;
  for (int i = 2; i < argc && ok; i++) ok = record_test(argv[1], argv[i], verdicts, reasons);
  ok = verdicts && fclose(verdicts) == 0 && ok;
  ok = reasons && fclose(reasons) == 0 && ok;
  return ok ? 0 : 2;
}
