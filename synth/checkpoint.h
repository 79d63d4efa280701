/* synth/checkpoint.h: the stages after testing saved next to the output, so that a run killed
 * in them resumes where it stopped (the tested candidates themselves: resume.h; the renaming
 * collapse and generalize before pruning: generalized.h).
 *
 * A run with an output OUT (a file, not a device) saves, each whole or not at all (ir/atomic.h):
 *   OUT.pruned   pruning's result (renaming, common subgraph and supergraph) over the renamed
 *                and generalized candidates;
 *   OUT.derived  the same after derivability, before the proofs; while derivability runs, its
 *                result part way (rg_prune_result.derive_pass), every rg_finish_opts.save_every
 *                seconds and on Ctrl-C, which a resumed run goes on from.
 *   OUT.final    derivability over the proved rules, after the proofs (part way while it runs,
 *                as OUT.derived), bound also to which rules were proved: a rerun whose proofs
 *                came out the same (all from the proof cache) takes it instead of searching
 *                again (at depth 4, minutes).
 *   OUT.rounds   what each proof round's search of the rules put back removed (synth/rounds.h).
 * Every answer is in the proof cache as it comes, and a resumed run replays the rounds from it,
 * asking the solvers only what they had not answered, and taking each round's removals from
 * OUT.rounds. A later run into the same OUT (`rulegen --resume OUT.candidates -o OUT`) takes the
 * latest checkpoint that belongs to it and prunes only what is left.
 *
 * A checkpoint holds the result of the stages before the proofs only, so nothing about the
 * proofs (axioms, timeout, solvers) binds it: a rerun with other axioms or another timeout
 * starts from it too, which is why the files are kept after the output is written. What does
 * bind it is in its header: the format, the candidates' first line (the run that made them),
 * the SHA-256 of the candidate text pruning read and of the generalizations' table, the
 * pruning stages and derivability's limits. A file whose header is another run's is not used (a
 * note says so, and this run's result replaces it); one that is cut short or altered (its last
 * line, the SHA-256 of everything before it, does not match) or does not parse is refused,
 * unless the earlier checkpoint is usable.
 *
 * Tests stop a run in these stages with the kill hook (ir/killpoint.h), at the points of
 * synth/finish.c: prune (entering pruning), derive[:N] (in derivability before the proofs, N
 * rules decided), prove:N (proof round N answered, its rules not yet put back), write (the
 * output whole in its temporary, the side files written).
 */
#ifndef RG_SYNTH_CHECKPOINT_H
#define RG_SYNTH_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "prune/prune.h"

typedef enum { RG_CHECKPOINT_PRUNED, RG_CHECKPOINT_DERIVED, RG_CHECKPOINT_FINAL, RG_CHECKPOINT_KINDS } rg_checkpoint_kind;

/* What binds a checkpoint to its run: the lines of its header after the first. */
typedef struct {
  char run[512];     /* the candidates' first line ("" when they have none) */
  char binding[512]; /* hashes, stages, limits */
  int n;             /* rules pruning read */
  char text_sha256[65]; /* of the candidate text (rg_checkpoint_key_text) */
} rg_checkpoint_key;

/* The part of the key that the candidate text gives (len bytes, its first line the candidates'
 * header): taken before the text is parsed, since the parse lets go of the text as it goes. */
void rg_checkpoint_key_text(rg_checkpoint_key *k, const char *cand, size_t len);
/* The rest, after rg_checkpoint_key_text: a run that prunes the n rules of that text with these
 * stages; general_off/general_of as in rg_prune_opts (or NULL). */
void rg_checkpoint_key_init(rg_checkpoint_key *k, int n, unsigned stages, const int *general_off,
                            const int *general_of);

/* The key of OUT.final: run's, also bound to the n proved rules (their places among the
 * candidates, verified[0..n)). */
void rg_checkpoint_key_final(rg_checkpoint_key *k, const rg_checkpoint_key *run, const int *verified, int n);

/* OUT.final of the run k into *res (maybe part way: res->derive_pass); false when there is none
 * of this run (a line on stderr says why one that is there is not used: the rules are searched
 * again). */
bool rg_checkpoint_final(const char *out_path, const rg_checkpoint_key *k, rg_prune_result *res);

/* Whether files beside the output are kept for a later run (the checkpoints, OUT.generalized):
 * when out_path names a file, not a device or a stream. */
bool rg_checkpoint_beside(const char *out_path);

/* OUT.pruned, OUT.derived or OUT.final (malloc'ed; NULL when out of memory). */
char *rg_checkpoint_path(const char *out_path, rg_checkpoint_kind kind);

/* Writes res as the checkpoint of this kind next to out_path, whole or not at all. RG_ERR_IO
 * naming the file when it cannot. */
rg_status rg_checkpoint_save(const char *out_path, rg_checkpoint_kind kind, const rg_checkpoint_key *k,
                             const rg_prune_result *res, rg_err *err) RG_MUST_CHECK;

/* The latest usable checkpoint next to out_path for the run k: *got is the kind loaded into
 * *res (derived only when want_derived), or -1 (none: prune from the start). A checkpoint not
 * used gets a line on stderr saying why; one damaged with no earlier one usable is refused.
 * Returns 0, or 2 after printing which file, what is wrong and what to do. each (may be NULL)
 * sees each rule's entry as it is read (rg_prune_entry_fn), also of a file refused after. */
int rg_checkpoint_resume(const char *out_path, const rg_checkpoint_key *k, bool want_derived, rg_prune_result *res,
                         int *got, rg_prune_entry_fn each, void *ctx);

#endif
