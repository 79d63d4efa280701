/* tools/cli.h: what the programs share beyond cli/: the process-wide interrupt flag, and error
 * lines on stderr. */
#ifndef RG_TOOLS_CLI_H
#define RG_TOOLS_CLI_H

#include <signal.h>

#include "cli/cli.h"
#include "ir/ir.h"

/* Ctrl-C (SIGINT) and SIGTERM set rg_cli_interrupted, which long-running commands poll (it is
 * the stop flag they hand to the library calls). A signal handler can only reach a global, so
 * this one flag is process-wide state. rg_cli_catch_interrupts clears it and installs the
 * handler; rg_cli_release_interrupts puts the previous handlers back. */
extern volatile sig_atomic_t rg_cli_interrupted;
void rg_cli_catch_interrupts(void);
void rg_cli_release_interrupts(void);


/* Prints "prog: where: message" to stderr, where is "file:line:col" when known. */
void rg_cli_report(const char *prog, const char *file, const rg_err *err);

#endif
