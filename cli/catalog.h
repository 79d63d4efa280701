/* cli/catalog.h: every command's help of every program (rulegen, rulesdb, graphopt) in one
 * list: what the man pages, the shell completion and the option-table test are made of. */
#ifndef RG_CLI_CATALOG_H
#define RG_CLI_CATALOG_H

#include "doc.h"

/* One command of a program, with its help. */
typedef struct {
  const char *program, *command; /* "rulegen", "prove" */
  const rg_cli_doc *doc;
  void (*extra)(FILE *out); /* what its --help prints after the options that cli/ knows (or NULL) */
} rg_cli_doc_entry;

/* One program: its name, what it does (the man page's NAME line), its default command (run
 * when the command line starts with an option; NULL: none). */
typedef struct {
  const char *name, *summary, *default_command;
} rg_cli_program;

/* Every command of every program, programs in the order of rg_cli_programs. */
const rg_cli_doc_entry *rg_cli_all_docs(int *n);
/* The programs. */
const rg_cli_program *rg_cli_programs(int *n);

#endif
