#!/usr/bin/python3
"""Writes the small models tests/regress/run_optimize.sh optimizes (committed; rerun this to
remake them): where a known rule must fire (two convolutions or two products of one input
whose results are concatenated, also 1x1 convolutions written with zero pads; relu on both
sides of a concat; SqueezeNet's fire module, whose 1x1 and 3x3 expands only equality saturation
merges) and where it must not (the convolutions at different strides; a model no rule improves).

    cd tests/regress/optimize && /usr/bin/python3 make_models.py

unsigned.db is `rulegen --ops relu,concat --depth 2 -o unsigned.db`; broken.db a copy with one
verified rule's text changed by hand to a false one (sqlite3: UPDATE rules SET text = ...), which
the proof before the search leaves out (and the numeric check catches under --unproved-rules).
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
rng = np.random.RandomState(5)


def w(name, *shape):
    return numpy_helper.from_array((rng.randn(*shape) * 0.3).astype(np.float32), name)


def save(name, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_models.py")
    m.ir_version = 8
    m = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, name + ".onnx")


def out(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


x = helper.make_tensor_value_info("x", F, [1, 8, 14, 14])
conv = lambda w_, o, s=1: helper.make_node("Conv", ["x", w_], [o], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                          strides=[s, s], name=o)
save("merge_convs", [conv("a", "ya"), conv("b", "yb"), helper.make_node("Concat", ["ya", "yb"], ["y"], axis=1)],
     [x], [out("y", [1, 32, 14, 14])], [w("a", 16, 8, 3, 3), w("b", 16, 8, 3, 3)])
save("stride_mismatch", [conv("a", "ya"), conv("b", "yb", 2)], [x],
     [out("ya", [1, 16, 14, 14]), out("yb", [1, 16, 7, 7])], [w("a", 16, 8, 3, 3), w("b", 16, 8, 3, 3)])

h = helper.make_tensor_value_info("h", F, [32, 64])
mm = lambda w_, o: helper.make_node("MatMul", ["h", w_], [o], name=o)
save("merge_matmuls", [mm("p", "yp"), mm("q", "yq"), helper.make_node("Concat", ["yp", "yq"], ["y"], axis=1)],
     [h], [out("y", [32, 96])], [w("p", 64, 48), w("q", 64, 48)])

u = helper.make_tensor_value_info("u", F, [1, 8, 14, 14])
save("relu_concat", [helper.make_node("Relu", ["x"], ["rx"]), helper.make_node("Relu", ["u"], ["ru"]),
                     helper.make_node("Concat", ["rx", "ru"], ["y"], axis=1)], [x, u], [out("y", [1, 16, 14, 14])], [])

save("no_rule", [helper.make_node("Softmax", ["h"], ["y"], axis=1)], [h], [out("y", [32, 64])], [])

pointwise = lambda w_, o: helper.make_node("Conv", ["x", w_], [o], kernel_shape=[1, 1], pads=[0, 0, 0, 0], name=o)
save("merge_pointwise", [pointwise("a", "ya"), pointwise("b", "yb"), helper.make_node("Concat", ["ya", "yb"], ["y"], axis=1)],
     [x], [out("y", [1, 32, 14, 14])], [w("a", 16, 8, 1, 1), w("b", 16, 8, 1, 1)])
expand = lambda k, o: [helper.make_node("Conv", ["x", "w" + o, "b" + o], ["c" + o], kernel_shape=[k, k],
                                        pads=[k // 2] * 4, name="c" + o), helper.make_node("Relu", ["c" + o], [o])]
save("fire", expand(1, "e1") + expand(3, "e3") + [helper.make_node("Concat", ["e1", "e3"], ["y"], axis=1)],
     [x], [out("y", [1, 32, 14, 14])], [w("we1", 16, 8, 1, 1), w("be1", 16), w("we3", 16, 8, 3, 3), w("be3", 16)])

# The issue-39 model: values reach the relu only above zero for inputs in [-1, 1), so a false
# rule about relu (relu x = x) agrees there; the numeric check must draw at other scales too.
xs = helper.make_tensor_value_info("x", F, [4, 8])
save("relu_tanh", [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["a"]),
                   helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Tanh", ["r"], ["y"])],
     [xs], [out("y", [4, 8])], [numpy_helper.from_array(np.full((8, 8), 0.05, np.float32), "w"),
                                numpy_helper.from_array(np.full((8,), 5, np.float32), "b")])
mm2 = lambda w_, o: helper.make_node("MatMul", ["e", w_], [o], name=o)
# A 10-row embedding: ids the check draws must be rows the table has.
ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [6])
save("embedding10", [helper.make_node("Gather", ["table", "ids"], ["e"], axis=0), mm2("p", "yp"), mm2("q", "yq"),
                     helper.make_node("Concat", ["yp", "yq"], ["y"], axis=1)],
     [ids], [out("y", [6, 32])], [w("table", 10, 16), w("p", 16, 16), w("q", 16, 16)])
# Ids that pass through an Add before the table: the check cannot bound them, and says so
# before the search (not after it).
one = numpy_helper.from_array(np.array([1], np.int64), "one")
save("embedding_add", [helper.make_node("Add", ["ids", "one"], ["ids1"]),
                       helper.make_node("Gather", ["table", "ids1"], ["e"], axis=0), mm2("p", "yp"), mm2("q", "yq"),
                       helper.make_node("Concat", ["yp", "yq"], ["y"], axis=1)],
     [ids], [out("y", [6, 32])], [one, w("table", 10, 16), w("p", 16, 16), w("q", 16, 16)])
# A merge that would need itself through an opaque node: conv-merge of two 1x1 convs of x pays
# (x read once), but the second conv's weights come from a Softmax (opaque) of the first's result,
# so the merged conv would read its own output. The searches must keep the original (the
# extraction once built that cycle, and the numeric check crashed evaluating it).
xc = helper.make_tensor_value_info("x", F, [1, 8, 112, 112])
i64 = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
save("opaque_cycle", [helper.make_node("Conv", ["x", "a"], ["ya"], kernel_shape=[1, 1], name="ya"),
                      helper.make_node("Softmax", ["ya"], ["t"], axis=3), helper.make_node("Slice", ["t", "st", "en"], ["ts"]),
                      helper.make_node("Reshape", ["ts", "sh"], ["w2"]),
                      helper.make_node("Conv", ["x", "w2"], ["yb"], kernel_shape=[1, 1], name="yb")],
     [xc], [out("yb", [1, 1, 112, 112])],
     [w("a", 1, 8, 1, 1), i64("st", [0, 0, 0, 0]), i64("en", [1, 1, 1, 8]), i64("sh", [1, 8, 1, 1])])
# Merge families (issue 43): products or convolutions of one input, each with its own consumer, that
# one wider product or convolution and a split can replace: 2, 3 and 4 branches; with a bias and
# relu, a bias alone, neither; the shared input on the left (columns merge) or the right (rows).
# merge_family.rules (rulegen's, see there) holds the steps; gpu-h100's costs favour the merge
# (a split is a view), cpu-default's do not (each part a copy).
hb = helper.make_tensor_value_info("h", F, [32, 64])


def branches(k, bias, act):
    nodes, inits, outs = [], [], []
    for i in range(k):
        y = "m%d" % i
        nodes.append(helper.make_node("MatMul", ["h", "W%d" % i], [y], name=y))
        inits.append(w("W%d" % i, 64, 48))
        if bias:
            nodes.append(helper.make_node("Add", [y, "B%d" % i], ["a%d" % i]))
            inits.append(w("B%d" % i, 48))
            y = "a%d" % i
        if act:
            nodes.append(helper.make_node("Relu", [y], ["r%d" % i]))
            y = "r%d" % i
        outs.append(out(y, [32, 48]))
    return nodes, [hb], outs, inits


save("merge_gemm2", *branches(2, True, True))
save("merge_gemm3", *branches(3, True, True))
save("merge_gemm4_bias", *branches(4, True, False))
save("merge_matmul3", *branches(3, False, False))
save("merge_rows2", [helper.make_node("MatMul", ["A%d" % i, "h"], ["y%d" % i], name="y%d" % i) for i in range(2)],
     [hb], [out("y%d" % i, [48, 64]) for i in range(2)], [w("A%d" % i, 48, 32) for i in range(2)])
biased_conv = lambda i, act: [helper.make_node("Conv", ["x", "K%d" % i, "C%d" % i], ["c%d" % i], kernel_shape=[3, 3],
                                               pads=[1, 1, 1, 1], name="c%d" % i)] + \
    ([helper.make_node("Relu", ["c%d" % i], ["r%d" % i])] if act else [])
save("merge_conv2", biased_conv(0, True) + biased_conv(1, True), [x], [out("r%d" % i, [1, 16, 14, 14]) for i in range(2)],
     [t for i in range(2) for t in (w("K%d" % i, 16, 8, 3, 3), w("C%d" % i, 16))])
save("merge_conv3_bias", biased_conv(0, False) + biased_conv(1, False) + biased_conv(2, False), [x],
     [out("c%d" % i, [1, 16, 14, 14]) for i in range(3)],
     [t for i in range(3) for t in (w("K%d" % i, 16, 8, 3, 3), w("C%d" % i, 16))])
# A transformer's Q, K and V: three MatMuls of a 3-D input, each with its bias Add (the bias first,
# as torch.onnx writes it, or second) and a relu on one. Import puts each bias on the flattened
# 2-D product (a Gemm's bias), so the merge family's steps merge all three under gpu-h100's costs;
# export writes MatMul and Add back on the 3-D tensors.
h3 = helper.make_tensor_value_info("h", F, [2, 16, 64])
qkv = [helper.make_node("MatMul", ["h", "W%d" % i], ["m%d" % i], name="m%d" % i) for i in range(3)]
qkv += [helper.make_node("Add", ["B0", "m0"], ["q"]), helper.make_node("Add", ["m1", "B1"], ["k"]),
        helper.make_node("Add", ["m2", "B2"], ["a2"]), helper.make_node("Relu", ["a2"], ["v"])]
save("merge_linear3d", qkv, [h3], [out(n, [2, 16, 48]) for n in ("q", "k", "v")],
     [w("W%d" % i, 64, 48) for i in range(3)] + [w("B%d" % i, 48) for i in range(3)])
# Where the merge must not be taken: two products of one input, one read by a bias Add and a
# relu. Those fuse into their product (a Gemm's epilogue) as the model is; merged, they would be
# nodes of their own over one part of the split, which cost more than the product the merge saves.
save("merge_one_biased", [helper.make_node("MatMul", ["h", "W%d" % i], ["m%d" % i], name="m%d" % i) for i in range(2)] +
     [helper.make_node("Add", ["m0", "B0"], ["a0"]), helper.make_node("Relu", ["a0"], ["r0"])], [hb],
     [out("r0", [32, 48]), out("m1", [32, 48])], [w("W%d" % i, 64, 48) for i in range(2)] + [w("B0", 48)])
# Two products by one number (smul_merge.rules: TASO-style merge of the two through a concat):
# where the number is an input, the outputs share a value the model computes and the rule matches;
# where it is a constant, they share only that constant, unrelated places, and it does not.
xs = [helper.make_tensor_value_info(n, F, [2, 4, 5, 5]) for n in ("x", "y")]
scaled = [helper.make_node("Mul", [n, "s"], ["o" + n]) for n in ("x", "y")]
save("scaled_by_input", scaled, xs + [helper.make_tensor_value_info("s", F, [])],
     [out("ox", [2, 4, 5, 5]), out("oy", [2, 4, 5, 5])], [])
save("scaled_by_constant", scaled, xs, [out("ox", [2, 4, 5, 5]), out("oy", [2, 4, 5, 5])],
     [numpy_helper.from_array(np.array(0.5, np.float32), "s")])
