/* verify/smt.h: the one SMT encoder. A rule's output pair becomes one SMT-LIB2 script.
 *
 * The script (logic UFLIA) declares one uninterpreted sort T for tensors and one function per
 * (operator, output index) the rule and its axioms use: Int arguments for the operator's
 * parameters in ops.def order (a permutation is its packed Int, a reshape target its rank and
 * dims; the shape parameter of a constant such as Iewmul is erased: tensors are untyped here, as
 * in TASO), then T arguments for the tensor inputs. split's outputs are split.0 / split.1;
 * concat with n inputs is concat (n = 2) or concatN. The relevant axioms (those that can fire
 * on the rule's operators, closed under the operators they introduce; or all of them)
 * are named quantified assertions; parameter variables
 * are guarded by the domain of the parameter they fill. The goal is the negated equality of the
 * output pair, named `goal`; every other assertion (a fact of ranks, sizes or seams, a
 * hypothesis, a domain) is named fact.K (rg_smt_name_facts), so that an unsat core names all
 * it used. The script ends with (check-sat) and (get-unsat-core), so either solver's binary
 * can re-run it as is.
 *
 * Invariant: the text is a function of (rule, output, axioms, options) only: deterministic,
 * byte for byte, so its SHA-256 identifies the obligation.
 */
#ifndef RG_VERIFY_SMT_H
#define RG_VERIFY_SMT_H

#include <stdbool.h>

#include "axioms.h"

typedef struct {
  char *text;        /* malloc'd, NUL-terminated SMT-LIB2 script */
  size_t len;
  char sha256[65];   /* hex SHA-256 of text */
  int output;        /* which output pair of the rule */
  int n_axioms;      /* axioms asserted */
} rg_obligation;

/* Encodes output pair `output` of rule r (which must have a target). With all_axioms false only
 * the axioms whose operators all occur in r are asserted. On success *out owns a new text (free
 * with rg_obligation_free). Errors: RG_ERR_ARG for a bare graph or a bad output index,
 * RG_ERR_NOMEM. */
rg_status rg_smt_encode(const rg_rule *r, int output, const rg_axioms *ax, bool all_axioms,
                        rg_obligation *out, rg_err *err) RG_MUST_CHECK;
void rg_obligation_free(rg_obligation *o);

/* Every assertion that is not an axiom or the goal (the facts of ranks, sizes and seams, the
 * rule's hypotheses, the parameters' domains) is named RG_SMT_FACT "K", K = 1, 2, .. in the
 * order of the text, so that an unsat core names the facts a proof used as well as the axioms. */
#define RG_SMT_FACT "fact."
/* Names the unnamed one-line assertions of an encoded script in sb so (false: out of memory, sb
 * as it was). */
bool rg_smt_name_facts(rg_strbuf *sb);
/* The same numbering from *last + 1 on, *last the last number used after: an obligation named a
 * part at a time, its axioms (named already) never scanned. */
bool rg_smt_name_facts_from(rg_strbuf *sb, int *last);
/* Each axiom as rg_smt_encode takes it, into ax->smt (axioms.h): its assertion's text, which an
 * obligation then copies instead of writing it again, and the operators of its sides, which
 * choose it (the axioms were most of a warm replay's encoding). Errors: RG_ERR_NOMEM, ax->smt
 * then NULL. rg_smt_axioms_free lets go of them (rg_axioms_free calls it). */
rg_status rg_smt_axioms_make(rg_axioms *ax, rg_err *err) RG_MUST_CHECK;
void rg_smt_axioms_free(rg_axioms *ax);

/* The obligation full with only the axioms and facts that core (a solver's unsat core: space-separated
 * names) names: every other named assertion but the goal is left out, the rest kept as it is,
 * after a comment line that says so. Its premises are a subset of
 * full's, so an unsat of it is an unsat of full. The solvers after the first are given this
 * (rg_prove_opts's core_hint): the first one's proof says which axioms matter, and fewer
 * quantified axioms are far fewer instantiations. Errors: RG_ERR_NOMEM. */
rg_status rg_obligation_within_core(const rg_obligation *full, const char *core, rg_obligation *out,
                                    rg_err *err) RG_MUST_CHECK;

/* Whether the space-separated list (an unsat core) has the word w[0..n). */
bool rg_names_word(const char *list, const char *w, size_t n);

#endif
