/* verify/smt_facts.h: what the encoder's fact writers share (internal to verify/smt*.c). */
#ifndef RG_VERIFY_SMT_FACTS_H
#define RG_VERIFY_SMT_FACTS_H

#include "smt.h"

/* Function symbols a script uses: (op, tensor inputs, output index). */
typedef struct {
  bool used[RG_OP_COUNT][RG_MAX_INPUTS + 1][RG_MAX_OUTPUTS];
} fn_set;

/* Appends to binders the declarations and to term the term (op q0 .. x w ...) of output `out`
 * of op over n_in tensors named x, w, y, z; its Int parameters are q0 ... (quantified), or all
 * fixed to `fixed` when that is >= 0. */
void rg_smt_quantified_term(rg_op op, int n_in, int out, int32_t fixed, rg_strbuf *binders,
                            rg_strbuf *term);

/* Whether the script has a concat (of any arity), the only operator that makes seams. */
bool rg_smt_uses_concat(const fn_set *fs);

/* Declares seams (T Int) Int, which names a tensor's seams on an axis, and states for every
 * function the script uses what its result's seams are (verify/smt_seams.c). With a concat it
 * uses dim: the size facts come first. seamed (a split takes a rule variable apart, smt.c):
 * also that seamcat is one-to-one. */
void rg_smt_put_seam_facts(rg_strbuf *sb, const fn_set *fs, bool seamed);
/* The rule's tensors are inputs: they have no seams. */
void rg_smt_put_seam_hypotheses(rg_strbuf *sb, const rg_rule *r);

#endif
