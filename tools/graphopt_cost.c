/* tools/graphopt_cost.c: `graphopt cost`: what a model costs by a cost model (optimizer/cost.h):
 * each operator's node count and cost, the model's total, and how the figures were had
 * (measured now, from the cache, the roofline's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "graphopt.h"

typedef struct {
  const char *model, *cost, *machine, *cache;
  bool no_cache;
  graphopt_dims dims;
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
  const rg_cost_backend *b = rg_cost_backend_find(o.cost);
  rg_cost_opts co = {o.machine, cache};
  rg_cost_model *cm;
  if (rg_cost_cache_choose(o.cost, o.cache, o.no_cache, cache, sizeof cache, &err) ||
      rg_cost_model_open(o.cost, &co, &cm, &err)) {
    rg_cli_report("graphopt cost", NULL, &err);
    return 2;
  }
  double t_import, t0;
  rg_model *m = graphopt_load(o.model, &o.dims, &t_import);
  if (!m) {
    rg_cost_model_free(cm);
    return 2;
  }
  rg_cost_sum s;
  rg_cost_stats st;
  t0 = rg_cli_now();
  if (rg_cost_sum_model(cm, m, &s, &err))
    rc = 2, rg_cli_report("graphopt cost", NULL, &err);
  else {
    double t_cost = rg_cli_now() - t0;
    rg_cost_model_stats(cm, &st);
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_sb_printf(&sb, "%s: imported in %.3f s; cost model %s (%s)\n", o.model, t_import, rg_cost_model_name(cm),
                 st.device ? st.device : "?");
    rg_report_cost_sum(&s, m->n_op, &sb);
    rg_report_cost_stats(&st, b && b->cached, cache, t_cost, &sb);
    graphopt_print(&sb);
  }
  rg_model_free(m);
  rg_cost_model_free(cm);
  return rc;
}
