/* ir/rule.c */
#include "rule.h"

#include <stdlib.h>

#include "grow.h"

rg_rule *rg_rule_new(void) {
  rg_rule *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->g = rg_graph_new();
  if (!r->g) {
    free(r);
    return NULL;
  }
  return r;
}

void rg_rule_free(rg_rule *r) {
  if (!r) return;
  rg_graph_free(r->g);
  free(r->at);
  free(r);
}

void rg_ruleset_init(rg_ruleset *rs) {
  rs->rules = NULL;
  rs->n = rs->cap = 0;
}

void rg_ruleset_free(rg_ruleset *rs) {
  for (int i = 0; i < rs->n; i++) rg_rule_free(rs->rules[i]);
  free(rs->rules);
  rg_ruleset_init(rs);
}

rg_status rg_ruleset_add(rg_ruleset *rs, rg_rule *r) {
  if (!rg_grow(&rs->rules, &rs->cap, rs->n, sizeof *rs->rules, 16)) {
    rg_rule_free(r);
    return RG_ERR_NOMEM;
  }
  rg_graph_compact(r->g); /* a set's rules are done growing, and sets grow to millions */
  rs->rules[rs->n++] = r;
  return RG_OK;
}
