/* tools/rulegen_z3.c: the rulegen-z3 helper: answers z3 queries for rulegen (verify/z3_serve.h)
 * in a process of its own. rulegen execs it rather than forking itself, because a fork of a
 * multi-threaded process inherits locks held by other threads and can deadlock. */
#include "verify/verify.h"

int main(int argc, char **argv) {
  static const rg_helper_program h = {"rulegen-z3", "z3", "with a fresh z3 context per query",
                                      rg_z3_lib_version, rg_z3_serve};
  return rg_helper_main(argc, argv, &h);
}
