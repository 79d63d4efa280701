/* ir/atomic.c: files that appear whole or not at all (atomic.h). */
#define _POSIX_C_SOURCE 200809L
#include "atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rg_atomic_remove_stale(const char *path) {
  char *dcopy = strdup(path), *bcopy = strdup(path);
  if (!dcopy || !bcopy) goto done;
  const char *dir = dirname(dcopy), *base = basename(bcopy);
  size_t bl = strlen(base);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    const char *n = e->d_name;
    if (strncmp(n, base, bl) || strncmp(n + bl, ".tmp.", 5)) continue;
    char *end;
    long pid = strtol(n + bl + 5, &end, 10);
    if (*end || pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
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

rg_status rg_atomic_open(rg_atomic_file *a, const char *path, rg_err *err) {
  a->f = NULL;
  a->path = strdup(path);
  size_t n = strlen(path) + 32;
  a->tmp = malloc(n);
  if (!a->path || !a->tmp) {
    rg_atomic_abort(a);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  }
  rg_atomic_remove_stale(path);
  snprintf(a->tmp, n, "%s.tmp.%ld", path, (long)getpid());
  unlink(a->tmp); /* one of ours an earlier call of this process left */
  int fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd >= 0 && !(a->f = fdopen(fd, "w"))) close(fd);
  if (!a->f) {
    rg_status st = rg_err_set(err, RG_ERR_IO, "cannot create %s: %s", a->tmp, strerror(errno));
    free(a->tmp), a->tmp = NULL; /* nothing of ours to remove */
    rg_atomic_abort(a);
    return st;
  }
  return RG_OK;
}

rg_status rg_atomic_commit(rg_atomic_file *a, rg_err *err) {
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
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
    return rg_err_set(err, RG_ERR_IO, "%s: is a folder: give a file name in it", path);
  char *copy = strdup(path);
  if (!copy) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  const char *dir = dirname(copy);
  rg_status st = RG_OK;
  if (stat(dir, &sb) != 0)
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot write there: the folder %s %s (create it first)", path, dir,
                    errno == ENOENT ? "does not exist" : strerror(errno));
  else if (!S_ISDIR(sb.st_mode))
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot write there: %s is not a folder", path, dir);
  else if (access(dir, W_OK | X_OK) != 0) /* the temporary is created beside the target */
    st = rg_err_set(err, RG_ERR_IO, "%s: cannot write there: the folder %s is not writable by you", path, dir);
  free(copy);
  return st;
}
