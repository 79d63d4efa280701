/* ir/op.h: the operator table (generated from ir/ops.def) and its parameter kinds.
 *
 * Every module that needs to know about operators (shape inference, interpreters, the SMT
 * encoder, exporters, the enumerator) reads this table instead of keeping its own list.
 */
#ifndef RG_IR_OP_H
#define RG_IR_OP_H

#include <stdbool.h>
#include <stdint.h>

#define RG_MAX_RANK 6
#define RG_MAX_INPUTS 4   /* most tensor inputs of one node (concat is variadic up to this) */
#define RG_MAX_OUTPUTS 2  /* most outputs of one operator (split) */
#define RG_MAX_PARAMS 8   /* parameter slots of one node */
#define RG_VARIADIC (-1)

typedef enum {
#define RG_OP(id, name, nin, nout, lin, flags, params) RG_OP_##id,
#include "ops.def"
#undef RG_OP
  RG_OP_COUNT
} rg_op;

typedef enum { RG_LIN_NONE, RG_LIN_JOINT, RG_LIN_MULTI } rg_linearity;

enum {
  RG_OPF_INPUT = 1 << 0,
  RG_OPF_ELEMENTWISE = 1 << 1,
  RG_OPF_ACTIVATION = 1 << 2, /* relu, tanh, sigmoid: keyed random functions in Z_p */
  RG_OPF_FUSED_ACT = 1 << 3,  /* has an "act" parameter applied to its output */
  RG_OPF_CONSTANT = 1 << 4,
};

/* Parameter kinds. A SHAPE parameter takes RG_SHAPE_SLOTS slots (rank, then dims). */
typedef enum {
  RG_PK_NONE = 0,
  RG_PK_TVAR,  /* index of a tensor variable (input nodes only) */
  RG_PK_INT,   /* integer in [lo, hi] */
  RG_PK_AXIS,  /* 0 .. RG_MAX_RANK-1, and < rank of the input */
  RG_PK_PAD,   /* same | valid */
  RG_PK_ACT,   /* none | sigmoid | relu | tanh (TASO's numbering) */
  RG_PK_PERM,  /* permutation, packed by rg_perm_pack */
  RG_PK_SHAPE, /* rank then dims, RG_SHAPE_SLOTS slots */
} rg_param_kind;

#define RG_SHAPE_SLOTS (1 + RG_MAX_RANK)

typedef enum { RG_PAD_SAME = 0, RG_PAD_VALID = 1 } rg_pad;
typedef enum { RG_ACT_NONE = 0, RG_ACT_SIGMOID = 1, RG_ACT_RELU = 2, RG_ACT_TANH = 3 } rg_act;
#define RG_ACT_COUNT 4

#define RG_NODEF INT32_MIN

typedef struct {
  rg_param_kind kind;
  const char *name;
  int32_t lo, hi; /* inclusive range for RG_PK_INT */
  int32_t def;    /* value when omitted in text, or RG_NODEF */
} rg_param_spec;

typedef struct {
  const char *name;  /* s-expression name */
  int n_inputs;      /* RG_VARIADIC for concat */
  int n_outputs;
  rg_linearity linearity;
  unsigned flags;
  int n_params;      /* parameters as written in text */
  int n_slots;       /* int32 slots they occupy in a node */
  rg_param_spec params[RG_MAX_PARAMS];
} rg_op_info;

const rg_op_info *rg_op_get(rg_op op);
/* Looks an operator up by its s-expression name; returns -1 if there is none. */
int rg_op_by_name(const char *name, int len);
/* First slot of parameter k of op. */
int rg_op_param_slot(rg_op op, int k);
/* How many leading parameters text must give: the ones after them all have defaults and may be
 * left out from the end. */
int rg_op_required_params(rg_op op);
/* Minimum and maximum number of tensor inputs. */
int rg_op_min_inputs(rg_op op);
int rg_op_max_inputs(rg_op op);

/* Permutations are packed in one int32: rank in bits 0-2, perm[i] in bits 3+3i .. 5+3i. */
int32_t rg_perm_pack(const int *perm, int rank);
int rg_perm_unpack(int32_t packed, int *perm); /* returns rank, or -1 if not a permutation */
/* Steps p (n indices) to its lexicographic successor; false after the last permutation. */
bool rg_perm_next(int *p, int n);

const char *rg_pad_name(int pad);
const char *rg_act_name(int act);
int rg_pad_by_name(const char *s, int len); /* -1 if unknown */
int rg_act_by_name(const char *s, int len); /* -1 if unknown */

#endif
