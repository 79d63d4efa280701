/* optimizer/cost/ort_helper.h: onnxruntime (CPU, onnxruntime-node from npm) in a helper process:
 * one long-lived child that times ONNX models, for --cost ort (cost_ort.c) and graphopt's
 * measured guard (optimize/speed_guard.c). onnxruntime runs in node, never in graphopt: a crash, a
 * hang or a flood of output in it is contained in the child (verify/child.h: killed at a
 * deadline, output bounded), reported by what happened, and the helper is not used again.
 *
 * The helper: $RG_ORT_HELPER when set (a program, run as it is: a test's fake), else `node`
 * (from PATH) running models/ort_cost_server.js, which that file's header documents with the
 * protocol: length-prefixed requests, each a JSON command line and the models' bytes, and
 * replies "ok ..." or "error STAGE MESSAGE". The script is found as a data file (ir/datapath.h:
 * $RULEGEN_DATA_DIR/ort_cost_server.js, share/rulegen/ beside an installed graphopt, else the
 * source tree for programs of the build tree); it loads onnxruntime-node from the node_modules
 * beside it, which the install does not carry: an installed graphopt is pointed at a source
 * tree's script with $RG_ORT_HELPER (the script is a program: #!/usr/bin/env node).
 *
 * Sessions: graph optimization 'all', T intra-op threads ($RG_ORT_THREADS, else 2), pool
 * threads that do not spin. Each request has a deadline ($RG_ORT_TIMEOUT seconds when set, for
 * tests; else RG_ORT_TIME_S for one model, RG_ORT_PAIRS_S for a comparison). Not thread-safe.
 */
#ifndef RG_OPTIMIZER_ORT_HELPER_H
#define RG_OPTIMIZER_ORT_HELPER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/ir.h"

#define RG_ORT_HELPER_ENV "RG_ORT_HELPER"
#define RG_ORT_TIME_S 120
#define RG_ORT_PAIRS_S 900

typedef struct rg_ort rg_ort;

/* Starts the helper and asks its version. RG_ERR_IO naming the helper and what happened (not
 * found, no node, exited with its first line of stderr, killed at the deadline, an answer that
 * is not one). */
rg_status rg_ort_start(rg_ort **out, rg_err *err) RG_MUST_CHECK;
/* Ends the helper (its stdin closed, then killed if it lingers) and frees o; NULL is a no-op. */
void rg_ort_free(rg_ort *o);

/* "onnxruntime-node 1.30.0", as the helper said; the intra-op threads its sessions run. */
const char *rg_ort_version(const rg_ort *o);
int rg_ort_threads(const rg_ort *o);
/* While *stop (NULL: never) is set, a request waiting for its reply gives up (within 100 ms) and
 * the helper is ended, its requests failing after (RG_ERR_IO, "interrupted"). */
void rg_ort_set_stop(rg_ort *o, const volatile sig_atomic_t *stop);
/* Whether the helper still serves: false once it failed (then every request is RG_ERR_IO
 * repeating why). */
bool rg_ort_alive(const rg_ort *o);

/* Times one model (its ONNX bytes): warm-up runs, then the median of at least min_runs runs
 * spending at least min_ms (at most max_runs), in microseconds. RG_OK with *us > 0, or RG_OK
 * with *us == 0 and why set when onnxruntime refused or failed the model (the helper's "error
 * STAGE ..."); RG_ERR_IO when the helper failed (then it is ended: rg_ort_alive). */
typedef struct {
  int warmup, min_runs, max_runs, min_ms;
} rg_ort_repeats;
rg_status rg_ort_time(rg_ort *o, const uint8_t *model, size_t len, const rg_ort_repeats *r, double *us, int64_t *runs,
                      char *why, size_t why_size, rg_err *err) RG_MUST_CHECK;

/* A model against another, in rounds of interleaved pairs (the original from its file, so that
 * its side files are found; the other as bytes, or from a file when b_file is set), and what
 * they say: the medians of all pairs, and the median of the rounds' ratios a / b (each round's
 * the median of its pairs' a / b; above 1: b is faster) with the rounds' lowest and highest
 * ratio. Each round opens both sessions afresh, in alternating order: two sessions of one
 * model differ by more than their runs do (where the pool's threads wake up), and fresh
 * sessions each round put that difference in the rounds' spread. For 8 rounds, [lowest,
 * highest] holds the median's true value with 99.2% confidence (each round is as likely above
 * it as below: 1 - 2 / 2^8), whatever the distribution. b is faster beyond the noise when
 * every round says so (the lowest above 1) and the median ratio is at least RG_ORT_MIN_GAIN.
 * inputs (NULL: the helper's own draws, symbolic dimensions at 1, integers in [0, 100)) is a
 * JSON object naming inputs' shapes and integer bounds, {"NAME": {"dims": [..], "int_max": N}},
 * so that both models run at the shapes and on the indices the caller checked them at. */
#define RG_ORT_MIN_GAIN 1.01
typedef struct {
  int warmup, rounds, min_pairs, max_pairs, min_ms; /* the pairs and ms are each round's */
} rg_ort_pairing;
typedef struct {
  int pairs, rounds;
  double a_ms, b_ms;            /* the medians of all pairs */
  double ratio, low, high;      /* of the rounds' ratios a / b */
  bool faster;                  /* b beyond the noise */
} rg_ort_comparison;
rg_status rg_ort_compare(rg_ort *o, const char *a_file, const uint8_t *b, size_t b_len, const char *b_file,
                         const rg_ort_pairing *p, const char *inputs, rg_ort_comparison *c, char *why,
                         size_t why_size, rg_err *err) RG_MUST_CHECK;
/* The comparison of n pairs of times (a[i], b[i] > 0), pair i of round round[i] (0 .. rounds-1,
 * each round holding a pair at least), into c. */
void rg_ort_compare_pairs(const double *a, const double *b, const int *round, int n, int rounds,
                          rg_ort_comparison *c);

#endif
