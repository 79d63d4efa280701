/* rulesdb/exchange.h: rules to and from other optimizers' formats, and for looking at them.
 *
 *   TENSAT text: "LHS=>RHS" per line, ?input_N variables, TENSAT's operator signatures
 *     (anchors/README.md); single-output rules one per line, two-output rules as two
 *     consecutive lines in a separate file; no trailing newline.
 *   TASO protobuf (rules.proto, GraphSubst.RuleCollection): TASO's op and parameter numbering;
 *     variables must be TASO's fixed inputs, by rulegen's names (?x1 .. ?s0) or as ?input_1 ..
 *     ?input_20 (taso_inputs.c maps them), whose shapes fix conv kernel sizes and concat ranks;
 *     import names them by rulegen's names, so export then import keeps a rule's content id.
 *   DOT (Graphviz): one rule per digraph, source and target side by side; JSON is in dbexport.c.
 *
 * Not every rule maps: our enlarge takes kernel sizes where TASO/TENSAT take a reference tensor,
 * our constants carry their shape where theirs take it from context, TENSAT's transpose and
 * reshape parameters have no documented encoding here (TASO's transpose maps: taso.c), TASO's
 * rule loader rejects pools (export skips them), and parameter variables, 3+ input concat (in
 * TENSAT) and rules with more than two outputs have no counterpart. Exporters and importers skip
 * such a rule and say why (RG_ERR_SHAPE with a message for one rule; for whole files, one line
 * per skipped rule in a report), never write an approximation.
 * Variables: TASO's inputs keep their number (rg_taso_input_number); for TENSAT, others get the
 * smallest free N above 20 in order (its variables are pattern variables); TASO skips them.
 * Importers write TASO's inputs 1 .. 20 by rulegen's names (?input_4 becomes ?w1).
 */
#ifndef RG_RULESDB_EXCHANGE_H
#define RG_RULESDB_EXCHANGE_H

#include <stdint.h>

#include "enumerate/enumerate.h"
#include "ir/rule.h"
#include "ir/shape.h"

#define RG_TASO_INPUTS 20

/* TASO's fixed inputs (taso_inputs.c, one table): input n (1 .. 20) is TASO's v<n> / opId -n,
 * rulegen's variable rg_taso_input_name(n) (x1..x3, w1..w3, i1..i3, w4..w13, s0).
 * Shape of input n; false when out of range. */
int rg_taso_input_shape(int n, rg_shape *out);
/* rulegen's name of TASO's input n ("w1" for 4), NULL when n is out of 1 .. 20. */
const char *rg_taso_input_name(int n);
/* The N of a variable name: rulegen's name of a TASO input (w1 -> 4), or input_N (N 1 .. 9999,
 * as TENSAT writes them); 0 for any other name. */
int rg_taso_input_number(const char *name);
/* TASO's input n as a variable of our text: ?NAME by rulegen's name for n in 1..20, else
 * ?input_n (TENSAT numbers other variables past 20). */
void rg_taso_var_print(rg_strbuf *out, int n);

/* TENSAT text of one rule: one line (single output) or two lines separated by '\n' (two
 * outputs), no trailing newline. RG_ERR_SHAPE with the reason when it does not map. */
rg_status rg_tensat_export_rule(const rg_rule *r, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

/* Parses TENSAT text (multi: lines pair up into two-output rules) into rules of ours, appended
 * to out. A rule that does not map is skipped with a line "LINE: reason" appended to skipped;
 * a malformed file is an error (RG_ERR_PARSE, with line and column). */
rg_status rg_tensat_import(const char *text, size_t len, int multi, rg_ruleset *out,
                           rg_strbuf *skipped, rg_err *err) RG_MUST_CHECK;

/* Serialises rules as a TASO RuleCollection. Rules that do not map are skipped, with a line
 * "rule NAME: reason" in skipped (NAME from names[i], or the 1-based index when names is NULL).
 * *buf is malloc'ed (free it). */
rg_status rg_taso_export(const rg_rule *const *rules, const char *const *names, size_t n,
                         uint8_t **buf, size_t *len, size_t *n_written, rg_strbuf *skipped,
                         rg_err *err) RG_MUST_CHECK;

/* Parses a TASO RuleCollection; unmappable rules are skipped ("rule K: reason" in skipped). */
rg_status rg_taso_import(const uint8_t *buf, size_t len, rg_ruleset *out, rg_strbuf *skipped,
                         rg_err *err) RG_MUST_CHECK;

/* A Graphviz digraph of one rule: a cluster per side (and one for nodes both share), inputs
 * with their shapes from inputs (NULL: names only), operand order on edges. name labels the
 * graph (may be NULL). */
void rg_dot_rule(const rg_rule *r, const char *name, const rg_enum_inputset *inputs, rg_strbuf *out);

#endif
