/* tools/rulegen_z3.c: the rulegen-z3 helper: answers z3 queries for rulegen (verify/z3_serve.h)
 * in a process of its own. rulegen execs it rather than forking itself, because a fork of a
 * multi-threaded process inherits locks held by other threads and can deadlock. Not meant to
 * be run by hand: the queries come framed in binary on stdin. */
#include <stdio.h>
#include <string.h>

#include "verify/z3_serve.h"

int main(int argc, char **argv) {
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf(
        "usage: rulegen-z3 [--version]\n"
        "\n"
        "rulegen's z3 helper: reads length-prefixed SMT-LIB2 queries on stdin and answers each\n"
        "on stdout, with a fresh z3 context per query. rulegen starts it (found next to the\n"
        "rulegen program, or at the path in RG_Z3_HELPER); it is not meant to be run by hand.\n");
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    char v[64];
    rg_z3_lib_version(v, sizeof v);
    /* rulegen reads the z3 version from this line (verify/solver_z3.c). */
    printf("rulegen-z3: z3 version %s\n", v);
    return 0;
  }
  if (argc != 1) {
    fprintf(stderr, "rulegen-z3: unexpected arguments (see rulegen-z3 --help)\n");
    return 2;
  }
  return rg_z3_serve(0, 1);
}
