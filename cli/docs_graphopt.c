/* cli/docs_graphopt.c: the help and option tables of graphopt's commands (cli/docs_graphopt.h), each declared
 * once: getopt's tables and --help are built from them. They are data, kept in docs_graphopt.def
 * (as the project's other tables are) and compiled here. */
#include "docs_graphopt.h"

#include "docs_graphopt.def"
