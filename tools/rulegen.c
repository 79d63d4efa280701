/* tools/rulegen.c: the rulegen program: parses the subcommand and hands over to it. */
#include "cli.h"
#include "commands.h"

static const rg_cli_command commands[] = {
#define RG_COMMAND(name, fn, help) {name, fn, help},
#include "commands.def"
#undef RG_COMMAND
};

int main(int argc, char **argv) {
  return rg_cli_dispatch("rulegen",
                         "rulegen synthesizes and proves rewrite rules for tensor computation "
                         "graphs.\n",
                         commands, (int)(sizeof commands / sizeof *commands), argc, argv);
}
