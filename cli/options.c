/* cli/options.c: the option registry (cli/flags.def), getopt's tables and the help lines from
 * a command's option table (cli/options.h). */
#include "options.h"

#include <string.h>

const rg_cli_flag rg_cli_flags[RG_FLAG_COUNT] = {
#define RG_FLAG(id, name, short_, arg, meta) {name, short_, arg, meta, RG_OPT_##id},
#include "flags.def"
#undef RG_FLAG
};

const char *rg_cli_flag_name(int code) {
  for (int i = 0; i < RG_FLAG_COUNT; i++)
    if (rg_cli_flags[i].code == code) return rg_cli_flags[i].name;
  return "?";
}

const char *rg_cli_option_meta(const rg_cli_option *o) { return o->meta ? o->meta : o->flag->meta; }

void rg_cli_getopt_init(rg_cli_getopt *g, const rg_cli_option *opts, int n) {
  g->n = 0;
  g->shorts[0] = 0;
  char *p = g->shorts;
  for (int i = 0; i < n; i++) {
    const rg_cli_flag *f = opts[i].flag;
    rg_cli_getopt_add(g, f->name, f->arg, f->code);
    if (f->short_) {
      *p++ = (char)f->short_;
      for (int k = 0; k < f->arg; k++) *p++ = ':'; /* "c:" required, "c::" optional */
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

/* "--name META", "--name[=META]" or "--name" into buf; its length. */
static int name_text(const rg_cli_option *o, char *buf, size_t size) {
  const rg_cli_flag *f = o->flag;
  const char *fmt = f->arg == 2 ? "--%s[=%s]" : f->arg ? "--%s %s" : "--%s";
  return snprintf(buf, size, fmt, f->name, rg_cli_option_meta(o));
}

void rg_cli_print_wrapped(FILE *out, const char *text, int col) {
  int at = col;
  bool first = true;
  while (*text) {
    while (*text == ' ') text++;
    int len = (int)strcspn(text, " ");
    if (!len) break;
    if (!first && at + 1 + len > RG_CLI_HELP_WIDTH) fprintf(out, "\n%*s", col, ""), at = col, first = true;
    fprintf(out, "%s%.*s", first ? "" : " ", len, text);
    at += len + !first;
    first = false;
    text += len;
  }
  fputc('\n', out);
}

/* The names column holds at most this many characters: a longer name puts its help on the
 * next line rather than push every help text right. */
#define NAME_COLUMN_MAX 30

void rg_cli_print_options(FILE *out, const rg_cli_option *opts, int n) {
  char buf[128];
  int name_w = 0;
  for (int i = 0; i < n; i++) {
    int len = name_text(&opts[i], buf, sizeof buf);
    if (len > name_w && len <= NAME_COLUMN_MAX) name_w = len;
  }
  int col = 6 + name_w + 2; /* "  -c, " names, two spaces */
  for (int i = 0; i < n; i++) {
    int c = opts[i].flag->short_;
    int len = name_text(&opts[i], buf, sizeof buf);
    fprintf(out, c ? "  -%c, %s" : "  %c   %s", c ? c : ' ', buf);
    if (len > name_w) fprintf(out, "\n%*s", col, "");
    else fprintf(out, "%*s", col - 6 - len, "");
    rg_cli_print_wrapped(out, opts[i].help, col);
  }
}
