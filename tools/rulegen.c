/* tools/rulegen.c: the rulegen program: parses the subcommand and hands over to it. Options
 * without a command (rulegen --ops all --depth 4 ...) run the synthesis pipeline (synth). */
#include <string.h>

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
                         "graphs.\n"
                         "'rulegen --ops OPS --depth N ...' (options, no command) is rulegen synth.\n",
                         commands, (int)(sizeof commands / sizeof *commands), rg_cmd_synth, argc, argv);
}
