/* verify/z3_options.h: the z3 parameters of every query besides its timeout and unsat cores,
 * declared once: the rulegen-z3 helper sets them (z3_serve.c), with smt.mbqi per pass (below).
 *
 * smt.qi.eager_threshold 5 (z3's default 10): quantifier instances whose cost exceeds it wait
 * until the ground search is stuck, so z3 follows the cheap rewrites first. On the 1,000
 * held-out depth-4 candidates (z3 binary, 2 s, one thread) it proved 981 obligations against
 * 978, the same ones plus three that cvc5 alone proved (pad and sigmoid under an ewmul, a pad of
 * a concat through matmul and conv, a slice of a conv's concat input); on TASO's 133 and the
 * depth-3 sample it proved the same 142 and 990.
 *
 * smt.mbqi, set per pass by z3_serve.c: false, then true. On an obligation nobody proves, z3
 * with MBQI runs to the limit; without it, its E-matching usually runs dry and it says unknown
 * at once. Over the 6,154 obligations of the three 1,000-rule samples and TASO's 133 (z3
 * binary, 300 ms): 138 unknown with MBQI, 48.7 s; without, 140 unknown in 21.6 s, 95 of them
 * early (median about 30 ms), and 4 obligations lost that MBQI proved in 57 to 239 ms. So a
 * second pass with MBQI follows an early unknown, for part of the limit (rg_z3_mbqi_budget,
 * below): MBQI's proofs take what they take whatever the limit, so at the default 2 s it has
 * 250 ms, and with 500 ms none of the 109 obligations unknown at 300 ms came out differently;
 * at a tight limit a proof MBQI needs more than its budget for is lost. Through the helper on
 * d4-pruned-sample1000 (-T 300 -F -j 1, interleaved pairs): 892 z3 proofs both ways, but not the
 * same set (one lost that MBQI proves in 140 to 225 ms, one gained by the pass without it),
 * wall 61.5 s against 74.5 s. At the default 2 s the early unknowns save more: TASO's depth-3 run
 * wrote the same d3.rules in 80.6 s against 189.5 s. To re-run a dumped obligation as the helper
 * does: `z3 -t:MS smt.qi.eager_threshold=5 smt.mbqi=false FILE`, then, on an early unknown, the
 * same with smt.mbqi=true and rg_z3_mbqi_budget(MS) (below). */
#ifndef RG_VERIFY_Z3_OPTIONS_H
#define RG_VERIFY_Z3_OPTIONS_H

#define RG_Z3_OPTIONS(X) X("smt.qi.eager_threshold", "5")

/* The MBQI pass's budget within a limit of timeout_ms: an eighth of it, but never under the
 * quarter or RG_Z3_MBQI_FLOOR_MS, whichever is less. MBQI runs to its budget on what it does not
 * prove; at the default 2 s the quarter (500 ms) was most of z3's time and proved nothing more
 * on TASO's depth 3 and the samples of bench/README ("The whole run": 250 ms, the same z3
 * proofs, that run in 0.79x). A budget that grows with the limit keeps a larger -T giving more
 * proofs: test_verify_guard's t15 is proved only by MBQI, in 0.6 to 0.7 s. At a tight limit the
 * quarter stays (-T 300: 75 ms, where MBQI still proved one obligation in 1,000 rules). */
#define RG_Z3_MBQI_FLOOR_MS 75
static inline int rg_z3_mbqi_budget(int timeout_ms) {
  int quarter = timeout_ms / 4, eighth = timeout_ms / 8;
  int floor = quarter < RG_Z3_MBQI_FLOOR_MS ? quarter : RG_Z3_MBQI_FLOOR_MS;
  return eighth > floor ? eighth : floor;
}

#endif
