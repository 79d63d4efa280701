/* optimizer/cost/ort_helper.c: the onnxruntime helper process (ort_helper.h): started once, asked
 * request after request through verify/child.h's long-lived child, ended at the first request
 * that does not end in exactly its reply (crashed, killed at its deadline, flooded, out of
 * step, garbage): whatever it wrote after that could be taken for the next reply.
 *
 * Invariant: o->child.pid != 0 exactly while o->dead is false, and then the helper has answered
 * every request sent (nothing of a reply is left in its pipe). */
#define _POSIX_C_SOURCE 200809L /* strsignal */
#include "ort_helper.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost_internal.h"
#include "verify/verify.h"

#define REQ_HEADER_LEN 39   /* "rg-ort-request " + 10 digits + " " + 12 digits + "\n" */
#define REPLY_HEADER_LEN 35 /* "rg-ort-reply " + 10 digits + " " + 10 digits + "\n" */
#define START_S 60          /* node and onnxruntime loading, on a loaded machine */

struct rg_ort {
  rg_child child;
  char label[300];   /* the helper as messages name it */
  char version[96];  /* "onnxruntime-node 1.30.0" */
  int threads;
  unsigned long seq;
  bool dead;
  char dead_why[1024];
  const volatile sig_atomic_t *stop; /* set: a request waiting for its reply gives up (Ctrl-C) */
};

/* A positive whole number from the environment variable name, else def. */
static int env_int(const char *name, int def) {
  const char *s = getenv(name);
  char *end;
  long v = s && *s ? strtol(s, &end, 10) : 0;
  return s && *s && !*end && v > 0 && v < 1000000 ? (int)v : def;
}

/* The helper's argv into argv (pointing into script) and how messages name it. */
static rg_status helper_argv(char **argv, rg_data_file *script, char *label, size_t n, rg_err *err) {
  const char *env = getenv(RG_ORT_HELPER_ENV);
  if (env && *env) {
    snprintf(script->path, sizeof script->path, "%s%s", strchr(env, '/') ? "" : "./", env);
    const char *why = rg_path_unusable(script->path, X_OK);
    if (why) return rg_err_set(err, RG_ERR_IO, "the onnxruntime helper %s=%s: %s", RG_ORT_HELPER_ENV, env, why);
    argv[0] = script->path, argv[1] = NULL;
    snprintf(label, n, "%.280s", script->path);
    return RG_OK;
  }
#ifdef RG_ORT_SERVER_SOURCE_PATH
  rg_data_find("ort_cost_server.js", RG_ORT_SERVER_SOURCE_PATH, script);
#else
  rg_data_find("ort_cost_server.js", NULL, script);
#endif
  if (!script->found)
    return rg_err_set(err, RG_ERR_IO,
                      "cannot find the onnxruntime helper ort_cost_server.js (tried %s): set %s to it (the "
                      "models/ort_cost_server.js of a rulegen source tree, whose models/node_modules holds "
                      "onnxruntime-node: scripts/setup.sh)",
                      script->tried[0] ? script->tried : script->path, RG_ORT_HELPER_ENV);
  argv[0] = "node", argv[1] = script->path, argv[2] = NULL;
  snprintf(label, n, "node %.280s", script->path);
  return RG_OK;
}

/* ---- framing ---- */

typedef struct {
  unsigned long seq;
  bool bad;
  size_t len; /* the reply's text, once the header is read */
  char why[200];
  const volatile sig_atomic_t *stop;
} framing;

static bool reply_done(const char *out, size_t len, void *ctx) {
  framing *f = ctx;
  if (f->stop && *f->stop) { /* asked every 100 ms while the reply is awaited */
    snprintf(f->why, sizeof f->why, "interrupted (Ctrl-C) waiting for its reply");
    return f->bad = true;
  }
  static const char tag[] = "rg-ort-reply ";
  size_t t = sizeof tag - 1, shown = len < 60 ? len : 60;
  char said[100];
  if (memcmp(out, tag, len < t ? len : t)) {
    rg_solver_escape(said, sizeof said, out, shown);
    snprintf(f->why, sizeof f->why, "it answered '%s', not a reply frame", said);
    return f->bad = true;
  }
  if (len < REPLY_HEADER_LEN) return false;
  unsigned long seq, n;
  char nl;
  if (sscanf(out + t, "%10lu %10lu%c", &seq, &n, &nl) != 3 || nl != '\n' || out[t + 10] != ' ') {
    rg_solver_escape(said, sizeof said, out, REPLY_HEADER_LEN);
    snprintf(f->why, sizeof f->why, "a malformed reply header '%s'", said);
    return f->bad = true;
  }
  if (seq != f->seq) {
    snprintf(f->why, sizeof f->why, "a reply to request %lu where request %lu's was due", seq, f->seq);
    return f->bad = true;
  }
  if (len < REPLY_HEADER_LEN + n) return false;
  if (len > REPLY_HEADER_LEN + n) {
    snprintf(f->why, sizeof f->why, "%zu bytes after its reply", len - REPLY_HEADER_LEN - n);
    return f->bad = true;
  }
  f->len = n;
  return true;
}

