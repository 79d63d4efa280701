/* verify/axioms.c: loading and validating an axiom set. */
#include "axioms.h"
#include "smt.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default axioms (RG_AXIOMS_SOURCE_PATH, the source tree's, from verify/CMakeLists.txt). */
static const rg_data_file *default_axioms(void) {
  return rg_data_find_once("axioms.rules", RG_AXIOMS_SOURCE_PATH);
}

const char *rg_axioms_default_path(void) { return default_axioms()->path; }

static bool smt_symbol_ok(const char *s) {
  if (!*s) return false;
  for (; *s; s++) {
    char c = *s;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

/* The checks the parser does not do: names present, unique, usable in SMT; both sides given. */
static rg_status validate(const rg_axioms *ax, rg_err *err) {
  for (int i = 0; i < ax->rules.n; i++) {
    const rg_rule *r = ax->rules.rules[i];
    if (!r->name[0])
      return rg_err_at(err, RG_ERR_PARSE, r->line, 1,
                       "axiom without a name: write it as 'name: lhs => rhs'");
    if (!smt_symbol_ok(r->name))
      return rg_err_at(err, RG_ERR_PARSE, r->line, 1,
                       "axiom name '%s' must use only letters, digits, '_', '-' and '.'", r->name);
    if (r->n_tgt == 0)
      return rg_err_at(err, RG_ERR_PARSE, r->line, 1, "axiom %s has no '=> rhs'", r->name);
    for (int32_t v = 0; v < rg_graph_n_pvars(r->g); v++)
      if (ax->guards[i].n_atoms == 0 && !rg_rule_source_binds_pvar(r, v))
        return rg_err_at(err, RG_ERR_PARSE, r->line, 1,
                         "axiom %s: the target uses parameter ?%s, which the source does not bind "
                         "(define it in a guard: if (= ?%s E))",
                         r->name, rg_graph_pvar_name(r->g, v), rg_graph_pvar_name(r->g, v));
    for (int j = 0; j < i; j++)
      if (!strcmp(ax->rules.rules[j]->name, r->name))
        return rg_err_at(err, RG_ERR_PARSE, r->line, 1,
                         "axiom name '%s' is already used on line %d: names must be unique",
                         r->name, ax->rules.rules[j]->line);
  }
  return RG_OK;
}

static void init(rg_axioms *out, const char *origin) {
  memset(out, 0, sizeof *out);
  rg_ruleset_init(&out->rules);
  snprintf(out->origin, sizeof out->origin, "%s", origin);
}

/* Where a line's guard was: the text after `if`, up to the comment or the line's end. */
typedef struct {
  int line, col;
  size_t off, len;
} guard_span;

/* Blanks every guard out of text (in place, so columns stay) and records where each was. A
 * guard starts at the word `if` after a line's '=>'. */
static rg_status cut_guards(char *text, size_t len, guard_span **spans, int *n, rg_err *err) {
  *spans = NULL;
  *n = 0;
  int cap = 0, line = 1;
  for (size_t ls = 0; ls < len; line++) {
    size_t le = ls;
    while (le < len && text[le] != '\n') le++;
    size_t i = ls;
    while (i < le && (text[i] == ' ' || text[i] == '\t')) i++;
    size_t arrow = 0, hash = le;
    for (size_t j = i; j + 1 < le && text[i] != '#'; j++)
      if (text[j] == '=' && text[j + 1] == '>') {
        arrow = j + 2;
        break;
      }
    for (size_t j = arrow; arrow && j < le; j++)
      if (text[j] == '#') {
        hash = j;
        break;
      }
    for (size_t j = arrow; arrow && j + 2 <= hash; j++) {
      bool word = text[j] == 'i' && text[j + 1] == 'f' && (text[j - 1] == ' ' || text[j - 1] == '\t') &&
                  (j + 2 == hash || text[j + 2] == ' ' || text[j + 2] == '\t' || text[j + 2] == '(');
      if (!word) continue;
      if (*n == cap) {
        cap = cap ? 2 * cap : 16;
        guard_span *g = realloc(*spans, (size_t)cap * sizeof *g);
        if (!g) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
        *spans = g;
      }
      (*spans)[(*n)++] = (guard_span){line, (int)(j + 2 - ls), j + 2, hash - (j + 2)};
      memset(text + j, ' ', hash - j);
      break;
    }
    ls = le + 1;
  }
  return RG_OK;
}

rg_status rg_axioms_parse(const char *text, size_t len, const char *origin, rg_axioms *out,
                          rg_err *err) {
  init(out, origin ? origin : "<text>");
  char *copy = malloc(len + 1);
  guard_span *spans = NULL;
  int n_spans = 0;
  rg_status st = copy ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) {
    memcpy(copy, text, len);
    st = cut_guards(copy, len, &spans, &n_spans, err);
  }
  if (!st) st = rg_text_parse_axioms(copy, len, &out->rules, err);
  if (!st && out->rules.n == 0) st = rg_err_set(err, RG_ERR_PARSE, "%s holds no axioms", out->origin);
  if (!st && !(out->guards = calloc((size_t)out->rules.n, sizeof *out->guards)))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  for (int k = 0; !st && k < n_spans; k++)
    for (int i = 0; !st && i < out->rules.n; i++)
      if (out->rules.rules[i]->line == spans[k].line)
        st = rg_guard_parse(text + spans[k].off, spans[k].len, out->rules.rules[i], spans[k].line, spans[k].col,
                            &out->guards[i], err);
  free(spans);
  free(copy);
  crypto_generichash(out->digest, sizeof out->digest, (const unsigned char *)text, len, NULL, 0);
  if (!st) st = validate(out, err);
  return st ? st : rg_smt_axioms_make(out, err);
}

rg_status rg_axioms_load(const char *path, rg_axioms *out, rg_err *err) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_status st = rg_data_check(default_axioms(), path, "the default axiom file axioms.rules", err);
  if (!st) st = rg_text_read_file(path, &sb, err);
  if (!st) st = rg_axioms_parse(sb.s ? sb.s : "", sb.len, path, out, err);
  else init(out, path);
  rg_sb_free(&sb);
  return st;
}

void rg_axioms_free(rg_axioms *ax) {
  rg_smt_axioms_free(ax);
  rg_ruleset_free(&ax->rules);
  free(ax->guards);
  ax->guards = NULL;
}

int rg_axioms_find(const rg_axioms *ax, const char *name, size_t len) {
  for (int i = 0; i < ax->rules.n; i++) {
    const char *n = ax->rules.rules[i]->name;
    if (strlen(n) == len && !memcmp(n, name, len)) return i;
  }
  return -1;
}

void rg_rule_ops(const rg_rule *r, bool *used) {
  memset(used, 0, sizeof(bool) * RG_OP_COUNT);
  int32_t n = rg_graph_size(r->g);
  for (int32_t i = 0; i < n; i++) used[rg_graph_node(r->g, i)->op] = true;
}
