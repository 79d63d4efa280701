#!/usr/bin/python3
"""Writes the model tests/regress/run_stop.sh stops searches on (committed; rerun this to remake
it): two convolutions of one input concatenated, which stop.rules merges into one (a clear
gain, found at once), beside a sum of twelve inputs, which commutativity and associativity
rewrite without end (12! orders times the ways to bracket them; equality saturation's e-graph
of them grows as 3^12), so that only a stop ends a search with no budget or time limit.

    cd tests/regress/stop && /usr/bin/python3 make_model.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
rng = np.random.RandomState(7)


def w(name, *shape):
    return numpy_helper.from_array((rng.randn(*shape) * 0.3).astype(np.float32), name)


x = helper.make_tensor_value_info("x", F, [1, 8, 14, 14])
conv = lambda w_, o: helper.make_node("Conv", ["x", w_], [o], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name=o)
nodes = [conv("a", "ya"), conv("b", "yb"), helper.make_node("Concat", ["ya", "yb"], ["y"], axis=1)]
terms = [helper.make_tensor_value_info("t%d" % i, F, [1, 4]) for i in range(12)]
acc = "t0"
for i in range(1, 12):
    nodes.append(helper.make_node("Add", [acc, "t%d" % i], ["s%d" % i], name="s%d" % i))
    acc = "s%d" % i
g = helper.make_graph(nodes, "stop", [x] + terms,
                      [helper.make_tensor_value_info("y", F, [1, 32, 14, 14]),
                       helper.make_tensor_value_info(acc, F, [1, 4])],
                      [w("a", 16, 8, 3, 3), w("b", 16, 8, 3, 3)])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_model.py")
m.ir_version = 8
m = onnx.shape_inference.infer_shapes(m, strict_mode=True)
onnx.checker.check_model(m, full_check=True)
onnx.save(m, "stop.onnx")
