/* cli/dispatch.h: a program of subcommands (rulegen, rulesdb, graphopt) runs the one argv names. */
#ifndef RG_CLI_DISPATCH_H
#define RG_CLI_DISPATCH_H

#include <stdbool.h>

/* One subcommand of a program: fn gets argv shifted so that argv[0] is the command's name,
 * and returns the exit status. */
typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
} rg_cli_command;

/* Runs the subcommand argv[1] names. -h, --help or help print the usage (prog, about, the
 * command list) on stdout and return 0; help CMD runs CMD --help; --version prints
 * rg_cli_print_version's lines; no command or an unknown one print the usage on stderr and
 * return 2. A command line that starts with options (rg_cli_options_first) runs default_cmd
 * when the program has one (rulegen synth, graphopt optimize; NULL: none). */
int rg_cli_dispatch(const char *prog, const char *about, const rg_cli_command *cmds, int n,
                    int (*default_cmd)(int argc, char **argv), int argc, char **argv);
/* Whether the command line starts with an option other than -h/--help: then no command was
 * named and the program's default one runs (rulegen synth, graphopt optimize). */
bool rg_cli_options_first(int argc, char **argv);

#endif
