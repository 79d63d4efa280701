/* tools/graphopt_cost.c: `graphopt cost`: what a model costs by a cost model (optimizer/cost/cost.h):
 * each operator's node count and cost, the model's total, and how the figures were had
 * (measured now, from the cache, the roofline's). */
#include <stdio.h>
#include <stdlib.h>

#include "graphopt.h"

typedef struct {
  const char *model, *cost, *machine, *cache;
  bool no_cache;
  rg_import_dims dims;
} cost_opts;

static const rg_cli_field cost_fields[] = {
    RG_CLI_STORE(RG_OPT_COST, RG_CLI_TEXT, cost_opts, cost), RG_CLI_STORE(RG_OPT_MACHINE, RG_CLI_TEXT, cost_opts, machine),
    RG_CLI_STORE(RG_OPT_CACHE, RG_CLI_TEXT, cost_opts, cache), RG_CLI_STORE(RG_OPT_NO_CACHE, RG_CLI_SET, cost_opts, no_cache)};

static int dim_option(int code, const char *arg, void *base) {
  if (code != RG_OPT_DIM) return RG_CLI_NOT_MINE;
  return graphopt_add_dim(&((cost_opts *)base)->dims, arg) ? RG_CLI_GO_ON : 2;
}

static bool parse(int argc, char **argv, cost_opts *o, int *rc) {
  *o = (cost_opts){.cost = rg_cost_backend_get(0)->name};
  *rc = rg_cli_parse("graphopt cost", &rg_doc_graphopt_cost, graphopt_print_cost_models, cost_fields,
                     RG_CLI_COUNT(cost_fields), dim_option, o, argc, argv);
  if (*rc != RG_CLI_GO_ON) return false;
  if (optind != argc - 1 || (o->cache && o->no_cache)) {
    fprintf(stderr, "graphopt cost: %s\n",
            optind != argc - 1 ? "wants one model" : "--cache and --no-cache exclude each other");
    return *rc = graphopt_usage(&rg_doc_graphopt_cost, '?', graphopt_print_cost_models), false;
  }
  o->model = argv[optind];
  return true;
}

int graphopt_cost_cmd(int argc, char **argv) {
  cost_opts o;
  int rc = 0;
  if (!parse(argc, argv, &o, &rc)) return rc;
  char cache[4096] = "";
  rg_err err = {0};
  rg_cost_model *cm;
  if (rg_cost_model_choose(o.cost, o.machine, o.cache, o.no_cache, cache, sizeof cache, &cm, &err))
    return rg_cli_report("graphopt cost", NULL, &err), 2;
  double t_import;
  rg_model *m = graphopt_load(o.model, &o.dims, &t_import);
  rg_strbuf sb;
  rg_sb_init(&sb);
  rc = !m || rg_model_cost_print(cm, m, o.model, t_import, cache, &sb, &err) ? 2 : 0;
  graphopt_print(&sb);
  if (m && rc) rg_cli_report("graphopt cost", NULL, &err);
  rg_model_free(m);
  rg_cost_model_free(cm);
  return rc;
}
