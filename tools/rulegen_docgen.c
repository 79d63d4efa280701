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
  FILE *out = fopen(argv[3], "w");
  if (!out) return perror(argv[3]), 2;
  bool known = man ? rg_cli_write_man(out, argv[2]) : rg_cli_write_bash_completion(out, argv[2]);
  if (fclose(out) || !known) {
    fprintf(stderr, "rulegen_docgen: %s\n", known ? "cannot write the output" : "unknown program");
    remove(argv[3]);
    return 2;
  }
  return 0;
}
