/* verify/sides.h: a rule's two sides evaluated on random inputs and compared in both domains
 * (float64 and Z_p), as `rulegen eval` reports it; a bare graph's outputs shown; and a few
 * built-in example rules to try it on. */
#ifndef RG_VERIFY_SIDES_H
#define RG_VERIFY_SIDES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ir/ir.h"

/* How to evaluate: random inputs and keyed functions from seed, trials per domain; quiet: say
 * nothing of a rule whose sides agree. */
typedef struct {
  uint64_t seed;
  int trials;
  bool quiet;
} rg_sides_opts;

/* Compares r's sides at binding b in both domains, printing the rule, its shapes and each
 * domain's verdict (the first differing position and values, or the output whose type
 * differs) to out; *differs when a domain sees a difference. Errors: those of rg_rule_compare. */
rg_status rg_sides_compare_print(FILE *out, const rg_rule *r, const rg_binding *b, const rg_sides_opts *o,
                                 bool *differs, rg_err *err) RG_MUST_CHECK;

/* Evaluates the bare graph r (no target) at b in both domains and prints each output's shape
 * and first values. Errors: those of planning and evaluating it. */
rg_status rg_graph_outputs_print(FILE *out, const rg_rule *r, const rg_binding *b, uint64_t seed,
                                 rg_err *err) RG_MUST_CHECK;

/* A built-in example: a true rule of TASO's kind and shapes it holds at ("x=2x4 y=4x4"). */
typedef struct {
  const char *rule, *shapes;
} rg_sides_example;
/* The examples; *n gets their number. */
const rg_sides_example *rg_sides_examples(int *n);

#endif
