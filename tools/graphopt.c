/* tools/graphopt.c: the graph optimizer's command line: `graphopt convert` (a model in and out
 * again, no rules applied), `graphopt info` (what import makes of a model), `graphopt eval`
 * (graphopt_eval.c), `graphopt cost` (graphopt_cost.c) and `graphopt optimize`
 * (graphopt_optimize.c). The work is optimizer/'s; this file parses, calls and prints.
 *
 * Exit status: 0 done, 1 outputs differ (eval, optimize's numeric check), 2 bad input or arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "graphopt.h"

/* ---- shared by the commands ---- */

void graphopt_print_cost_models(FILE *out) {
  fprintf(out, "\ncost models (--cost NAME):\n");
  for (int i = 0; i < rg_cost_backend_count(); i++)
    fprintf(out, "  %-9s %s\n", rg_cost_backend_get(i)->name, rg_cost_backend_get(i)->description);
}

bool graphopt_add_dim(graphopt_dims *d, const char *arg) {
  const char *eq = strchr(arg, '=');
  int64_t v;
  if (!eq || eq == arg || d->n == GRAPHOPT_MAX_DIMS || !rg_cli_parse_i64(eq + 1, 1, RG_MAX_DIM, &v)) {
    fprintf(stderr, "graphopt: --dim wants NAME=N (N from 1 to %d), not '%s'\n", RG_MAX_DIM, arg);
    return false;
  }
  snprintf(d->name[d->n], sizeof d->name[d->n], "%.*s", (int)(eq - arg), arg);
  d->ptr[d->n] = d->name[d->n], d->value[d->n] = v;
  d->n++;
  return true;
}

rg_model *graphopt_load(const char *path, const graphopt_dims *d, double *seconds) {
  rg_import_opts o = {d ? d->n : 0, d ? d->ptr : NULL, d ? d->value : NULL};
  rg_model *m;
  rg_err err = {0};
  double t0 = rg_cli_now();
  if (rg_model_import(path, &o, &m, &err)) {
    rg_cli_report("graphopt", NULL, &err); /* the message names the file */
    return NULL;
  }
  if (seconds) *seconds = rg_cli_now() - t0;
  return m;
}

/* "conv2d 53, relu 49" and "MaxPool 1" lines of what a model holds. */
static void print_counts(const rg_model *m) {
  rg_model_counts c;
  rg_model_count(m, &c);
  int32_t total = 0;
  for (int op = 0; op < RG_OP_COUNT; op++) total += c.by_op[op];
  printf("  operators: %d of the rule vocabulary (", total);
  for (int op = 0, first = 1; op < RG_OP_COUNT; op++)
    if (c.by_op[op]) printf("%s%s %d", first ? "" : ", ", rg_op_get((rg_op)op)->name, c.by_op[op]), first = 0;
  printf("), %d opaque", c.opaque);
  /* opaque nodes by operator, in the order they first appear; then the ones kept with the types
   * the model declares, which graphopt cannot evaluate */
  rg_opaque_kind *k = malloc(sizeof *k * (size_t)(m->n_op + 1));
  int32_t n = k ? rg_model_opaque_kinds(m, k) : 0, shown = 0;
  for (int32_t i = 0; i < n; i++) printf("%s%s %d", i ? ", " : " (", k[i].op_type, k[i].count);
  printf(n ? ")\n" : "\n");
  for (int32_t i = 0; i < n; i++)
    if (!k[i].evaluated) printf("%s%s", shown++ ? ", " : "  not evaluated: ", k[i].op_type);
  printf("%s", shown ? "\n" : "");
  free(k);
  printf("  weights: %lld values\n", (long long)c.weights);
}

static void print_io(const rg_model *m) {
  char buf[128];
  for (int32_t v = 0; v < m->n_var; v++)
    if (m->var[v].kind == RG_MVAR_INPUT)
      printf("  input  %s: %s %s\n", rg_graph_tvar_name(m->g, v), m->var[v].elem == RG_ELEM_FLOAT ? "float" : "int64",
             rg_shape_format(&m->var[v].shape, buf, sizeof buf));
  for (int32_t i = 0; i < m->n_out; i++)
    printf("  output %s: %s\n", m->out_name[i], rg_shape_format(rg_model_shape(m, m->out[i]), buf, sizeof buf));
}

