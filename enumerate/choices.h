/* enumerate/choices.h: which operators the enumerator applies, and which parameter values each
 * one is tried with.
 *
 * The per-operator choices live in ONE table indexed by rg_op (choices.c): an operator of
 * ir/ops.def without an entry there cannot be enumerated, and the unit test checks that every
 * operator has one, so an operator added to the table cannot be skipped silently. Defaults are
 * TASO's generator settings; wider settings are opt-in because each extra variant multiplies
 * the depth-4 search.
 */
#ifndef RG_ENUMERATE_CHOICES_H
#define RG_ENUMERATE_CHOICES_H

#include <stdbool.h>
#include <stdio.h>

#include "inputs.h"

#define RG_ENUM_MAX_KERNELS 8

typedef struct {
  bool op[RG_OP_COUNT];   /* operators applied */
  unsigned conv_strides;  /* bit s: conv2d stride s in both dimensions (s = 1, 2) */
  unsigned conv_pads;     /* bit per rg_pad */
  unsigned conv_acts;     /* bit per rg_act */
  unsigned conv_groups;   /* bit g: conv2d with g groups (shape inference keeps the one that fits) */
  unsigned conv_dilations; /* bit d: conv2d dilation d in both dimensions (d = 1, 2) */
  unsigned matmul_acts;   /* bit per rg_act */
  unsigned pool_acts;     /* bit per rg_act, for poolavg and poolmax */
  int n_kernels;          /* conv2d weight kernels accepted, and Iconv/Cpool kernels made */
  int32_t kernel[RG_ENUM_MAX_KERNELS][2];
  unsigned axes;          /* bit a: concat and split on axis a */
  bool all_perms;         /* transpose: every non-identity permutation of rank 2..4 (else 2-D) */
  int32_t enlarge[2];     /* enlarge target kernel */
} rg_enum_choices;

/* TASO's defaults: its operator set (ewadd ewmul smul matmul conv2d relu poolavg poolmax transpose
 * enlarge concat split Iewmul Imatmul Iconv Cpool), conv stride 1 SAME with act none or relu,
 * dilation 1, groups 1, 2 or 4 (TASO infers groups from the weight: 1, 2 or 4 at its sizes),
 * kernels 3x3 and 1x3, matmul without activation, pooling 3x3 stride 1 SAME without activation,
 * concat/split on axes 0 and 1, 2-D transpose, enlarge to 3x3. */
void rg_enum_choices_default(rg_enum_choices *c);

/* Appends to the default input set what the chosen operators need beyond TASO's 20 inputs
 * (which TASO's own run keeps): with bias, its vectors (rg_enum_inputs_add_bias); with bias and
 * split, the seamed tensors too (rg_enum_inputs_add_seamed). */
void rg_enum_inputs_for_choices(const rg_enum_choices *c, rg_enum_inputset *s);
/* Selects operators: "all" (every operator but input), "taso" (the defaults), or a comma list
 * of operator names. Errors name the unknown operator and list the known ones. */
rg_status rg_enum_choices_set_ops(rg_enum_choices *c, const char *list, rg_err *err) RG_MUST_CHECK;

/* Sets one choice by option name (without the leading dashes, e.g. "conv-stride") from its
 * text value. Returns RG_ERR_ARG with a message for an unknown name or a bad value. */
rg_status rg_enum_choices_set(rg_enum_choices *c, const char *name, const char *value,
                              rg_err *err) RG_MUST_CHECK;
/* The names of the choice options that rg_enum_choices_set accepts, NULL-terminated. */
const char *const *rg_enum_choices_options(void);

/* For --help: choice option i's META and help line (with its default), in the order of
 * rg_enum_choices_options; and what the enumerator tries for an operator it supports. */
void rg_enum_choices_option_doc(int i, const char **meta, const char **help);
const char *rg_enum_op_doc(rg_op op);

/* Appends c as the options that select it ("--ops a,b --conv-stride 1 ..."): setting them on
 * the defaults gives c again (a resumed run reads them back, synth/resume.h). */
void rg_enum_choices_format(const rg_enum_choices *c, rg_strbuf *sb);

/* True when the table has an entry for op (every operator but input must have one). */
bool rg_enum_op_supported(rg_op op);

/* True for binary operators with op(a, b) = op(b, a) (ewadd, ewmul). */
bool rg_enum_op_commutative(rg_op op);

/* One way to apply an operator: the op, its parameter slots, its number of tensor inputs, and
 * which of its outputs the enumerated tensor is (split is enumerated as split.0 and split.1,
 * each counting as one operator; hash-consing makes both halves one node in a graph). */
typedef struct {
  uint16_t op;
  uint8_t n_in;
  uint8_t out;
  int32_t params[RG_MAX_PARAMS];
} rg_enum_variant;

#define RG_ENUM_MAX_OP_VARIANTS 256

/* Writes the variants of op under choices c over input set in (constants take their shapes
 * from it) to out[0..cap) and returns how many; 0 when op is not selected. Deterministic. */
int rg_enum_op_variants(rg_op op, const rg_enum_choices *c, const rg_enum_inputset *in,
                        rg_enum_variant *out, int cap);

#endif
