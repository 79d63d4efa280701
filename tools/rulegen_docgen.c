/* tools/rulegen_docgen.c: writes a program's man page or bash completion script, made from the
 * same option tables and help as --help (cli/manpage.h). Run by the build (tools/CMakeLists.txt):
 *   rulegen_docgen man|bash PROGRAM OUT
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv) {
  bool man = argc == 4 && !strcmp(argv[1], "man"), bash = argc == 4 && !strcmp(argv[1], "bash");
  if (!man && !bash) {
    fprintf(stderr, "usage: rulegen_docgen man|bash PROGRAM OUT\n");
    return 2;
  }
  rg_atomic_file out; /* whole or not at all: a stopped build leaves no cut-off page */
  rg_err err;
  if (rg_atomic_open(&out, argv[3], &err)) return fprintf(stderr, "rulegen_docgen: %s\n", err.msg), 2;
  bool known = man ? rg_cli_write_man(out.f, argv[2]) : rg_cli_write_bash_completion(out.f, argv[2]);
  if (!known) {
    rg_atomic_abort(&out);
    return fprintf(stderr, "rulegen_docgen: unknown program '%s'\n", argv[2]), 2;
  }
  if (rg_atomic_commit(&out, &err)) return fprintf(stderr, "rulegen_docgen: %s\n", err.msg), 2;
  return 0;
}
