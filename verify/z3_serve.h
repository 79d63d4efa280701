/* verify/z3_serve.h: for verify/ and the rulegen-z3 helper (tools/rulegen_z3.c; via helper.h): the
 * z3 side of the z3 backend, run only inside that helper's own process.
 *
 * Why a separate program: rulegen queries z3 from several OpenMP threads at once, and a fork of
 * a multi-threaded process copies every lock another thread holds at that instant (the ASan
 * allocator's, libc's, z3's own) with no thread left to release it; a child that only forked
 * then deadlocks in its first malloc. An exec'd helper starts from a fresh image, so no lock
 * state is inherited. verify/solver_z3.c is the client.
 *
 * The protocol is serve.h's. Each script gets a fresh z3 context (a reused one changes
 * quantifier instantiation and loses proofs) with z3's own timeout and unsat cores on, in the
 * helper itself (not in a fork: serve.h says why); it is deleted after the answer is sent.
 * A script runs first without model-based quantifier instantiation (MBQI), then, where that
 * pass gives up early, in a second fresh context with MBQI for part of the limit
 * (rg_z3_mbqi_budget): z3_options.h says why.
 */
#ifndef RG_VERIFY_Z3_SERVE_H
#define RG_VERIFY_Z3_SERVE_H

#include <stddef.h>

/* rg_serve (serve.h) with z3: a script z3 rejects is answered (error "...") like any other. */
int rg_z3_serve(int in_fd, int out_fd);

/* The version of the linked z3 library, "major.minor.build", in buf (size bytes). */
void rg_z3_lib_version(char *buf, size_t size);

#endif
