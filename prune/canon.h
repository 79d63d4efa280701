/* prune/canon.h: canonical form of a rule under variable renaming, and its content id.
 *
 * The canonical form renames tensor variables x0, x1, ... and parameter variables a0, a1, ...
 * in order of first appearance in a fixed traversal (source outputs, then target outputs, each
 * term left to right with parameters before inputs: the order the text printer writes). It is
 * purely syntactic: no algebraic law is applied, so (ewadd ?x ?y) and (ewadd ?y ?x) differ.
 * The content id is BLAKE2b-256 of the canonical text (rg_text_print_rule, no name), so it is
 * the same across runs, machines and thread counts; rg_content_id_of_rule is its definition.
 *
 * The same builder abstracts sub-terms: a list of refs is replaced, at every occurrence, by
 * fresh tensor variables. The resulting rule R' has R as an instance (substitute the abstracted
 * terms back), which is what common-subgraph pruning relies on.
 */
#ifndef RG_PRUNE_CANON_H
#define RG_PRUNE_CANON_H

#include <stdint.h>

#include "ir/ir.h"

#define RG_CONTENT_ID_BYTES 32
#define RG_CONTENT_ID_HEX (2 * RG_CONTENT_ID_BYTES + 1)

typedef struct {
  uint8_t b[RG_CONTENT_ID_BYTES];
} rg_content_id;

/* Builds a new rule in canonical form from terms of g: sources src[0..n_src), targets
 * tgt[0..n_tgt) (n_tgt may be 0 for a bare graph), replacing every occurrence of each ref in
 * abstract[0..n_abstract) by a fresh tensor variable. The new rule has no name and line 0.
 * The result need not satisfy the text format's rule that target variables occur in the
 * source (an abstraction can break it); such a rule simply matches no real rule's id.
 * On success *out is a new rule (free with rg_rule_free); RG_ERR_NOMEM otherwise. */
rg_status rg_canon_build(const rg_graph *g, const rg_ref *src, int n_src, const rg_ref *tgt,
                         int n_tgt, const rg_ref *abstract, int n_abstract, rg_rule **out,
                         rg_err *err) RG_MUST_CHECK;

/* The content id of the rule rg_canon_build would build from the same arguments. */
rg_status rg_canon_build_id(const rg_graph *g, const rg_ref *src, int n_src, const rg_ref *tgt,
                            int n_tgt, const rg_ref *abstract, int n_abstract, rg_content_id *id,
                            rg_err *err) RG_MUST_CHECK;

/* The canonical copy of r (variables renamed, no name). */
rg_status rg_canon_rule(const rg_rule *r, rg_rule **out, rg_err *err) RG_MUST_CHECK;

/* Canonical text of r (appended to text; NULL: not kept) and its content id. Thread-safe (r is
 * only read). */
rg_status rg_canon_id(const rg_rule *r, rg_strbuf *text, rg_content_id *id,
                      rg_err *err) RG_MUST_CHECK;

/* The one definition of a content id: BLAKE2b-256 of r's text as rg_text_print_rule writes it,
 * r taken as it stands (no renaming). The text is appended to text (NULL: not kept) and the
 * hash covers only what this call appended. rg_canon_id applies it to r's canonical copy;
 * rulesdb/ (rg_rule_content_id) to the rules it stores. */
rg_status rg_content_id_of_rule(const rg_rule *r, rg_strbuf *text, rg_content_id *id,
                                rg_err *err) RG_MUST_CHECK;

/* Lower-case hex, RG_CONTENT_ID_HEX bytes with the NUL. */
void rg_content_id_hex(const rg_content_id *id, char hex[RG_CONTENT_ID_HEX]);
/* Parses 64 hex digits; false if s is not exactly that. */
bool rg_content_id_parse(const char *s, size_t len, rg_content_id *id);
int rg_content_id_cmp(const rg_content_id *a, const rg_content_id *b);

#endif
