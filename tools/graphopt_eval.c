/* tools/graphopt_eval.c: `graphopt eval`: a model evaluated in float64 on seeded inputs (drawn as
 * models/ort_run.js draws them) or on inputs from files; each output's shape and checksum, or
 * its largest relative difference from another model or from expected outputs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "graphopt.h"
#include "optimizer/eval.h"
#include "optimizer/tensor_io.h"

#define EVAL_OPTIONS(X)                                                                               \
  X("compare", 'c', 1, "OTHER.onnx", "also evaluate OTHER on the same inputs and print how far each "  \
                                     "output of IN is from OTHER's")                                \
  X("inputs", 'i', 1, "DIR", "read the inputs from DIR/input_0.pb, input_1.pb, ... (ONNX test data)") \
  X("expect", 'e', 1, "DIR", "compare the outputs with DIR/output_0.pb, output_1.pb, ...")           \
  X("save", 'w', 1, "DIR", "write the inputs and outputs there as input_K.pb and output_K.pb")      \
  X("seed", 'S', 1, "N", "seed of the drawn inputs (default 1)")                                      \
  X("int-max", 'I', 1, "N", "int64 inputs are drawn from [0, N) (default 100)")                       \
  X("tolerance", 't', 1, "T", "largest relative difference that counts as equal (default 1e-4)")      \
  X("dim", 'd', 1, "NAME=N", "value of a named (dynamic) input dimension; repeatable")                 \
  X("help", 'h', 0, "", "show this help")

static void usage(FILE *out) {
  fprintf(out, "usage: graphopt eval IN.onnx [options]\n\n"
               "Evaluates a model in float64 (graphopt's own interpreter: no outside runtime) and prints\n"
               "each output's shape and checksum (sum and sum of magnitudes). Inputs are drawn from a seeded\n"
               "generator, the same as models/ort_run.js --seed draws, or read with --inputs. With\n"
               "--compare or --expect it prints each output's largest relative difference: max |a - b| over\n"
               "max |b|, b the reference.\n\noptions:\n");
#define X(name, short_, arg, meta, help) fprintf(out, "  -%c, --%-9s %-10s %s\n", short_, name, meta, help);
  EVAL_OPTIONS(X)
#undef X
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
  static const struct option longopts[] = {
#define X(name, short_, arg, meta, help) {name, arg ? required_argument : no_argument, NULL, short_},
      EVAL_OPTIONS(X)
#undef X
          {NULL, 0, NULL, 0}};
  *o = (eval_opts){.seed = 1, .int_max = 100, .tolerance = 1e-4};
  int c;
  char *end;
  optind = 1;
  while ((c = getopt_long(argc, argv, "c:i:e:w:S:I:t:d:h", longopts, NULL)) != -1) {
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
  double **in = calloc((size_t)m->n_var + 1, sizeof *in);
  int k = 0;
  for (int32_t v = 0; in && v < m->n_var; v++) {
    if (m->var[v].kind != RG_MVAR_INPUT) continue;
    char path[4096], *name, sa[128], sb[128];
    snprintf(path, sizeof path, "%s/input_%d.pb", o->inputs, k++);
    rg_elem elem;
    rg_shape s;
    rg_err err = {0};
    if (rg_tensor_file_read(path, &elem, &s, &in[v], &name, &err)) {
      rg_cli_report("graphopt eval", NULL, &err);
      rg_model_inputs_free(m, in);
      return NULL;
    }
    free(name);
    if (!rg_shape_dims_eq(&s, &m->var[v].shape)) {
      fprintf(stderr, "graphopt eval: %s: shape %s, but input '%s' is %s\n", path, rg_shape_format(&s, sa, sizeof sa),
              rg_graph_tvar_name(m->g, v), rg_shape_format(&m->var[v].shape, sb, sizeof sb));
      rg_model_inputs_free(m, in);
      return NULL;
    }
  }
  return in;
}

/* The same inputs for another model: by name. */
static double **inputs_for(const rg_model *other, const rg_model *m, double *const *in) {
  double **o = calloc((size_t)other->n_var + 1, sizeof *o);
  for (int32_t v = 0; o && v < other->n_var; v++) {
    if (other->var[v].kind != RG_MVAR_INPUT) continue;
    int32_t mv = rg_graph_find_tvar(m->g, rg_graph_tvar_name(other->g, v));
    if (mv < 0 || m->var[mv].kind != RG_MVAR_INPUT || !rg_shape_dims_eq(&m->var[mv].shape, &other->var[v].shape)) {
      fprintf(stderr, "graphopt eval: the models' inputs differ: '%s' is not an input of the same shape in both\n",
              rg_graph_tvar_name(other->g, v));
      free(o);
      return NULL;
    }
    o[v] = in[mv];
  }
  return o;
}

