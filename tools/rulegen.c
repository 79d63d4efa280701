/* tools/rulegen.c: the rulegen program: parses the subcommand and hands over to it. Options
 * without a command (rulegen --ops all --depth 4 ...) run the synthesis pipeline (synth), the
 * one command that spreads over the ranks of an MPI job (cluster/cluster.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cluster/cluster.h"
#include "commands.h"

static const rg_cli_command commands[] = {
#define RG_COMMAND(name, fn, help) {name, fn, help},
#include "commands.def"
#undef RG_COMMAND
};

int main(int argc, char **argv) {
  rg_err err;
  bool spreads = argc < 2 || argv[1][0] == '-' || !strcmp(argv[1], "synth") || !strcmp(argv[1], "help");
  int rc = rg_cluster_start(&argc, &argv, spreads, &err)
               ? fprintf(stderr, "rulegen: %s\n", err.msg), 2
               : rg_cli_dispatch("rulegen",
                                 "rulegen synthesizes and proves rewrite rules for tensor computation graphs.\n"
                                 "'rulegen --ops OPS --depth N ...' (options, no command) is rulegen synth.\n",
                                 commands, (int)(sizeof commands / sizeof *commands), rg_cmd_synth, argc, argv);
  rg_cluster_end(rc);
  return rc;
}
