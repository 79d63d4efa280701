/* verify/worker.c: a pool of long-lived solver workers, one per solver kind (see solver.h).
 *
 * Invariants: a worker slot either holds a running child that has answered every request sent
 * to it (so its output pipe is empty between queries, unless it wrote more than its reply), or
 * none (pid 0). Any query that does not end in exactly the reply to it ends the worker (killed
 * when late or out of step, reaped either way), so a half-read answer can never be taken for
 * the next query's; and a reply counts only when it names this query's number and obligation
 * hash, so what a worker wrote past its reply is never taken for the next answer either. A
 * cvc5 binary worker whose query was slow is retired (RG_WORKER_RETIRE_MS), and every one after
 * RG_WORKER_MAX_QUERIES queries; a helper (rulegen-z3, rulegen-cvc5) needs neither. The pool is
 * owned by one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smt.h"
#include "solver_impl.h"

typedef struct {
  rg_child proc;
  char path[256];    /* the program it runs: another one needs another worker */
  unsigned long seq; /* queries sent through this slot (the cvc5 marker; never reused) */
  int served;        /* queries the running worker has answered */
} worker;

struct rg_solver_pool {
  worker w[RG_SOLVER_COUNT];
};

rg_solver_pool *rg_solver_pool_new(void) {
  rg_solver_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  for (int k = 0; k < RG_SOLVER_COUNT; k++)
    p->w[k].proc.in_fd = p->w[k].proc.out_fd = p->w[k].proc.err_fd = -1;
  return p;
}

void rg_solver_pool_free(rg_solver_pool *p) {
  if (!p) return;
  /* Workers sit idle between queries: nothing is lost by killing them now rather than waiting. */
  for (int k = 0; k < RG_SOLVER_COUNT; k++) rg_child_end(&p->w[k].proc, true, 0, NULL);
  free(p);
}

int rg_solver_pool_pid(const rg_solver_pool *p, rg_solver_kind kind) {
  return (int)p->w[kind].proc.pid;
}

typedef struct {
  const rg_worker_protocol *proto;
  const rg_query_key *key;
  rg_reply_state state;
  size_t off, n;
  char why[200];
} framing;

static bool reply_done(const char *out, size_t len, void *ctx) {
  framing *f = ctx;
  f->state = f->proto->reply(out, len, f->key, &f->off, &f->n, f->why, sizeof f->why);
  return f->state != RG_REPLY_PARTIAL; /* a bad reply ends the exchange too: no waiting it out */
}

/* The worker ended without a whole reply: flooded, killed at the deadline, died, or exited. A
 * helper's output is framing (its stderr says why it exited, if anything does). The cvc5
 * binary's is its answer text, which stands only as an error: cvc5 reading a pipe exits with
 * status 1 after an (error ...) answer, and any other answer needed its end marker. */
static void answer_from_end(const rg_child_result *res, const rg_worker_protocol *proto,
                            const rg_solver *s, int timeout_ms, rg_solver_answer *ans) {
  char who[48];
  snprintf(who, sizeof who, "the %s %s", s->name, s->helper ? "helper" : "worker");
  if (rg_solver_answer_from_end(res, who, ans)) return;
  rg_child_result r = *res;
  if (!proto->text_on_eof)
    r.len = 0;
  else if (r.exit_code == 1)
    r.exit_code = 0;
  rg_solver_answer_from_child(&r, timeout_ms, who, ans);
  if (ans->result == RG_SMT_CRASH || (proto->text_on_eof && ans->result == RG_SMT_ERROR)) return;
  char said[120];
  rg_solver_escape(said, sizeof said, res->output ? res->output : "", res->len);
  memset(ans, 0, sizeof *ans);
  ans->ms = res->ms;
  if (proto->text_on_eof) {
    ans->result = RG_SMT_ERROR;
    snprintf(ans->detail, sizeof ans->detail, "%s ended before its end marker, after '%s'", who,
             said);
  } else {
    ans->result = RG_SMT_CRASH;
    snprintf(ans->detail, sizeof ans->detail, "%s exited with status %d without answering", who,
             res->exit_code);
  }
}

