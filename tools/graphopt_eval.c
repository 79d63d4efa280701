/* tools/graphopt_eval.c: `graphopt eval`: a model evaluated in float64 on seeded inputs (drawn as
 * models/ort_run.js draws them) or on inputs from files; each output's shape and checksum, or
 * its largest relative difference from another model or from expected outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "graphopt.h"

static const rg_cli_option opts[] = {
    {"compare", 'c', 1, "OTHER.onnx", "also evaluate OTHER on the same inputs and print how far each output of IN is from OTHER's"},
    {"inputs", 'i', 1, "DIR", "read the inputs from DIR/input_0.pb, input_1.pb, ... (ONNX test data)"},
    {"expect", 'e', 1, "DIR", "compare the outputs with DIR/output_0.pb, output_1.pb, ..."},
    {"save", 'w', 1, "DIR", "write the inputs and outputs there as input_K.pb and output_K.pb"},
    {"seed", 'S', 1, "N", "seed of the drawn inputs (default 1)"},
    {"int-max", 'I', 1, "N", "int64 inputs are drawn from [0, N) (default 100)"},
    {"tolerance", 't', 1, "T", "largest relative difference that counts as equal (default 1e-4)"},
    GRAPHOPT_DIM_OPTION,
    GRAPHOPT_HELP_OPTION,
};
#define N_OPTS ((int)(sizeof opts / sizeof *opts))

static void usage(FILE *out) {
  fprintf(out, "usage: graphopt eval IN.onnx [options]\n\n"
               "Evaluates a model in float64 (graphopt's own interpreter: no outside runtime) and prints\n"
               "each output's shape and checksum (sum and sum of magnitudes). Inputs are drawn from a seeded\n"
               "generator, the same as models/ort_run.js --seed draws, or read with --inputs. With\n"
               "--compare or --expect it prints each output's largest relative difference: max |a - b| over\n"
               "max |b|, b the reference.\n\noptions:\n");
  rg_cli_print_options(out, opts, N_OPTS, 9, 10);
  fprintf(out, "\nexample:\n  graphopt eval model.onnx --compare model.opt.onnx\n"
               "exit status: 0 done (and equal within the tolerance), 1 an output differs, 2 bad input\n");
}

typedef struct {
  const char *compare, *inputs, *expect, *save;
  int64_t seed, int_max;
  double tolerance;
  graphopt_dims dims;
} eval_opts;

static bool parse(int argc, char **argv, eval_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, opts, N_OPTS);
  *o = (eval_opts){.seed = 1, .int_max = 100, .tolerance = 1e-4};
  int c;
  char *end;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case 'c': o->compare = optarg; break;
    case 'i': o->inputs = optarg; break;
    case 'e': o->expect = optarg; break;
    case 'w': o->save = optarg; break;
    case 'S':
      if (!rg_cli_int_option("graphopt eval", "--seed", optarg, 0, UINT32_MAX, &o->seed)) return *rc = 2, false;
      break;
    case 'I':
      if (!rg_cli_int_option("graphopt eval", "--int-max", optarg, 1, INT32_MAX, &o->int_max)) return *rc = 2, false;
      break;
    case 't':
      o->tolerance = strtod(optarg, &end);
      if (*end || !(o->tolerance >= 0)) {
        fprintf(stderr, "graphopt eval: --tolerance wants a number >= 0, not '%s'\n", optarg);
        return *rc = 2, false;
      }
      break;
    case 'd':
      if (!graphopt_add_dim(&o->dims, optarg)) return *rc = 2, false;
      break;
    case 'h': usage(stdout); return *rc = 0, false;
    default: usage(stderr); return *rc = 2, false;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "graphopt eval: wants one model\n");
    usage(stderr);
    return *rc = 2, false;
  }
  return true;
}

/* Input values: from DIR/input_K.pb, checked against the model's inputs, or drawn. */
static double **load_inputs(const rg_model *m, const eval_opts *o) {
  if (!o->inputs) return rg_model_random_inputs(m, (uint32_t)o->seed, o->int_max);
  double **in = NULL;
  rg_err err = {0};
  if (rg_model_inputs_read(m, o->inputs, &in, &err)) rg_cli_report("graphopt eval", NULL, &err);
  return in;
}

