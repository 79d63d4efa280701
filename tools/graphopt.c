/* tools/graphopt.c: the graph optimizer's command line: `graphopt convert` (a model in and out
 * again, no rules applied), `graphopt info` (what import makes of a model), `graphopt eval`
 * (graphopt_eval.c), `graphopt cost` (graphopt_cost.c) and `graphopt optimize`
 * (graphopt_optimize.c). The work is optimizer/'s; this file parses, calls and prints.
 *
 * Exit status: 0 done, 1 outputs differ (eval, optimize's numeric check), 2 bad input or arguments.
 */
#include <signal.h>
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

int graphopt_usage(const rg_cli_doc *doc, int c, void (*extra)(FILE *out)) {
  rg_cli_doc_usage(c == RG_OPT_HELP ? stdout : stderr, doc, extra);
  return c == RG_OPT_HELP ? 0 : 2;
}

void graphopt_print(rg_strbuf *sb) {
  fputs(rg_sb_str(sb), stdout);
  rg_sb_free(sb);
}

bool graphopt_add_dim(rg_import_dims *d, const char *arg) {
  rg_err err;
  if (rg_import_dims_add(d, arg, &err)) return fprintf(stderr, "graphopt: %s\n", err.msg), false;
  return true;
}

rg_model *graphopt_load(const char *path, const rg_import_dims *d, double *seconds) {
  rg_import_opts o = rg_import_dims_opts(d);
  rg_model *m;
  rg_err err = {0};
  double t0 = rg_clock_seconds();
  if (rg_model_import(path, &o, &m, &err)) {
    rg_cli_report("graphopt", NULL, &err); /* the message names the file */
    return NULL;
  }
  if (seconds) *seconds = rg_clock_seconds() - t0;
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_dims_notes(m, &sb); /* the values no --dim gave */
  fputs(rg_sb_str(&sb), stderr), rg_sb_free(&sb);
  return m;
}

bool graphopt_outputs_fit(const char *cmd, const char *const *inputs, int n_inputs, const char *out, const char *json,
                          bool force) {
  rg_err err;
  const char *bad = rg_path_check_writable(out, &err) ? "-o" : json && rg_path_check_writable(json, &err) ? "--json" : NULL;
  if (bad) return fprintf(stderr, "%s: %s %s\n", cmd, bad, err.msg), false; /* before the work, not after it */
  if (json && rg_path_same_file(out, json))
    return fprintf(stderr, "%s: -o and --json name one file (%s): give each its own\n", cmd, out), false;
  const char *outputs[] = {out, json};
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < n_inputs && outputs[o] && !force; i++)
      if (inputs[i] && rg_path_same_file(outputs[o], inputs[i]))
        return fprintf(stderr, "%s: %s %s names a file this run reads (%s): give another file, or --force to "
                               "replace it\n", cmd, o ? "--json" : "-o", outputs[o], inputs[i]),
               false;
  return true;
}

int graphopt_external_option(const char *cmd, int c, const char *arg, rg_export_opts *xo) {
  rg_err err;
  int r = rg_export_option(xo, rg_cli_flag_name(c), arg, &err);
  if (r < 0) fprintf(stderr, "%s: %s\n", cmd, err.msg);
  return r;
}

/* ---- convert, info ---- */

static int convert_cmd(int argc, char **argv) {
  const char *cmd = argv[0], *out = NULL;
  bool quiet = false, force = false, convert = !strcmp(cmd, "convert");
  const rg_cli_doc *doc = convert ? &rg_doc_graphopt_convert : &rg_doc_graphopt_info;
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, doc->options, doc->n_options);
  rg_import_dims dims = {0};
  rg_export_opts xo = {0};
  int c, x;
  while ((c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    switch (c) {
    case RG_OPT_OUTPUT: out = optarg; break;
    case RG_OPT_DIM:
      if (!graphopt_add_dim(&dims, optarg)) return 2;
      break;
    case RG_OPT_QUIET: quiet = true; break;
    case RG_OPT_FORCE: force = true; break;
    default: /* --external-data and the rest, or not an option of the command */
      if ((x = graphopt_external_option("graphopt convert", c, optarg, &xo)) > 0) break;
      return x < 0 ? 2 : graphopt_usage(doc, c, NULL);
    }
  }
  if (optind != argc - 1 || (convert && !out)) {
    fprintf(stderr, "graphopt %s: %s\n", cmd, optind != argc - 1 ? "wants one model" : "wants -o OUT.onnx");
    return graphopt_usage(doc, '?', NULL);
  }
  const char *reads[] = {argv[optind]};
  if (convert && !graphopt_outputs_fit("graphopt convert", reads, 1, out, NULL, force)) return 2;
  xo.force = force, xo.reads = reads, xo.n_reads = 1;
  double t_import, t0;
  rg_model *m = graphopt_load(argv[optind], &dims, &t_import);
  if (!m) return 2;
  rg_err err = {0};
  if (convert && rg_export_check_outputs(m, out, NULL, &xo, &err)) /* its side files too, before any work */
    return rg_cli_report("graphopt convert", NULL, &err), rg_model_free(m), 2;
  int rc = 0;
  if (!quiet) {
    rg_strbuf sb;
    rg_sb_init(&sb);
    rg_sb_printf(&sb, "%s: imported in %.3f s\n", argv[optind], t_import);
    rg_model_io_print(m, &sb);
    rg_model_counts_print(m, &sb);
    graphopt_print(&sb);
  }
  t0 = rg_clock_seconds();
  rg_strbuf said; /* with symbolic dims: what convert writes checked at other values of them */
  rg_sb_init(&said);
  bool holds = !convert || !m->n_dims || rg_dims_verify(m, argv[optind], 1e-4, &said);
  fputs(rg_sb_str(&said), holds ? stdout : stderr), rg_sb_free(&said);
  if (!holds) rc = 2;
  else if (convert && rg_model_export_with(m, out, &xo, &err)) rc = 2, rg_cli_report("graphopt", NULL, &err);
  else if (convert && !quiet) printf("%s: exported in %.3f s\n", out, rg_clock_seconds() - t0);
  rg_model_free(m);
  return rc;
}

int main(int argc, char **argv) {
  /* A pipe or FIFO whose reader went away is a write error to report (exit 2), not a silent death */
  signal(SIGPIPE, SIG_IGN);
  static const rg_cli_command cmds[] = {
      {"convert", convert_cmd, "import a model and export it again, applying no rules"},
      {"info", convert_cmd, "what import makes of a model: operators, opaque nodes, weights"},
      {"eval", graphopt_eval_cmd, "evaluate a model in float64 (seeded inputs); compare it with another"},
      {"cost", graphopt_cost_cmd, "what a model costs by a cost model: roofline, or timed by oneDNN or onnxruntime (cached)"},
      {"optimize", graphopt_optimize_cmd, "rewrite a model with verified rules by cost (also: graphopt [--rules R] IN -o OUT)"},
  };
  /* options or a model first, no command: graphopt [--rules R] IN.onnx -o OUT.onnx is optimize */
  return rg_cli_dispatch("graphopt",
                         "Optimizes ONNX models with verified rewrite rules (rulegen's). A model's operators of\n"
                         "the rule vocabulary become graph nodes rules rewrite; every other operator stays an\n"
                         "opaque node that rules see only as a variable.\n",
                         cmds, (int)(sizeof cmds / sizeof *cmds), graphopt_optimize_cmd, argc, argv);
}
