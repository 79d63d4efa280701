/* cli/docs_graphopt.h: the help and option tables of graphopt's commands (cli/docs_graphopt.c). */
#ifndef RG_CLI_DOCS_GRAPHOPT_H
#define RG_CLI_DOCS_GRAPHOPT_H

#include "doc.h"

/* graphopt convert, info (convert's table without -o), eval, cost, optimize. Every table has
 * -d/--dim NAME=N; cost and optimize list the cost models after their options (the caller's
 * extra, read from optimizer/'s table). */
extern const rg_cli_doc rg_doc_graphopt_convert, rg_doc_graphopt_info, rg_doc_graphopt_eval, rg_doc_graphopt_cost,
    rg_doc_graphopt_optimize;

#endif
