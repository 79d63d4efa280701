/* verify/solver_impl.h: private to verify/solver*.c and worker.c: the per-backend functions
 * behind the interface of solver.h, the protocol of each backend's long-lived worker, and the
 * kill-timeout policy they share. */
#ifndef RG_VERIFY_SOLVER_IMPL_H
#define RG_VERIFY_SOLVER_IMPL_H

#include "child.h"
#include "ir/strbuf.h"
#include "solver.h"

/* A child gets its own limit plus this grace before it is killed. */
#define RG_SOLVER_GRACE_MS 2000

/* A worker whose query ran this long is ended (SIGKILL) rather than reused: tearing down the
 * state of a hard query costs more than a fresh start (cvc5's (reset) after a 2 s timeout took
 * 0.4-0.5 s, charged to the next query; a fresh worker starts in a few ms). */
#define RG_WORKER_RETIRE_MS 200

/* ... and after this many queries: cvc5 keeps memory across (reset) (its resident size grew
 * from 25 to 41 MB over about 150 of TASO's obligations), so no worker grows without bound. */
#define RG_WORKER_MAX_QUERIES 200

rg_status rg_z3_init(rg_solver *s, rg_err *err) RG_MUST_CHECK;
rg_status rg_z3_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                      rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;
rg_status rg_cvc5_init(rg_solver *s, const char *binary, rg_err *err) RG_MUST_CHECK;
rg_status rg_cvc5_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                        rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;

/* Starts s's program (s->path) with the arguments args (NULL-terminated, at most 7) as a child
 * (child.h's rg_child_start). */
rg_status rg_solver_spawn(const rg_solver *s, const char *const *args, rg_child *c,
                          rg_err *err) RG_MUST_CHECK;

/* Fills ans from a finished child: killed -> timeout, signal -> crash, else the printed answer. */
void rg_solver_answer_from_child(const rg_child_result *res, int timeout_ms, const char *who,
                                 rg_solver_answer *ans);

/* How worker.c talks to one backend's long-lived worker (see solver.h). */
typedef struct {
  /* Starts a worker for s in *c. */
  rg_status (*start)(const rg_solver *s, rg_child *c, rg_err *err);
  /* Appends to req the bytes that ask query number seq (text: one obligation). */
  void (*request)(rg_strbuf *req, const char *text, size_t len, int timeout_ms, unsigned long seq);
  /* True when out[0..len) holds the whole reply to query seq; then out[*off .. *off + *n) is
   * the solver's answer text. */
  bool (*reply)(const char *out, size_t len, unsigned long seq, size_t *off, size_t *n);
  /* What a worker printed before it ended without a whole reply is the solver's own answer
   * text (cvc5 says (error ...) and exits with status 1 on a script it cannot parse); else it
   * is framing. */
  bool text_on_eof;
} rg_worker_protocol;

extern const rg_worker_protocol rg_z3_worker, rg_cvc5_worker;

#endif