/* ---- convert, info ---- */

static const rg_cli_option convert_opts[] = {
    {"output", 'o', 1, "OUT.onnx", "where to write the model (required for convert)"},
    GRAPHOPT_DIM_OPTION,
    {"quiet", 'q', 0, "", "print only errors"},
    GRAPHOPT_HELP_OPTION,
};
#define N_CONVERT_OPTS ((int)(sizeof convert_opts / sizeof *convert_opts))

static void convert_usage(FILE *out, const char *cmd) {
  bool convert = !strcmp(cmd, "convert");
  fprintf(out, "usage: graphopt %s IN.onnx%s [options]\n\n", cmd, convert ? " -o OUT.onnx" : "");
  fprintf(out, convert ? "Imports an ONNX model (opsets 11 to 17) into a model graph and exports it again, applying\n"
                         "no rules: a model that computes what IN computes, with its inputs, outputs and opset.\n"
                         "Operators of the rule vocabulary become graph nodes; the rest stay opaque nodes, written\n"
                         "back unchanged. Prints what the model holds and the import and export times.\n"
                       : "Imports an ONNX model and prints what it becomes: inputs, outputs, operators of the rule\n"
                         "vocabulary, opaque nodes by operator, weights.\n");
  fprintf(out, "\noptions:\n");
  /* info has no -o */
  rg_cli_print_options(out, convert_opts + !convert, N_CONVERT_OPTS - !convert, 7, 9);
  fprintf(out, "\nexit status: 0 done, 2 bad input (the message names the file, node and operator)\n");
}

static int convert_cmd(int argc, char **argv) {
  const char *cmd = argv[0], *out = NULL;
  bool quiet = false, convert = !strcmp(cmd, "convert");
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, convert_opts + !convert, N_CONVERT_OPTS - !convert); /* info has no -o */
  graphopt_dims dims = {0};
  int c;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'd':
      if (!graphopt_add_dim(&dims, optarg)) return 2;
      break;
    case 'q': quiet = true; break;
    case 'h': convert_usage(stdout, cmd); return 0;
    default: convert_usage(stderr, cmd); return 2;
    }
  }
  if (optind != argc - 1 || (convert && !out)) {
    fprintf(stderr, "graphopt %s: %s\n", cmd, optind != argc - 1 ? "wants one model" : "wants -o OUT.onnx");
    convert_usage(stderr, cmd);
    return 2;
  }
  double t_import, t0;
  rg_model *m = graphopt_load(argv[optind], &dims, &t_import);
  if (!m) return 2;
  int rc = 0;
  if (!quiet) {
    printf("%s: imported in %.3f s\n", argv[optind], t_import);
    print_io(m);
    print_counts(m);
  }
  if (convert) {
    rg_err err = {0};
    t0 = rg_cli_now();
    if (rg_model_export(m, out, &err)) {
      rg_cli_report("graphopt", NULL, &err);
      rc = 2;
    } else if (!quiet) printf("%s: exported in %.3f s\n", out, rg_cli_now() - t0);
  }
  rg_model_free(m);
  return rc;
}

int main(int argc, char **argv) {
  static const rg_cli_command cmds[] = {
      {"convert", convert_cmd, "import a model and export it again, applying no rules"},
      {"info", convert_cmd, "what import makes of a model: operators, opaque nodes, weights"},
      {"eval", graphopt_eval_cmd, "evaluate a model in float64 (seeded inputs); compare it with another"},
      {"cost", graphopt_cost_cmd, "what a model costs by a cost model: roofline, or oneDNN timed (cached)"},
      {"optimize", graphopt_optimize_cmd, "rewrite a model with verified rules by cost (also: graphopt --rules R IN -o OUT)"},
  };
  /* options first, no command: graphopt --rules R IN.onnx -o OUT.onnx is optimize */
  if (rg_cli_options_first(argc, argv)) return graphopt_optimize_cmd(argc, argv);
  return rg_cli_dispatch("graphopt",
                         "Optimizes ONNX models with verified rewrite rules (rulegen's). A model's operators of\n"
                         "the rule vocabulary become graph nodes rules rewrite; every other operator stays an\n"
                         "opaque node that rules see only as a variable.\n",
                         cmds, (int)(sizeof cmds / sizeof *cmds), argc, argv);
}
