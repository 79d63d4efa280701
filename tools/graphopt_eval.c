/* tools/graphopt_eval.c: `graphopt eval`: a model evaluated in float64 on seeded inputs (drawn as
 * models/ort_run.js draws them) or on inputs from files; each output's shape and checksum, or
 * its largest relative difference from another model or from expected outputs. */
#include <stdio.h>
#include <stdlib.h>

#include "graphopt.h"

typedef struct {
  const char *compare, *inputs, *expect, *save;
  uint64_t seed, int_max;
  double tolerance;
  rg_import_dims dims;
} eval_opts;

static const rg_cli_field eval_fields[] = {
    RG_CLI_STORE(RG_OPT_COMPARE, RG_CLI_TEXT, eval_opts, compare), RG_CLI_STORE(RG_OPT_INPUTS, RG_CLI_TEXT, eval_opts, inputs),
    RG_CLI_STORE(RG_OPT_EXPECT, RG_CLI_TEXT, eval_opts, expect), RG_CLI_STORE(RG_OPT_SAVE, RG_CLI_TEXT, eval_opts, save),
    RG_CLI_NUM(RG_OPT_SEED, RG_CLI_U64, eval_opts, seed, 0, UINT32_MAX, NULL),
    RG_CLI_NUM(RG_OPT_INT_MAX, RG_CLI_U64, eval_opts, int_max, 1, INT32_MAX, NULL)};

/* --tolerance (a real number) and --dim: more than storing. */
static int other_option(int code, const char *arg, void *base) {
  eval_opts *o = base;
  if (code == RG_OPT_DIM) return graphopt_add_dim(&o->dims, arg) ? RG_CLI_GO_ON : 2;
  if (code != RG_OPT_TOLERANCE) return RG_CLI_NOT_MINE;
  return rg_cli_real_option("graphopt eval", "tolerance", arg, 0, &o->tolerance) ? RG_CLI_GO_ON : 2;
}

static bool parse(int argc, char **argv, eval_opts *o, int *rc) {
  *o = (eval_opts){.seed = 1, .int_max = 100, .tolerance = 1e-4};
  *rc = rg_cli_parse("graphopt eval", &rg_doc_graphopt_eval, NULL, eval_fields, RG_CLI_COUNT(eval_fields),
                     other_option, o, argc, argv);
  if (*rc != RG_CLI_GO_ON) return false;
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
