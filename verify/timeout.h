/* verify/timeout.h: the solvers' time limit per query when the user gives none: the one default
 * of rulegen synth, rulegen prove and rulesdb audit (--timeout-ms), and of their help lines. */
#ifndef RG_VERIFY_TIMEOUT_H
#define RG_VERIFY_TIMEOUT_H

/* 2000 ms: a proof takes 10-200 ms (median under 20 ms, p95 under 50 ms on TASO's 133 and the
 * depth-3/4 samples, bench/README.md), so 2 s is ten times the slowest usual one; an unprovable
 * rule costs the whole limit per solver, and a synthesis run has hundreds of those, so a longer
 * default mostly buys waiting. The same everywhere so that an audit (rulesdb audit) re-runs a
 * proof under the limit it was found under. A rule that needs more gets --timeout-ms. */
#define RG_DEFAULT_TIMEOUT_MS 2000
#define RG_DEFAULT_TIMEOUT_MS_STR_(x) #x
#define RG_DEFAULT_TIMEOUT_MS_STR(x) RG_DEFAULT_TIMEOUT_MS_STR_(x)
/* "2000", for help texts */
#define RG_DEFAULT_TIMEOUT_MS_TEXT RG_DEFAULT_TIMEOUT_MS_STR(RG_DEFAULT_TIMEOUT_MS)

#endif
