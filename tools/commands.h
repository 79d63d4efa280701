/* tools/commands.h: the subcommands of rulegen (see commands.def). */
#ifndef RG_TOOLS_COMMANDS_H
#define RG_TOOLS_COMMANDS_H

#define RG_COMMAND(name, fn, help) int fn(int argc, char **argv);
#include "commands.def"
#undef RG_COMMAND

#endif
