#!/usr/bin/python3
"""Small ONNX models at opsets 1 to 21, in the forms operators take at each (tests, not benchmarks).

graphopt reads every opset from 1 to 21 of the default domain, each operator in the form of its
version there, and writes the model back at its own opset. Each model here uses the forms that
changed: Pad's amounts and Slice's bounds as attributes (before 11 and 10) or inputs, Split's
sizes as an attribute (before 13) or input and opset 18's num_outputs, Squeeze and Unsqueeze's
axes (attribute before 13), the reductions' axes (an input from 18, ReduceSum from 13), Clip's
bounds (attributes before 11), Softmax over flattened axes (before 13), Upsample (7 and 9) and
Resize (10, 18's axes and sizes policy, 19's half_pixel_symmetric), BatchNormalization's spatial
(before 9), Pad's axes (18) and wrap mode (19), AveragePool's dilations (19); and operators of the
rule vocabulary that export writes in the opset's form (a Slice, a Pad, a Gemm without bias).
models/roundtrip.py checks each against onnxruntime, converted and optimized.

    /usr/bin/python3 models/opsets.py OUTDIR
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import Case, write  # noqa: E402

F = TensorProto.FLOAT


class OpsetCase(Case):
    """A case at one opset: its outputs typed as ONNX's shape inference finds them where onnx
    knows the opset (1.12: to 17), else as float tensors of the shapes in declared, or none."""

    def __init__(self, name, seed, opset):
        super().__init__(name, seed)
        self.opset = opset

    def model(self):
        known = {}
        if self.opset <= onnx.defs.onnx_opset_version():  # output shapes as ONNX infers them
            bare = helper.make_model(helper.make_graph(self.nodes, self.name, self.inputs, [], self.inits),
                                     opset_imports=[helper.make_opsetid("", self.opset)])
            # (opset 1's Reshape has no shape function: what reads it stays untyped there)
            inferred = onnx.shape_inference.infer_shapes(bare, strict_mode=self.opset >= 7)
            known = {v.name: v for v in inferred.graph.value_info if v.type.tensor_type.HasField("shape")}
        outs = [known.get(o) or helper.make_tensor_value_info(o, F, self.declared.get(o)) for o in self.outputs]
        g = helper.make_graph(self.nodes, self.name, self.inputs, outs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)], producer_name="opsets.py")
        m.ir_version = 8 if self.opset <= 17 else 9 if self.opset <= 20 else 10
        if self.opset <= onnx.defs.onnx_opset_version():
            onnx.checker.check_model(m, full_check=self.opset >= 7)
        return m


def scales(c, values):
    return c.weight(None, values=values)


def products(c, x, cols):
    """Two products of one operand added, which the rules merge into one: the optimizer writes a
    model of its own (not a copy of the original), with the nodes around it in the opset's forms."""
    return c.node("Add", [c.node("MatMul", [x, c.weight([cols, 6])]), c.node("MatMul", [x, c.weight([cols, 6])])])


