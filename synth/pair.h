/* synth/pair.h: two graphs of a fingerprint bucket made into a candidate rule, or the reason no
 * candidate is needed for them.
 *
 * Graphs in one bucket have equal fingerprints; a pair of them is a candidate "a => b" only if
 * their outputs can be paired (equal count, equal values on the fingerprint inputs), some side's
 * variables cover the other's, and no smaller candidate already says it: an output common to
 * both sides, several outputs each a rule of its own, or op(.., a, ..) vs op(.., b, ..) with a
 * and b equal in value (congruence) all leave the pair to smaller candidates.
 */
#ifndef RG_SYNTH_PAIR_H
#define RG_SYNTH_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "fingerprint/fingerprint.h"
#include "ir/ir.h"

/* Outcome of pairing two graphs of a bucket. */
typedef enum {
  RG_PAIR_RULE,     /* a candidate rule to test */
  RG_PAIR_MISMATCH, /* output counts or output values differ: not comparable */
  RG_PAIR_UNBOUND,  /* each side has a variable the other lacks: no rule can say it */
  RG_PAIR_COMMON,   /* an output is the same node on both sides: the rule without it says it */
  RG_PAIR_SPLITS,   /* several outputs, and every way the pair applies one output pair applies
                       alone: the others only borrow its variables; smaller candidates say it */
  RG_PAIR_CONGRUENT /* op(.., a, ..) vs op(.., b, ..) with a and b equal in value: a => b says it */
} rg_pair_kind;

/* A bucket's members with their output hashes, each computed once when first needed (a member
 * is paired with every class representative, and a multi-output graph's hashes cost a whole
 * evaluation). h and n have one entry per member; n[i] == 0 until member i is hashed. */
typedef struct {
  const rg_enum_space *sp;
  uint64_t seed;           /* fingerprint seed */
  rg_value *const *inputs; /* the fingerprint inputs (rg_fp_inputs_new) */
  const rg_fp_record *m;
  uint64_t (*h)[RG_RULE_MAX_OUTPUTS];
  int8_t *n;
} rg_pair_members;

/* Pairs members ia and ib: returns the rg_pair_kind, or -1 on error (err set). For RG_PAIR_RULE
 * *out is the rule a => b, or b => a so that the target's variables occur in the source, its
 * outputs paired by value when there are several (the caller frees it); otherwise *out is
 * untouched. */
int rg_pair_build(rg_pair_members *pm, size_t ia, size_t ib, rg_rule **out, rg_err *err);

#endif
