/* prune/state.h: a pruning result written out whole and read back, so that a long run stopped
 * after pruning does not prune again (synth/checkpoint.h keeps it next to the run's output).
 *
 * Text, one item a line, every number decimal:
 *
 *   prune-state N KEPT INTERRUPTED REMOVALS
 *   stage K RUN IN OUT SECONDS           four lines, K = 0..3 (prune.h's stages)
 *   derive PASS NEXT SEQ1                only for derivability part way (prune.h)
 *   order I...                           N input indices, visiting order
 *   seq I...                             REMOVALS input indices, removal order
 *   e FATE N_BY BY... N_STEPS ID         N lines, input order; ID the content id in hex
 *   s TAG REVERSE OUTPUT TERM            N_STEPS lines after an e line (its derivation)
 *
 * A removal on its own (rg_prune_derivation_write) is a line 'd I N_STEPS' and its 's' lines.
 * A result holds each removed rule's derivation as its 's' lines, packed (prune.h).
 *
 * The reader trusts nothing: every index is in range, every count agrees, and a short or
 * garbled file is an error naming the line. (Whether the file belongs to the rules it is read
 * against is the caller's question: synth/checkpoint.h binds it with hashes.)
 */
#ifndef RG_PRUNE_STATE_H
#define RG_PRUNE_STATE_H

#include <stdio.h>

#include "derive.h"
#include "ir/ir.h"

struct rg_prune_result; /* prune.h */

/* Writes res to f. RG_ERR_IO if writing fails; RG_ERR_ARG for a derivation step whose term
 * holds a newline (it could not be read back). */
rg_status rg_prune_state_write(FILE *f, const struct rg_prune_result *res, rg_err *err) RG_MUST_CHECK;

/* Reads a result of n rules from text (len bytes, NUL-terminated) into *res (free it with
 * rg_prune_result_free, also after an error). RG_ERR_PARSE with the line when the text is not
 * such a result. */
rg_status rg_prune_state_read(const char *text, size_t len, int n, struct rg_prune_result *res,
                              rg_err *err) RG_MUST_CHECK;
/* Called as each rule's entry is read (its fate and record whole; the order, removal order and
 * where derivability stopped already read): a caller may let go of a removed rule before the
 * entries after it, with their derivations, take their memory. A status other than RG_OK ends
 * the read with it. The file may still be refused after (a count that disagrees at its end). */
typedef rg_status (*rg_prune_entry_fn)(void *ctx, const struct rg_prune_result *res, int i, rg_err *err);
/* The same from a stream, taking at most limit bytes from its position, a line at a time (a
 * depth-4 result is over 1 GB of text, never held whole); each may be NULL. RG_ERR_IO on a
 * read error. */
rg_status rg_prune_state_read_file(FILE *f, size_t limit, int n, struct rg_prune_result *res, rg_prune_entry_fn each,
                                   void *ctx, rg_err *err) RG_MUST_CHECK;

/* One removal as derivability made it: 'd I N_STEPS', then the N_STEPS 's' lines of d (as in a
 * state). What a caller keeping some removals of its own writes (synth/rounds.h). RG_ERR_IO if
 * writing fails; RG_ERR_ARG as rg_prune_state_write. */
rg_status rg_prune_derivation_write(FILE *f, int i, const rg_derivation *d,
                                    rg_err *err) RG_MUST_CHECK;
/* Reads exactly m such removals, and nothing after them, from at most limit bytes of f: rule
 * idx[k] derived by d[k] (free each with rg_derivation_free, also after an error), every index
 * below n. RG_ERR_PARSE with the line when the text is not that. */
rg_status rg_prune_derivations_read_file(FILE *f, size_t limit, int n, int m, int *idx,
                                         rg_derivation *d, rg_err *err) RG_MUST_CHECK;

/* Entry i of res takes d's steps, held packed (d is left empty). RG_ERR_ARG as
 * rg_prune_state_write; allocation failure. */
rg_status rg_prune_hold_derivation(struct rg_prune_result *res, int i, rg_derivation *d,
                                   rg_err *err) RG_MUST_CHECK;
/* Entry i's derivation unpacked into *d, empty for a rule not removed as derived (free it with
 * rg_derivation_free, also after an error). One thread at a time per result: unpacking uses
 * the pack's context. Errors for allocation failure, or a held derivation that does not unpack
 * (an internal error). */
rg_status rg_prune_derivation_of(const struct rg_prune_result *res, int i, rg_derivation *d,
                                 rg_err *err) RG_MUST_CHECK;
/* Entry i's removal as rg_prune_derivation_write writes it, from the derivation held; one
 * thread at a time per result, as above (so too rg_prune_state_write). */
rg_status rg_prune_removal_write(FILE *f, const struct rg_prune_result *res, int i,
                                 rg_err *err) RG_MUST_CHECK;

#endif
