/* ir/text.h: the rule text format.
 *
 * One rule per line; '#' starts a comment; blank lines are ignored.
 *
 *   line   := [name ':'] side ['=>' side]
 *   side   := term (';' term)*              several terms: a multi-output rule, mapped in order
 *   term   := '?' ident                     a tensor variable
 *           | '(' op ['.' digit] param* term* ')'
 *   param  := integer | same | valid | none | sigmoid | relu | tanh
 *           | digits (a permutation, e.g. 10 or 0213) | 2x4x5x5 | scalar
 *           | '?' ident                     a parameter variable; one of a shape is
 *                                           one per slot: ?s its rank, ?s.1 .. its dims
 *
 * Parameters come first, in the order ops.def lists them, then the tensor inputs. Trailing
 * parameters that have defaults may be left out: (matmul ?x ?y) is (matmul none ?x ?y), and
 * (conv2d 2 2 ?x ?w) is (conv2d 2 2 same none ?x ?w). Printing leaves out exactly the trailing
 * parameters that hold their defaults. An operator
 * with several outputs is written with the output index: (split.1 0 ?t). Examples:
 *   assoc: (matmul (matmul ?x ?y) ?z) => (matmul ?x (matmul ?y ?z))
 *   (relu ?x) ; (relu ?y) => (split.0 1 (relu (concat 1 ?x ?y))) ; (split.1 1 (relu (concat 1 ?x
 * ?y))) Every variable of the target must occur in the source. A line without '=>' is a bare graph.
 * Printing is canonical: the same rule always prints as the same text, which parses back to it.
 */
#ifndef RG_IR_TEXT_H
#define RG_IR_TEXT_H

#include "rule.h"

/* Parses len bytes of rule text and appends the rules to out. Errors carry line and column. */
rg_status rg_text_parse(const char *text, size_t len, rg_ruleset *out, rg_err *err) RG_MUST_CHECK;
/* rg_text_parse over a malloc'ed text its caller frees right after: a slice of lines at a time,
 * each slice's whole pages handed back to the system once parsed (they read as zeros after:
 * nothing may read the text again before freeing it). Why: a depth-4 run's candidate text is
 * 1.26 GB, and it was held beside the 7.2M rules parsed from it until the parse ended, the run's
 * peak. The same rules and line numbers as rg_text_parse. */
/* Called after each slice with the rules it appended (out->rules[first..out->n)), their line
 * numbers already those of the whole text: the caller may trade some for less (synth/hollow.h).
 * A status other than RG_OK ends the parse with it. */
typedef rg_status (*rg_text_parsed_fn)(void *ctx, rg_ruleset *out, int first, rg_err *err);
rg_status rg_text_parse_consuming(char *text, size_t len, rg_ruleset *out, rg_text_parsed_fn parsed, void *ctx,
                                  rg_err *err) RG_MUST_CHECK;
/* The same in slices of about slice bytes (tests; rg_text_parse_consuming: 64 MiB); parsed may
 * be NULL. */
rg_status rg_text_parse_slices(char *text, size_t len, size_t slice, rg_ruleset *out, rg_text_parsed_fn parsed,
                               void *ctx, rg_err *err) RG_MUST_CHECK;
/* The same for axioms (verify/axioms.h): a target may name parameter variables the source does
 * not bind (their guard defines them, verify/guard.h). */
rg_status rg_text_parse_axioms(const char *text, size_t len, rg_ruleset *out, rg_err *err) RG_MUST_CHECK;
/* Reads and parses a file; an empty file, or one without any rule, is an error. Read as
 * rg_text_read_file reads, and a stream is refused at its first byte that is not plain text. A
 * file sealed with an end line (ir/endline.h: OUT.generalized) is read without it when it holds,
 * and refused, naming that line, when it does not.*/
rg_status rg_text_parse_file(const char *path, rg_ruleset *out, rg_err *err) RG_MUST_CHECK;
/* Reads a whole file into out (initialised here; free it also on error): rg_file_read, a
 * stream at most RG_TEXT_MAX_STREAM bytes. */
rg_status rg_text_read_file(const char *path, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;
/* Parses exactly one rule (or bare graph) from a string. */
rg_status rg_text_parse_rule(const char *text, rg_rule **out, rg_err *err) RG_MUST_CHECK;

/* Appends the canonical text of a rule (no newline) / of one term. */
void rg_text_print_rule(const rg_rule *r, rg_strbuf *sb);
void rg_text_print_ref(const rg_graph *g, rg_ref r, rg_strbuf *sb);

#endif
