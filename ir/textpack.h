/* ir/textpack.h: millions of small texts held compressed with one dictionary.
 *
 * Why: a depth-4 run holds millions of texts of 50 to 500 bytes for hours (removed rules'
 * texts, synth/hollow.h; derivations' steps, prune.h). Alone each barely compresses; with a
 * zstd dictionary trained on the first of them they shrink about 3x.
 *
 * The first `train` texts packed are kept as they are (and copied as samples); then the
 * dictionary is trained on those samples and every later text is compressed with it. Where
 * training is refused (too few or too alike samples) every text stays as it is. A block is a
 * malloc'ed byte string the caller owns (free()): 'T', the length (LEB128), the bytes; or 'Z',
 * the frame's length (LEB128), a zstd frame. Not thread-safe: one thread at a time per pack.
 */
#ifndef RG_IR_TEXTPACK_H
#define RG_IR_TEXTPACK_H

#include "strbuf.h"

typedef struct rg_textpack rg_textpack;

/* A pack training its dictionary on the first `train` texts (0: never, every text as it is).
 * NULL: out of memory. */
rg_textpack *rg_textpack_new(int train);
void rg_textpack_free(rg_textpack *p);

/* Bytes t[0..len) as a new block; NULL: out of memory. */
char *rg_textpack_pack(rg_textpack *p, const void *t, size_t len);

/* Appends block b's bytes to sb (sb->failed: out of memory, or a block that does not unpack). */
void rg_textpack_unpack(rg_textpack *p, const char *b, rg_strbuf *sb);

/* Whether b is compressed (false: kept as it is). */
bool rg_textpack_compressed(const char *b);

#endif
