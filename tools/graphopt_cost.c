/* tools/graphopt_cost.c: `graphopt cost`: what a model costs by a cost model (optimizer/cost.h):
 * each operator's node count and cost, the model's total, and how the figures were had
 * (measured now, from the cache, the roofline's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "graphopt.h"

static const rg_cli_option opts[] = {
    {"cost", 'c', 1, "NAME", "the cost model (below; default: the first)"},
    {"machine", 'm', 1, "FILE", "the roofline's machine figures (default: optimizer/machines/cpu-default.txt)"},
    {"cache", 'C', 1, "PATH", "dnnl's SQLite cache of timings (default: $XDG_CACHE_HOME/rulegen/costs.sqlite)"},
    {"no-cache", 'N', 0, "", "time every configuration, remember nothing"},
    GRAPHOPT_DIM_OPTION,
    GRAPHOPT_HELP_OPTION,
};
#define N_OPTS ((int)(sizeof opts / sizeof *opts))

static void usage(FILE *out) {
  fprintf(out, "usage: graphopt cost IN.onnx [options]\n\n"
               "Prints what a model's operators of the rule vocabulary cost by a cost model, in\n"
               "microseconds: each operator's nodes and their cost, and the total. Weight-only nodes cost\n"
               "nothing (export folds them); opaque nodes are not counted (every rewrite keeps them).\n"
               "dnnl times each distinct configuration once and keeps it in its cache, so a second run\n"
               "times nothing.\n\noptions:\n");
  rg_cli_print_options(out, opts, N_OPTS, 9, 7);
  graphopt_print_cost_models(out);
  fprintf(out, "\nexit status: 0 done, 2 bad input or arguments\n");
}

typedef struct {
  const char *model, *cost, *machine, *cache;
  bool no_cache;
  graphopt_dims dims;
} cost_opts;

static bool parse(int argc, char **argv, cost_opts *o, int *rc) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, opts, N_OPTS);
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
    case 'h': usage(stdout); return *rc = 0, false;
    default: usage(stderr); return *rc = 2, false;
    }
  }
  if (optind != argc - 1 || (o->cache && o->no_cache)) {
    fprintf(stderr, "graphopt cost: %s\n",
            optind != argc - 1 ? "wants one model" : "--cache and --no-cache exclude each other");
    usage(stderr);
    return *rc = 2, false;
  }
  o->model = argv[optind];
  return true;
}

static void print_sum(const rg_cost_sum *s, int32_t opaque) {
  int32_t nodes = 0;
  printf("  %-10s %6s %14s %7s\n", "operator", "nodes", "cost (us)", "share");
  for (int op = 0; op < RG_OP_COUNT; op++) {
    if (!s->count[op]) continue;
    nodes += s->count[op];
    printf("  %-10s %6d %14.1f %6.1f%%\n", rg_op_get((rg_op)op)->name, s->count[op], s->us[op],
           s->total > 0 ? 100 * s->us[op] / s->total : 0);
  }
  printf(
      "  total: %.1f us (%.3f ms) for %d node%s; %d weight-only node%s folded and %d bias or "
      "activation node%s fused into a Conv or Gemm (cost 0); %d opaque node%s not counted\n",
      s->total, s->total / 1e3, nodes, nodes == 1 ? "" : "s", s->folded, s->folded == 1 ? "" : "s",
      s->fused, s->fused == 1 ? "" : "s", opaque, opaque == 1 ? "" : "s");
}

/* The 1-minute load average, or -1: timings taken beside other work (more runnable threads
 * than cores) measure the scheduler too, which the reader should know. */
static double load_average(void) {
  double load = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f && fscanf(f, "%lf", &load) != 1) load = -1;
  if (f) fclose(f);
  return load;
}

/* How the figures were had: measured, cached and fallback counts for a model that keeps a
 * cache, the nodes figured for one that does not. */
static void print_stats(const rg_cost_stats *st, bool cached, const char *cache, double t_cost) {
  if (!cached) {
    printf("  nodes figured: %lld; costed in %.3f s\n", (long long)st->computed, t_cost);
    return;
  }
  printf("  configurations: %lld measured, %lld from the cache%s%s, %lld by the roofline (no "
         "primitive); costed in %.3f s",
         (long long)st->measured, (long long)st->cached, cache[0] ? " " : "", cache, (long long)st->fallback,
         t_cost);
  double load = st->measured ? load_average() : -1;
  if (load >= 0) printf(" (load average %.2f)", load);
  printf("\n");
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
    printf("%s: imported in %.3f s; cost model %s (%s)\n", o.model, t_import, rg_cost_model_name(cm),
           st.device ? st.device : "?");
    print_sum(&s, m->n_op);
    print_stats(&st, b && b->cached, cache, t_cost);
  }
  rg_model_free(m);
  rg_cost_model_free(cm);
  return rc;
}
