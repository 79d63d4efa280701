/* cli/args.h: option values parsed: whole numbers in a range (with the message a user sees when
 * one is not), NAME=DIMS and NAME=VALUE bindings of a rule's variables, input sets, file options
 * given the empty string; and a module's warning text printed a line at a time. */
#ifndef RG_CLI_ARGS_H
#define RG_CLI_ARGS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "ir/ir.h"

#define RG_CLI_MAX_BINDINGS 64

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
/* False, said on stderr as "PROG: OPT: an empty file name: give one", when one of the n file
 * options opts[k] was given the empty string vals[k] (NULL: not given). */
bool rg_cli_file_names_given(const char *prog, const char *const *opts, const char *const *vals, int n);
/* Each line of text on its own line of out, after prefix (a warning per line). */
void rg_cli_print_lines(FILE *out, const char *prefix, const char *text);
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
/* The same for a real number at least lo ("wants a number >= lo"), a size such as 512M or 4G
 * (rg_cli_parse_size), and one of choices (a NULL-terminated list of at least two; its index). */
bool rg_cli_real_option(const char *prog, const char *opt, const char *arg, double lo, double *out);
bool rg_cli_size_option(const char *prog, const char *opt, const char *arg, size_t *out);
bool rg_cli_choice_option(const char *prog, const char *opt, const char *arg, const char *const *choices, int *out);


/* Loads an input set (an rg_enum_inputset) from path into inputs, or prints "prog: path:line:
 * message" and returns false. */
bool rg_cli_load_inputs(const char *prog, const char *path, void *inputs);

#endif
