/* ir/readfile.h: the one way to read a whole file into memory, bounded.
 *
 * A regular file is read at the size it has. Anything else (a character or block device, a
 * FIFO or pipe, a socket) has no size to trust and may never end (/dev/zero), so it is read up
 * to a bound and refused past it; a folder is refused by name. Each kind of file states its
 * bounds and, optionally, a check of a stream's first bytes, so that a stream that cannot be
 * one (zeros for rule text or a protobuf) is refused after one block, not after the bound. An
 * allocation failure stops the read. Every message names the file.
 */
#ifndef RG_IR_READFILE_H
#define RG_IR_READFILE_H

#include <stdint.h>

#include "strbuf.h"

/* The bound on text from a stream (rule text, axioms, journals, candidates, machine files):
 * rule sets are megabytes (depth 4's 94k rules: about 10 MB). */
#define RG_TEXT_MAX_STREAM ((size_t)256 << 20)

typedef struct {
  const char *what;  /* for messages: "rule text", "an ONNX model" */
  size_t max_file;   /* the most bytes a regular file may hold (SIZE_MAX: any) */
  size_t max_stream; /* the most bytes read from a file that is not regular */
  /* Optional: whether data[0, len), read so far from a stream, can begin a file of this kind;
   * *done (0 at first) is the caller's record of how far earlier calls looked. An error that
   * names path when it cannot. */
  rg_status (*check)(const char *path, const char *data, size_t len, size_t *done, rg_err *err);
} rg_file_kind;

/* Reads path whole into out (initialised here; free it also on error), NUL-terminated. Errors:
 * RG_ERR_IO (cannot open or read, a folder), RG_ERR_LIMIT (past kind's bounds), RG_ERR_NOMEM,
 * or kind->check's. */
rg_status rg_file_read(const char *path, const rg_file_kind *kind, rg_strbuf *out, rg_err *err) RG_MUST_CHECK;

#endif
