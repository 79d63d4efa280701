/* verify/axioms.c: loading and validating an axiom set. */
#include "axioms.h"

#include <stdio.h>
#include <string.h>

const char *rg_axioms_default_path(void) { return RG_AXIOMS_DEFAULT_PATH; }

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

rg_status rg_axioms_parse(const char *text, size_t len, const char *origin, rg_axioms *out,
                          rg_err *err) {
  init(out, origin ? origin : "<text>");
  rg_status st = rg_text_parse(text, len, &out->rules, err);
  if (!st && out->rules.n == 0) st = rg_err_set(err, RG_ERR_PARSE, "%s holds no axioms", out->origin);
  return st ? st : validate(out, err);
}

rg_status rg_axioms_load(const char *path, rg_axioms *out, rg_err *err) {
  init(out, path);
  rg_status st = rg_text_parse_file(path, &out->rules, err);
  return st ? st : validate(out, err);
}

void rg_axioms_free(rg_axioms *ax) { rg_ruleset_free(&ax->rules); }

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
