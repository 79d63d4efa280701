/* cli/docs_graphopt.h: the help and option tables of graphopt's commands (cli/docs_graphopt.c). */
#ifndef RG_CLI_DOCS_GRAPHOPT_H
#define RG_CLI_DOCS_GRAPHOPT_H

#include "doc.h"

#endif
