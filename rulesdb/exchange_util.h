/* rulesdb/exchange_util.h (private to rulesdb/): what the TENSAT and TASO converters share:
 * variable numbering, typing a rule for export, reading a node's parameters. */
#ifndef RG_RULESDB_EXCHANGE_UTIL_H
#define RG_RULESDB_EXCHANGE_UTIL_H

#include "ir/ir.h"

/* num[tvar] = TASO's input number of each variable (rg_taso_input_number: rulegen's name of a
 * TASO input, or input_N); the others (and a second name for a number already taken) take the
 * smallest free N above 20 in variable order (not a TASO input, whose shape they need not have). num has room for rg_graph_n_tvars(g). Returns the first
 * variable numbered that way, -1 when every variable is one of TASO's inputs by name. */
int32_t rg_xchg_var_numbers(const rg_graph *g, int *num);

/* Types both sides of r for export. At TASO's input shapes when every variable is numbered
 * 1 .. 20 and the rule type-checks there; otherwise (unless taso_only) at shapes found by the
 * shape solver. *plan is new (rg_plan_free); it points into *keep (rg_assignment_list_free). */
rg_status rg_xchg_plan(const rg_rule *r, const int *num, int taso_only, rg_plan **plan,
                       rg_assignment_list *keep, rg_err *err) RG_MUST_CHECK;

/* TASO and TENSAT infer a conv's groups from shapes; ours are conv2d's explicit last parameter.
 * Rebuilds an imported rule with every conv's groups = C_in / dim1(weight) at TASO's input
 * shapes (variables ?input_N; a conv whose input shapes are unknown keeps one group). */
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
