/* tools/rulegen.c: the rulegen program: parses the subcommand and hands over to it. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static void usage(FILE *out) {
  fprintf(out, "usage: rulegen COMMAND [options]\n"
               "       rulegen --ops OPS --depth N [options]   (the same as rulegen synth ...)\n\n"
               "rulegen synthesizes and proves rewrite rules for tensor computation graphs.\n\n"
               "commands:\n");
#define RG_COMMAND(name, fn, help) fprintf(out, "  %-12s %s\n", name, help);
#include "commands.def"
#undef RG_COMMAND
  fprintf(out, "\n'rulegen COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  /* options without a command: the synthesis pipeline (rulegen --ops all --depth 4 ...) */
  if (argv[1][0] == '-' && argv[1][1] != 0) return rg_cmd_synth(argc, argv);
#define RG_COMMAND(name, fn, help)                                                               \
  if (!strcmp(argv[1], name)) return fn(argc - 1, argv + 1);
#include "commands.def"
#undef RG_COMMAND
  fprintf(stderr, "rulegen: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 2;
}
