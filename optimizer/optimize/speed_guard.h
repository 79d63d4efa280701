/* optimizer/optimize/speed_guard.h: graphopt's measured guard: before the optimized model is written,
 * it and the original are timed in onnxruntime (cost/ort_helper.h: the ort cost model's helper,
 * else one started for this), in interleaved pairs, and the optimized model is written only
 * when it is faster beyond the noise the pairs show (rg_ort_comparison.faster); otherwise the
 * original is, and the report says so with both figures. On by default when the costs are this
 * CPU's (roofline with the cpu-default machine, dnnl, ort): the runtime users deploy on decides,
 * not the cost model, so that the default run is never slower. Off with --cost cuda or another
 * --machine (a model for another device is not timed here), on request (--guard) there.
 *
 * A test hook: with $RG_TEST_GUARD_SELF set, the original is timed against itself in place of
 * the optimized model, a pair in which the second is certainly no faster. */
#ifndef RG_OPTIMIZER_SPEED_GUARD_H
#define RG_OPTIMIZER_SPEED_GUARD_H

#include <stdbool.h>

#include "optimizer/cost/cost.h"
#include "optimizer/search/search.h"

/* 8 rounds (ort_helper.h), each of 3 warm-up runs of each model, then pairs for 1 s, 8 at least
 * and 5,000 at most. Why so long a round: tiny_cnn's merged convolutions, 0.92x to 0.95x the original's speed
 * in interleaved comparisons of 1,000 pairs, came out 1.04x to 1.08x faster in the median of 8
 * rounds of 100 pairs (some 20 ms of runs each) and 0.983x to 0.988x in rounds of 2,000: a short
 * round times what follows a session's start, not the model as it runs (bench/README.md). */
#define RG_SPEED_GUARD_PAIRING ((rg_ort_pairing){3, 8, 8, 5000, 1000})

typedef struct {
  bool on;               /* the models are to be timed (rg_speed_guard_setup) */
  bool asked;            /* by --guard, --cost ort or $GRAPHOPT_GUARD=on: failing to measure is an error;
                            else, on by default, the optimized model is written unmeasured, said */
  char unmeasured[512];  /* on by default, nothing timed: why (the helper's or onnxruntime's error) */
  char refused[512];     /* onnxruntime refused the optimized model (and not the original): why;
                            the original is written (asked for or not) */
  char at[160];          /* the symbolic dimensions the models ran at ("N=4096"), or "" */
  const volatile sig_atomic_t *stop; /* Ctrl-C (set by the caller): set before the guard, it is
                            skipped; during it, timing stops; either way the optimized model is
                            written unmeasured, said (asked for or not), as a stopped search
                            keeps its best */
  bool measured;         /* the models were timed (not when off, or when nothing was rewritten) */
  bool self;             /* the test hook compared the original with itself */
  char runtime[96];      /* the helper's onnxruntime */
  int threads;
  rg_ort_comparison cmp; /* a: the original, b: the optimized model */
} rg_speed_guard;

/* g set up from what the user asked (1 --guard, 0 --no-guard, -1 neither: $GRAPHOPT_GUARD's on,
 * off or auto, else auto), the cost model's name and --machine (NULL: the default): auto is on
 * with this CPU's costs (above). Errors: RG_ERR_ARG, $GRAPHOPT_GUARD not one of those. */
rg_status rg_speed_guard_setup(rg_speed_guard *g, int asked, const char *cost, const char *machine,
                               rg_err *err) RG_MUST_CHECK;

/* When g->on and r rewrote m: times r's model (m seen from r->roots, as export writes it)
 * against the original file in_path, with cost model cm's helper (when cm is ort's and its
 * helper serves) or one of its own, into g. Errors: the helper's (it does not start, fails, or
 * onnxruntime refuses a model: RG_ERR_IO naming what happened), export's, RG_ERR_NOMEM; where the
 * guard is on by default, the helper's and onnxruntime's are g->unmeasured instead. */
rg_status rg_speed_guard_run(rg_cost_model *cm, const rg_model *m, const rg_search_result *r, const char *in_path,
                       rg_speed_guard *g, rg_err *err) RG_MUST_CHECK;

/* Whether the guard keeps the original: it measured, and the optimized model is not faster; or
 * onnxruntime refused the optimized model. */
bool rg_speed_guard_keeps_original(const rg_speed_guard *g);
/* Why it keeps the original, as the written line says it: " (the original: ...)". */
const char *rg_speed_guard_why_original(const rg_speed_guard *g);

#endif
