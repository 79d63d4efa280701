/* ir/atomic.c: files that appear whole or not at all (atomic.h). */
#define _DEFAULT_SOURCE /* flock */
#define _XOPEN_SOURCE 700 /* realpath */
#include "atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* What PATH.tmp.PID adds to a name, at most: ".tmp." and a pid of up to 10 digits. */
#define TMP_SUFFIX_MAX 15

/* n names a temporary of base: base.tmp.PID, or with words base.WORD.tmp.PID too (WORD letters
 * and dots: a checkpoint's suffix such as ".derived"). Its PID into *pid. */
static bool temporary_of(const char *n, const char *base, bool words, long *pid) {
  size_t bl = strlen(base);
  if (strncmp(n, base, bl)) return false;
  const char *t = n + bl;
  if (words && *t == '.')
    while (strncmp(t, ".tmp.", 5) && (*t == '.' || (*t >= 'a' && *t <= 'z'))) t++;
  if (strncmp(t, ".tmp.", 5)) return false;
  char *end;
  *pid = strtol(t + 5, &end, 10);
  return !*end && t[5] >= '0' && t[5] <= '9';
}

static void remove_stale(const char *path, bool words) {
  char *dcopy = strdup(path), *bcopy = strdup(path);
  if (!dcopy || !bcopy) goto done;
  const char *dir = dirname(dcopy), *base = basename(bcopy);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    const char *n = e->d_name;
    long pid;
    if (!temporary_of(n, base, words, &pid)) continue;
    if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    size_t fl = strlen(dir) + strlen(n) + 2;
    char *full = malloc(fl);
    if (full) snprintf(full, fl, "%s/%s", dir, n), unlink(full);
    free(full);
  }
  if (d) closedir(d);
done:
  free(dcopy);
  free(bcopy);
}

void rg_atomic_remove_stale(const char *path) { remove_stale(path, false); }
void rg_atomic_remove_stale_beside(const char *path) { remove_stale(path, true); }

/* The name path's temporary gets (PATH.tmp.PID) must fit the file system's limit on a name. */
static rg_status name_fits(const char *path, rg_err *err) {
  char *dcopy = strdup(path), *bcopy = strdup(path);
  rg_status st = dcopy && bcopy ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  long max = st ? -1 : pathconf(dirname(dcopy), _PC_NAME_MAX);
  size_t len = st ? 0 : strlen(basename(bcopy));
  if (max < 0) max = NAME_MAX;
  if (!st && len + TMP_SUFFIX_MAX > (size_t)max)
    st = rg_err_set(err, RG_ERR_IO,
                    "%s: a name of %zu characters leaves no room for the temporary written beside it "
                    "(.tmp.PID) within this file system's %ld: give a shorter name",
                    path, len, max);
  free(dcopy), free(bcopy);
  return st;
}

/* What a regular file, a device or another kind of file at path (followed through links) means
 * for writing there: RG_OK and *direct for a device or FIFO written in place, RG_OK for a
 * writable regular file, else the refusal. */
static rg_status kind_fits(const char *path, const struct stat *sb, bool *direct, rg_err *err) {
  mode_t m = sb->st_mode;
  *direct = S_ISCHR(m) || S_ISFIFO(m);
  if (S_ISDIR(m)) return rg_err_set(err, RG_ERR_IO, "%s: is a folder: give a file name in it", path);
  if (!*direct && !S_ISREG(m))
    return rg_err_set(err, RG_ERR_IO, "%s: is a %s, not a file: give a file name", path,
                      S_ISBLK(m) ? "block device" : S_ISSOCK(m) ? "socket" : "special file");
  if (!*direct && !(m & 0222))
    return rg_err_set(err, RG_ERR_IO, "%s: is read-only: make it writable (chmod u+w) or remove it first", path);
  if (access(path, W_OK) != 0)
    return rg_err_set(err, RG_ERR_IO, "%s: not writable by you (%s)", path, strerror(errno));
  return RG_OK;
}