/* The worker's output is not the reply to this query: an error answer, and the worker ended
 * (whatever else it wrote would be read as the next query's). */
static void answer_bad_reply(worker *w, const rg_solver *s, const framing *f, double ms,
                             rg_solver_answer *ans) {
  memset(ans, 0, sizeof *ans);
  ans->result = RG_SMT_ERROR;
  ans->ms = ms;
  snprintf(ans->detail, sizeof ans->detail, "the %s %s: %s", s->name,
           s->helper ? "helper" : "worker", f->why);
  rg_child_end(&w->proc, true, 0, NULL);
}

/* Starts the worker for s in w when none runs; *start_ms: the time that took. */
static rg_status ensure_worker(worker *w, const rg_worker_protocol *proto, const rg_solver *s,
                               double *start_ms, rg_err *err) {
  if (w->proc.pid && strcmp(w->path, s->path)) rg_child_end(&w->proc, true, 0, NULL);
  *start_ms = 0;
  if (w->proc.pid) return RG_OK;
  double t0 = rg_clock_ms();
  rg_status st = proto->start(s, &w->proc, err);
  if (st) return st;
  memcpy(w->path, s->path, sizeof w->path);
  w->served = 0;
  *start_ms = rg_clock_ms() - t0;
  return RG_OK;
}

rg_status rg_solver_prove_in(rg_solver_pool *p, const rg_solver *s, const char *text, size_t len,
                             int timeout_ms, rg_solver_answer *ans, rg_err *err) {
  if (timeout_ms < 1) return rg_err_set(err, RG_ERR_ARG, "timeout must be at least 1 ms");
  const rg_solver_backend *b = rg_solver_backend_of(s->kind);
  if (!b) return rg_err_set(err, RG_ERR_ARG, "unknown solver kind %d", (int)s->kind);
  const rg_worker_protocol *proto = s->helper ? &rg_helper_worker : b->binary_worker;
  worker *w = &p->w[s->kind];
  double start_ms; /* a query that needs a new worker is charged its start-up */
  rg_status st = ensure_worker(w, proto, s, &start_ms, err);
  if (st) return st;
  rg_query_key key = {++w->seq, ""};
  rg_sha256_hex(text, len, key.sha256);
  rg_strbuf req;
  rg_sb_init(&req);
  proto->request(&req, text, len, timeout_ms, &key);
  if (req.failed) {
    rg_sb_free(&req);
    return rg_err_set(err, RG_ERR_NOMEM, "out of memory sending a query to %s", s->name);
  }
  rg_child_result res;
  memset(&res, 0, sizeof res);
  res.exit_code = -1;
  double deadline = rg_clock_ms() + timeout_ms + RG_SOLVER_GRACE_MS;
  framing f = {proto, &key, RG_REPLY_PARTIAL, 0, 0, ""};
  rg_child_end_reason why;
  st = rg_child_exchange(&w->proc, req.s, req.len, false, deadline, reply_done, &f, &res, &why,
                         err);
  rg_sb_free(&req);
  if (!st && why == RG_CHILD_REPLIED && f.state == RG_REPLY_WHOLE) {
    rg_solver_parse_answer_n(res.output + f.off, f.n, res.ms, timeout_ms, ans);
    /* A helper answers each query in a fork of its own (serve.h): nothing of a slow query is
     * left to tear down, and it does not grow. */
    if (!s->helper && (res.ms >= RG_WORKER_RETIRE_MS || ++w->served >= RG_WORKER_MAX_QUERIES))
      rg_child_end(&w->proc, true, 0, NULL);
  } else if (!st && why == RG_CHILD_REPLIED) {
    answer_bad_reply(w, s, &f, res.ms, ans);
  } else {
    res.killed = why == RG_CHILD_LATE;
    rg_child_end(&w->proc, st || why == RG_CHILD_LATE || why == RG_CHILD_FLOOD, deadline, &res);
    if (!st) answer_from_end(&res, proto, s, timeout_ms, ans);
  }
  if (!st) ans->ms += start_ms;
  rg_child_result_free(&res);
  return st;
}
