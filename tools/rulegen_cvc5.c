/* tools/rulegen_cvc5.c: the rulegen-cvc5 helper: answers cvc5 queries for rulegen through cvc5's
 * C++ API (verify/cvc5_serve.h) in a process of its own, so that a crash or hang of cvc5 is an
 * answer, never the end of rulegen. */
#include "verify/verify.h"

/* For LeakSanitizer builds only (ignored otherwise): libcln, which cvc5 links, allocates a
 * string at load time that it never frees; the helper's output is its replies, so the
 * suppression is not listed there either. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcln.so\n"; }
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) { return "print_suppressions=0"; }

int main(int argc, char **argv) {
  static const rg_helper_program h = {"rulegen-cvc5", "cvc5",
                                      "with a fresh cvc5 solver per query (its C++ API)",
                                      rg_cvc5_lib_version, rg_cvc5_serve};
  return rg_helper_main(argc, argv, &h);
}
