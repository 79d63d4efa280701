/* tests/fuzz/replay_main.c: a harness as a plain program: runs LLVMFuzzerTestOneInput on every
 * file named on the command line (and on the files of a folder named), so ctest keeps replaying
 * the seeds and the inputs that once crashed (tests/fuzz/regress/). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return fprintf(stderr, "cannot open %s\n", path), 1;
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (int c; (c = fgetc(f)) != EOF;) {
    if (n == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 4096))) return fclose(f), 1;
    buf[n++] = (uint8_t)c;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf ? buf : (const uint8_t *)"", n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int files = 0, rc = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
      DIR *d = opendir(argv[i]);
      for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
        rc |= run_file(p), files++;
      }
      if (d) closedir(d);
    } else {
      rc |= run_file(argv[i]), files++;
    }
  }
  printf("%s: %d inputs replayed\n", argv[0], files);
  return rc;
}
