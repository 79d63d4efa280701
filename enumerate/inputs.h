/* enumerate/inputs.h: the input set: the named tensors every enumerated graph is built over.
 *
 * Invariants: 1 .. RG_ENUM_MAX_INPUTS inputs, names unique identifiers (they become the rule
 * text's ?variables). A shape may carry seams ("y1 2x8[4]": two halves a split can take
 * apart, as a merged product's output has them in a model). The input index is the tensor-variable index in every
 * graph the enumerator builds.
 */
#ifndef RG_ENUMERATE_INPUTS_H
#define RG_ENUMERATE_INPUTS_H

#include "ir/ir.h"

#define RG_ENUM_MAX_INPUTS 32
#define RG_ENUM_MAX_NAME 32

typedef struct {
  char name[RG_ENUM_MAX_NAME];
  rg_shape shape;
} rg_enum_input;

typedef struct {
  int n;
  rg_enum_input in[RG_ENUM_MAX_INPUTS];
} rg_enum_inputset;

/* TASO's generator inputs: x1-x3 2x4, w1-w3 4x4, i1-i3 2x4x5x5, w4-w6 4x4x3x3, w7-w9 4x4x1x3,
 * w10-w12 4x4x3x1, w13 4x1x3x3, s0 scalar. */
void rg_enum_inputs_default(rg_enum_inputset *s);
/* Appends the vectors a bias adds, b1 and b2 of size 4 (the channels of i1-i3, a weight's rows,
 * the columns of x1-x3 and w1-w3), to the default set; only where bias is among the operators
 * chosen, so that TASO's run keeps its 20 inputs and its candidates. */
void rg_enum_inputs_add_bias(rg_enum_inputset *s);
/* Appends xs 2x8[4] and is 2x8[4]x5x5: a merged product's and a merged convolution's outputs,
 * two halves of 4 columns or channels (as long as b1, b2) that a split hands their consumers;
 * the rules that carry a bias and an activation through such a split are found over them. Only
 * where bias and split are both chosen. */
void rg_enum_inputs_add_seamed(rg_enum_inputset *s);

/* Parses an input set: one "NAME DIMS" per line (DIMS as in rule text: 2x4, scalar; seams as
 * rg_shape_parse_seams reads them: 2x8[4]), '#'
 * comments and blank lines ignored. Errors name the line (err->line) and what is wrong. */
rg_status rg_enum_inputs_parse(const char *text, size_t len, rg_enum_inputset *s,
                               rg_err *err) RG_MUST_CHECK;
/* The shape of the input called name, or of the input <w> for a name "<w>_<n>" that
 * generalization made (verify/generalize.h: a fresh variable of its original's shape); NULL
 * when there is none. */
const rg_shape *rg_enum_inputs_shape(const rg_enum_inputset *s, const char *name);
/* The same with the set as ctx: a var_shape function for the recheck (verify/recheck.h). */
const rg_shape *rg_enum_inputs_shape_of(const void *ctx, const char *name);

/* Reads and parses a file; errors are prefixed with nothing (the caller names the file). */
rg_status rg_enum_inputs_load(const char *path, rg_enum_inputset *s, rg_err *err) RG_MUST_CHECK;

#endif
