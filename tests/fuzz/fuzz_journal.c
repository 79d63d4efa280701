/* tests/fuzz/fuzz_journal.c: proof journals (verify/journal.h), read with a fixed key, so that
 * lines made with it (the seeds') get past their MAC and into the table. */
#include <unistd.h>

#include "fuzz.h"
#include "verify/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_write_temp("journal", data, size);
  if (!path) return 0;
  char key[160];
  snprintf(key, sizeof key, "%s.key", path);
  FILE *f = fopen(key, "w");
  if (f) fputs("abababababababababababababababababababababababababababababababab\n", f), fclose(f);
  static const char *const versions[RG_SOLVER_COUNT] = {"z3 4.8.12", "cvc5 1.0.3"};
  rg_journal *j = NULL;
  rg_err err;
  if (rg_journal_open(path, versions, &j, &err) == RG_OK) {
    rg_solver_answer a;
    (void)rg_journal_lookup(j, "a7ddc29ccadbd8005c9bf8507e39e828c6d08dad28f942433c5d6a9da10c2e41", 0, 2000, &a);
    rg_journal_close(j);
  }
  unlink(key);
  unlink(path);
  return 0;
}
