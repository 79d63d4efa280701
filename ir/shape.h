/* ir/shape.h: tensor shapes, their seams, and shape inference for every operator.
 *
 * A shape is a rank (0 .. RG_MAX_RANK) and dims (each >= 1). Each dimension also carries its
 * seams: the positions where concat joined the tensor along it, outermost last (TASO's split
 * tree). split cuts at the last seam; seams are part of a tensor's type, so two graphs are only
 * interchangeable when their outputs agree in dims and seams.
 */
#ifndef RG_IR_SHAPE_H
#define RG_IR_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "op.h"
#include "status.h"

#define RG_MAX_SEAMS 4
#define RG_MAX_DIM (1 << 24)
/* Most elements a tensor holds (2^40): every shape parsed or inferred is checked against it, so
 * a product of one shape's sizes never overflows (16777216x16777216x65536 wrapped to 0 and
 * made every comparison agree). */
#define RG_MAX_NUMEL (INT64_C(1) << 40)

typedef struct {
  uint8_t rank;
  uint8_t nseam[RG_MAX_RANK];
  int32_t dim[RG_MAX_RANK];
  int32_t seam[RG_MAX_RANK][RG_MAX_SEAMS];
} rg_shape;

/* The element count (saturating at INT64_MAX; a parsed or inferred shape has at most
 * RG_MAX_NUMEL). */
int64_t rg_shape_numel(const rg_shape *s);
/* Same rank and dims (seams ignored). */
bool rg_shape_dims_eq(const rg_shape *a, const rg_shape *b);
/* Same dims and same seams: interchangeable as values. */
bool rg_shape_type_eq(const rg_shape *a, const rg_shape *b);
/* A seamless shape from dims. */
rg_shape rg_shape_make(int rank, const int32_t *dims);
/* Row-major flat index of a position, and back. */
int64_t rg_shape_flat(const rg_shape *s, const int32_t *pos);
void rg_shape_unflat(const rg_shape *s, int64_t flat, int32_t *pos);

/* "2x4x5x5"; rank 0 is "scalar". Writes at most n bytes including the NUL; returns buf. */
char *rg_shape_format(const rg_shape *s, char *buf, int n);
/* Same, with seams: "8[4]x4" for a concat of two 4-row tensors. */
char *rg_shape_format_seams(const rg_shape *s, char *buf, int n);
/* Parses "2x4x5x5" or "scalar" (len bytes); dims must be 1 .. RG_MAX_DIM, and the element count
 * at most RG_MAX_NUMEL (RG_ERR_LIMIT). */
rg_status rg_shape_parse(const char *text, int len, rg_shape *out, rg_err *err) RG_MUST_CHECK;
/* The same with seams as rg_shape_format_seams writes them: "2x8[4]" (a concat of two 2x4 along
 * axis 1), "8[2,6,4]" (outermost last). Seams are 1 .. dim-1, distinct, at most RG_MAX_SEAMS
 * on an axis, and in an order concats can make (the ones below the outermost before the ones
 * above it, each part the same way down). */
rg_status rg_shape_parse_seams(const char *text, int len, rg_shape *out, rg_err *err) RG_MUST_CHECK;
/* "4,4" where "4x4" was meant: the one message for it, with text (len bytes: a shape, or a
 * group of NAME=DIMS bindings) and its commas made 'x' as the hint: "bad shape 'x=4,4':
 * dimensions are separated by 'x', not ',': did you mean x=4x4?". Returns code (err may be
 * NULL). */
rg_status rg_shape_comma_error(const char *text, int len, rg_status code, rg_err *err);
/* The same typo in a list of shapes or NAME=DIMS bindings separated by spaces or commas (arg):
 * the token tok (tok_len bytes, inside arg) that follows a comma and is a bare number is no
 * shape of its own. Then RG_ERR_ARG with rg_shape_comma_error's message for the comma group
 * holding it ("x=4,4" for the 4 of "-s x=4,4"); RG_OK when tok is no such typo. */
rg_status rg_shape_comma_check(const char *arg, const char *tok, int tok_len, rg_err *err) RG_MUST_CHECK;

/* Infers the output shapes of op applied to inputs in[0..n_in) with concrete params (slots).
 * out must have room for the op's n_outputs. On mismatch returns RG_ERR_SHAPE (or
 * RG_ERR_LIMIT, also for a result of more than RG_MAX_NUMEL elements) with a message naming the op
 * and the dimensions that disagree. */
rg_status rg_shape_infer(rg_op op, const int32_t *params, int n_in, const rg_shape *const *in,
                         rg_shape *out, rg_err *err) RG_MUST_CHECK;

/* Output size and padding before the first element along one spatial dimension, for conv2d
 * and pooling (see ops.def for the SAME/VALID convention). Returns false if it does not fit
 * or there is no window (stride or k below 1). */
bool rg_window_geometry(int32_t in, int32_t k, int32_t stride, int pad, int32_t *out,
                        int32_t *pad_before);

#endif
