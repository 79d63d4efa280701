/* cli/dispatch.c: a program's subcommands run by name (cli/dispatch.h). */
#include "dispatch.h"

#include <stdio.h>
#include <string.h>

#include "version.h"

static void cli_usage(FILE *out, const char *prog, const char *about, const rg_cli_command *cmds,
                      int n) {
  fprintf(out, "usage: %s COMMAND [options]\n\n%s\ncommands:\n", prog, about);
  for (int i = 0; i < n; i++) fprintf(out, "  %-12s %s\n", cmds[i].name, cmds[i].help);
  fprintf(out, "\n'%s COMMAND --help' describes a command's options.\n", prog);
}

int rg_cli_dispatch(const char *prog, const char *about, const rg_cli_command *cmds, int n,
                    int (*default_cmd)(int argc, char **argv), int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--version")) return rg_cli_print_version(prog);
  if (default_cmd && rg_cli_options_first(argc, argv)) return default_cmd(argc, argv);
  if (argc < 2) {
    cli_usage(stderr, prog, about, cmds, n);
    return 2;
  }
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    cli_usage(stdout, prog, about, cmds, n);
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (!strcmp(argv[1], cmds[i].name)) return cmds[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "%s: unknown command '%s'\n\n", prog, argv[1]);
  cli_usage(stderr, prog, about, cmds, n);
  return 2;
}

bool rg_cli_options_first(int argc, char **argv) {
  return argc >= 2 && argv[1][0] == '-' && argv[1][1] != 0 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help");
}
