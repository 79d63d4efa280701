/* cli/docs_rulegen.h: the help and option tables of rulegen's commands (cli/docs_rulegen.c). */
#ifndef RG_CLI_DOCS_RULEGEN_H
#define RG_CLI_DOCS_RULEGEN_H

#include "doc.h"

#endif
