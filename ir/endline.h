/* ir/endline.h: the end line that seals a file rulegen writes whole (OUT.generalized, the
 * pruning checkpoints): "end " and the SHA-256 of every byte before it, in lowercase hex, then a
 * newline. A file cut short or altered no longer ends with the hash of what it holds. */
#ifndef RG_IR_ENDLINE_H
#define RG_IR_ENDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define RG_END_LINE_LEN (4 + 64 + 1)

/* Where the last line of the n bytes at s starts when it has the end line's shape ("end ", 64
 * characters, a newline), else NULL; *sealed says whether those 64 are the SHA-256 of every byte
 * before that line. */
const char *rg_end_line(const char *s, size_t n, bool *sealed);

#endif
