/* ir/datapath.c: the data files' lookup (ir/datapath.h). */
#define _DEFAULT_SOURCE /* readlink, realpath */
#include "datapath.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined RG_BUILD_DIR || !defined RG_DATA_FROM_BIN
#error "RG_BUILD_DIR, RG_DATA_FROM_BIN: ir/CMakeLists.txt defines them"
#endif

/* The running program's path, resolved; false when /proc/self/exe cannot be read. */
static bool exe_path(char *buf, size_t size) {
  ssize_t n = readlink("/proc/self/exe", buf, size - 1);
  if (n <= 0 || (size_t)n >= size - 1) return false;
  buf[n] = 0;
  return true;
}

bool rg_exe_dir(char *buf, size_t size) {
  if (!exe_path(buf, size)) return false;
  char *slash = strrchr(buf, '/');
  if (!slash) return false;
  slash[slash == buf] = 0; /* "/rulegen" lies in "/" */
  return true;
}

bool rg_exe_in_build_tree(void) {
  char exe[PATH_MAX], build[PATH_MAX];
  if (!exe_path(exe, sizeof exe) || !realpath(RG_BUILD_DIR, build)) return false;
  size_t n = strlen(build);
  return !strncmp(exe, build, n) && exe[n] == '/';
}

const char *rg_path_unusable(const char *path, int mode) {
  struct stat sb;
  if (stat(path, &sb) != 0) return errno == ENOENT || errno == ENOTDIR ? "not found" : strerror(errno);
  if (!S_ISREG(sb.st_mode)) return "not a file";
  if (access(path, mode) != 0) return mode & X_OK ? "not executable" : "not readable";
  return NULL;
}

/* Takes candidate when it is usable, else notes it and why in out->tried. The first place
 * looked stays in out->path either way, for messages and help texts. */
static bool try_file(rg_data_file *out, const char *candidate) {
  size_t used = strlen(out->tried);
  const char *why = strlen(candidate) >= sizeof out->path ? "path too long" : rg_path_unusable(candidate, R_OK);
  if (!why || !used) { /* cut when too long: then it is only named, never opened */
    size_t n = strnlen(candidate, sizeof out->path - 1);
    memcpy(out->path, candidate, n);
    out->path[n] = 0;
  }
  if (!why) return out->found = true;
  int n = snprintf(out->tried + used, sizeof out->tried - used, "%s%s (%s)", used ? ", " : "",
                   candidate, why);
  (void)n; /* a list cut short still names the first places */
  return false;
}

void rg_data_find(const char *rel, const char *source, rg_data_file *out) {
  memset(out, 0, sizeof *out);
  char buf[PATH_MAX + 64];
  const char *env = getenv(RG_DATA_DIR_ENV);
  if (env && *env) {
    snprintf(buf, sizeof buf, "%s/%s", env, rel);
    try_file(out, buf);
    return;
  }
  char dir[PATH_MAX];
  if (rg_exe_dir(dir, sizeof dir)) {
    snprintf(buf, sizeof buf, "%s/" RG_DATA_FROM_BIN "/%s", dir, rel);
    if (try_file(out, buf)) return;
  }
  if (source && rg_exe_in_build_tree()) try_file(out, source);
}

/* The files rg_data_find_once looked for: a program reads a handful of data files. */
#define ONCE_MAX 8
static rg_data_file once_files[ONCE_MAX];
static const char *once_rels[ONCE_MAX];
static int once_n;
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;

const rg_data_file *rg_data_find_once(const char *rel, const char *source) {
  static rg_data_file full = {false, "", "nowhere: more data files than ir/datapath.c keeps"};
  const rg_data_file *f = &full;
  pthread_mutex_lock(&once_lock);
  int i = 0;
  while (i < once_n && strcmp(once_rels[i], rel)) i++;
  if (i == once_n && once_n < ONCE_MAX) {
    rg_data_find(rel, source, &once_files[i]);
    once_rels[once_n++] = rel;
  }
  if (i < once_n) f = &once_files[i];
  pthread_mutex_unlock(&once_lock);
  return f;
}

rg_status rg_data_check(const rg_data_file *f, const char *path, const char *what, rg_err *err) {
  if (f->found || strcmp(path, f->path)) return RG_OK;
  const char *env = getenv(RG_DATA_DIR_ENV);
  if (env && *env)
    return rg_err_set(err, RG_ERR_IO, "cannot find %s: tried %s (from %s=%s): point %s at the "
                      "folder that holds it, or name the file with its option",
                      what, f->tried, RG_DATA_DIR_ENV, env, RG_DATA_DIR_ENV);
  return rg_err_set(err, RG_ERR_IO, "cannot find %s: tried %s: install rulegen (cmake --install), "
                    "set %s to the folder that holds rulegen's data (PREFIX/share/rulegen), or "
                    "name the file with its option",
                    what, f->tried[0] ? f->tried : "nowhere (the running program's path is "
                    "unknown)", RG_DATA_DIR_ENV);
}

rg_status rg_user_cache_path(const char *name, char *buf, size_t n, rg_err *err) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int len;
  /* the XDG base directory spec: a relative XDG_CACHE_HOME is invalid and ignored */
  if (xdg && xdg[0] == '/')
    len = snprintf(buf, n, "%s/rulegen/%s", xdg, name);
  else if (home && home[0])
    len = snprintf(buf, n, "%s/.cache/rulegen/%s", home, name);
  else
    return rg_err_set(err, RG_ERR_ARG, "no cache folder: neither XDG_CACHE_HOME nor HOME is set "
                      "(name one, or use none)");
  if (len < 0 || (size_t)len >= n) return rg_err_set(err, RG_ERR_LIMIT, "the cache's path is too long");
  return RG_OK;
}

rg_status rg_make_folders(const char *dir, rg_err *err) {
  char *d = strdup(dir);
  if (!d) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = RG_OK;
  for (char *p = d + 1; !st && *d; p++) {
    if (*p != '/' && *p) continue;
    char c = *p;
    *p = 0;
    if (mkdir(d, 0777) != 0 && errno != EEXIST)
      st = rg_err_set(err, RG_ERR_IO, "cannot make the folder %s: %s", d, strerror(errno));
    *p = c;
    if (!c) break;
  }
  free(d);
  return st;
}
