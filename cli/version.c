/* cli/version.c: `--version` (cli/version.h). */
#include "version.h"

#include <stdio.h>

#include "gitrev.h" /* RG_GIT_REV, made at build time by cmake/gitrev.cmake */
#include "verify/verify.h"

#ifndef RG_VERSION
#error "RG_VERSION: cli/CMakeLists.txt defines it from project(rulegen VERSION ...)"
#endif

int rg_cli_print_version(const char *prog) {
  printf("%s %s (git %s)\n", prog, RG_VERSION, RG_GIT_REV);
  /* The helpers answer the queries, so their versions are the ones that matter (the
   * environment may name a helper built against another library than this program's). */
  for (int k = 0; k < RG_SOLVER_COUNT; k++) {
    rg_solver s;
    rg_err err = {0};
    if (rg_solver_init(&s, (rg_solver_kind)k, NULL, &err))
      printf("%s not found: %s\n", rg_solver_kind_name((rg_solver_kind)k), err.msg);
    else
      printf("%s %s\n", s.name, s.version);
  }
  return fflush(stdout) ? 1 : 0;
}