rg_status rg_path_output_target(const char *path, char **real, bool *direct, rg_err *err) {
  *real = NULL, *direct = false;
  struct stat lsb, sb;
  if (!*path) return rg_err_set(err, RG_ERR_IO, "an empty file name: give one");
  bool exists = lstat(path, &lsb) == 0;
  if (!exists && errno != ENOENT) return rg_err_set(err, RG_ERR_IO, "%s: %s", path, strerror(errno));
  if (exists && stat(path, &sb) != 0)
    return rg_err_set(err, RG_ERR_IO, "%s: a symbolic link that leads nowhere (%s): remove it or give another name",
                      path, strerror(errno));
  rg_status st = exists ? kind_fits(path, &sb, direct, err) : RG_OK;
  if (st) return st;
  /* a link is written through: its target is replaced, the link stays */
  *real = exists && S_ISLNK(lsb.st_mode) && !*direct ? realpath(path, NULL) : strdup(path);
  if (!*real) return rg_err_set(err, RG_ERR_IO, "%s: %s", path, strerror(errno));
  if (!*direct && (st = name_fits(*real, err))) free(*real), *real = NULL;
  return st;
}

/* A device or FIFO: written in place. A FIFO is opened without waiting, so one no process reads
 * is an error instead of a hang; writes then wait for the reader as usual. */
static rg_status open_direct(rg_atomic_file *a, rg_err *err) {
  int fd = open(a->path, O_WRONLY | O_NONBLOCK);
  if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (fd >= 0 && !(a->f = fdopen(fd, "w"))) close(fd);
  if (a->f) return RG_OK;
  rg_status st = rg_err_set(err, RG_ERR_IO, "cannot write %s: %s", a->path,
                            errno == ENXIO ? "a FIFO that no process reads (start its reader first)" : strerror(errno));
  rg_atomic_abort(a);
  return st;
}

rg_status rg_atomic_open(rg_atomic_file *a, const char *path, rg_err *err) {
  *a = (rg_atomic_file){0};
  bool direct;
  rg_status st = rg_path_output_target(path, &a->path, &direct, err);
  if (st) return st;
  if (direct) return open_direct(a, err);
  struct stat old;
  bool replaces = stat(a->path, &old) == 0;
  size_t n = strlen(a->path) + 32;
  if (!(a->tmp = malloc(n))) {
    rg_atomic_abort(a);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rg_atomic_remove_stale(a->path);
  snprintf(a->tmp, n, "%s.tmp.%ld", a->path, (long)getpid());
  unlink(a->tmp); /* one of ours an earlier call of this process left */
  int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd >= 0 && replaces) fchmod(fd, old.st_mode & 07777); /* as cp keeps a file's mode */
  if (fd >= 0 && !(a->f = fdopen(fd, "w"))) close(fd);
  if (!a->f) {
    st = rg_err_set(err, RG_ERR_IO, "cannot create %s: %s", a->tmp, strerror(errno));
    free(a->tmp), a->tmp = NULL; /* nothing of ours to remove */
    rg_atomic_abort(a);
    return st;
  }
  return RG_OK;
}

/* A device or FIFO written in place: flushed and closed, nothing to rename. */
static rg_status commit_direct(rg_atomic_file *a, rg_err *err) {
  bool ok = fflush(a->f) == 0 && !ferror(a->f);
  int saved = errno;
  ok = fclose(a->f) == 0 && ok;
  a->f = NULL;
  rg_status st = ok ? RG_OK : rg_err_set(err, RG_ERR_IO, "cannot write %s: %s", a->path, strerror(saved ? saved : errno));
  rg_atomic_abort(a);
  return st;
}

rg_status rg_atomic_commit(rg_atomic_file *a, rg_err *err) {
  if (!a->tmp) return commit_direct(a, err);
  errno = 0;
  bool ok = fflush(a->f) == 0 && !ferror(a->f) && fsync(fileno(a->f)) == 0;
  int saved = errno;
  ok = fclose(a->f) == 0 && ok;
  a->f = NULL;
  rg_status st = RG_OK;
  if (!ok) st = rg_err_set(err, RG_ERR_IO, "cannot write %s: %s", a->tmp, strerror(saved ? saved : errno));
  else if (rename(a->tmp, a->path) != 0)
    st = rg_err_set(err, RG_ERR_IO, "cannot rename %s to %s: %s", a->tmp, a->path, strerror(errno));
  if (st) {
    rg_atomic_abort(a);
    return st;
  }
  char *dcopy = strdup(a->path);
  int dfd = dcopy ? open(dirname(dcopy), O_RDONLY | O_DIRECTORY) : -1;
  if (dfd >= 0) fsync(dfd), close(dfd); /* makes the rename durable; failure here loses nothing */
  free(dcopy);
  free(a->tmp), a->tmp = NULL;
  free(a->path), a->path = NULL;
  return RG_OK;
}

