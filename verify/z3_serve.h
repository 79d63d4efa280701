/* verify/z3_serve.h: private to verify/ and the rulegen-z3 helper (tools/rulegen_z3.c): the z3
 * side of the z3 backend, run only inside that helper's own process.
 *
 * Why a separate program: rulegen queries z3 from several OpenMP threads at once, and a fork of
 * a multi-threaded process copies every lock another thread holds at that instant (the ASan
 * allocator's, libc's, z3's own) with no thread left to release it; a child that only forked
 * then deadlocks in its first malloc. An exec'd helper starts from a fresh image, so no lock
 * state is inherited. verify/solver_z3.c is the client.
 *
 * The protocol, in this machine's byte order (both ends are built from this tree): a request
 * is {u32 length, i32 timeout_ms, script}, a reply {u32 length, answer}. Each script gets a
 * fresh z3 context (a reused one changes quantifier instantiation and loses proofs) with z3's
 * own timeout and unsat cores on; it is deleted after the answer is sent.
 */
#ifndef RG_VERIFY_Z3_SERVE_H
#define RG_VERIFY_Z3_SERVE_H

#include <stddef.h>

/* Answers requests read from in_fd on out_fd, one at a time, until in_fd ends. A script z3
 * rejects is answered (error "...") like any other. Returns the helper's exit status: 0 when
 * the input ended between requests, 1 when it ended inside one or memory ran out (a line on
 * stderr says which). SIGINT is set to its default first: the helper dies on Ctrl-C. */
int rg_z3_serve(int in_fd, int out_fd);

/* The version of the linked z3 library, "major.minor.build", in buf (size bytes). */
void rg_z3_lib_version(char *buf, size_t size);

#endif
