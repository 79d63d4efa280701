/* tools/cli.h: helpers the command-line programs share: option tables (getopt's tables and the
 * help lines from one array), variable bindings given as NAME=VALUE options, number parsing,
 * and reporting errors with the file and line they came from. */
#ifndef RG_TOOLS_CLI_H
#define RG_TOOLS_CLI_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"

#define RG_CLI_MAX_BINDINGS 64
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

typedef struct {
  char name[RG_RULE_MAX_NAME];
  rg_shape shape;
} rg_cli_shape;

typedef struct {
  char name[RG_RULE_MAX_NAME];
  int32_t value;
} rg_cli_param;

/* Shapes and parameter values from the command line, by variable name. */
typedef struct {
  rg_cli_shape shapes[RG_CLI_MAX_BINDINGS];
  int n_shapes;
  bool has_default;
  rg_shape default_shape; /* for tensor variables not named */
  rg_cli_param params[RG_CLI_MAX_BINDINGS];
  int n_params;
} rg_cli_bindings;

/* "x=2x4" binds ?x; a bare "2x4" is the default for every unnamed tensor variable. Several
 * bindings may be given in one argument, separated by spaces or commas. */
rg_status rg_cli_add_shapes(rg_cli_bindings *b, const char *arg, rg_err *err) RG_MUST_CHECK;
/* "a=1" binds parameter variable ?a. */
rg_status rg_cli_add_param(rg_cli_bindings *b, const char *arg, rg_err *err) RG_MUST_CHECK;

/* Arrays for one rule's variables, owned by the caller's rg_cli_bound (free with _free). */
typedef struct {
  const rg_shape **tvar_shapes;
  int32_t *pvar_values;
  uint8_t *pvar_bound;
  rg_binding binding;
} rg_cli_bound;
rg_status rg_cli_bind(const rg_cli_bindings *b, const rg_graph *g, rg_cli_bound *out,
                      rg_err *err) RG_MUST_CHECK;
void rg_cli_bound_free(rg_cli_bound *bd);

/* Parses a whole decimal number in [lo, hi]. */
bool rg_cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* Same for the value of option --opt, printing "prog: --opt wants a number from lo to hi, not
 * 'arg'" to stderr when it is not one. */
bool rg_cli_int_option(const char *prog, const char *opt, const char *arg, int64_t lo, int64_t hi,
                       int64_t *out);

/* An option parser's step for --opt's value, a whole number in [lo, hi], into *dst: -1 to go on,
 * or 2 (the exit status) after rg_cli_int_option's message. The seed variant takes any
 * non-negative 64-bit number. */
int rg_cli_int_arg(const char *prog, const char *opt, const char *arg, int64_t lo, int64_t hi, int *dst);
int rg_cli_seed_arg(const char *prog, const char *arg, uint64_t *dst);

/* Ctrl-C (SIGINT) and SIGTERM set rg_cli_interrupted, which long-running commands poll (it is
 * the stop flag they hand to the library calls). A signal handler can only reach a global, so
 * this one flag is process-wide state. rg_cli_catch_interrupts clears it and installs the
 * handler; rg_cli_release_interrupts puts the previous handlers back. */
extern volatile sig_atomic_t rg_cli_interrupted;
void rg_cli_catch_interrupts(void);
void rg_cli_release_interrupts(void);

/* The shape of variable `name` in the input set ctx (an rg_enum_inputset: enumerate/inputs.h),
 * or NULL: a var_shape function for the recheck (verify/recheck.h). */
const rg_shape *rg_cli_input_shape(const void *ctx, const char *name);
/* Loads an input set (an rg_enum_inputset) from path into inputs, or prints "prog: path:line:
 * message" and returns false. */
bool rg_cli_load_inputs(const char *prog, const char *path, void *inputs);

/* Seconds on the monotonic clock (stage times). */
double rg_cli_now(void);

/* Prints "prog: where: message" to stderr, where is "file:line:col" when known. */
void rg_cli_report(const char *prog, const char *file, const rg_err *err);

/* One subcommand of a program: fn gets argv shifted so that argv[0] is the command's name,
 * and returns the exit status. */
typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
} rg_cli_command;

/* Runs the subcommand argv[1] names. -h, --help or help print the usage (prog, about, the
 * command list) on stdout and return 0; no command or an unknown one print it on stderr and
 * return 2. */
int rg_cli_dispatch(const char *prog, const char *about, const rg_cli_command *cmds, int n,
                    int argc, char **argv);
/* Whether the command line starts with an option other than -h/--help: then no command was
 * named and the program's default one runs (rulegen synth, graphopt optimize). */
bool rg_cli_options_first(int argc, char **argv);

#endif
