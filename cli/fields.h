/* cli/fields.h: option values that land in a struct's members, declared as a table beside a
 * command's options: a command's parser then only handles the options that need more than
 * storing (a list, a file to load). */
#ifndef RG_CLI_FIELDS_H
#define RG_CLI_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "doc.h"

typedef enum {
  RG_CLI_INT,   /* int, a whole number in [lo, hi] */
  RG_CLI_U64,   /* uint64_t, likewise */
  RG_CLI_SIZE,  /* size_t, likewise */
  RG_CLI_TEXT,  /* const char *: the argument itself */
  RG_CLI_SET,   /* bool: true */
  RG_CLI_CLEAR, /* bool: false */
} rg_cli_kind;

/* Option code (RG_OPT_<ID>, cli/options.h) -> the member at offset of the caller's struct.
 * want, when given, is what the message says a bad value should be ("a number"); else "a
 * number from lo to hi". */
typedef struct {
  int code;
  rg_cli_kind kind;
  size_t offset;
  int64_t lo, hi;
  const char *want;
} rg_cli_field;
#define RG_CLI_NUM(code, kind, type, member, lo, hi, want) {code, kind, offsetof(type, member), lo, hi, want}
#define RG_CLI_STORE(code, kind, type, member) {code, kind, offsetof(type, member), 0, 0, NULL}

/* Answers of rg_cli_field_set and the parse callbacks: go on, or not an option of theirs. */
#define RG_CLI_GO_ON (-1)
#define RG_CLI_NOT_MINE 1

/* Stores arg into base's member for option code: RG_CLI_GO_ON, 2 after "prog: --name wants
 * WANT, not 'arg'" on stderr, or RG_CLI_NOT_MINE when no field has that code. */
int rg_cli_field_set(const char *prog, const rg_cli_doc *doc, const rg_cli_field *f, int n, int code,
                     const char *arg, void *base);

/* A size in bytes with an optional K, M or G (1024-based) suffix, e.g. 512M: false unless it is
 * one, above 0 and at most 10^15. */
bool rg_cli_parse_size(const char *s, size_t *out);

/* A command's option loop: -h prints doc's help (with extra) on stdout and returns 0; fields
 * are stored; other codes go to other(code, arg, base) (NULL: none), which returns
 * RG_CLI_GO_ON, an exit status, or RG_CLI_NOT_MINE: then, as for an unknown option, the help
 * goes to stderr and the answer is 2. Returns RG_CLI_GO_ON once the options are read (optind
 * at the first operand). */
typedef int (*rg_cli_other)(int code, const char *arg, void *base);
int rg_cli_parse(const char *prog, const rg_cli_doc *doc, void (*extra)(FILE *out), const rg_cli_field *f,
                 int n, rg_cli_other other, void *base, int argc, char **argv);

#endif
