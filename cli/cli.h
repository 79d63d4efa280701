/* cli/cli.h: the public header of the cli module: what the programs' command lines are made
 * of: option tables (options.h), the commands' help and tables (doc.h, docs_*.h), option
 * values and variable bindings (args.h), subcommand dispatch (dispatch.h). The programs under tools/ parse with these, call the modules, print. */
#ifndef RG_CLI_CLI_H
#define RG_CLI_CLI_H

#include "args.h"
#include "catalog.h"
#include "dispatch.h"
#include "doc.h"
#include "docs_graphopt.h"
#include "docs_rulegen.h"
#include "docs_rulesdb.h"
#include "manpage.h"
#include "options.h"
#include "version.h"

#endif