/* ---- the helper's end ---- */

/* What ended the helper, for the message. */
static void describe_end(const rg_child_result *res, rg_child_end_reason why, int timeout_s, char *out, size_t n) {
  char said[160] = "";
  if (res->err_len) {
    size_t k = strcspn(res->errors, "\n");
    rg_solver_escape(said, sizeof said, res->errors, k);
  }
  if (why == RG_CHILD_LATE)
    snprintf(out, n, "it gave no answer within %d s and was killed", timeout_s);
  else if (why == RG_CHILD_FLOOD)
    snprintf(out, n, "it wrote more than %d bytes to %s", res->flooded == 2 ? RG_CHILD_ERRORS_MAX : RG_CHILD_OUTPUT_MAX,
             res->flooded == 2 ? "stderr" : "stdout");
  else if (res->signal)
    snprintf(out, n, "it died on signal %d (%s)%s%s", res->signal, strsignal(res->signal), said[0] ? ": " : "", said);
  else if (res->exit_code == 127) /* child.c's exec failed */
    snprintf(out, n, "it could not be run (is node on PATH, and the helper a program?)");
  else
    snprintf(out, n, "it exited with status %d without answering%s%s", res->exit_code, said[0] ? ": " : "", said);
}

/* Ends a helper that failed, and says why from now on. */
static rg_status fail(rg_ort *o, const char *doing, const char *why, rg_err *err) {
  rg_child_end(&o->child, true, 0, NULL);
  o->dead = true;
  snprintf(o->dead_why, sizeof o->dead_why, "the onnxruntime helper (%.300s) failed %.40s: %.600s", o->label, doing, why);
  return rg_err_set(err, RG_ERR_IO, "%s", o->dead_why);
}

/* ---- requests ---- */

/* Sends the request (cmd, a JSON object, then the n_blobs models' bytes) and reads its reply's
 * text into *text (malloc'd, NUL-terminated). doing: what it is, for a message. */
static rg_status request(rg_ort *o, const char *cmd, const uint8_t *const *blob, const size_t *blob_len, int n_blobs,
                         int limit_s, const char *doing, char **text, rg_err *err) {
  *text = NULL;
  if (o->dead) return rg_err_set(err, RG_ERR_IO, "%s", o->dead_why);
  size_t payload = strlen(cmd) + 1;
  for (int k = 0; k < n_blobs; k++) payload += blob_len[k];
  char *req = malloc(REQ_HEADER_LEN + payload + 1);
  if (!req) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  framing f = {++o->seq % 10000000000ul, false, 0, "", o->stop};
  snprintf(req, REQ_HEADER_LEN + 1, "rg-ort-request %010lu %012zu\n", f.seq, payload);
  size_t at = REQ_HEADER_LEN + (size_t)sprintf(req + REQ_HEADER_LEN, "%s\n", cmd);
  for (int k = 0; k < n_blobs; k++) memcpy(req + at, blob[k], blob_len[k]), at += blob_len[k];
  rg_child_result res;
  memset(&res, 0, sizeof res);
  res.exit_code = -1;
  rg_child_end_reason why;
  int timeout_s = env_int("RG_ORT_TIMEOUT", limit_s);
  double deadline = rg_clock_ms() + 1e3 * timeout_s;
  rg_status st = rg_child_exchange(&o->child, req, at, false, deadline, reply_done, &f, &res, &why, err);
  free(req);
  char said[512];
  if (!st && why == RG_CHILD_REPLIED && !f.bad) {
    if (!(*text = malloc(f.len + 1))) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else memcpy(*text, res.output + REPLY_HEADER_LEN, f.len), (*text)[f.len] = 0;
  } else if (!st && why == RG_CHILD_REPLIED) {
    st = fail(o, doing, f.why, err);
  } else if (!st) {
    rg_child_end(&o->child, why == RG_CHILD_LATE || why == RG_CHILD_FLOOD, rg_clock_ms() + 2000, &res);
    describe_end(&res, why, timeout_s, said, sizeof said);
    st = fail(o, doing, said, err);
  } else { /* polling or memory: the helper's state is unknown */
    snprintf(said, sizeof said, "%.500s", err->msg);
    st = fail(o, doing, said, err);
  }
  rg_child_result_free(&res);
  return st;
}

/* The text after "ok " of a reply, or NULL with why: the helper's "error STAGE MESSAGE" (RG_OK:
 * onnxruntime's verdict on the model), or an answer that is neither (the helper failed). */
