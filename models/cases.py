#!/usr/bin/python3
"""Small ONNX models, one per corner of graphopt's import and export (tests, not benchmarks).

Each model exercises the ways an operator maps onto the rule vocabulary or stays opaque:
explicit, SAME_UPPER and SAME_LOWER padding, dilations and groups, BatchNormalization folded into
its Conv or kept, pooling with ceil mode and count_include_pad, Gemm's transposes, alpha, beta
and every shape of C, Add along an axis, Mul by one value, Split, Concat of many operands,
Reshape with 0 and -1, Pad and Slice with negative amounts, shape plumbing that folds, and
outputs that are inputs, weights or the same tensor twice. models/roundtrip.py checks each
against onnxruntime.

    /usr/bin/python3 models/cases.py OUTDIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


class Case:
    def __init__(self, name, seed):
        self.name, self.rng = name, np.random.RandomState(seed)
        self.nodes, self.inits, self.inputs, self.outputs = [], [], [], []
        self.count = 0
        self.declared = {}  # output shapes ONNX's inference cannot find (they need constant folding)
        self.written_ops = {}  # operator -> how many nodes of it the round trip must write

    def input(self, name, shape, elem=F):
        self.inputs.append(helper.make_tensor_value_info(name, elem, shape))
        return name

    def weight(self, shape, scale=0.5, values=None, dtype=np.float32):
        self.count += 1
        name = "w%d" % self.count
        v = np.asarray(values, dtype=dtype) if values is not None else (self.rng.randn(*shape) * scale).astype(dtype)
        self.inits.append(numpy_helper.from_array(v, name))
        return name

    def ints(self, values):
        return self.weight(None, values=values, dtype=np.int64)

    def node(self, op, inputs, n_out=1, **attrs):
        self.count += 1
        outs = ["t%d_%d" % (self.count, k) for k in range(n_out)]
        self.nodes.append(helper.make_node(op, inputs, outs, name="n%d_%s" % (self.count, op), **attrs))
        return outs[0] if n_out == 1 else outs

    def output(self, t, name=None):
        self.outputs.append(name or t)
        if name and name != t:
            self.nodes.append(helper.make_node("Identity", [t], [name]))

    def model(self):
        # shapes as ONNX infers them: on the graph without outputs, where every tensor is value_info
        bare = helper.make_model(helper.make_graph(self.nodes, self.name, self.inputs, [], self.inits),
                                 opset_imports=[helper.make_opsetid("", 13)])
        bare = onnx.shape_inference.infer_shapes(bare, strict_mode=True)
        known = {v.name: v for v in list(bare.graph.value_info) + list(bare.graph.input)}
        known.update({t.name: helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in self.inits})
        known.update({n: helper.make_tensor_value_info(n, F, s) for n, s in self.declared.items()})
        g = helper.make_graph(self.nodes, self.name, self.inputs, [known[o] for o in self.outputs], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="cases.py")
        m.ir_version = 8
        if self.written_ops:
            helper.set_model_props(m, {"written_ops": ",".join("%s=%d" % kv for kv in sorted(self.written_ops.items()))})
        onnx.checker.check_model(m, full_check=True)
        return m


def conv_cases(c):
    x = c.input("x", [1, 4, 11, 11])
    a = c.node("Conv", [x, c.weight([6, 4, 3, 3]), c.weight([6])], pads=[1, 1, 1, 1], strides=[2, 2])
    b = c.node("Conv", [x, c.weight([6, 4, 3, 3])], auto_pad="SAME_UPPER", strides=[2, 2])
    d = c.node("Conv", [x, c.weight([6, 4, 2, 2])], auto_pad="SAME_LOWER")
    e = c.node("Conv", [x, c.weight([6, 2, 3, 3]), c.weight([6])], pads=[2, 0, 2, 0], dilations=[2, 1], group=2)
    bn = [c.weight([6], values=c.rng.rand(6) + 0.5), c.weight([6]), c.weight([6]), c.weight([6], values=c.rng.rand(6) + 0.5)]
    f = c.node("BatchNormalization", [e] + bn, epsilon=1e-3)      # folds into its Conv
    g = c.node("BatchNormalization", [c.node("Relu", [d])] + bn)  # stays: no Conv before it
    c.output(c.node("Tanh", [a]), "a")
    c.output(b, "b")
    c.output(f, "f")
    c.output(g, "g")


def pool_cases(c):
    x = c.input("x", [1, 3, 20, 20])
    c.output(c.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), "max_padded")
    c.output(c.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1), "max_ceil")
    c.output(c.node("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1), "max_ceil_even")
    c.output(c.node("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1), "avg_incl")
    c.output(c.node("AveragePool", [x], kernel_shape=[3, 3], pads=[1, 1, 1, 1]), "avg_excl")
    c.output(c.node("AveragePool", [x], kernel_shape=[2, 2], auto_pad="SAME_UPPER", count_include_pad=1), "avg_same")
    c.output(c.node("GlobalAveragePool", [x]), "gap_large")
    c.output(c.node("GlobalMaxPool", [c.node("MaxPool", [x], kernel_shape=[4, 4], strides=[4, 4])]), "gmp")


def gemm_cases(c):
    a = c.input("a", [3, 5])
    c.output(c.node("Gemm", [a, c.weight([4, 5]), c.weight([4])], transB=1, alpha=0.5, beta=2.0), "bias_n")
    c.output(c.node("Gemm", [c.node("Transpose", [a]), c.weight([5, 4]), c.weight([3, 4])], transA=1), "c_full")
    c.output(c.node("Gemm", [a, c.weight([5, 4]), c.weight([1, 4])]), "c_row")
    c.output(c.node("Gemm", [a, c.weight([5, 4]), c.weight([3, 1])]), "c_col")
    c.output(c.node("Gemm", [a, c.weight([5, 4]), c.weight([1])]), "c_scalar")
    c.output(c.node("Gemm", [c.node("Relu", [a]), c.weight([5, 3])]), "no_c")


def elementwise_cases(c):
    x = c.input("x", [1, 4, 3, 3])
    v = c.input("v", [1, 8])
    c.output(c.node("Add", [x, c.weight([4, 1, 1])]), "bias_channel")
    c.output(c.node("Add", [c.weight([3]), x]), "bias_last")
    c.output(c.node("Add", [x, c.weight([1], values=[0.25])]), "add_scalar")
    c.output(c.node("Mul", [x, c.weight([], values=1.5)]), "mul_scalar")
    c.output(c.node("Mul", [c.weight([1, 1], values=[[-2.0]]), v]), "mul_one")
    c.output(c.node("Sum", [x, c.node("Sigmoid", [x]), c.node("Tanh", [x])]), "sum3")
    c.output(c.node("Sub", [x, c.node("ReduceMean", [x], axes=[1])]), "centered")


def movement_cases(c):
    x = c.input("x", [2, 6, 4])
    parts = c.node("Split", [x, c.ints([1, 2, 3])], n_out=3, axis=1)
    c.output(parts[2], "split_last")
    halves = c.node("Split", [x], n_out=2, axis=-1)
    c.output(c.node("Concat", [halves[1], halves[0]], axis=2), "swapped")
    many = c.node("Concat", [x, parts[0], parts[1], parts[2], x, c.node("Relu", [x])], axis=1)
    c.output(many, "concat6")
    c.output(c.node("Transpose", [x], perm=[2, 0, 1]), "transposed")
    c.output(c.node("Reshape", [x, c.ints([0, -1])]), "reshape_0_neg")
    c.output(c.node("Flatten", [x], axis=0), "flatten0")
    c.output(c.node("Unsqueeze", [c.node("Squeeze", [c.node("Slice", [x, c.ints([0]), c.ints([1]), c.ints([0])]),
                                                    c.ints([0])]), c.ints([2])]), "squeeze_unsqueeze")
    corner = c.node("Slice", [x, c.ints([0, 0, 0]), c.ints([1, 1, 1]), c.ints([0, 1, 2])])
    c.output(c.node("Relu", [c.node("Squeeze", [corner])]), "to_scalar")  # exported as Squeeze, not an empty shape
    c.output(c.node("Pad", [x, c.ints([0, 1, -1, 0, 2, 1])]), "pad_mixed")
    c.output(c.node("Slice", [x, c.ints([-3, 1]), c.ints([100, -1]), c.ints([1, 2])]), "slice_neg")
    c.output(c.node("Slice", [x, c.ints([0]), c.ints([6]), c.ints([1]), c.ints([2])]), "slice_step")


def plumbing_cases(c):
    """Shape arithmetic as PyTorch writes it, folded at import; outputs that are not operators."""
    x = c.input("x", [2, 3, 4])
    shape = c.node("Shape", [x])
    first = c.node("Gather", [shape, c.ints(0)], axis=0)
    target = c.node("Concat", [c.node("Unsqueeze", [first, c.ints([0])]), c.ints([-1])], axis=0)
    c.output(c.node("MatMul", [c.node("Reshape", [x, target]), c.weight([12, 5])]), "flat_matmul")
    c.declared["flat_matmul"] = [2, 5]
    c.output(c.node("MatMul", [x, c.weight([4, 5])]), "matmul_3d")
    c.output(c.node("MatMul", [x, c.weight([2, 4, 3])]), "matmul_batched")
    c.output(c.node("MatMul", [x, c.weight([1, 4, 3])]), "matmul_broadcast")
    c.output(x, None)                # a graph input as an output
    w = c.weight([3])
    c.outputs.append(w)              # a weight as an output
    r = c.node("Relu", [x])
    c.output(r, "relu_a")
    c.output(r, "relu_b")            # one tensor, two outputs


def linear_cases(c):
    """Linear layers as exporters write them: written back without copies of weights or reshapes."""
    x = c.input("x", [1, 6, 8])
    v = c.input("v", [4, 8])
    qkv = [c.node("Add", [c.node("MatMul", [x, c.weight([8, 8])]), c.weight([8])]) for _ in range(2)]
    qkv.append(c.node("Add", [c.weight([8]), c.node("MatMul", [x, c.weight([8, 8])])]))  # the bias first (torch)
    c.output(c.node("Add", [c.node("Add", [qkv[0], qkv[1]]), qkv[2]]), "qkv")  # one flattening, three products
    h = c.input("h", [2, 8])
    w = c.weight([4, 8])
    c.output(c.node("Gemm", [h, w, c.weight([4])], transB=1), "linear")
    c.output(c.node("Gemm", [h, w], transB=1), "linear_no_bias")
    c.output(c.node("MatMul", [h, c.node("Transpose", [c.node("Relu", [v])])]), "times_activation_t")
    c.output(c.node("Transpose", [w]), "weight_t")  # the weight's transpose, written as read (not folded)
    # a sum of two products of one row (1x1x8): the second a vector along the first's last axis,
    # which import may fold as the first's bias; folded or not, the Add is computed once
    r = c.input("r", [1, 1, 8])
    c.output(c.node("Add", [c.node("MatMul", [r, c.weight([8, 8])]), c.node("MatMul", [r, c.weight([8, 8])])]),
             "sum_of_products")
    # each node as read (the product of a transposed activation too), no reshapes; linear and
    # linear_no_bias share one IR product, and each Gemm computes it, as the model read did
    c.written_ops = {"Reshape": 0, "MatMul": 6, "Gemm": 2, "Transpose": 2}


CASES = [conv_cases, pool_cases, gemm_cases, elementwise_cases, movement_cases, plumbing_cases, linear_cases]


def write(out, cases):
    """Builds each (fn, case) pair's model, fn(case), into out/FN.onnx (models/opsets.py too)."""
    os.makedirs(out, exist_ok=True)
    for fn, c in cases:
        fn(c)
        path = os.path.join(out, fn.__name__ + ".onnx")
        onnx.save(c.model(), path)
        print(path)


def main():
    out = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)
    write(out, [(fn, Case(fn.__name__, 100 + i)) for i, fn in enumerate(CASES)])


if __name__ == "__main__":
    main()
