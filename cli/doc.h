/* cli/doc.h: a command's help, declared once beside its options (cli/docs_*.c): what --help
 * prints, and what man pages and shell completion can be made of. */
#ifndef RG_CLI_DOC_H
#define RG_CLI_DOC_H

#include <stdio.h>

#include "options.h"

typedef struct {
  const char *usage; /* the synopsis after "usage: ", e.g. "rulegen prove [options] FILE.rules" */
  const char *about; /* what the command does: lines ended by '\n' */
  const rg_cli_option *options;
  int n_options;
  const char *after;  /* examples, exit statuses (lines ended by '\n'), or NULL */
} rg_cli_doc;

/* "usage: ...", the about text, "options:" and the option lines; then extra(out) when given
 * (a list read from a module, e.g. the cost models), then the after text. */
void rg_cli_doc_usage(FILE *out, const rg_cli_doc *d, void (*extra)(FILE *out));

#endif
