/* tests/test_cli_flags.c: the option tables of every command of every program (cli/catalog.h)
 * keep one command-line convention: a short letter means one long option everywhere, a long
 * option has one letter (or none) and one argument kind, every command has --help, and every
 * line --help prints fits 100 columns, with no word of a help text lost to the wrapping. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/cli.h"

/* What was seen of a long name or a letter: the first row that used it. */
typedef struct {
  const char *name; /* long name */
  int letter, arg;
  const char *where; /* "program command" */
} seen;

static seen by_letter[256], by_name[512];
static int n_names;

static seen *name_slot(const char *name) {
  for (int i = 0; i < n_names; i++)
    if (!strcmp(by_name[i].name, name)) return &by_name[i];
  return n_names < 512 ? &by_name[n_names++] : NULL;
}

/* One row of a command's table against everything seen before it. */
static void check_row(const rg_cli_flag *f, const char *where) {
  seen *s = name_slot(f->name);
  if (!s) return;
  if (!s->name) *s = (seen){f->name, f->short_, f->arg, where};
  CHECK_MSG(s->letter == f->short_, "--%s is -%c in %s but -%c in %s", f->name, s->letter ? s->letter : ' ', s->where,
            f->short_ ? f->short_ : ' ', where);
  CHECK_MSG(s->arg == f->arg, "--%s takes argument kind %d in %s but %d in %s", f->name, s->arg, s->where, f->arg, where);
  if (!f->short_) return;
  CHECK_MSG(f->short_ > ' ' && f->short_ < 127 && f->short_ != '?' && f->short_ != ':', "--%s: letter %d", f->name,
            f->short_);
  seen *l = &by_letter[(unsigned char)f->short_];
  if (!l->name) *l = (seen){f->name, f->short_, f->arg, where};
  CHECK_MSG(!strcmp(l->name, f->name), "-%c is --%s in %s but --%s in %s", f->short_, l->name, l->where, f->name, where);
}

/* Columns of a line of UTF-8 text (one per character). */
static int columns(const char *s, size_t len) {
  int n = 0;
  for (size_t i = 0; i < len; i++) n += ((unsigned char)s[i] & 0xC0) != 0x80;
  return n;
}

/* s with every run of spaces and newlines made one space. */
static char *squash(const char *s) {
  char *out = malloc(strlen(s) + 1), *p = out;
  for (; *s; s++)
    if (*s != ' ' && *s != '\n') *p++ = *s;
    else if (p > out && p[-1] != ' ') *p++ = ' ';
  *p = 0;
  return out;
}

/* The whole --help text of one command: every line fits, every help text is in it. */
static void check_usage(const rg_cli_doc_entry *e, const char *where) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  rg_cli_doc_usage(f, e->doc, e->extra);
  fclose(f);
  int line = 1;
  for (const char *p = text; *p; line++) {
    size_t len = strcspn(p, "\n");
    CHECK_MSG(columns(p, len) <= RG_CLI_HELP_WIDTH, "%s --help line %d has %d columns: %.*s", where, line,
              columns(p, len), (int)len, p);
    p += len + (p[len] == '\n');
  }
  char *flat = squash(text);
  for (int i = 0; i < e->doc->n_options; i++) {
    char *help = squash(e->doc->options[i].help);
    CHECK_MSG(strstr(flat, help) != NULL, "%s --help lost words of --%s's help", where, e->doc->options[i].flag->name);
    free(help);
  }
  free(flat);
  free(text);
}

static void check_commands(void) {
  int n;
  const rg_cli_doc_entry *docs = rg_cli_all_docs(&n);
  bool used[RG_FLAG_COUNT] = {false};
  for (int k = 0; k < n; k++) {
    char where[64];
    snprintf(where, sizeof where, "%s %s", docs[k].program, docs[k].command);
    bool help = false;
    CHECK_MSG(docs[k].doc->n_options <= RG_CLI_MAX_OPTIONS, "%s: too many options", where);
    for (int i = 0; i < docs[k].doc->n_options; i++) {
      const rg_cli_flag *f = docs[k].doc->options[i].flag;
      CHECK_MSG(f >= rg_cli_flags && f < rg_cli_flags + RG_FLAG_COUNT, "%s: an option not in cli/flags.def", where);
      for (int j = 0; j < i; j++) CHECK_MSG(docs[k].doc->options[j].flag != f, "%s lists --%s twice", where, f->name);
      check_row(f, where);
      used[f - rg_cli_flags] = true;
      help |= f->code == RG_OPT_HELP;
    }
    CHECK_MSG(help, "%s has no --help", where);
    check_usage(&docs[k], where);
  }
  for (int i = 0; i < RG_FLAG_COUNT; i++)
    CHECK_MSG(used[i], "--%s is in cli/flags.def but no command takes it", rg_cli_flags[i].name);
}

/* The registry itself, rows or not; and synth's operator-choice options, long-only. */
static void check_registry(void) {
  for (int i = 0; i < RG_FLAG_COUNT; i++) check_row(&rg_cli_flags[i], "cli/flags.def");
  rg_cli_flag flags[RG_CLI_MAX_OPTIONS];
  rg_cli_option rows[RG_CLI_MAX_OPTIONS];
  int n = rg_doc_synth_choice_rows(flags, rows);
  CHECK(n > 5);
  for (int i = 0; i < n; i++) {
    CHECK_MSG(!flags[i].short_ && rows[i].help && *rows[i].help, "choice --%s", flags[i].name);
    for (int k = 0; k < RG_FLAG_COUNT; k++)
      CHECK_MSG(strcmp(flags[i].name, rg_cli_flags[k].name), "choice --%s is an option too", flags[i].name);
  }
}

/* A long help text wraps under its column, no line too wide, no word lost. */
static void check_wrapping(void) {
  static const char *help = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                            "fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two "
                            "twenty-three twenty-four twenty-five twenty-six twenty-seven twenty-eight";
  const rg_cli_option rows[] = {RG_CLI_OPT(OUTPUT, "short"), {&rg_cli_flags[RG_FLAG_IDX_OUTPUT], help, NULL}};
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  rg_cli_print_options(f, rows, 2);
  fclose(f);
  const char *second = strchr(text, '\n') + 1;
  CHECK(!strncmp(text, "  -o, --output FILE  short\n", 27));
  CHECK(!strncmp(second, "  -o, --output FILE  one two", 28));
  int lines = 0;
  for (const char *p = second; *p; lines++) {
    size_t len = strcspn(p, "\n");
    CHECK(len <= RG_CLI_HELP_WIDTH);
    if (lines) CHECK(strspn(p, " ") == 21); /* under the help column */
    p += len + 1;
  }
  CHECK(lines == 4);
  char *flat = squash(second);
  CHECK(strstr(flat, help) != NULL);
  free(flat);
  free(text);
}

int main(void) {
  check_registry();
  check_commands();
  check_wrapping();
  return check_done("test_cli_flags");
}
