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

/* A cvc5 binary worker whose query ran this long is ended (SIGKILL) rather than reused: tearing
 * down the state of a hard query costs more than a fresh start (cvc5's (reset) after a 2 s
 * timeout took 0.4-0.5 s, charged to the next query; a fresh worker starts in a few ms). A
 * helper answers each query in a fork (serve.h), so neither this nor the bound below applies. */
#define RG_WORKER_RETIRE_MS 200

/* ... and after this many queries: cvc5 keeps memory across (reset) (its resident size grew
 * from 25 to 41 MB over about 150 of TASO's obligations), so no worker grows without bound. */
#define RG_WORKER_MAX_QUERIES 200

/* A solver helper program (serve.h; client in solver_helper.c): its file name, the solver it
 * answers with, the environment variable that may name it, and the path this build tree
 * compiled in (NULL: none). */
typedef struct {
  const char *program, *solver, *env, *build_path;
} rg_helper_spec;

/* Finds the helper (solver_helper.c's lookup order), reads its solver's version, sets
 * s->helper. RG_ERR_IO naming the paths tried when none works. */
rg_status rg_helper_init(rg_solver *s, const rg_helper_spec *h, rg_err *err) RG_MUST_CHECK;
/* One-shot: a helper process for this one query. */
rg_status rg_helper_prove(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                          rg_solver_answer *ans, rg_err *err) RG_MUST_CHECK;

/* Starts s's program (s->path) with the arguments args (NULL-terminated, at most 7) as a child
 * (child.h's rg_child_start). */
rg_status rg_solver_spawn(const rg_solver *s, const char *const *args, rg_child *c,
                          rg_err *err) RG_MUST_CHECK;

/* Fills ans from a finished child: flooded -> error, killed -> timeout, signal -> crash, else
 * the printed answer (an exit with a status other than 0 and no answer: crash, with the first
 * line it said). */
void rg_solver_answer_from_child(const rg_child_result *res, int timeout_ms, const char *who,
                                 rg_solver_answer *ans);
/* The answer a child's end gives whatever it printed (it wrote past a stream's bound: error;
 * killed: timeout; signal: crash), into ans; false when its end says nothing of the kind. */
bool rg_solver_answer_from_end(const rg_child_result *res, const char *who, rg_solver_answer *ans);

/* What a reply must match: the number of the query (per worker slot, never reused) and the
 * SHA-256 (hex) of the obligation it asked. */
typedef struct {
  unsigned long seq;
  char sha256[65];
} rg_query_key;

/* Where a worker's output stands: not yet a whole reply, exactly the reply to the query, or
 * something that can never be (a wrong frame, a wrong number or hash, bytes after it). */
typedef enum { RG_REPLY_PARTIAL, RG_REPLY_WHOLE, RG_REPLY_BAD } rg_reply_state;

/* How worker.c talks to one backend's long-lived worker (see solver.h). */
typedef struct {
  /* Starts a worker for s in *c. */
  rg_status (*start)(const rg_solver *s, rg_child *c, rg_err *err);
  /* Appends to req the bytes that ask query key (text: one obligation). */
  void (*request)(rg_strbuf *req, const char *text, size_t len, int timeout_ms,
                  const rg_query_key *key);
  /* Reads out[0..len), all the worker printed since the request: WHOLE when it is exactly the
   * reply to key (then out[*off .. *off + *n) is the solver's answer text), BAD when it cannot
   * become that (why: what is wrong, escaped), else PARTIAL. */
  rg_reply_state (*reply)(const char *out, size_t len, const rg_query_key *key, size_t *off,
                          size_t *n, char *why, size_t why_size);
  /* What a worker printed before it ended without a whole reply is the solver's own answer
   * text (cvc5 says (error ...) and exits with status 1 on a script it cannot parse); else it
   * is framing. */
  bool text_on_eof;
} rg_worker_protocol;

/* A helper's worker (serve.h's framing), shared by every backend's helper. */
extern const rg_worker_protocol rg_helper_worker;

/* One backend: an entry of the solver table (solvers.def). Every backend answers through its
 * helper program (serve.h's protocol: rg_helper_prove, rg_helper_worker); one that can also run
 * the solver's own binary (rg_solver_init's binary) has the three binary_ functions. */
typedef struct {
  const char *name;             /* as solvers.def names it */
  const rg_helper_spec *helper; /* its helper program */
  /* Sets up s to run the binary at path (name, path, version); NULL: the backend has none, and
   * a binary asked for is ignored. */
  rg_status (*binary_init)(rg_solver *s, const char *path, rg_err *err);
  /* One-shot query to the binary. */
  rg_status (*binary_prove)(const rg_solver *s, const char *text, size_t len, int timeout_ms,
                            rg_solver_answer *ans, rg_err *err);
  /* The binary's long-lived worker. */
  const rg_worker_protocol *binary_worker;
} rg_solver_backend;

#define RG_SOLVER(ID, name) extern const rg_solver_backend rg_solver_backend_##name;
#include "solvers.def"
#undef RG_SOLVER

/* The backend of a kind, NULL for a value that is no kind. */
const rg_solver_backend *rg_solver_backend_of(rg_solver_kind kind);

#endif