static const char *ok_text(rg_ort *o, const char *text, const char *doing, char *why, size_t why_size, rg_status *st,
                           rg_err *err) {
  *st = RG_OK;
  if (!strncmp(text, "ok ", 3)) return text + 3;
  if (!strncmp(text, "error ", 6)) {
    snprintf(why, why_size, "onnxruntime: %s", text + 6);
    return NULL;
  }
  char said[160];
  rg_solver_escape(said, sizeof said, text, strlen(text) < 100 ? strlen(text) : 100);
  snprintf(why, why_size, "a reply that is neither ok nor error: '%s'", said);
  *st = fail(o, doing, why, err);
  return NULL;
}

rg_status rg_ort_start(rg_ort **out, rg_err *err) {
  *out = NULL;
  rg_ort *o = calloc(1, sizeof *o);
  rg_data_file *script = malloc(sizeof *script);
  char *argv[3];
  rg_status st = o && script ? RG_OK : rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  if (!st) st = helper_argv(argv, script, o->label, sizeof o->label, err);
  char why[512] = "";
  if (!st && (st = rg_child_start(argv, &o->child, err)) != RG_OK) {
    snprintf(why, sizeof why, "%.500s", err->msg);
    rg_err_set(err, st, "the onnxruntime helper (%s) does not start: %s", o->label, why);
  }
  free(script);
  if (o) o->threads = env_int("RG_ORT_THREADS", 2);
  char *text = NULL;
  if (!st) st = request(o, "{\"cmd\": \"version\"}", NULL, NULL, 0, START_S, "to start", &text, err);
  const char *v = st ? NULL : ok_text(o, text, "to start", why, sizeof why, &st, err);
  if (!st && (!v || strncmp(v, "onnxruntime-node ", 17))) /* an error, or a version of something else */
    st = fail(o, "to start", v ? "its version line does not name onnxruntime-node" : why, err);
  if (!st) snprintf(o->version, sizeof o->version, "%.*s", (int)(17 + strcspn(v + 17, " \n")), v);
  free(text);
  if (st) rg_ort_free(o);
  else *out = o;
  return st;
}

void rg_ort_free(rg_ort *o) {
  if (!o) return;
  rg_child_end(&o->child, false, rg_clock_ms() + 2000, NULL); /* its input ends: it exits */
  free(o);
}

const char *rg_ort_version(const rg_ort *o) { return o->version; }
int rg_ort_threads(const rg_ort *o) { return o->threads; }
void rg_ort_set_stop(rg_ort *o, const volatile sig_atomic_t *stop) { o->stop = stop; }
bool rg_ort_alive(const rg_ort *o) { return !o->dead; }

rg_status rg_ort_time(rg_ort *o, const uint8_t *model, size_t len, const rg_ort_repeats *r, double *us, int64_t *runs,
                      char *why, size_t why_size, rg_err *err) {
  char cmd[256], *text;
  *us = 0, *runs = 0, why[0] = 0;
  snprintf(cmd, sizeof cmd,
           "{\"cmd\": \"time\", \"threads\": %d, \"warmup\": %d, \"min_runs\": %d, \"max_runs\": %d, \"min_ms\": %d}",
           o->threads, r->warmup, r->min_runs, r->max_runs, r->min_ms);
  rg_status st = request(o, cmd, &model, &len, 1, RG_ORT_TIME_S, "timing a model", &text, err);
  const char *v = st ? NULL : ok_text(o, text, "timing a model", why, why_size, &st, err);
  double t;
  long long n;
  char end;
  if (v && (sscanf(v, "%lf %lld%c", &t, &n, &end) != 2 || !(t > 0 && t < 1e12) || n < 1))
    st = fail(o, "timing a model", "its timing is not a positive median and a count of runs", err);
  else if (v) *us = t, *runs = n;
  free(text);
  return st;
}

void rg_ort_compare_pairs(const double *a, const double *b, const int *round, int n, int rounds,
                          rg_ort_comparison *c) {
  double *v = malloc(sizeof *v * ((size_t)n * 3 + (size_t)rounds));
  memset(c, 0, sizeof *c);
  c->pairs = n, c->rounds = rounds;
  if (!v || n < 1 || rounds < 1) {
    free(v);
    return;
  }
  double *w = v + n, *q = v + 2 * n, *r = v + 3 * n;
  for (int i = 0; i < n; i++) v[i] = a[i], w[i] = b[i];
  c->a_ms = rg_cost_median(v, n) / 1e3, c->b_ms = rg_cost_median(w, n) / 1e3;
  for (int k = 0, i = 0; k < rounds; k++) { /* the pairs of a round lie together */
    int m = 0;
    for (; i < n && round[i] == k; i++) q[m++] = a[i] / b[i];
    r[k] = m ? rg_cost_median(q, m) : 1;
  }
  c->ratio = rg_cost_median(r, rounds), c->low = r[0], c->high = r[rounds - 1];
  c->faster = c->low > 1 && c->ratio >= RG_ORT_MIN_GAIN;
  free(v);
}

