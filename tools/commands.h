/* tools/commands.h: the subcommands of rulegen; each returns the process exit status. */
#ifndef RG_TOOLS_COMMANDS_H
#define RG_TOOLS_COMMANDS_H

int rg_cmd_eval(int argc, char **argv);

#endif
