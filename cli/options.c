/* cli/options.c: getopt's tables and the help lines from one option table (cli/options.h). */
#include "options.h"

void rg_cli_getopt_init(rg_cli_getopt *g, const rg_cli_option *opts, int n) {
  g->n = 0;
  g->shorts[0] = 0;
  char *p = g->shorts;
  for (int i = 0; i < n; i++) {
    rg_cli_getopt_add(g, opts[i].name, opts[i].arg, opts[i].short_);
    if (opts[i].short_ > 0 && opts[i].short_ < 256) {
      *p++ = (char)opts[i].short_;
      for (int k = 0; k < opts[i].arg; k++) *p++ = ':'; /* "c:" required, "c::" optional */
    }
  }
  *p = 0;
  optind = 1;
}

void rg_cli_getopt_add(rg_cli_getopt *g, const char *name, int arg, int code) {
  if (g->n == RG_CLI_MAX_OPTIONS) return; /* a table that long is a programming error */
  int has = arg == 2 ? optional_argument : arg ? required_argument : no_argument;
  g->longs[g->n++] = (struct option){name, has, NULL, code};
  g->longs[g->n] = (struct option){NULL, 0, NULL, 0};
}

int rg_cli_getopt_next(rg_cli_getopt *g, int argc, char **argv) {
  return getopt_long(argc, argv, g->shorts, g->longs, NULL);
}

void rg_cli_print_options(FILE *out, const rg_cli_option *opts, int n, int name_w, int meta_w) {
  for (int i = 0; i < n; i++) {
    bool letter = opts[i].short_ > 0 && opts[i].short_ < 256;
    fprintf(out, letter ? "  -%c, " : "  %c   ", letter ? opts[i].short_ : ' ');
    fprintf(out, "--%-*s %-*s %s\n", name_w, opts[i].name, meta_w, opts[i].meta, opts[i].help);
  }
}
