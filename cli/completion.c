/* cli/completion.c: a program's bash completion from its commands' option tables
 * (cli/manpage.h). */
#include <string.h>

#include "catalog.h"
#include "docs_rulegen.h"
#include "manpage.h"

/* A command's options, long and short, separated by spaces (synth's operator choices too). */
static void options_words(FILE *out, const rg_cli_doc_entry *e) {
  for (int i = 0; i < e->doc->n_options; i++) {
    const rg_cli_flag *f = e->doc->options[i].flag;
    fprintf(out, "%s--%s", i ? " " : "", f->name);
    if (f->short_) fprintf(out, " -%c", f->short_);
  }
  if (e->extra != rg_doc_synth_choices) return;
  rg_cli_flag flags[RG_CLI_MAX_OPTIONS];
  rg_cli_option rows[RG_CLI_MAX_OPTIONS];
  int n = rg_doc_synth_choice_rows(flags, rows);
  for (int i = 0; i < n; i++) fprintf(out, " --%s", flags[i].name);
}

/* The function's body after the command is known: options or files. */
static void option_cases(FILE *out, const rg_cli_program *p, const rg_cli_doc_entry *docs, int n) {
  fputs("  case $cmd in\n", out);
  for (int i = 0; i < n; i++) {
    if (strcmp(docs[i].program, p->name)) continue;
    bool dflt = p->default_command && !strcmp(docs[i].command, p->default_command);
    fprintf(out, "  %s%s) words=\"", docs[i].command, dflt ? " | ''" : "");
    options_words(out, &docs[i]);
    fputs("\" ;;\n", out);
  }
  fputs("  esac\n", out);
}

bool rg_cli_write_bash_completion(FILE *out, const char *program) {
  int n_prog, n;
  const rg_cli_program *progs = rg_cli_programs(&n_prog), *p = NULL;
  for (int i = 0; i < n_prog; i++)
    if (!strcmp(progs[i].name, program)) p = &progs[i];
  if (!p) return false;
  const rg_cli_doc_entry *docs = rg_cli_all_docs(&n);
  fprintf(out, "# bash completion for %s, made from its option tables by rulegen_docgen: edit cli/docs_*.c,\n"
               "# not this.\n_%s() {\n", program, program);
  fputs("  local cur=${COMP_WORDS[COMP_CWORD]} cmd='' words='' i\n  local commands='", out);
  for (int i = 0, first = 1; i < n; i++)
    if (!strcmp(docs[i].program, program)) fprintf(out, "%s%s", first ? "" : " ", docs[i].command), first = 0;
  fputs("'\n  for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "    case \" $commands \" in *\" ${COMP_WORDS[i]} \"*) cmd=${COMP_WORDS[i]}; break ;; esac\n"
        "  done\n"
        "  COMPREPLY=()\n"
        "  if [[ -z $cmd && $cur != -* ]]; then\n"
        "    # a command: after the program's name, or after help\n"
        "    if ((COMP_CWORD == 1)); then\n"
        "      mapfile -t COMPREPLY < <(compgen -W \"$commands help\" -- \"$cur\")\n"
        "    elif ((COMP_CWORD == 2)) && [[ ${COMP_WORDS[1]} == help ]]; then\n"
        "      mapfile -t COMPREPLY < <(compgen -W \"$commands\" -- \"$cur\")\n"
        "    fi\n"
        "    return 0\n"
        "  fi\n"
        "  [[ $cur == -* ]] || return 0 # a file (complete -o default)\n"
        "  words='--help -h' # no command yet: the program's own options\n",
        out);
  option_cases(out, p, docs, n);
  fputs("  mapfile -t COMPREPLY < <(compgen -W \"$words\" -- \"$cur\")\n}\n", out);
  fprintf(out, "complete -o default -F _%s %s\n", program, program);
  return true;
}
