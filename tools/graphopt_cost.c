/* tools/graphopt_cost.c: `graphopt cost`: what a model costs by a cost model (optimizer/cost.h):
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

static bool parse(int argc, char **argv, cost_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, rg_doc_graphopt_cost.options, rg_doc_graphopt_cost.n_options);
  *o = (cost_opts){.cost = rg_cost_backend_get(0)->name};
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case 'c': o->cost = optarg; break;
    case 'm': o->machine = optarg; break;
    case 'C': o->cache = optarg; break;
    case 'N': o->no_cache = true; break;
    case 'd':
      if (!graphopt_add_dim(&o->dims, optarg)) return *rc = 2, false;
      break;
    default: return *rc = graphopt_usage(&rg_doc_graphopt_cost, c, graphopt_print_cost_models), false;
    }
  }
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
