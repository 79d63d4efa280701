/* cli/docs_rulesdb.h: the help and option tables of rulesdb's commands (cli/docs_rulesdb.c). */
#ifndef RG_CLI_DOCS_RULESDB_H
#define RG_CLI_DOCS_RULESDB_H

#include "doc.h"

#endif
