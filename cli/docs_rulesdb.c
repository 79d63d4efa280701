/* cli/docs_rulesdb.c: the help and option tables of rulesdb's commands (cli/docs_rulesdb.h), each declared
 * once: getopt's tables and --help are built from them. They are data, kept in docs_rulesdb.def
 * (as the project's other tables are) and compiled here. */
#include "docs_rulesdb.h"

#include "docs_rulesdb.def"