/* "A_US B_US" lines, n of them, after the reply's first line, into a and b. */
static bool read_pairs(const char *p, int n, double *a, double *b) {
  for (int i = 0; i < n; i++) {
    p = strchr(p, '\n');
    int used = 0;
    if (!p || sscanf(p + 1, "%lf %lf%n", &a[i], &b[i], &used) != 2 || !(a[i] > 0 && b[i] > 0 && a[i] < 1e12 && b[i] < 1e12))
      return false;
    p += 1 + used;
  }
  return true;
}

/* The command of a comparison's round k: a from its file, b from bytes (its length) or a file;
 * odd rounds make b's session first. */
static void compare_cmd(const rg_ort *o, const char *a_file, size_t b_len, const char *b_file, const rg_ort_pairing *p,
                        const char *inputs, int k, rg_strbuf *cmd) {
  rg_sb_printf(cmd, "{\"cmd\": \"pair\", \"threads\": %d, \"warmup\": %d, \"min_pairs\": %d, \"max_pairs\": %d, "
                    "\"min_ms\": %d, \"b_first\": %s, \"a_file\": ", o->threads, p->warmup, p->min_pairs, p->max_pairs,
               p->min_ms, k % 2 ? "true" : "false");
  rg_json_string(cmd, a_file);
  if (b_file) rg_sb_puts(cmd, ", \"b_file\": "), rg_json_string(cmd, b_file);
  else rg_sb_printf(cmd, ", \"b_len\": %zu", b_len);
  if (inputs) rg_sb_puts(cmd, ", \"inputs\": "), rg_sb_puts(cmd, inputs);
  rg_sb_puts(cmd, "}");
}

/* The pairs of a comparison so far: pair i is a[i], b[i], of round[i]. */
typedef struct {
  double *a, *b;
  int *round;
  int n, cap;
} pairs;

/* Room for n pairs. */
static bool room(pairs *t, int n) {
  if (n <= t->cap) return true;
  int c = t->cap ? t->cap : 64;
  while (c < n) c *= 2;
  double *a = realloc(t->a, sizeof *a * (size_t)c);
  if (a) t->a = a;
  double *b = a ? realloc(t->b, sizeof *b * (size_t)c) : NULL;
  if (b) t->b = b;
  int *r = b ? realloc(t->round, sizeof *r * (size_t)c) : NULL;
  if (r) t->round = r, t->cap = c;
  return r != NULL;
}

/* Round k's pairs appended to t. */
static rg_status compare_round(rg_ort *o, const char *a_file, const uint8_t *b, size_t b_len, const char *b_file,
                               const rg_ort_pairing *p, const char *inputs, int k, pairs *t, char *why,
                               size_t why_size, rg_err *err) {
  rg_strbuf cmd;
  rg_sb_init(&cmd);
  compare_cmd(o, a_file, b_len, b_file, p, inputs, k, &cmd);
  char *text = NULL;
  rg_status st = cmd.failed ? rg_err_set(err, RG_ERR_NOMEM, "out of memory")
                            : request(o, rg_sb_str(&cmd), &b, &b_len, b_file ? 0 : 1, RG_ORT_PAIRS_S,
                                      "comparing two models", &text, err);
  rg_sb_free(&cmd);
  const char *v = st ? NULL : ok_text(o, text, "comparing two models", why, why_size, &st, err);
  int m = 0;
  if (v && (sscanf(v, "%d", &m) != 1 || m < 1 || m > p->max_pairs))
    st = fail(o, "comparing two models", "its count of pairs is not one asked for", err);
  else if (v && !room(t, t->n + m))
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  else if (v && !read_pairs(v, m, t->a + t->n, t->b + t->n))
    st = fail(o, "comparing two models", "a pair's line is not two positive times", err);
  for (int i = 0; v && !st && i < m; i++) t->round[t->n++] = k;
  free(text);
  return st;
}

rg_status rg_ort_compare(rg_ort *o, const char *a_file, const uint8_t *b, size_t b_len, const char *b_file,
                         const rg_ort_pairing *p, const char *inputs, rg_ort_comparison *c, char *why,
                         size_t why_size, rg_err *err) {
  memset(c, 0, sizeof *c);
  why[0] = 0;
  pairs t = {0};
  rg_status st = RG_OK;
  for (int k = 0; !st && !why[0] && k < p->rounds; k++)
    st = compare_round(o, a_file, b, b_len, b_file, p, inputs, k, &t, why, why_size, err);
  if (!st && !why[0]) rg_ort_compare_pairs(t.a, t.b, t.round, t.n, p->rounds, c);
  free(t.a), free(t.b), free(t.round);
  return st;
}
