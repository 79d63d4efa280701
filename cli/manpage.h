/* cli/manpage.h: a program's manual page (roff, man(7) macros) and its bash completion script,
 * both made from the commands' option tables and help (cli/catalog.h) that --help prints. */
#ifndef RG_CLI_MANPAGE_H
#define RG_CLI_MANPAGE_H

#include <stdbool.h>
#include <stdio.h>

/* program(1): NAME, SYNOPSIS, DESCRIPTION (the command list), one subsection per command with
 * its usage, what it does, every option (synth's operator choices too) and its examples and exit
 * statuses. False for a program the catalog does not know. */
bool rg_cli_write_man(FILE *out, const char *program);

/* A bash completion script for program: commands after the program's name (and after 'help'),
 * a command's options (long and short) after it, the default command's options when the command
 * line starts with one; files elsewhere. Defines _<program> and registers it with complete.
 * False for a program the catalog does not know. */
bool rg_cli_write_bash_completion(FILE *out, const char *program);

#endif