void rg_atomic_abort(rg_atomic_file *a) {
  if (a->f) fclose(a->f);
  if (a->tmp) unlink(a->tmp);
  free(a->tmp);
  free(a->path);
  a->f = NULL, a->tmp = a->path = NULL;
}

rg_status rg_atomic_write(const char *path, const void *data, size_t len, rg_err *err) {
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, path, err);
  if (st) return st;
  if (fwrite(data, 1, len, a.f) == len) return rg_atomic_commit(&a, err);
  st = rg_err_set(err, RG_ERR_IO, "cannot write %s: %s", a.tmp, strerror(errno));
  rg_atomic_abort(&a);
  return st;
}

rg_status rg_atomic_copy(const char *from, const char *to, rg_err *err) {
  FILE *in = fopen(from, "rb");
  if (!in) return rg_err_set(err, RG_ERR_IO, "cannot open %s: %s", from, strerror(errno));
  rg_atomic_file a;
  rg_status st = rg_atomic_open(&a, to, err);
  char buf[1 << 16];
  size_t n;
  while (!st && (n = fread(buf, 1, sizeof buf, in)) > 0)
    if (fwrite(buf, 1, n, a.f) != n) st = rg_err_set(err, RG_ERR_IO, "cannot write %s: %s", a.tmp, strerror(errno));
  if (!st && ferror(in)) st = rg_err_set(err, RG_ERR_IO, "cannot read %s: %s", from, strerror(errno));
  fclose(in);
  if (st) {
    rg_atomic_abort(&a);
    return st;
  }
  return rg_atomic_commit(&a, err);
}

char *rg_path_with_suffix(const char *path, const char *suffix) {
  size_t n = strlen(path) + strlen(suffix) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s", path, suffix);
  return s;
}

rg_status rg_path_check_writable(const char *path, rg_err *err) {
  bool direct;
  char *real;
  rg_status st = rg_path_output_target(path, &real, &direct, err);
  if (st || direct) return free(real), st;
  struct stat sb;
  const char *dir = dirname(real); /* the temporary is created beside the target */
  if (stat(dir, &sb) != 0)
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot write there: the folder %s %s (create it first)", path, dir,
                    errno == ENOENT ? "does not exist" : strerror(errno));
  else if (!S_ISDIR(sb.st_mode))
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot write there: %s is not a folder", path, dir);
  else if (access(dir, W_OK | X_OK) != 0)
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot write there: the folder %s is not writable by you", path, dir);
  free(real);
  return st;
}

bool rg_path_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
  if (ea || eb) return false;
  /* neither exists yet: the same name in the same folder */
  char *ca = strdup(a), *cb = strdup(b), *ra = NULL, *rb = NULL;
  bool same = false;
  if (ca && cb && !strcmp(basename(ca), basename(cb))) {
    strcpy(ca, a), strcpy(cb, b);
    ra = realpath(dirname(ca), NULL), rb = realpath(dirname(cb), NULL);
    same = ra && rb && !strcmp(ra, rb);
  }
  free(ca), free(cb), free(ra), free(rb);
  return same;
}

rg_status rg_folder_lock(const char *dir, const char *what, int *fd, rg_err *err) {
  char *path = rg_path_with_suffix(dir, "/lock");
  *fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600) : -1;
  rg_status st = RG_OK;
  if (*fd < 0) {
    st = path ? rg_err_set(err, RG_ERR_IO, "%s: %s", path, strerror(errno)) : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  } else if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    close(*fd), *fd = -1;
    st = rg_err_set(err, RG_ERR_ARG, "another rulegen run is using %s: wait for it to end, or give this one %s", dir,
                    what);
  }
  free(path);
  return st;
}