static double **evaluate(const rg_model *m, const double *const *in) {
  double **out = calloc((size_t)m->n_out + 1, sizeof *out);
  rg_err err = {0};
  if (!out || rg_model_eval(m, in, out, &err)) {
    if (out) rg_cli_report("graphopt eval", NULL, &err);
    free(out);
    return NULL;
  }
  return out;
}

static void free_outputs(const rg_model *m, double **out) {
  for (int32_t i = 0; out && i < m->n_out; i++) free(out[i]);
  free(out);
}

static rg_elem out_elem(const rg_model *m, int32_t i) {
  int32_t v = rg_model_var_of(m, m->out[i]);
  return v >= 0 ? m->var[v].elem : RG_ELEM_FLOAT;
}

static bool save(const rg_model *m, const eval_opts *o, double *const *in, double *const *out) {
  char path[4096];
  rg_err err = {0};
  int k = 0;
  for (int32_t v = 0; v < m->n_var; v++) {
    if (m->var[v].kind != RG_MVAR_INPUT) continue;
    snprintf(path, sizeof path, "%s/input_%d.pb", o->save, k++);
    if (rg_tensor_file_write(path, rg_graph_tvar_name(m->g, v), m->var[v].elem, &m->var[v].shape, in[v], &err)) break;
  }
  for (int32_t i = 0; !err.status && i < m->n_out; i++) {
    snprintf(path, sizeof path, "%s/output_%d.pb", o->save, i);
    if (rg_tensor_file_write(path, m->out_name[i], out_elem(m, i), rg_model_shape(m, m->out[i]), out[i], &err)) break;
  }
  if (err.status) rg_cli_report("graphopt eval", NULL, &err);
  return !err.status;
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
    const double *r = NULL;
    rg_shape rs;
    char path[4096];
    if (other) {
      int32_t j = i;
      for (int32_t q = 0; q < other->n_out; q++)
        if (!strcmp(other->out_name[q], m->out_name[i])) j = q;
      if (j >= other->n_out) {
        printf("\n");
        fprintf(stderr, "graphopt eval: %s has no output '%s'\n", o->compare, m->out_name[i]);
        return false;
      }
      r = ref[j], rs = *rg_model_shape(other, other->out[j]);
    } else if (o->expect) {
      rg_elem elem;
      char *name;
      rg_err err = {0};
      snprintf(path, sizeof path, "%s/output_%d.pb", o->expect, i);
      double *vals;
      if (rg_tensor_file_read(path, &elem, &rs, &vals, &name, &err)) {
        printf("\n");
        rg_cli_report("graphopt eval", NULL, &err);
        return false;
      }
      free(name);
      r = vals;
    }
    if (r) {
      bool same = rg_shape_dims_eq(s, &rs);
      double d = same ? rg_values_rel_diff(out[i], r, n) : 1.0 / 0.0;
      printf(same ? " rel-diff %.3g%s" : " rel-diff %g (shapes differ)%s", d, d > o->tolerance ? " DIFFERS" : "");
      *differs = *differs || d > o->tolerance;
      if (!other) free((double *)r);
    }
    printf("\n");
  }
  return true;
}

int graphopt_eval_cmd(int argc, char **argv) {
  eval_opts o;
  int rc;
  if (!parse(argc, argv, &o, &rc)) return rc;
  rg_model *m = graphopt_load(argv[optind], &o.dims, NULL), *other = NULL;
  if (!m) return 2;
  double **in = load_inputs(m, &o), **out = NULL, **other_in = NULL, **other_out = NULL;
  bool differs = false, ok = in != NULL;
  if (ok && o.compare) ok = (other = graphopt_load(o.compare, &o.dims, NULL)) && (other_in = inputs_for(other, m, in));
  if (ok) ok = (out = evaluate(m, (const double *const *)in)) != NULL;
  if (ok && other) ok = (other_out = evaluate(other, (const double *const *)other_in)) != NULL;
  if (ok && o.save) ok = save(m, &o, in, out);
  if (ok) ok = report(m, &o, out, other, other_out, &differs);
  free_outputs(m, out);
  if (other) free_outputs(other, other_out);
  free(other_in);
  rg_model_inputs_free(m, in);
  rg_model_free(other);
  rg_model_free(m);
  return !ok ? 2 : differs ? 1 : 0;
}
