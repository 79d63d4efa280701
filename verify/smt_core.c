/* verify/smt_core.c: an obligation cut down to the axioms of an unsat core (smt.h). */
#include <stdlib.h>
#include <string.h>

#include "smt.h"

bool rg_names_word(const char *list, const char *w, size_t n) {
  for (const char *b = list; *b;) {
    size_t bw = strcspn(b, " ");
    if (bw == n && !strncmp(b, w, n)) return true;
    b += bw + (b[bw] == ' ');
  }
  return false;
}

/* The name of a named assertion line "(assert (! ... :named NAME))" into *name (its length in
 * *n); false for any other line. Every axiom, and the goal, is one such line (smt.c). */
static bool assertion_name(const char *line, size_t len, const char **name, size_t *n) {
  static const char head[] = "(assert (! ", tag[] = " :named ";
  if (len < sizeof head + sizeof tag || strncmp(line, head, sizeof head - 1) || strncmp(line + len - 2, "))", 2))
    return false;
  for (size_t k = len - 2; k-- > 0;) {
    if (line[k] == ' ' || line[k] == '(' || line[k] == ')') {
      if (k + 1 < sizeof tag - 1 || strncmp(line + k + 2 - sizeof tag, tag, sizeof tag - 1)) return false;
      *name = line + k + 1, *n = len - 2 - (k + 1);
      return *n > 0;
    }
  }
  return false;
}

/* Whether line[0..len) is one whole s-expression (balanced, closing at its end). */
static bool one_sexpr(const char *line, size_t len) {
  int depth = 0;
  for (size_t k = 0; k < len; k++) {
    depth += (line[k] == '(') - (line[k] == ')');
    if (depth < 0 || (depth == 0 && k + 1 < len)) return false;
  }
  return depth == 0;
}

bool rg_smt_name_facts(rg_strbuf *sb) {
  int k = 0;
  return rg_smt_name_facts_from(sb, &k);
}

bool rg_smt_name_facts_from(rg_strbuf *sb, int *last) {
  rg_strbuf out;
  rg_sb_init(&out);
  rg_sb_reserve(&out, sb->len + sb->len / 8 + 64); /* the text and its facts' names */
  int k = *last;
  for (const char *l = rg_sb_str(sb); *l;) {
    size_t len = strcspn(l, "\n");
    const char *name;
    size_t n;
    static const char head[] = "(assert ";
    if (len > sizeof head && !strncmp(l, head, sizeof head - 1) && !assertion_name(l, len, &name, &n) && one_sexpr(l, len))
      rg_sb_printf(&out, "(assert (! %.*s :named " RG_SMT_FACT "%d))\n", (int)(len - sizeof head), l + sizeof head - 1, ++k);
    else
      rg_sb_printf(&out, "%.*s\n", (int)len, l);
    l += len + (l[len] == '\n');
  }
  if (out.failed) return rg_sb_free(&out), false;
  rg_sb_free(sb);
  *sb = out;
  *last = k;
  return true;
}

rg_status rg_obligation_within_core(const rg_obligation *full, const char *core, rg_obligation *out, rg_err *err) {
  memset(out, 0, sizeof *out);
  rg_strbuf sb;
  rg_sb_init(&sb);
  int kept = 0;
  bool noted = false;
  for (const char *l = full->text; *l;) {
    size_t len = strcspn(l, "\n");
    const char *name;
    size_t n;
    bool named = assertion_name(l, len, &name, &n);
    bool goal = named && n == 4 && !strncmp(name, "goal", 4);
    if (!noted && l[0] != ';') { /* after the leading comments: the rule and its output */
      rg_sb_puts(&sb, "; only the axioms of an unsat core of the whole obligation\n");
      noted = true;
    }
    if (!named || goal || rg_names_word(core, name, n)) {
      rg_sb_printf(&sb, "%.*s\n", (int)len, l);
      kept += named && !goal && strncmp(name, RG_SMT_FACT, strlen(RG_SMT_FACT));
    }
    l += len + (l[len] == '\n');
  }
  if (sb.failed) {
    rg_sb_free(&sb);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  out->text = sb.s, out->len = sb.len;
  out->output = full->output;
  out->n_axioms = kept;
  rg_sha256_hex(out->text, out->len, out->sha256);
  return RG_OK;
}
