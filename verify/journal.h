/* verify/journal.h: solver answers kept in a file as they come, so that a long proof stage
 * that is interrupted (Ctrl-C, a crash, a machine taken back) starts again where it stopped
 * instead of asking the solvers everything again.
 *
 * Format: a first line `# rulegen proof journal: z3 VERSION; cvc5 VERSION`, then one line per
 * answer: `SHA256 SOLVER RESULT TIMEOUT_MS MS MAC [CORE...]`, where SHA256 is the obligation's
 * hash (the hash of its exact SMT-LIB2 text, smt.h), SOLVER z3 or cvc5, RESULT as
 * rg_smt_result_name, MAC a keyed BLAKE2b of the other fields under the key in PATH.key (32
 * random bytes, hex, made with the journal and readable by its owner only). An unsat line counts
 * as that solver's proof of that obligation, so a line is trusted only with its key: two forged
 * unsat lines once made a false rule verified. A line whose MAC does not match is an error (a
 * proof cache's journal refuses it instead: rg_journal_open_cache), and so is a (non-empty)
 * journal without its key. An answer is reused only for the same obligation
 * text, solver and solver version; unknown and timeout answers only for a time limit no longer
 * than the one they got; crash and error answers never. A line cut short by a crash at the end
 * of the file is dropped.
 */
#ifndef RG_VERIFY_JOURNAL_H
#define RG_VERIFY_JOURNAL_H

#include "solver.h"

typedef struct rg_journal rg_journal;

/* Opens (creating it if missing) the journal at path for these solver versions ("z3 4.8.12",
 * "cvc5 1.0.3") and reads the answers it holds. Errors, their message naming path and line: a
 * journal of other versions, a malformed line; I/O. */
rg_status rg_journal_open(const char *path, const char *const versions[RG_SOLVER_COUNT],
                          rg_journal **out, rg_err *err) RG_MUST_CHECK;
/* The same for a proof cache's journal (proofcache.h), which many runs share and keep: a line
 * whose MAC or form is wrong (altered, forged, or garbled) is refused instead of an error: not
 * believed, counted, and its obligation asked again (the new answer appended after it). */
rg_status rg_journal_open_cache(const char *path, const char *const versions[RG_SOLVER_COUNT],
                                rg_journal **out, rg_err *err) RG_MUST_CHECK;
/* What opening a proof cache's journal makes and checks, without reading its answers: the
 * journal and its key made where missing, its header checked against these versions (errors as
 * rg_journal_open_cache's). For a caller that names the journal to rg_prove_rules, which reads
 * it: a depth-4 cache's million lines take seconds, once is enough. */
rg_status rg_journal_prepare(const char *path, const char *const versions[RG_SOLVER_COUNT],
                             rg_err *err) RG_MUST_CHECK;
/* Takes the lines appended to the file since j last read it (by other runs sharing the cache,
 * the ranks of an mpirun, and j's own), so that a journal kept open across proof rounds reads
 * the file once, not once a round (at depth 4, about a million lines). A file another run has
 * replaced, removed or cut, or one that ends in a line half written (a crash), is read again
 * from its start as a new handle would (and made again, or its cut line dropped). Errors as
 * when opened. */
rg_status rg_journal_catch_up(rg_journal *j, rg_err *err) RG_MUST_CHECK;
/* How many lines a proof cache's journal refused when it was opened (and caught up). */
int rg_journal_refused(const rg_journal *j);
void rg_journal_close(rg_journal *j);

/* An answer of solver s for the obligation with this hash usable at timeout_ms, into *ans. */
bool rg_journal_lookup(const rg_journal *j, const char *sha256, int s, int timeout_ms,
                       rg_solver_answer *ans);

/* Appends an answer and flushes it to the file. Not thread-safe: callers serialize. */
rg_status rg_journal_append(rg_journal *j, const char *sha256, int s, int timeout_ms,
                            const rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;

#endif
