/* ir/atomic.h: files that appear whole or not at all.
 *
 * A result file is written to a temporary beside it (PATH.tmp.PID, created exclusively, with the
 * user's umask, or the mode of the file it replaces) and renamed over PATH only once it is
 * complete and on disk, so a failure, Ctrl-C or kill -9 leaves the previous PATH (or none),
 * never a cut one. Opening also removes what a killed run left: PATH.tmp.PID files whose process
 * no longer exists.
 *
 * What PATH names is respected, never replaced by a regular file: a symbolic link is followed
 * (its target is written, the link stays); a character device or a FIFO (/dev/null, a pipe) is
 * written directly, with nothing to rename (a FIFO no process reads is an error, not a hang);
 * a block device, a socket, a folder or a read-only file is refused, as cp refuses it.
 */
#ifndef RG_IR_ATOMIC_H
#define RG_IR_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>

#include "status.h"

typedef struct {
  FILE *f;    /* write here between open and commit */
  char *path; /* the target (a symbolic link's target, resolved) */
  char *tmp;  /* the temporary; NULL when the target is a device or FIFO written directly */
} rg_atomic_file;

/* Starts a file for path. RG_ERR_IO (naming the temporary and why) when it cannot be created. */
rg_status rg_atomic_open(rg_atomic_file *a, const char *path, rg_err *err) RG_MUST_CHECK;
/* Flushes, syncs and closes the temporary and renames it over the target (and syncs the
 * folder). On failure the temporary is removed and the target is unchanged (RG_ERR_IO). */
rg_status rg_atomic_commit(rg_atomic_file *a, rg_err *err) RG_MUST_CHECK;
/* Closes and removes the temporary; the target is unchanged. Safe after a failed open. */
void rg_atomic_abort(rg_atomic_file *a);
/* Removes PATH.tmp.PID files beside path whose process no longer exists (what rg_atomic_open
 * does first; for writers that make their own PATH.tmp.PID, as the SQLite database writer). */
void rg_atomic_remove_stale(const char *path);
/* The same for the files kept beside path as well (PATH.WORD.tmp.PID: a run's checkpoints,
 * OUT.derived and the like), so that a run resumed after a kill -9 does not keep what the
 * killed one was writing (1.4 GB at depth 4) through stages that never rewrite that file. */
void rg_atomic_remove_stale_beside(const char *path);
/* len bytes of data to path, whole or not at all (RG_ERR_IO naming the temporary and why). */
rg_status rg_atomic_write(const char *path, const void *data, size_t len, rg_err *err) RG_MUST_CHECK;
/* Copies the file at from to to, whole or not at all (RG_ERR_IO naming the file and why). */
rg_status rg_atomic_copy(const char *from, const char *to, rg_err *err) RG_MUST_CHECK;

/* Takes folder dir's lock for this process (dir/lock, made when missing, locked with flock,
 * exclusive, never waiting): its descriptor into *fd, held until closed; -1 on failure.
 * RG_ERR_IO naming the file; RG_ERR_ARG when another process holds it ("another rulegen run is
 * using DIR: wait for it to end, or give this one " and then what). */
rg_status rg_folder_lock(const char *dir, const char *what, int *fd, rg_err *err) RG_MUST_CHECK;

/* path followed by suffix (".proofs", ".removed", ...), malloc'ed (NULL when out of memory): the
 * name of a file kept next to an output. */
char *rg_path_with_suffix(const char *path, const char *suffix);

/* Where a write to path goes, into *real (malloc'ed): path itself, or the file a symbolic link
 * at path leads to; *direct when that is a character device or FIFO, written in place.
 * RG_ERR_IO (naming path, what is wrong and what to do; *real NULL) for an empty name, a folder,
 * a block device, a socket, a dangling link, a read-only or unwritable file, or a name with no
 * room for the temporary. */
rg_status rg_path_output_target(const char *path, char **real, bool *direct, rg_err *err) RG_MUST_CHECK;

/* Can a file be written at path (rg_atomic_open's temporary beside it, or a file of its own)?
 * Checked before hours of work, as rg_atomic_open will see it: a name that is not empty and
 * leaves room for the temporary's suffix, a folder that exists and is writable, and no folder,
 * block device, socket, dangling link or read-only file at path (a device or FIFO is fine).
 * RG_ERR_IO naming path, what is wrong and what to do when not. */
rg_status rg_path_check_writable(const char *path, rg_err *err) RG_MUST_CHECK;

/* Whether a and b name one file: the same file when both exist (links and all), else the same
 * name in the same folder. A character device (/dev/null) is no one's file: false. */
bool rg_path_same_file(const char *a, const char *b);

#endif
