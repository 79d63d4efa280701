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
 * output pair, named `goal`. The script ends with (check-sat) and (get-unsat-core), so either
 * solver's binary can re-run it as is.
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

/* Hex SHA-256 of len bytes (libsodium) into hex[65]. */
void rg_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
