/* verify/axioms.h: the axiom set the prover assumes (verify/axioms.rules, or any file in the
 * same format).
 *
 * An axiom is a named rule of the text format (ir/text.h) with both sides: `name: lhs => rhs`,
 * optionally followed by a guard `if ATOM...` (verify/guard.h) before its comment.
 * Invariants of a loaded set: every axiom has a name, names are unique, and every name is a
 * valid SMT-LIB symbol (letters, digits, '_', '-', '.'), so unsat cores can be mapped back to
 * axioms by name. Tensor variables are universally quantified; parameter variables too, over
 * the domain of the parameter they fill.
 */
#ifndef RG_VERIFY_AXIOMS_H
#define RG_VERIFY_AXIOMS_H

#include <stdbool.h>

#include "guard.h"
#include "ir/ir.h"

typedef struct {
  rg_ruleset rules;   /* the axioms, in file order */
  rg_guard *guards;   /* guards[i]: axiom i's `if` guard (n_atoms 0: none; verify/guard.h) */
  char origin[256];   /* the file (or "<text>") they came from, for messages */
  unsigned char digest[32]; /* BLAKE2b-256 of their text: a proof's verdict is kept under it */
  /* smt[i]: axiom i as obligations take it (verify/smt.c: its assertion's text, the operators
   * that make it fire), made when parsed; NULL: each obligation works it out again */
  struct rg_smt_axiom *smt;
} rg_axioms;

/* The default axiom file: axioms.rules where ir/datapath.h finds it (RULEGEN_DATA_DIR, the
 * installed PREFIX/share/rulegen/, or verify/axioms.rules for programs of the build tree); when
 * none is found, the first place looked, and rg_axioms_load of it says every place tried. */
const char *rg_axioms_default_path(void);

/* Parses axioms from text / a file into *out (initialised here; free with rg_axioms_free, also
 * on error). Errors name the origin and line: syntax errors, a missing name or target, a
 * duplicated name; a missing default file names the places looked at and RULEGEN_DATA_DIR. */
rg_status rg_axioms_parse(const char *text, size_t len, const char *origin, rg_axioms *out,
                          rg_err *err) RG_MUST_CHECK;
rg_status rg_axioms_load(const char *path, rg_axioms *out, rg_err *err) RG_MUST_CHECK;
void rg_axioms_free(rg_axioms *ax);

/* The index of the axiom called name (len bytes), or -1. */
int rg_axioms_find(const rg_axioms *ax, const char *name, size_t len);

/* Sets used[op] for every operator that occurs in r (both sides); used has RG_OP_COUNT entries. */
void rg_rule_ops(const rg_rule *r, bool *used);

#endif
