/* rulesdb/taso_pb.h (private to rulesdb/): TASO's numbering in its rule file (rules.proto via
 * protobuf-c), which import (taso.c) and export (taso_export.c) share.
 *
 * Op types are TASO's OpType (anchors/README.md), parameter keys its PMParameter. Pad and
 * activation numbers are the same as ours. TRANSPOSE's PERM is the permutation's digits in base
 * NUMDIM, most significant first, with TASO's convention out.dim[i] = in.dim[perm[i]] (ours
 * too); TASO builds only OUTSHUFFLE 1. A conv's KERNEL_H, KERNEL_W and GROUP are written for
 * readers like our import (TASO's loader reads none: it takes them from shapes). ENLARGE pads its first input's kernel to the size of its
 * second's (a reference tensor; ours takes the sizes as parameters).
 * TASO's rule loader (GraphXfer::create_operator_from_pb in TASO's src/core/substitution.cc)
 * gives each distinct negative opId of a rule a new input tensor, asserting that it is first
 * seen in the source; it asserts on POOL2D operators, BATCHNORM and every type it does not
 * list, on more than MAX_NUM_INPUTS (6) inputs of an operator, and on a missing required
 * parameter. */
#ifndef RG_RULESDB_TASO_PB_H
#define RG_RULESDB_TASO_PB_H

#include "taso_rules.pb-c.h"

enum {
  T_CONV2D = 3,
  T_POOLMAX = 6,
  T_POOLAVG = 7,
  T_RELU = 8,
  T_SIGMOID = 9,
  T_TANH = 10,
  T_CONCAT = 12,
  T_SPLIT = 13,
  T_TRANSPOSE = 15,
  T_EWADD = 16,
  T_EWMUL = 17,
  T_MATMUL = 18,
  T_MUL = 19,
  T_ENLARGE = 20,
};
enum {
  K_NUM_INPUTS = 1,
  K_NUM_OUTPUTS = 2,
  K_GROUP = 3,
  K_KERNEL_H = 4,
  K_KERNEL_W = 5,
  K_STRIDE_H = 6,
  K_STRIDE_W = 7,
  K_PAD = 8,
  K_ACTI = 9,
  K_NUMDIM = 10,
  K_AXIS = 11,
  K_PERM = 12,
  K_OUTSHUFFLE = 13,
};
/* TASO's MAX_NUM_INPUTS: the most inputs its loader takes for one operator. */
#define TASO_MAX_INPUTS 6
/* TASO's create_concat names input i as IN_i (i <= 5) and dimension j as DIM_j (j <= 3) for
 * every j other than the axis, asserting past those. */
#define TASO_MAX_CONCAT_DIMS 4

/* TASO's name of op type t ("CONV2D"), "unknown" past the table. */
const char *rg_taso_type_name(int t);

#endif
