/* verify/cvc5_serve.h: for verify/ and the rulegen-cvc5 helper (tools/rulegen_cvc5.c; via helper.h):
 * the cvc5 side of the cvc5 backend, through cvc5's C++ API (Debian's cvc5 1.0.3 has no C API;
 * this header is the thin C face of verify/cvc5_serve.cpp).
 *
 * Why not the cvc5 binary over a pipe: on the depth-4 obligations its SMT-LIB parser (ANTLR)
 * was 37% of all its instructions and its (reset) 8% (callgrind). The helper reads the
 * obligation itself (the subset rg_smt_encode writes: declare-sort, declare-fun,
 * declare-const, assert with :named and :pattern annotations, forall, the Boolean and integer
 * operators, check-sat, get-unsat-core) and builds the terms through the API, in the order the
 * text gives them. The text is the same one z3 gets; anything outside that subset is answered
 * with (error ...), never with a verdict. The binary stays available (rulegen prove --cvc5).
 *
 * Each script gets a fresh cvc5 Solver with the options of cvc5_options.h (enumerative
 * instantiation) and the per-query limit tlimit-per (which answers unknown instead of
 * aborting), in the fork of the helper that answers it. The protocol is serve.h's.
 */
#ifndef RG_VERIFY_CVC5_SERVE_H
#define RG_VERIFY_CVC5_SERVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rg_serve (serve.h) with cvc5. */
int rg_cvc5_serve(int in_fd, int out_fd);

/* The version of the linked cvc5 library ("1.0.3") in buf (size bytes). */
void rg_cvc5_lib_version(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
