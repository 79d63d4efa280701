/* tools/rulegen_cvc5.c: the rulegen-cvc5 helper: answers cvc5 queries for rulegen through cvc5's
 * C++ API (verify/cvc5_serve.h) in a process of its own, so that a crash or hang of cvc5 is an
 * answer, never the end of rulegen. */
#include "verify/verify.h"

/* Sanitizers: libcln (cvc5's) leaks a string at load; matched unsymbolized (0.2 s an exit). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcln.so\n"; }
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "symbolize=0"; } /* ASAN_OPTIONS=symbolize=1 */

int main(int argc, char **argv) {
  static const rg_helper_program h = {"rulegen-cvc5", "cvc5",
                                      "with a fresh cvc5 solver per query (its C++ API)",
                                      rg_cvc5_lib_version, rg_cvc5_serve};
  return rg_helper_main(argc, argv, &h);
}
