/* cli/dispatch.c: a program's subcommands run by name (cli/dispatch.h). */
#include "dispatch.h"

#include "options.h"

#include <stdio.h>
#include <string.h>

#include "version.h"

static void cli_usage(FILE *out, const char *prog, const char *about, const rg_cli_command *cmds,
                      int n) {
  fprintf(out, "usage: %s COMMAND [options]\n\n%s\ncommands:\n", prog, about);
  for (int i = 0; i < n; i++) {
    fprintf(out, "  %-12s ", cmds[i].name);
    rg_cli_print_wrapped(out, cmds[i].help, 15);
  }
  fprintf(out, "\n'%s help COMMAND' (or '%s COMMAND --help') describes a command's options;\n"
               "'%s --version' prints the version, the git revision and the solvers' versions.\n", prog, prog, prog);
}

int rg_cli_dispatch(const char *prog, const char *about, const rg_cli_command *cmds, int n,
                    int (*default_cmd)(int argc, char **argv), int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--version")) return rg_cli_print_version(prog);
  if (default_cmd && rg_cli_options_first(argc, argv)) return default_cmd(argc, argv);
  if (argc < 2) {
    cli_usage(stderr, prog, about, cmds, n);
    return 2;
  }
  bool help = !strcmp(argv[1], "help");
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || (help && argc == 2)) {
    cli_usage(stdout, prog, about, cmds, n);
    return 0;
  }
  const char *name = argv[help ? 2 : 1];
  for (int i = 0; i < n; i++) {
    if (strcmp(name, cmds[i].name)) continue;
    if (!help) return cmds[i].fn(argc - 1, argv + 1);
    char *args[] = {argv[2], "--help", NULL}; /* help CMD: what CMD --help prints */
    return cmds[i].fn(2, args);
  }
  /* a first word that names a file, not a command: graphopt IN.onnx -o OUT.onnx is optimize */
  if (default_cmd && !help && strpbrk(name, "./")) return default_cmd(argc, argv);
  fprintf(stderr, "%s: unknown command '%s'\n\n", prog, name);
  cli_usage(stderr, prog, about, cmds, n);
  return 2;
}

bool rg_cli_options_first(int argc, char **argv) {
  return argc >= 2 && argv[1][0] == '-' && argv[1][1] != 0 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help");
}
