/* ir/rule.h: rewrite rules and rule sets.
 *
 * A rule is a source side and a target side over the same variables, with an output mapping:
 * source output i corresponds to target output i. Both sides live in one hash-consed graph, so
 * the inputs (and any sub-DAG the sides have in common) are literally shared nodes. A "rule"
 * without a target (n_tgt == 0) is a bare graph, as the text format also allows.
 *
 * A rule may hold at given shapes only (`at`: a PET rewrite, certified at a model's shapes,
 * certify/): it is then applied only forward and only where every tensor variable's value has
 * the dims given for it.
 */
#ifndef RG_IR_RULE_H
#define RG_IR_RULE_H

#include "graph.h"
#include "shape.h"
#include "strbuf.h"

#define RG_RULE_MAX_OUTPUTS 4
#define RG_RULE_MAX_NAME 64

typedef struct {
  rg_graph *g; /* owned */
  char name[RG_RULE_MAX_NAME]; /* "" when unnamed */
  int line;                    /* line in the text it came from, 0 if built in memory */
  int n_src, n_tgt;            /* n_tgt is n_src, or 0 for a bare graph */
  rg_ref src[RG_RULE_MAX_OUTPUTS];
  rg_ref tgt[RG_RULE_MAX_OUTPUTS];
  rg_shape *at; /* owned, [tensor variable]: the only dims it holds at; NULL: wherever it types */
} rg_rule;

typedef struct {
  rg_rule **rules;
  int n, cap;
} rg_ruleset;

/* A new empty rule with its own graph; NULL when out of memory. */
rg_rule *rg_rule_new(void);
void rg_rule_free(rg_rule *r);

void rg_ruleset_init(rg_ruleset *rs);
void rg_ruleset_free(rg_ruleset *rs); /* frees the rules too */
/* Takes ownership of r (also on failure, when r is freed). */
rg_status rg_ruleset_add(rg_ruleset *rs, rg_rule *r) RG_MUST_CHECK;

#endif
