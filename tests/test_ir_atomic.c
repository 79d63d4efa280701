/* tests/test_ir_atomic.c: files written whole or not at all (ir/atomic.h): an aborted write
 * leaves the old file, a committed one replaces it, a failure to create is an error naming the
 * temporary, and a temporary a killed run left is removed when the next write starts, or, for
 * the files kept beside an output, when a run starts (rg_atomic_remove_stale_beside). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static void touch(const char *dir, const char *name) {
  char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
}

static bool present(const char *dir, const char *name) {
  char p[256];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

/* A killed run's checkpoint temporaries go; a live process's, another output's, and names that
 * only look alike stay. */
static void stale_beside(const char *dir, const char *path) {
  char live[64];
  snprintf(live, sizeof live, "out.rules.derived.tmp.%ld", (long)getpid());
  const char *gone[] = {"out.rules.tmp.999999999", "out.rules.derived.tmp.999999999", "out.rules.proofs.x.tmp.999999999"};
  const char *kept[] = {live, "out.rules2.tmp.999999999", "out.rules.Derived.tmp.999999999", "out.rules.derived.tmp.",
                        "out.rules.derived.tmp.99x", "out.rulesX.derived.tmp.999999999", "other.rules.derived.tmp.999999999"};
  for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) touch(dir, gone[i]);
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) touch(dir, kept[i]);
  rg_atomic_remove_stale_beside(path);
  for (size_t i = 0; i < sizeof gone / sizeof *gone; i++) CHECK(!present(dir, gone[i]));
  for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) {
    CHECK(present(dir, kept[i]));
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, kept[i]);
    unlink(p);
  }
}

static char *slurp(const char *path) {
  rg_strbuf sb;
  rg_err err;
  if (rg_text_read_file(path, &sb, &err)) {
    rg_sb_free(&sb);
    return NULL;
  }
  return sb.s ? sb.s : calloc(1, 1);
}

int main(void) {
  char dir[] = "/tmp/rg_atomic_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[128], stale[160];
  snprintf(path, sizeof path, "%s/out.rules", dir);
  rg_err err;
  rg_atomic_file a;
  CHECK(rg_atomic_open(&a, path, &err) == RG_OK);
  fputs("first\n", a.f);
  CHECK(rg_atomic_commit(&a, &err) == RG_OK);
  char *s = slurp(path);
  CHECK(s && !strcmp(s, "first\n"));
  free(s);
  /* aborted half way: the old file stays, no temporary is left */
  CHECK(rg_atomic_open(&a, path, &err) == RG_OK);
  fputs("second, cut", a.f);
  char tmp[200];
  snprintf(tmp, sizeof tmp, "%s", a.tmp);
  rg_atomic_abort(&a);
  s = slurp(path);
  CHECK(s && !strcmp(s, "first\n"));
  free(s);
  CHECK(access(tmp, F_OK) != 0);
  /* a killed run's temporary (a pid that cannot be running) goes when the next write starts */
  snprintf(stale, sizeof stale, "%s.tmp.%d", path, 999999999);
  FILE *f = fopen(stale, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  CHECK(rg_atomic_open(&a, path, &err) == RG_OK);
  CHECK(access(stale, F_OK) != 0);
  fputs("third\n", a.f);
  CHECK(rg_atomic_commit(&a, &err) == RG_OK);
  s = slurp(path);
  CHECK(s && !strcmp(s, "third\n"));
  free(s);
  /* the user's umask, not 0600 */
  struct stat sb;
  mode_t um = umask(0);
  umask(um);
  CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == (0666 & ~um));
  /* a folder that does not exist: an error naming the temporary */
  CHECK(rg_atomic_open(&a, "/nonexistent/x.rules", &err) == RG_ERR_IO &&
        strstr(err.msg, "cannot create /nonexistent/x.rules.tmp."));
  stale_beside(dir, path);
  unlink(path);
  rmdir(dir);
  return check_done("test_ir_atomic");
}
