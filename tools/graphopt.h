/* tools/graphopt.h: what graphopt's commands share: help, named input dimensions from --dim,
 * loading a model with errors printed, printing a report, and the commands kept in their own
 * files. Their option tables and help are cli/docs_graphopt.c's. */
#ifndef RG_TOOLS_GRAPHOPT_H
#define RG_TOOLS_GRAPHOPT_H

#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "optimizer/optimizer.h"

/* The cost models (--cost NAME) with their descriptions, from optimizer/'s table. */
void graphopt_print_cost_models(FILE *out);
/* A command's help for option c ('h': on stdout, returning 0; else on stderr, returning 2). */
int graphopt_usage(const rg_cli_doc *doc, int c, void (*extra)(FILE *out));
/* A report on stdout; frees it. */
void graphopt_print(rg_strbuf *sb);

/* Adds "NAME=N" from --dim; prints why and returns false when it is not one. */
bool graphopt_add_dim(rg_import_dims *d, const char *arg);
/* Imports path (d may be NULL), printing the error and returning NULL when it cannot; *seconds:
 * the import's time (may be NULL). */
rg_model *graphopt_load(const char *path, const rg_import_dims *d, double *seconds);

/* The outputs can be written (rg_path_check_writable), before any work: -o and --json (NULL:
 * none) are not one file, and neither names a file the run reads, inputs[0..n) (the model, the
 * rules, keys, axioms...; NULL entries skipped) unless force. Prints why as cmd and returns
 * false when not. */
bool graphopt_outputs_fit(const char *cmd, const char *const *inputs, int n_inputs, const char *out, const char *json,
                          bool force);

/* --external-data[=NAME], --no-external-data, --external-threshold BYTES into xo: 1 taken, 0
 * not one of them, -1 a bad value (said why as cmd). */
int graphopt_external_option(const char *cmd, int c, const char *arg, rg_export_opts *xo);

int graphopt_eval_cmd(int argc, char **argv);
int graphopt_cost_cmd(int argc, char **argv);
int graphopt_optimize_cmd(int argc, char **argv);

#endif
