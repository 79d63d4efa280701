/* enumerate/space.h: the search space (input set, operator variants, depth) and graph codes.
 *
 * A graph is coded as a sequence of at most RG_ENUM_MAX_DEPTH operator variants, each an index
 * and up to two tensor operands given as pool indices: 0 .. n_inputs-1 are the inputs, n_inputs+k
 * is the tensor made by operator k. The code is 16 bytes, so a fingerprint record is 24.
 * A graph's outputs are its sinks: the operators whose tensor no later operator uses, in code
 * order. A code with no operators is an input graph: its one output is input in[0] of op[0]
 * (variant RG_ENUM_INPUT_GRAPH); those let rules like (transpose (transpose ?x)) => ?x arise.
 */
#ifndef RG_ENUMERATE_SPACE_H
#define RG_ENUMERATE_SPACE_H

#include "choices.h"

#define RG_ENUM_MAX_DEPTH 4
#define RG_ENUM_POOL (RG_ENUM_MAX_INPUTS + RG_ENUM_MAX_DEPTH)
#define RG_ENUM_NO_OP 0xFFFF
#define RG_ENUM_INPUT_GRAPH 0xFFFE
#define RG_ENUM_MAX_VARIANTS 0xFF00
#define RG_ENUM_MAX_INPUT_ELEMS 4096 /* per input tensor: enumeration evaluates every graph */

typedef struct {
  uint16_t variant;
  uint8_t in[2]; /* pool indices of the operands; unused ones are 0 */
} rg_enum_opcode;

typedef struct {
  rg_enum_opcode op[RG_ENUM_MAX_DEPTH]; /* unused trailing entries have variant RG_ENUM_NO_OP */
} rg_enum_code;

typedef struct {
  rg_enum_inputset inputs;
  rg_enum_choices choices;
  int depth;
  int n_variants;
  rg_enum_variant *variants; /* owned */
  int32_t *sibling;          /* owned, [variant]: the same operator and parameters' other output
                              * (split.1 for split.0 on one axis), or -1 */
  int8_t prev_same[RG_ENUM_MAX_INPUTS]; /* the previous input of equal shape, or -1 */
} rg_enum_space;

/* Builds the variant list. Errors: depth outside 1..RG_ENUM_MAX_DEPTH, an input too large to
 * evaluate at every graph, no applicable variant. Free with rg_enum_space_free (also on error). */
rg_status rg_enum_space_init(rg_enum_space *sp, const rg_enum_choices *c, const rg_enum_inputset *in,
                             int depth, rg_err *err) RG_MUST_CHECK;
void rg_enum_space_free(rg_enum_space *sp);

/* Number of operators in a code (0 for an input graph). */
int rg_enum_code_len(const rg_enum_code *c);
/* Whether a and b are the two outputs of one operator application (sibling variants, the same
 * operands). */
bool rg_enum_op_siblings(const rg_enum_space *sp, rg_enum_opcode a, rg_enum_opcode b);
/* The code's size as --depth counts it: its operators, a multi-output operator once (a later
 * output of an operator already there is free). */
int rg_enum_code_weight(const rg_enum_space *sp, const rg_enum_code *c);
/* The code of input graph i. */
rg_enum_code rg_enum_code_input(int i);

/* Whether variant v may be applied to operands of these shapes, giving out, beyond what shape
 * inference checks: conv2d only uses weights whose kernel is one of --kernels, and enlarge,
 * reshape and slice are skipped where they are the identity (out has in[0]'s type: an enlarge
 * to the kernel a weight already has, a reshape to its own shape, a slice of a whole axis).
 * Such an application computes nothing new, and the rule "op(x) => x" it would give holds only
 * at those shapes, which no shape-free axiom can state. */
bool rg_enum_space_accepts(const rg_enum_space *sp, int v, const rg_shape *const *in, const rg_shape *out);

/* Interns every input name in g in input order, so tensor variable i is input i. Call on an
 * empty graph before rg_enum_build when arrays indexed by input are to be used with g. */
rg_status rg_enum_graph_prepare(const rg_enum_space *sp, rg_graph *g, rg_err *err) RG_MUST_CHECK;
/* Adds the graph of code c to g and writes its outputs (sinks in code order) to
 * outs[0..*n_outs), at most RG_RULE_MAX_OUTPUTS. Inputs become tensor variables named as in
 * the input set (interned on first use unless g was prepared). */
rg_status rg_enum_build(const rg_enum_space *sp, const rg_enum_code *c, rg_graph *g, rg_ref *outs,
                        int *n_outs, rg_err *err) RG_MUST_CHECK;

/* Index of the input called name, or -1. */
int rg_enum_input_index(const rg_enum_space *sp, const char *name);

/* The types of the outputs of code c (sinks in code order, as rg_enum_build gives them), by
 * shape inference alone: no graph is built. Errors: a malformed code, an application that does
 * not type (neither happens for codes the enumerator produced). */
rg_status rg_enum_code_out_types(const rg_enum_space *sp, const rg_enum_code *c, rg_shape *types,
                                 int *n_outs) RG_MUST_CHECK;

/* Appends the graph's outputs as rule-text terms joined by " ; " (for messages and tests). */
rg_status rg_enum_code_print(const rg_enum_space *sp, const rg_enum_code *c, rg_strbuf *sb,
                             rg_err *err) RG_MUST_CHECK;

#endif
