/* cli/manpage.c: a program's manual page from its commands' help (cli/manpage.h). */
#include "manpage.h"

#include <string.h>

#include "catalog.h"
#include "docs_rulegen.h"

static const rg_cli_program *find_program(const char *name) {
  int n;
  const rg_cli_program *p = rg_cli_programs(&n);
  for (int i = 0; i < n; i++)
    if (!strcmp(p[i].name, name)) return &p[i];
  return NULL;
}

/* len bytes of text as roff text: backslashes and minus signs escaped, a control character at
 * the start of a line made plain. */
static void roff_text(FILE *out, const char *s, size_t len) {
  if (len && (s[0] == '.' || s[0] == '\'')) fputs("\\&", out);
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '\\') fputs("\\e", out);
    else if (s[i] == '-') fputs("\\-", out);
    else fputc(s[i], out);
  }
}

/* Lines of help text (each ended by '\n'): lines that start with a space are a table or an
 * example, kept as they are (no fill); the others are prose, filled by the reader. */
static void roff_lines(FILE *out, const char *text) {
  bool kept = false;
  while (text && *text) {
    size_t len = strcspn(text, "\n");
    bool indented = text[0] == ' ';
    if (indented != kept) fputs(indented ? ".nf\n" : ".fi\n", out), kept = indented;
    if (!len) fputs(".PP\n", out);
    else roff_text(out, text, len), fputc('\n', out);
    text += len + (text[len] == '\n');
  }
  if (kept) fputs(".fi\n", out);
}

/* One option as a tagged paragraph: its names and value, then its help. */
static void roff_option(FILE *out, const rg_cli_option *o) {
  const rg_cli_flag *f = o->flag;
  fputs(".TP\n", out);
  if (f->short_) fprintf(out, "\\fB\\-%c\\fR, ", f->short_);
  fputs("\\fB\\-\\-", out);
  roff_text(out, f->name, strlen(f->name));
  fputs("\\fR", out);
  const char *meta = rg_cli_option_meta(o);
  if (f->arg) fputs(f->arg == 2 ? "[=\\fI" : " \\fI", out), roff_text(out, meta, strlen(meta));
  fputs(f->arg == 2 ? "\\fR]\n" : f->arg ? "\\fR\n" : "\n", out);
  roff_text(out, o->help, strlen(o->help));
  fputc('\n', out);
}

/* synth's operator choices: more options, long-only. */
static void roff_synth_choices(FILE *out) {
  rg_cli_flag flags[RG_CLI_MAX_OPTIONS];
  rg_cli_option rows[RG_CLI_MAX_OPTIONS];
  int n = rg_doc_synth_choice_rows(flags, rows);
  fputs(".PP\nOperator choices (wider settings multiply the search):\n", out);
  for (int i = 0; i < n; i++) roff_option(out, &rows[i]);
}

static void roff_command(FILE *out, const rg_cli_doc_entry *e) {
  fprintf(out, ".SS \"%s %s\"\n.nf\n", e->program, e->command);
  roff_text(out, e->doc->usage, strlen(e->doc->usage));
  fputs("\n.fi\n.PP\n", out);
  roff_lines(out, e->doc->about);
  fputs(".PP\nOptions:\n", out);
  for (int i = 0; i < e->doc->n_options; i++) roff_option(out, &e->doc->options[i]);
  if (e->extra == rg_doc_synth_choices) roff_synth_choices(out);
  if (e->doc->after) fputs(".PP\n", out), roff_lines(out, e->doc->after);
}

bool rg_cli_write_man(FILE *out, const char *program) {
  const rg_cli_program *p = find_program(program);
  if (!p) return false;
  int n;
  const rg_cli_doc_entry *docs = rg_cli_all_docs(&n);
  fprintf(out, ".\\\" %s(1), made from its --help by rulegen_docgen: edit cli/docs_*.c, not this.\n", program);
  /* .nh: no hyphenation, so that option names stay whole where a reader (or grep) looks */
  fprintf(out, ".TH %s 1 \"\" \"%s\" \"User Commands\"\n.nh\n.SH NAME\n%s \\- %s\n", program, program, program,
          p->summary);
  fprintf(out, ".SH SYNOPSIS\n.B %s\n.I COMMAND\n[options]\n.br\n.B %s help\n.I COMMAND\n", program, program);
  if (p->default_command)
    fprintf(out, ".br\n.B %s\n[options]\n(no command: %s)\n", program, p->default_command);
  fprintf(out, ".SH DESCRIPTION\n.B %s\nruns one of the commands below; \\fB%s help\\fR \\fICOMMAND\\fR "
               "prints its help.\n.SH COMMANDS\n", program, program);
  for (int i = 0; i < n; i++)
    if (!strcmp(docs[i].program, program)) roff_command(out, &docs[i]);
  return true;
}
