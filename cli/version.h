/* cli/version.h: what `PROG --version` prints (rulegen, rulesdb, graphopt; rg_cli_dispatch
 * answers it): which build this is and which solvers its proofs would use. */
#ifndef RG_CLI_VERSION_H
#define RG_CLI_VERSION_H

/* Prints to stdout "PROG VERSION (git REV)" (the project's version from CMake; the git
 * revision the build was made from, "-dirty" when tracked files differed from it, "unknown"
 * outside a git checkout), then one line per solver as the solver helpers report it:
 * "z3 X.Y.Z", "cvc5 X.Y.Z", or "z3 not found: WHY" when its helper is missing or does not run
 * (verify/solver.h says where helpers are looked for). Returns the exit status: 0. */
int rg_cli_print_version(const char *prog);

#endif