/* The reference of output i: other's output of the same name, or the expected one read from
 * o->expect (*owned: the caller frees it); NULL with *ok true when there is none, with *ok
 * false after printing why it cannot be had. */
static const double *reference(const rg_model *m, const eval_opts *o, int32_t i, const rg_model *other,
                               double *const *ref, rg_shape *rs, bool *owned, bool *ok) {
  *owned = false, *ok = true;
  if (other) {
    int32_t j = rg_model_output_match(other, m, i);
    if (j >= 0) return *rs = *rg_model_shape(other, other->out[j]), ref[j];
    printf("\n");
    fprintf(stderr, "graphopt eval: %s has no output '%s'\n", o->compare, m->out_name[i]);
    return *ok = false, NULL;
  }
  if (!o->expect) return NULL;
  char path[4096], *name;
  rg_elem elem;
  double *vals;
  rg_err err = {0};
  snprintf(path, sizeof path, "%s/output_%d.pb", o->expect, i);
  if (rg_tensor_file_read(path, &elem, rs, &vals, &name, &err)) {
    printf("\n");
    rg_cli_report("graphopt eval", NULL, &err);
    return *ok = false, NULL;
  }
  free(name);
  return *owned = true, vals;
}

/* Prints each output; *differs when one is further than the tolerance from its reference
 * (other's outputs ref when other is given, else the expected ones when o->expect is). */
static bool report(const rg_model *m, const eval_opts *o, double *const *out, const rg_model *other,
                   double *const *ref, bool *differs) {
  for (int32_t i = 0; i < m->n_out; i++) {
    const rg_shape *s = rg_model_shape(m, m->out[i]);
    int64_t n = rg_shape_numel(s);
    char buf[128];
    double sum = 0, mag = 0;
    for (int64_t k = 0; k < n; k++) sum += out[i][k], mag += out[i][k] < 0 ? -out[i][k] : out[i][k];
    printf("%s: %s sum %.9g abs %.9g", m->out_name[i], rg_shape_format(s, buf, sizeof buf), sum, mag);
    rg_shape rs;
    bool owned, ok;
    const double *r = reference(m, o, i, other, ref, &rs, &owned, &ok);
    if (!ok) return false;
    if (r) {
      bool same = rg_shape_dims_eq(s, &rs);
      double d = same ? rg_values_rel_diff(out[i], r, n) : 1.0 / 0.0;
      printf(same ? " rel-diff %.3g%s" : " rel-diff %g (shapes differ)%s", d, d > o->tolerance ? " DIFFERS" : "");
      *differs = *differs || d > o->tolerance;
      if (owned) free((double *)r);
    }
    printf("\n");
  }
  return true;
}

/* ok after a module call: false, with err printed, when it failed. */
static bool done(rg_status st, const rg_err *err) {
  if (st) rg_cli_report("graphopt eval", NULL, err);
  return !st;
}

int graphopt_eval_cmd(int argc, char **argv) {
  eval_opts o;
  int rc;
  if (!parse(argc, argv, &o, &rc)) return rc;
  rg_model *m = graphopt_load(argv[optind], &o.dims, NULL), *other = NULL;
  if (!m) return 2;
  double **in = load_inputs(m, &o), **out = NULL, **other_in = NULL, **other_out = NULL;
  bool differs = false, ok = in != NULL;
  rg_err err = {0};
  if (ok && o.compare) ok = (other = graphopt_load(o.compare, &o.dims, NULL)) != NULL;
  if (ok && other) ok = done(rg_model_inputs_for(other, m, in, &other_in, &err), &err);
  if (ok) ok = done(rg_model_outputs_eval(NULL, m, (const double *const *)in, &out, &err), &err);
  if (ok && other) ok = done(rg_model_outputs_eval(NULL, other, (const double *const *)other_in, &other_out, &err), &err);
  if (ok && o.save) ok = done(rg_model_io_save(m, o.save, in, out, &err), &err);
  if (ok) ok = report(m, &o, out, other, other_out, &differs);
  rg_model_outputs_free(m, out);
  if (other) rg_model_outputs_free(other, other_out);
  free(other_in);
  rg_model_inputs_free(m, in);
  rg_model_free(other);
  rg_model_free(m);
  return !ok ? 2 : differs ? 1 : 0;
}
