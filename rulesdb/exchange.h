/* rulesdb/exchange.h: rules to and from other optimizers' formats, and for looking at them.
 *
 *   TENSAT text: "LHS=>RHS" per line, ?input_N variables, TENSAT's operator signatures
 *     (anchors/README.md; a transpose's permutation and a reshape's shape as names "1_0", as
 *     TENSAT's model.rs reads them); single-output rules one per line, two-output rules as two
 *     consecutive lines in a separate file; no trailing newline.
 *   TASO protobuf (rules.proto, GraphSubst.RuleCollection): TASO's op and parameter numbering
 *     (taso_pb.h); each variable is a negative opId of its own, which TASO's rule loader makes a
 *     new input tensor, so a rule may use any number of variables of any shapes.
 *   DOT (Graphviz): one rule per digraph, source and target side by side; JSON is in dbexport.c.
 *
 * Variables, both formats: one named as one of TASO's 20 fixed inputs (rulegen's names ?x1 ..
 * ?s0, or ?input_1 .. ?input_20) keeps that input's number (rg_taso_input_number); the others
 * are numbered 21, 22, ... in order of first use in the source. Importers name 1 .. 20 by
 * rulegen's names (?input_4 becomes ?w1) and the rest ?input_N, so a rule exported and imported
 * back is itself up to the names of variables outside TASO's 20 (its content id kept when it
 * has none). Import infers a conv's groups and an enlarge's kernel sizes from TASO's input
 * shapes, so a rule whose conv or enlarge reads other variables comes back with one group, or
 * is skipped.
 *
 * Not every rule maps: our enlarge takes kernel sizes where TASO/TENSAT take a reference tensor
 * (export writes a variable of the rule with those kernel sizes, else skips the rule), our
 * constants carry their shape where theirs take it from context, TASO's rule loader asserts on
 * pools, constants and on what its checks name (taso_export.c), and parameter variables, a
 * variable only the targets use, 3+ input concat (in TENSAT) and rules with more than two
 * outputs (in TENSAT) have no counterpart. Exporters and importers skip such a rule and say why
 * ("CATEGORY: detail"; RG_ERR_SHAPE for one rule; for whole files, one line per skipped rule in
 * a report), never write an approximation.
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
 * outputs), no trailing newline. The variables' shapes (for concat's rank and enlarge's
 * reference) are those of inputs (NULL: TASO's inputs and the bias vectors). RG_ERR_SHAPE with
 * the reason ("CATEGORY: detail") when it does not map. */
rg_status rg_tensat_export_rule(const rg_rule *r, const rg_enum_inputset *inputs, rg_strbuf *out,
                                rg_err *err) RG_MUST_CHECK;

/* Parses TENSAT text (multi: lines pair up into two-output rules) into rules of ours, appended
 * to out. A rule that does not map is skipped with a line "LINE: reason" appended to skipped;
 * a malformed file is an error (RG_ERR_PARSE, with line and column). */
rg_status rg_tensat_import(const char *text, size_t len, int multi, rg_ruleset *out,
                           rg_strbuf *skipped, rg_err *err) RG_MUST_CHECK;

/* Serialises rules as a TASO RuleCollection, each as TASO's rule loader reads it. Rules that do
 * not map are skipped, with a line "rule NAME: CATEGORY: detail" in skipped (NAME from names[i],
 * or the 1-based index when names is NULL). Shapes as rg_tensat_export_rule takes them. *buf is
 * malloc'ed (free it). */
rg_status rg_taso_export(const rg_rule *const *rules, const char *const *names, size_t n,
                         const rg_enum_inputset *inputs, uint8_t **buf, size_t *len, size_t *n_written,
                         rg_strbuf *skipped, rg_err *err) RG_MUST_CHECK;

/* Parses a TASO RuleCollection; unmappable rules are skipped ("rule K: reason" in skipped). */
rg_status rg_taso_import(const uint8_t *buf, size_t len, rg_ruleset *out, rg_strbuf *skipped,
                         rg_err *err) RG_MUST_CHECK;

/* A Graphviz digraph of one rule: a cluster per side (and one for nodes both share), inputs
 * with their shapes from inputs (NULL: names only), operand order on edges. name labels the
 * graph (may be NULL). */
void rg_dot_rule(const rg_rule *r, const char *name, const rg_enum_inputset *inputs, rg_strbuf *out);

#endif