def opset7(c):
    x = c.input("x", [1, 3, 6, 6])
    v = c.input("v", [2, 6, 4])
    h = c.input("h", [2, 8])
    c.output(c.node("Pad", [x], pads=[0, 0, 1, 2, 0, 0, 2, 1]), "pad_zeros")        # a pad node
    c.output(c.node("Pad", [x], pads=[0, 0, 1, 0, 0, 0, 0, 1], value=1.5), "pad_value")
    c.output(c.node("Pad", [x], pads=[0, 0, 2, 1, 0, 0, 1, 2], mode="reflect"), "pad_reflect")
    c.output(c.node("Slice", [v], starts=[1, -3], ends=[100, -1], axes=[1, 2]), "slice")
    parts = c.node("Split", [v], n_out=3, axis=1, split=[1, 2, 3])
    c.output(c.node("Concat", [parts[2], parts[0]], axis=1), "split")
    sq = c.node("Squeeze", [c.node("Slice", [v], starts=[0], ends=[1])], axes=[0])
    c.output(c.node("Unsqueeze", [sq], axes=[0, 3]), "squeeze_unsqueeze")
    c.output(c.node("ReduceMean", [v], axes=[1], keepdims=0), "reduce_mean")
    c.output(c.node("Clip", [v], min=-0.25, max=0.5), "clip")
    c.output(c.node("Softmax", [v], axis=1), "softmax_flat")                         # over 6 x 4
    c.output(c.node("Upsample", [x], scales=[1.0, 1.0, 2.0, 3.0]), "upsample_nearest")
    c.output(c.node("Upsample", [x], scales=[1.0, 1.0, 2.0, 1.5], mode="linear"), "upsample_linear")
    conv = c.node("Conv", [x, c.weight([4, 3, 3, 3])], pads=[1, 1, 1, 1])
    bn = [c.weight([4], values=c.rng.rand(4) + 0.5), c.weight([4]), c.weight([4]), c.weight([4], values=c.rng.rand(4) + 0.5)]
    c.output(c.node("Relu", [c.node("BatchNormalization", [conv] + bn, epsilon=1e-3)]), "conv_bn")  # folds
    per = [c.weight([3, 6, 6], values=c.rng.rand(3, 6, 6) + 0.5), c.weight([3, 6, 6]), c.weight([3, 6, 6]),
           c.weight([3, 6, 6], values=c.rng.rand(3, 6, 6) + 0.5)]
    c.output(c.node("BatchNormalization", [x] + per, spatial=0), "bn_per_activation")
    c.output(c.node("Dropout", [c.node("Gemm", [h, c.weight([8, 5]), c.weight([5])])], ratio=0.3), "gemm_dropout")
    c.output(c.node("MatMul", [h, c.node("Transpose", [c.weight([3, 8])])]), "linear_no_bias")  # a Gemm with C 0
    c.output(c.node("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1), "avgpool")
    c.output(c.node("Pad", [c.node("Slice", [products(c, h, 8)], starts=[1], ends=[5], axes=[1])], pads=[0, 1, 0, 0]),
             "products")


def opset9(c):
    x = c.input("x", [1, 2, 4, 5])
    v = c.input("v", [3, 4, 5])
    c.output(c.node("Upsample", [x, scales(c, [1.0, 1.0, 2.0, 2.0])]), "upsample_nearest")
    c.output(c.node("Upsample", [x, scales(c, [1.0, 1.0, 1.5, 2.5])], mode="linear"), "upsample_linear")
    c.output(c.node("Pad", [c.node("Relu", [v])], pads=[1, 0, 0, 0, 2, 1]), "pad_zeros")
    c.output(c.node("Slice", [c.node("Tanh", [v])], starts=[1, 0], ends=[3, 4]), "slice_default_axes")
    c.output(c.node("ReduceSum", [v], axes=[0, 2]), "reduce_sum")
    c.output(c.node("Flatten", [c.node("Squeeze", [c.node("Unsqueeze", [v], axes=[1])], axes=[1])], axis=2), "flatten")
    c.output(c.node("LogSoftmax", [v]), "log_softmax_flat")                          # axis 1: over 4 x 5
    c.output(c.node("Clip", [v], max=0.1), "clip_max")
    bn = [c.weight([2], values=[1.5, 0.5]), c.weight([2]), c.weight([2]), c.weight([2], values=[0.9, 1.1])]
    c.output(c.node("BatchNormalization", [x] + bn), "bn")
    h = c.input("h", [2, 8])
    c.output(c.node("Slice", [c.node("Pad", [products(c, h, 8)], pads=[1, 0, 0, 0])], starts=[2], ends=[4], axes=[1]),
             "products")


def opset10(c):
    x = c.input("x", [1, 2, 5, 6])
    v = c.input("v", [3, 6, 4])
    c.output(c.node("Resize", [x, scales(c, [1.0, 1.0, 2.0, 1.5])]), "resize_nearest")
    c.output(c.node("Resize", [x, scales(c, [1.0, 1.0, 0.6, 0.5])]), "resize_nearest_down")
    c.output(c.node("Resize", [x, scales(c, [1.0, 1.0, 1.6, 2.0])], mode="linear"), "resize_linear")
    c.output(c.node("Slice", [v, c.ints([0, 5]), c.ints([2, 0]), c.ints([0, 1]), c.ints([1, -2])]), "slice_steps")
    c.output(c.node("Slice", [v, c.ints([1]), c.ints([-1]), c.ints([2])]), "slice_inputs")
    c.output(c.node("Pad", [v], pads=[0, 1, 0, 0, 1, 1]), "pad_attr")
    c.output(c.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1), "maxpool_ceil")
    c.output(c.node("AveragePool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), "avgpool_ceil")
    c.output(c.node("Dropout", [c.node("Sigmoid", [v])]), "dropout")
    c.output(c.node("Squeeze", [c.node("ReduceMax", [v], axes=[1])], axes=[1]), "reduce_max")
    h = c.input("h", [2, 8])
    c.output(c.node("Pad", [c.node("Slice", [products(c, h, 8), c.ints([1]), c.ints([3]), c.ints([1])])], pads=[0, 1, 0, 0]),
             "products")


def opset18(c):
    x = c.input("x", [1, 3, 4, 6])
    v = c.input("v", [2, 7, 4])
    parts = c.node("Split", [v], n_out=3, axis=1, num_outputs=3)                    # 3, 3 and 1
    c.output(c.node("Concat", [parts[2], parts[1], parts[0]], axis=1), "split_uneven")
    c.output(c.node("ReduceMean", [v, c.ints([1])], keepdims=0), "reduce_mean")
    c.output(c.node("ReduceMax", [v, c.ints([-1, 0])]), "reduce_max")
    c.output(c.node("ReduceMin", [v], noop_with_empty_axes=1), "reduce_min_noop")
    c.output(c.node("ReduceSum", [v, c.ints([2])]), "reduce_sum")
    c.output(c.node("Pad", [x, c.ints([1, 2, 0, 1]), "", c.ints([2, -1])]), "pad_axes")
    c.output(c.node("Pad", [v, c.ints([1, 1]), c.weight([], values=0.5), c.ints([1])]), "pad_axes_value")
    c.output(c.node("Resize", [x, "", "", c.ints([8, 9])], mode="linear", axes=[2, 3]), "resize_axes")
    c.output(c.node("Resize", [x, "", "", c.ints([8, 8])], axes=[2, 3], keep_aspect_ratio_policy="not_larger"),
             "resize_not_larger")
    c.output(c.node("Resize", [x, "", scales(c, [1.0, 1.0, 2.0, 0.5])], mode="cubic"), "resize_cubic")
    c.output(c.node("Resize", [x, "", scales(c, [1.0, 1.0, 0.75, 0.5])], mode="linear",
                    coordinate_transformation_mode="pytorch_half_pixel"), "resize_pytorch_down")
    c.output(c.node("Resize", [x, scales(c, [0.2, 0.1, 0.9, 0.8]), "", c.ints([5, 7])], axes=[2, 3], mode="linear",
                    coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-2.0), "resize_crop")
    c.output(c.node("Resize", [x, "", scales(c, [1.0, 1.0, 1.5, 0.5])], mode="cubic", exclude_outside=1,
                    cubic_coeff_a=-0.5), "resize_cubic_exclude")
    c.output(c.node("Resize", [x, "", "", c.ints([1, 3, 7, 4])], nearest_mode="round_prefer_ceil"), "resize_ceil")
    c.output(c.node("Clip", [v, c.weight([], values=-0.3)]), "clip_min")
    c.output(c.node("Conv", [c.node("Pad", [x, c.ints([0, 0, 1, 1, 0, 0, 1, 1])]), c.weight([2, 3, 3, 3])]), "pad_conv")
    h = c.input("h", [2, 8])
    c.output(c.node("Pad", [c.node("Slice", [products(c, h, 8), c.ints([1]), c.ints([3]), c.ints([1])]), c.ints([1, 0]), "",
                            c.ints([1])]), "products")


def opset21(c):
    x = c.input("x", [1, 2, 5, 5])
    v = c.input("v", [3, 4, 5])
    c.output(c.node("Pad", [v, c.ints([0, 2, 1, 0, 1, 3])], mode="wrap"), "pad_wrap")
    c.output(c.node("Pad", [v, c.ints([1, 1, 1, 1, 1, 1])], mode="edge"), "pad_edge")
    c.output(c.node("Resize", [x, "", scales(c, [1.0, 1.0, 1.7, 1.7])], coordinate_transformation_mode="half_pixel_symmetric",
                    mode="linear"), "resize_symmetric")
    c.output(c.node("Resize", [x, "", "", c.ints([1, 2, 3, 7])], coordinate_transformation_mode="align_corners",
                    mode="linear"), "resize_align")
    c.output(c.node("Resize", [x, "", scales(c, [1.0, 1.0, 2.0, 2.0])], coordinate_transformation_mode="asymmetric",
                    nearest_mode="floor"), "resize_floor")
    c.output(c.node("AveragePool", [x], kernel_shape=[2, 2], dilations=[2, 2]), "avgpool_dilated")
    sq = c.node("Squeeze", [c.node("Slice", [v, c.ints([0]), c.ints([1])]), c.ints([0])])
    c.output(c.node("Unsqueeze", [sq, c.ints([1])]), "squeeze_unsqueeze")
    c.output(c.node("Reshape", [c.node("Transpose", [v], perm=[2, 0, 1]), c.ints([5, -1])]), "transpose_reshape")
    split = c.node("Split", [v, c.ints([1, 4])], n_out=2, axis=2)
    c.output(c.node("Add", [split[1], c.weight([4])]), "split_bias")
    c.output(c.node("Softmax", [v], axis=1), "softmax_axis")
    c.output(c.node("ReduceMean", [v]), "reduce_all")
    h = c.input("h", [2, 8])
    c.output(c.node("Squeeze", [c.node("Unsqueeze", [products(c, h, 8), c.ints([0])]), c.ints([0])]), "products")


def opset1(c):
    """Opset 1's forms that onnxruntime runs: Reshape's shape as an attribute (kept as read), and
    operators whose first version is still opset 7's (read as there)."""
    x = c.input("x", [1, 2, 4, 4])
    v = c.input("v", [3, 4, 5])
    c.output(c.node("Reshape", [c.node("Transpose", [v], perm=[0, 2, 1])], shape=[5, -1]), "reshape_attr")
    c.declared["reshape_attr"] = [5, 12]
    c.output(c.node("MaxPool", [c.node("Conv", [x, c.weight([3, 2, 3, 3])], pads=[1, 1, 1, 1])], kernel_shape=[2, 2],
                    strides=[2, 2]), "conv_pool")
    c.output(c.node("Softmax", [c.node("Flatten", [v], axis=1)]), "softmax")
    c.output(c.node("Squeeze", [c.node("Slice", [v], starts=[0, 1], ends=[1, 3], axes=[0, 1])], axes=[0]), "slice")


def opset6(c):
    """Opset 6's: operators whose version 6 is opset 7's (consumed_inputs gone), Pad's pads (2),
    Split's attribute sizes (2), Concat's required axis (4), Reshape's shape input (5)."""
    x = c.input("x", [1, 3, 6, 6])
    v = c.input("v", [2, 6, 4])
    c.output(c.node("Relu", [c.node("Conv", [x, c.weight([4, 3, 3, 3])], pads=[1, 1, 1, 1])]), "conv_relu")
    c.output(c.node("Pad", [x], pads=[0, 0, 1, 2, 0, 0, 2, 1]), "pad")
    parts = c.node("Split", [v], n_out=3, axis=1, split=[1, 2, 3])
    c.output(c.node("Concat", [parts[2], parts[0]], axis=1), "split_concat")
    c.output(c.node("Reshape", [c.node("Sigmoid", [v]), c.ints([4, -1])]), "reshape")
    c.output(c.node("Clip", [c.node("Tanh", [v])], min=-0.25, max=0.5), "clip")
    c.output(c.node("Sum", [c.node("Elu", [v]), c.node("LeakyRelu", [v]), c.node("Neg", [v])]), "sum")
    c.output(c.node("Softmax", [c.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])]), "pool_softmax")


CASES = [(opset1, 1), (opset6, 6), (opset7, 7), (opset9, 9), (opset10, 10), (opset18, 18), (opset21, 21)]


def main():
    out = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)
    write(out, [(fn, OpsetCase(fn.__name__, 200 + i, opset)) for i, (fn, opset) in enumerate(CASES)])


if __name__ == "__main__":
    main()
