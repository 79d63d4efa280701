#!/usr/bin/python3
"""Writes the bad ONNX models of tests/regress/bad/model_cases.txt (committed; rerun this to
remake them): each is a small model broken in one way graphopt must refuse clearly.

    cd tests/regress/bad && /usr/bin/python3 make_bad_models.py
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_bad_models.py")
    m.ir_version = 8
    onnx.save(m, "model_%s.onnx" % name)


x = helper.make_tensor_value_info("x", F, [1, 4])
y = helper.make_tensor_value_info("y", F, [1, 4])
relu = helper.make_node("Relu", ["x"], ["y"], name="relu")

save("good", [relu], [x], [y])
with open("model_good.onnx", "rb") as f:
    data = f.read()
with open("model_truncated.onnx", "wb") as f:
    f.write(data[: len(data) // 2])
with open("model_not_onnx.onnx", "w") as f:
    f.write("this is not an ONNX model, only text\n")
open("model_empty.onnx", "w").close()
save("missing_producer", [helper.make_node("Add", ["x", "nobody"], ["y"], name="add")], [x], [y])
# a Relu that names two outputs (found by fuzz_onnx): it makes one, and the second is read
save("missing_output", [helper.make_node("Relu", ["x"], ["r", "t"], name="two_outs"),
                        helper.make_node("Softmax", ["t"], ["y"], name="reader")], [x], [y])
save("cycle", [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
               helper.make_node("Relu", ["a"], ["b"], name="second"),
               helper.make_node("Identity", ["a"], ["y"], name="out")], [x], [y])
save("dynamic_dim", [relu], [helper.make_tensor_value_info("x", F, ["batch", 4])], [y])
save("unknown_dim", [relu], [helper.make_tensor_value_info("x", F, [None, 4])], [y])
branch = helper.make_graph([helper.make_node("Identity", ["x"], ["z"])], "branch", [],
                           [helper.make_tensor_value_info("z", F, [1, 4])])
cond = numpy_helper.from_array(np.array(True), "cond")
save("control_flow", [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=branch, else_branch=branch)],
     [x], [y], [cond])
save("weight_double", [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x], [y],
     [numpy_helper.from_array(np.ones([1, 4], np.float64), "w")])
# opset 5 reads Relu's first version, which onnxruntime does not implement (import_runtime.c)
save("old_opset", [relu], [x], [y], opset=5)
save("zero_opset", [relu], [x], [y], opset=0)  # graphopt reads opsets 1 to 21
save("sin_opset6", [helper.make_node("Sin", ["x"], ["y"], name="sin")], [x], [y], opset=6)  # Sin is from 7
save("new_opset", [relu], [x], [y], opset=22)
# opset 4: Reshape's first version (the shape as an attribute), which onnxruntime runs: read in it
save("opset4_reshape", [helper.make_node("Reshape", ["x"], ["y"], name="reshape", shape=[4, 1])], [x],
     [helper.make_tensor_value_info("y", F, [4, 1])], opset=4)
# kernels onnxruntime's CPU provider lacks (import_runtime.c): Max of int16
i16 = helper.make_tensor_value_info("a", TensorProto.INT16, [1, 4])
save("max_int16", [helper.make_node("Max", ["a", "a"], ["m"], name="max")], [i16],
     [helper.make_tensor_value_info("m", TensorProto.INT16, [1, 4])])
save("produced_twice", [relu, helper.make_node("Sigmoid", ["x"], ["y"], name="again")], [x], [y])
save("shape_mismatch", [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [x], [y],
     [numpy_helper.from_array(np.ones([3, 4], np.float32), "w")])
save("unknown_op", [helper.make_node("FancyOp", ["x"], ["y"], name="fancy", domain="com.example")], [x],
     [helper.make_tensor_value_info("y", F, None)])
save("no_outputs_declared", [helper.make_node("Relu", ["x"], ["t"], name="relu")], [x],
     [helper.make_tensor_value_info("missing", F, [1, 4])])
# a Pad whose amounts are INT64_MIN (found by fuzz_onnx: the importer's size sum overflowed)
pads = numpy_helper.from_array(np.array([-2**63, 0, -2**63, 0], np.int64), "pads")
save("pad_huge_negative", [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")], [x], [y], [pads])
# a node that names no output (found by fuzz_onnx: a constant Concat was folded into nothing)
save("no_output", [relu, helper.make_node("Concat", ["x", "x"], [], name="outless", axis=0)], [x], [y])
# a Max whose second operand is left out (found by fuzz_onnx: its evaluation read the missing values)
save("omitted_operand", [helper.make_node("Max", ["x", ""], ["y"], name="max")], [x], [y])
# a LayerNormalization whose scale is longer than the normalized axis (found by fuzz_onnx: its
# evaluation read past the scale)
scale = numpy_helper.from_array(np.ones([8], np.float32), "scale")
save("layernorm_scale", [helper.make_node("LayerNormalization", ["x", "scale"], ["y"], name="ln")], [x], [y], [scale],
     opset=17)
# a Split whose sizes sum past int64 (found by fuzz_onnx: the importer's running total overflowed)
sizes = numpy_helper.from_array(np.array([3, 2**63 - 1], np.int64), "sizes")
save("split_huge", [helper.make_node("Split", ["x", "sizes"], ["a", "b"], name="split", axis=1)], [x],
     [helper.make_tensor_value_info("a", F, None)], [sizes])
# an opaque node without a name whose operands do not broadcast: messages name it by its index
save("opaque_unnamed", [relu, helper.make_node("Div", ["y", "w"], ["z"])], [x],
     [helper.make_tensor_value_info("z", F, [1, 4])], [numpy_helper.from_array(np.ones([3], np.float32), "w")])
# a static size 0 (an empty tensor), in an input and in an initializer
save("zero_dim", [relu], [helper.make_tensor_value_info("x", F, [1, 0])], [y])
save("zero_weight", [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x], [y],
     [numpy_helper.from_array(np.ones([1, 0], np.float32), "w")])
# Relu of int64 (ONNX allows it from opset 14; graphopt reads Relu of float only)
save("relu_int64", [relu], [helper.make_tensor_value_info("x", TensorProto.INT64, [1, 4])],
     [helper.make_tensor_value_info("y", TensorProto.INT64, None)], opset=14)
# a Split with a negative size, and a Transpose whose perm repeats an axis
sizes = numpy_helper.from_array(np.array([-1, 5], np.int64), "sizes")
save("split_negative", [helper.make_node("Split", ["x", "sizes"], ["a", "b"], name="split", axis=1)], [x],
     [helper.make_tensor_value_info("a", F, None)], [sizes])
save("transpose_perm", [helper.make_node("Transpose", ["x"], ["y"], name="tr", perm=[0, 0])], [x],
     [helper.make_tensor_value_info("y", F, None)])
# an If whose branch reads a tensor nobody makes, and one whose branch reads the If's own output
reads_nobody = helper.make_graph([helper.make_node("Identity", ["nobody"], ["z"])], "branch", [],
                                 [helper.make_tensor_value_info("z", F, [1, 4])])
save("subgraph_missing", [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=reads_nobody,
                                           else_branch=branch)], [x], [y], [cond])
reads_itself = helper.make_graph([helper.make_node("Identity", ["y"], ["z"])], "branch", [],
                                 [helper.make_tensor_value_info("z", F, [1, 4])])
save("subgraph_cycle", [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=reads_itself,
                                         else_branch=branch)], [x], [y], [cond])
# a weight whose data does not fill its shape
short = numpy_helper.from_array(np.ones([1, 3], np.float32), "w")
short.dims[:] = [1, 4]
save("weight_short", [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [x], [y], [short])
# a weight kept as read (int32: not modelled) whose shape is far past its data, and one of a
# negative size: malformed whatever the element type
huge = numpy_helper.from_array(np.ones([4, 3], np.int32), "w")
huge.dims[:] = [1 << 40, 3]
save("opaque_weight_huge", [helper.make_node("Add", ["i", "w"], ["y"], name="add")],
     [helper.make_tensor_value_info("i", TensorProto.INT32, [4, 3])],
     [helper.make_tensor_value_info("y", TensorProto.INT32, None)], [huge])
negative = numpy_helper.from_array(np.ones([4, 3], np.int32), "w")
negative.dims[:] = [-4, 3]
save("opaque_weight_negative", [helper.make_node("Add", ["i", "w"], ["y"], name="add")],
     [helper.make_tensor_value_info("i", TensorProto.INT32, [4, 3])],
     [helper.make_tensor_value_info("y", TensorProto.INT32, None)], [negative])
