/* tools/graphopt_eval.c: `graphopt eval`: a model evaluated in float64 on seeded inputs (drawn as
 * models/ort_run.js draws them) or on inputs from files; each output's shape and checksum, or
 * its largest relative difference from another model or from expected outputs. */
#include <stdio.h>
#include <stdlib.h>

#include "graphopt.h"

typedef struct {
  const char *compare, *inputs, *expect, *save;
  int64_t seed, int_max;
  double tolerance;
  rg_import_dims dims;
} eval_opts;

static bool parse(int argc, char **argv, eval_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_graphopt_eval.options, rg_doc_graphopt_eval.n_options);
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
    default: return *rc = graphopt_usage(&rg_doc_graphopt_eval, c, NULL), false;
    }
  }
  if (optind != argc - 1) {
    fprintf(stderr, "graphopt eval: wants one model\n");
    return *rc = graphopt_usage(&rg_doc_graphopt_eval, '?', NULL), false;
  }
  return true;
}

int graphopt_eval_cmd(int argc, char **argv) {
  eval_opts o;
  int rc;
  if (!parse(argc, argv, &o, &rc)) return rc;
  rg_model *m = graphopt_load(argv[optind], &o.dims, NULL), *other = NULL;
  if (!m) return 2;
  rc = 2;
  if (!o.compare || (other = graphopt_load(o.compare, &o.dims, NULL))) {
    rg_eval_inputs io = {o.inputs, o.save, (uint32_t)o.seed, o.int_max};
    rg_eval_refs r = {other, NULL, o.compare, o.expect, o.tolerance};
    rg_strbuf sb;
    rg_err err = {0};
    bool differs = false;
    rg_sb_init(&sb);
    rg_status st = rg_eval_run_print(m, &io, &r, &differs, &sb, &err);
    graphopt_print(&sb);
    if (st) rg_cli_report("graphopt eval", NULL, &err);
    rc = st ? 2 : differs;
  }
  rg_model_free(other);
  rg_model_free(m);
  return rc;
}
