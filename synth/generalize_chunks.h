/* synth/generalize_chunks.h: the generalize stage's results kept chunk by chunk in a folder
 * (OUT.generalize, beside the output), so that a run stopped part way through the stage (about
 * 45 minutes at depth 4 with every operator) goes on from the chunks done, and the ranks of an
 * MPI job hand rank 0 the chunks they made (synth/generalize.h).
 *
 * The folder holds `key` (what the chunks were made from: the candidate text's SHA-256, the
 * options, the chunk size) and c-<i>.gen for each finished chunk i: a line
 *   # rulegen generalize chunk I: M candidates, BYTES bytes, SHA-256 HEX
 * then M lines "tried passed kept capped skipped", one per candidate, then BYTES bytes of the
 * generalizations' lines (as many as the candidates kept); the SHA-256 covers the key and
 * everything after the first line, so a chunk is good only for the candidates and options it was
 * made from. A file is written whole (a temporary, then renamed); one cut short, altered, of
 * another chunk or another key, or whose counts disagree with its lines, is not used (a line says
 * so) and the chunk is made again. Under MPI it also holds c-text, the candidate text rank 0
 * wrote, from which each rank reads its chunks' bytes. One run at a time makes chunks in a folder
 * (a lock file; MPI workers join rank 0's). The folder is removed once the stage's result is kept whole elsewhere
 * (synth/generalized.h).
 */
#ifndef RG_SYNTH_GENERALIZE_CHUNKS_H
#define RG_SYNTH_GENERALIZE_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/ir.h"
#include "verify/generalize.h"

/* A chunk of the candidate text: bytes [pos, end), its first line's number less one, and its
 * rule lines. */
typedef struct {
  size_t pos, end;
  int line0, m;
} rg_gen_chunk;

typedef struct {
  char *dir, *key;
  int lock; /* the folder's lock file, held by the run that made it (not by a joining rank) */
} rg_gen_chunks;

/* Opens the folder dir for the chunks made under key (one line), locked. Made when missing;
 * one of another key has its chunks removed and takes this key, unless join (an MPI worker's:
 * rank 0 has made it and holds the lock; another key is an error). Errors: RG_ERR_IO naming the
 * path (a file there that is not a folder, or one that cannot be made), RG_ERR_ARG (another run
 * holds the lock), RG_ERR_NOMEM. */
rg_status rg_gen_chunks_open(rg_gen_chunks *c, const char *dir, const char *key, bool join, rg_err *err) RG_MUST_CHECK;

/* Whether chunk i's file is there (whole or not: rg_gen_chunks_load says). */
bool rg_gen_chunks_has(const rg_gen_chunks *c, int i);

/* Chunk i kept whole with m candidates: their stats into stats[0..m), the lines appended to
 * lines. False when it is not there, or not whole (said on stderr). */
bool rg_gen_chunks_load(const rg_gen_chunks *c, int i, int m, rg_generalize_stats *stats, rg_strbuf *lines);

/* Keeps chunk i: the stats of its m candidates and its lines (len bytes). Errors: RG_ERR_IO. */
rg_status rg_gen_chunks_save(const rg_gen_chunks *c, int i, int m, const rg_generalize_stats *stats, const char *text,
                             size_t len, rg_err *err) RG_MUST_CHECK;

/* The candidate text written whole into the folder, for an MPI job's ranks, which read only
 * their chunks' bytes from it (rg_gen_chunks_read_text) rather than each holding the whole text.
 * Errors: RG_ERR_IO naming the file, RG_ERR_NOMEM. */
rg_status rg_gen_chunks_save_text(const rg_gen_chunks *c, const char *text, size_t len, rg_err *err) RG_MUST_CHECK;

/* Chunk ch's bytes [pos, end) of that text into *buf (malloc'ed, NUL-ended, the caller's), whose
 * SHA-256 must be sha (hex, as rank 0 computed it). Errors: RG_ERR_IO (the file unreadable or
 * short, or other bytes: the folder not the one rank 0 wrote), RG_ERR_NOMEM. */
rg_status rg_gen_chunks_read_text(const rg_gen_chunks *c, const rg_gen_chunk *ch, const char *sha, char **buf,
                                  rg_err *err) RG_MUST_CHECK;

/* Removes that text (once every rank has made its chunks: it is as large as the candidates). */
void rg_gen_chunks_drop_text(const rg_gen_chunks *c);

/* Closes c; with remove, deletes the folder and its files. */
void rg_gen_chunks_close(rg_gen_chunks *c, bool remove);
/* Deletes the folder dir and its files, if it is there. */
void rg_gen_chunks_remove(const char *dir);

#endif
