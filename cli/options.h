/* cli/options.h: a command's options declared once, as a table: getopt's long and short tables
 * and the help lines are built from it. */
#ifndef RG_CLI_OPTIONS_H
#define RG_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#define RG_CLI_MAX_OPTIONS 64

/* One option of a command: --name and -short_ (a letter, or RG_CLI_LONG_ONLY(c) for an option
 * without one), whether it takes an argument (0 none, 1 required, 2 optional: --name=VALUE;
 * meta names it in the help), the help line. A command's array of these is the one place its
 * options are declared. */
typedef struct {
  const char *name;
  int short_;
  int arg;
  const char *meta, *help;
} rg_cli_option;
#define RG_CLI_LONG_ONLY(c) (256 + (c))
#define RG_CLI_HELP_ROW {"help", 'h', 0, "", "show this help"}

/* getopt_long's tables built from an option array. */
typedef struct {
  struct option longs[RG_CLI_MAX_OPTIONS + 1];
  char shorts[3 * RG_CLI_MAX_OPTIONS + 1];
  int n;
} rg_cli_getopt;

/* Builds the tables of opts[0..n) (n <= RG_CLI_MAX_OPTIONS) and restarts getopt. */
void rg_cli_getopt_init(rg_cli_getopt *g, const rg_cli_option *opts, int n);
/* Adds a long-only option answered with code (the caller's extra options, e.g. operator
 * choices read from a module's list). */
void rg_cli_getopt_add(rg_cli_getopt *g, const char *name, int arg, int code);
/* The next option, as getopt_long returns it (-1 at the end, '?' for an unknown one). */
int rg_cli_getopt_next(rg_cli_getopt *g, int argc, char **argv);
/* "  -c, --name META help" per option, names padded to name_w and metas to meta_w. */
void rg_cli_print_options(FILE *out, const rg_cli_option *opts, int n, int name_w, int meta_w);
#define RG_CLI_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

#endif
