/* verify/z3_options.h: the z3 parameters of every query besides its timeout and unsat cores,
 * declared once: the rulegen-z3 helper sets them (z3_serve.c); `z3 NAME=VALUE ... FILE` re-runs a
 * dumped obligation as the helper does.
 *
 * smt.qi.eager_threshold 5 (z3's default 10): quantifier instances whose cost exceeds it wait
 * until the ground search is stuck, so z3 follows the cheap rewrites first. On the 1,000
 * held-out depth-4 candidates (z3 binary, 2 s, one thread) it proved 981 obligations against
 * 978, the same ones plus three that cvc5 alone proved (pad and sigmoid under an ewmul, a pad of
 * a concat through matmul and conv, a slice of a conv's concat input); on TASO's 133 and the
 * depth-3 sample it proved the same 142 and 990. */
#ifndef RG_VERIFY_Z3_OPTIONS_H
#define RG_VERIFY_Z3_OPTIONS_H

#define RG_Z3_OPTIONS(X) X("smt.qi.eager_threshold", "5")

#endif
