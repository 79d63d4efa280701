/* synth/resume.c: saving the tested candidates of a run and reading them back (see
 * synth/resume.h). */
#define _POSIX_C_SOURCE 200809L
#include "resume.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir/ir.h"

int rg_synth_save_candidates(const char *out_path, const char *text, size_t len) {
  char *path = rg_path_with_suffix(out_path, ".candidates");
  if (!path) return fprintf(stderr, "rulegen: out of memory saving the candidates\n"), 1;
  rg_err err;
  rg_status st = rg_atomic_write(path, text, len, &err);
  if (st) fprintf(stderr, "rulegen: saving the candidates: %s\n", err.msg);
  free(path);
  return st ? 1 : 0;
}

bool rg_synth_candidates_made_by(const char *path, const char *block) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  size_t n = strlen(block);
  char *head = malloc(n + 1);
  bool same = head && fread(head, 1, n, f) == n && !memcmp(head, block, n);
  free(head);
  fclose(f);
  return same;
}

int rg_synth_load_candidates(const char *path, const char *header, char **text, size_t *len,
                             uint64_t *n) {
  rg_strbuf sb;
  rg_err err;
  *text = NULL, *len = 0, *n = 0;
  if (rg_text_read_file(path, &sb, &err)) {
    rg_sb_free(&sb);
    fprintf(stderr, "rulegen: --resume: %s\n", err.msg);
    return 2;
  }
  const char *s = rg_sb_str(&sb);
  size_t first = strcspn(s, "\n");
  if (strncmp(s, "# rulegen synth:", 16) != 0) {
    fprintf(stderr,
            "rulegen: --resume: %s:1: not the candidates of a rulegen run (they start with "
            "'# rulegen synth:'; a run with -o OUT saves them in OUT.candidates)\n",
            path);
    rg_sb_free(&sb);
    return 2;
  }
  if (first != strlen(header) || strncmp(s, header, first) != 0) {
    fprintf(stderr,
            "rulegen: --resume: %s:1: these candidates were made by another configuration:\n"
            "  file:    %.*s\n  options: %s\n"
            "leave out the options that change them (--ops, the operator choices, --inputs, "
            "--depth, --seed, --trials, --shape-sets): --resume reads them from the file (an older "
            "file without its '# options:' line: give them as that run did)\n",
            path, (int)first, s, header);
    rg_sb_free(&sb);
    return 2;
  }
  const char *nul = memchr(s, 0, sb.len);
  if (nul) { /* a C string would end there: what follows would be lost without a word */
    int line = 1;
    for (const char *c = s; c < nul; c++) line += *c == '\n';
    fprintf(stderr, "rulegen: --resume: %s:%d: a NUL byte: the candidates file is damaged (rerun the test stage)\n",
            path, line);
    rg_sb_free(&sb);
    return 2;
  }
  for (const char *line = s; *line;) {
    size_t l = strcspn(line, "\n");
    size_t k = strspn(line, " \t");
    if (k < l && line[k] != '#') ++*n;
    line += l + (line[l] == '\n');
  }
  *text = sb.s; /* not NULL: the header was there */
  *len = sb.len;
  return 0;
}

#define OPTIONS_TAG "# options: "
#define INPUT_TAG "# input "

void rg_synth_resume_lines(const rg_synth_opts *o, rg_strbuf *sb) {
  rg_sb_printf(sb, OPTIONS_TAG "--depth %d --seed %llu --trials %d --shape-sets %d ", o->depth,
               (unsigned long long)o->fp.seed, o->rt.zp_trials, o->rt.other_shapes);
  rg_enum_choices_format(&o->choices, sb);
  /* what else changes the candidates: the graphs recorded and the pairs written */
  if (o->fp.max_outputs != 2) rg_sb_printf(sb, " --max-outputs %d", o->fp.max_outputs);
  if (o->fp.keep_redundant) rg_sb_puts(sb, " --keep-redundant");
  if (o->all_pairs) rg_sb_puts(sb, " --all-pairs");
  rg_sb_puts(sb, "\n");
  for (int i = 0; i < o->inputs.n; i++) {
    char buf[96];
    rg_sb_printf(sb, INPUT_TAG "%s %s\n", o->inputs.in[i].name, rg_shape_format_seams(&o->inputs.in[i].shape, buf, sizeof buf));
  }
}

/* The header block: the lines after the first that start with '#' (the rules follow them). */
int rg_synth_resume_options(const char *path, rg_strbuf *args, rg_enum_inputset *inputs, bool *found) {
  *found = false;
  FILE *f = fopen(path, "r");
  if (!f) return 0; /* rg_synth_load_candidates says why */
  struct stat st;
  if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) { /* a stream could not be read twice, nor end */
    fclose(f);
    fprintf(stderr, "rulegen: --resume: %s is %s (give the candidates file a run saved)\n", path,
            S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
    return 2;
  }
  rg_strbuf in_text;
  rg_sb_init(&in_text);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  for (int k = 0; (n = getline(&line, &cap, f)) > 0 && (k == 0 || line[0] == '#'); k++) {
    if (!strncmp(line, OPTIONS_TAG, strlen(OPTIONS_TAG)))
      rg_sb_printf(args, "%.*s", (int)(n - (ssize_t)strlen(OPTIONS_TAG) - (line[n - 1] == '\n')),
                   line + strlen(OPTIONS_TAG)), *found = true;
    else if (!strncmp(line, INPUT_TAG, strlen(INPUT_TAG))) rg_sb_puts(&in_text, line + strlen(INPUT_TAG));
  }
  free(line);
  fclose(f);
  rg_err err;
  int rc = 0;
  if (*found && rg_enum_inputs_parse(rg_sb_str(&in_text), in_text.len, inputs, &err)) {
    fprintf(stderr, "rulegen: --resume: %s: its '# input' lines: %s (a damaged header: fix it, or rerun the "
                    "test stage)\n",
            path, err.msg);
    rc = 2;
  }
  rg_sb_free(&in_text);
  return rc;
}
