/* cli/doc.c: printing a command's help (cli/doc.h). */
#include "doc.h"

void rg_cli_doc_usage(FILE *out, const rg_cli_doc *d, void (*extra)(FILE *out)) {
  fprintf(out, "usage: %s\n\n%s", d->usage, d->about ? d->about : "");
  fprintf(out, "\noptions:\n");
  rg_cli_print_options(out, d->options, d->n_options);
  if (extra) extra(out);
  if (d->after) fprintf(out, "\n%s", d->after);
}
