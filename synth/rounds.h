/* synth/rounds.h: the proof rounds' derivability of the rules put back, kept beside the output
 * (OUT.rounds), so that a run resumed in its proofs or a warm rerun whose rounds come out the
 * same takes each round's removals instead of searching again (at depth 4, most of a warm rerun).
 *
 * What a round's search removes is decided by the state before the rounds (bound to the run as
 * OUT.derived is: synth/checkpoint.h's key) and, round by round, by which rules failed their
 * proofs (dropped), which are proved (usable) and which were put back (retry). Each round's key
 * is the SHA-256 of the round before's key and those three sets, so a record is taken only where
 * every round before it came out the same.
 *
 * The file, appended to a round at a time:
 *   # rulegen rounds, format 1          then '# run: ' and '# binding: ' lines as a checkpoint's
 *   round KEY M                         KEY in hex, M removals
 *   d I N_STEPS / s ...                 M removals as prune/state.h writes them
 *   end SHA256                          of the record's lines from its 'round' line
 * The end line is the hash of the bytes as this run wrote them. A record cut short (a run killed
 * while writing it) or altered is not taken, nor any after it: they are dropped when the file is
 * opened, with a note. A record is checked whole before any removal is made: at most as many
 * removals as rules put back, each of a rule put back this round, once; each step by a proved
 * rule or by a put-back rule the record keeps (as the search's set holds them: never one it
 * removes, so no record can remove rules through each other), its term as rulegen prints it; and
 * each derivation replayed (rg_derivation_check). One that fails any of this is searched again,
 * with a note. What passes is sound and passes `rulegen prune --audit`; it is what the search
 * found only in a file rulegen wrote (a record made by hand that passes can remove other rules
 * than a search would, and the side files then differ from a searching run's).
 */
#ifndef RG_SYNTH_ROUNDS_H
#define RG_SYNTH_ROUNDS_H

#include <stdbool.h>

#include "checkpoint.h"

typedef struct rg_rounds rg_rounds;

/* OUT.rounds for the run k, its records read; a file of another run (or none) is started again.
 * NULL when it can be neither read nor written (a note says why: the rounds search). */
rg_rounds *rg_rounds_open(const char *out_path, const rg_checkpoint_key *k);
void rg_rounds_close(rg_rounds *r);

/* Moves to the next round's key, from the n rules' dropped, usable and retry flags. r may be
 * NULL (no file: nothing to do), as in the calls below. */
void rg_rounds_next(rg_rounds *r, const bool *dropped, const bool *usable, const bool *retry,
                    int n);

/* Makes this round's saved removals in res, over the candidates rules[0..n): *taken when there
 * was a record for this key and it checked (*removed: how many); else res is unchanged (a record
 * that does not check gets a note). Errors only for allocation failure. */
rg_status rg_rounds_take(rg_rounds *r, const rg_rule *const *rules, int n, rg_prune_result *res,
                         const bool *usable, const bool *retry, bool *taken, int *removed,
                         rg_err *err) RG_MUST_CHECK;

/* Saves res->removal_seq[from..] (the round's search made them) under this round's key. A file
 * that cannot be written costs a later run the search, not this one (a note says so). */
void rg_rounds_save(rg_rounds *r, const rg_prune_result *res, int from);

#endif
