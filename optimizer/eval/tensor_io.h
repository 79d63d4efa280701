/* optimizer/eval/tensor_io.h: single tensors in files, as ONNX's test data keeps them (one
 * TensorProto per .pb file: test_data_set_0/input_0.pb): the inputs a model is evaluated on and
 * the outputs it is compared with. Values travel as float64 (float and int64 tensors). */
#ifndef RG_OPTIMIZER_TENSOR_IO_H
#define RG_OPTIMIZER_TENSOR_IO_H

#include "optimizer/model/model.h"

/* The tensor in path: its element type, shape and values (*vals: new array); *name: its name
 * (new string, "" when it has none). RG_ERR_IO, RG_ERR_PARSE (not a TensorProto), RG_ERR_ARG
 * (another element type, data that does not fill the shape), naming the file. */
rg_status rg_tensor_file_read(const char *path, rg_elem *elem, rg_shape *shape, double **vals, char **name,
                              rg_err *err) RG_MUST_CHECK;
/* Writes a tensor (values rounded to elem) to path, whole or not at all. */
rg_status rg_tensor_file_write(const char *path, const char *name, rg_elem elem, const rg_shape *shape,
                               const double *vals, rg_err *err) RG_MUST_CHECK;

/* How far a is from the reference b: the largest |a - b| over the largest |b| (the output's
 * scale; 1 when b is all zeros). Infinite when exactly one side is NaN or an infinity
 * differs. */
double rg_values_rel_diff(const double *a, const double *b, int64_t n);

#endif
