/* rulesdb/exchange_util.h (private to rulesdb/): what the TENSAT and TASO converters share:
 * a rule made ready for export (exchange_rule.c: its variables numbered, typed, checked),
 * enlarge's reference tensor, reading a node's parameters, and imported rules made ours
 * (exchange_util.c). */
#ifndef RG_RULESDB_EXCHANGE_UTIL_H
#define RG_RULESDB_EXCHANGE_UTIL_H

#include "enumerate/enumerate.h"
#include "ir/ir.h"

/* A rule ready for export. Variables: num[v] is TASO's input number of v's name
 * (rg_taso_input_number: rulegen's name of one of TASO's 20 inputs, or input_N), so that such a
 * rule comes back by the same names; every other variable (and a second name of a number
 * already taken) gets 21, 22, ... in order of first use: walking the sources' outputs depth
 * first, operands in order. TASO writes v as opId -num[v], TENSAT as ?input_num[v]. */
typedef struct {
  const rg_rule *r;
  int *num;            /* [n_tvars] */
  int32_t *order;      /* [n_tvars]: the variables in order of first use, sources then targets */
  int32_t n_src;       /* how many of order the sources use (all of them, once opened) */
  int32_t *var_node;   /* [n_tvars]: the input node of each variable, -1 if none */
  rg_plan *plan;       /* both sides typed (rg_xchg_rule_open says at which shapes) */
  rg_assignment_list keep; /* the shapes plan points into, when the solver found them */
} rg_xchg_rule;

/* Makes r ready for export in the format called fmt ("TASO", "TENSAT": for the reasons). The
 * variables' shapes: those of inputs (NULL: TASO's inputs and the bias vectors b1, b2, as
 * rg_db_input_set gives an imported database's), a generalized ?w13_1 taking ?w13's (a
 * variable those lack, TASO's input of its number, ?input_4 as w1); if the rule does not
 * type-check there, the same with TASO's matrices w1-w3 as 4x4x3x3 tensors (a few
 * of TASO's own rules use them so: its verifier ignores ranks); else shapes the shape solver
 * finds. A rule that no exporter can write is RG_ERR_SHAPE with the reason as "CATEGORY:
 * detail": a bare graph, parameter variables, a variable only the targets use, no typing.
 * Close x also on error. */
rg_status rg_xchg_rule_open(rg_xchg_rule *x, const rg_rule *r, const rg_enum_inputset *inputs, const char *fmt,
                            rg_err *err) RG_MUST_CHECK;
void rg_xchg_rule_close(rg_xchg_rule *x);

/* The reference tensor for an enlarge node nd of x's rule, as TASO and TENSAT take one (they
 * copy its kernel size; ours are parameters): the first variable in order of first use that is
 * 4-d at x's shapes with nd's kernel sizes as its last two dimensions. -1 when none is, with
 * the reason in err (RG_ERR_SHAPE, "enlarge without a reference: ..."; fmt names the format). */
int32_t rg_xchg_enlarge_ref(const rg_xchg_rule *x, const rg_node *nd, const char *fmt, rg_err *err);

/* TASO and TENSAT infer a conv's groups from shapes; ours are conv2d's explicit last parameter.
 * Rebuilds an imported rule with every conv of one group (none given: TASO's GROUP parameter is
 * ours) at groups = C_in / dim1(weight) at TASO's input shapes (variables ?input_N; a conv whose
 * input shapes are unknown keeps its group). */
rg_status rg_xchg_infer_groups(rg_rule *r, rg_err *err) RG_MUST_CHECK;

/* Whether a conv2d node can be written in TASO's or TENSAT's syntax: no dilation (their convs
 * have none). Groups need no parameter there: they follow from the shapes. */
bool rg_xchg_conv_expressible(const rg_node *nd);

/* An imported rule in our text: parsed, its groups inferred (rg_xchg_infer_groups), its line
 * set, appended to out. A text that does not parse is skipped with a line "LABEL: why (as
 * TEXT)" in skipped. Errors: those of rg_xchg_infer_groups, RG_ERR_NOMEM. */
rg_status rg_xchg_add_imported(const char *text, const char *label, int line, rg_ruleset *out, rg_strbuf *skipped,
                               rg_err *err) RG_MUST_CHECK;

/* Parameter k of a node, resolved (the node must not use parameter variables). */
int32_t rg_xchg_param(const rg_node *nd, int k);

#endif
