/* verify/helper.h: the whole of a solver helper program's main (rulegen-z3, rulegen-cvc5):
 * rulegen execs a helper and sends it framed queries (serve.h); a helper is not meant to be run
 * by hand. The helpers' entry points (z3_serve.h, cvc5_serve.h) come with this header, so that
 * the helper programs under tools/ need only verify/verify.h. */
#ifndef RG_VERIFY_HELPER_H
#define RG_VERIFY_HELPER_H

#include <stddef.h>

#include "cvc5_serve.h"
#include "z3_serve.h"

typedef struct {
  const char *program;                     /* "rulegen-z3" */
  const char *solver;                      /* "z3" */
  const char *how;                         /* how it answers, for --help */
  void (*version)(char *buf, size_t size); /* the linked solver library's version */
  int (*serve)(int in_fd, int out_fd);     /* rg_serve with that solver */
} rg_helper_program;

/* --help; --version prints "PROGRAM: SOLVER version V" (rulegen reads the version from that
 * line); no argument serves stdin to stdout. Returns the exit status. */
int rg_helper_main(int argc, char **argv, const rg_helper_program *h);

#endif
