/* verify/helper.c: the main shared by the solver helper programs (helper.h). */
#include "helper.h"

#include <stdio.h>
#include <string.h>

int rg_helper_main(int argc, char **argv, const rg_helper_program *h) {
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    printf("usage: %s [--version]\n"
           "\n"
           "rulegen's %s helper: reads framed SMT-LIB2 queries on stdin (rg-query headers) and\n"
           "answers each on stdout (rg-reply headers), %s.\n"
           "rulegen starts it (found next to the rulegen program, or at the path in the\n"
           "environment); it is not meant to be run by hand.\n",
           h->program, h->solver, h->how);
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    char v[64];
    h->version(v, sizeof v);
    printf("%s: %s version %s\n", h->program, h->solver, v);
    return 0;
  }
  if (argc != 1) {
    fprintf(stderr, "%s: unexpected arguments (see %s --help)\n", h->program, h->program);
    return 2;
  }
  return h->serve(0, 1);
}
