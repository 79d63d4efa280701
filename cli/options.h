/* cli/options.h: every option of every command, declared once (cli/flags.def), and a command's
 * table of the options it takes: getopt's long and short tables and the help lines are built
 * from it. */
#ifndef RG_CLI_OPTIONS_H
#define RG_CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#define RG_CLI_MAX_OPTIONS 64

/* One option of the registry (cli/flags.def): --name, its letter -short_ (0: none), whether it
 * takes an argument (0 none, 1 required, 2 optional: --name=VALUE), the META the help names its
 * value by, and code: what getopt answers for it (the letter, or 256 + its index). */
typedef struct {
  const char *name;
  int short_, arg;
  const char *meta;
  int code;
} rg_cli_flag;

enum {
#define RG_FLAG(id, name, short_, arg, meta) RG_FLAG_IDX_##id,
#include "flags.def"
#undef RG_FLAG
  RG_FLAG_COUNT
};
/* RG_OPT_<ID>: the option's code, as getopt returns it and field tables name it. */
enum {
#define RG_FLAG(id, name, short_, arg, meta) RG_OPT_##id = (short_) ? (short_) : 256 + RG_FLAG_IDX_##id,
#include "flags.def"
#undef RG_FLAG
};
extern const rg_cli_flag rg_cli_flags[RG_FLAG_COUNT];

/* One option of a command: a registry entry, the command's help line for it, and (NULL: the
 * registry's) a closer name for its value, e.g. OUT.onnx for --output. */
typedef struct {
  const rg_cli_flag *flag;
  const char *help, *meta;
} rg_cli_option;
#define RG_CLI_OPT(id, help) {&rg_cli_flags[RG_FLAG_IDX_##id], help, NULL}
#define RG_CLI_OPT_META(id, meta, help) {&rg_cli_flags[RG_FLAG_IDX_##id], help, meta}
#define RG_CLI_HELP_ROW RG_CLI_OPT(HELP, "show this help")

/* The long name of the registry's option getopt answers code for ("?" for none). */
const char *rg_cli_flag_name(int code);
/* The META an option's help shows: the command's, else the registry's. */
const char *rg_cli_option_meta(const rg_cli_option *o);

/* getopt_long's tables built from an option array. */
typedef struct {
  struct option longs[RG_CLI_MAX_OPTIONS + 1];
  char shorts[3 * RG_CLI_MAX_OPTIONS + 1];
  int n;
} rg_cli_getopt;

/* Builds the tables of opts[0..n) (n <= RG_CLI_MAX_OPTIONS) and restarts getopt. */
void rg_cli_getopt_init(rg_cli_getopt *g, const rg_cli_option *opts, int n);
/* Adds a long-only option answered with code (the caller's extra options, e.g. operator
 * choices read from a module's list; codes from RG_CLI_EXTRA_CODE). */
void rg_cli_getopt_add(rg_cli_getopt *g, const char *name, int arg, int code);
#define RG_CLI_EXTRA_CODE 1000
_Static_assert(256 + RG_FLAG_COUNT < RG_CLI_EXTRA_CODE, "option codes overlap the extra options'");
/* The next option, as getopt_long returns it (-1 at the end, '?' for an unknown one). */
int rg_cli_getopt_next(rg_cli_getopt *g, int argc, char **argv);

/* The width help lines are wrapped to (cli/doc.h: every printed line fits it). */
#define RG_CLI_HELP_WIDTH 100
/* "  -c, --name META  help" per option, the columns sized to the table, a help text too long
 * for its line wrapped onto lines indented under the help column. */
void rg_cli_print_options(FILE *out, const rg_cli_option *opts, int n);
/* text (one paragraph) from column col, the cursor standing there, to RG_CLI_HELP_WIDTH, word
 * by word, continuation lines indented to col, and a newline; a word longer than a whole line
 * stands alone on its line. */
void rg_cli_print_wrapped(FILE *out, const char *text, int col);
#define RG_CLI_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

#endif
