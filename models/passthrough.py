#!/usr/bin/python3
"""What graphopt does not model passes through untouched (issue 41, items 1, 4 and 7).

One small model per class of what onnxruntime runs and graphopt keeps as read: tensors of
element types other than float and int64 (int32, uint8, bool, double, float16, string), a
size-0 tensor, a scalar, a rank-7 tensor, sparse initializers, com.microsoft operators, an
operator whose output shape graphopt cannot know, nodes with several outputs, If and Loop nodes
whose bodies read the graph's values, sequences, model metadata and model-local functions; and
the idioms exporters write: initializers listed as inputs, nodes out of order, duplicate and
empty node names, a graph output that is an input, Constant nodes, Identity chains, unused
initializers. Each model holds a float part of the rule vocabulary too.

For each: `graphopt convert` must write a model that passes onnx.checker (where the original
does), keeps the original's inputs, outputs and opset imports (and, for the metadata case, its
metadata, doc strings, version, domain, producer, value_info and functions), and runs in
onnxruntime with outputs bitwise equal to the original's on the same inputs. Where graphopt
evaluates the whole model, `graphopt optimize --rules RULES` must rewrite it (the float part)
and agree with onnxruntime within 1e-4; where it does not, optimize must do the same, saying
that it checked each rewritten region alone and naming what it cannot evaluate.

    /usr/bin/python3 models/passthrough.py --graphopt build/tools/graphopt --work DIR --rules RULES
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F = T.FLOAT
OPSET = 17


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def init(name, values, dtype):
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def float_part(nodes, inputs, outputs, prefix="f"):
    """A float part graphopt models: Concat(Relu(a), Relu(b)), which concat.rules' relu-concat
    rewrites into one Relu."""
    a, b = prefix + "_a", prefix + "_b"
    inputs += [vi(a, F, [1, 4]), vi(b, F, [1, 4])]
    nodes += [helper.make_node("Relu", [a], [prefix + "_ra"], name=prefix + "_relu_a"),
              helper.make_node("Relu", [b], [prefix + "_rb"], name=prefix + "_relu_b"),
              helper.make_node("Concat", [prefix + "_ra", prefix + "_rb"], [prefix + "_cat"], name=prefix + "_concat",
                               axis=1)]
    outputs.append(vi(prefix + "_cat", F, [1, 8]))


def model(name, nodes, inputs, outputs, inits=(), opsets=(("", OPSET),), ir=8, **kw):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits), sparse_initializer=kw.pop("sparse", None),
                          value_info=kw.pop("value_info", None))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets], producer_name="passthrough.py",
                          **kw)
    m.ir_version = ir
    return m


# ---- element types ----

def int32_case():
    nodes, inputs, outputs = [], [vi("i", T.INT32, [2, 3])], [vi("i_out", T.INT32, [2, 3])]
    nodes += [helper.make_node("Add", ["i", "w32"], ["i_sum"], name="add32"),
              helper.make_node("Mul", ["i_sum", "i"], ["i_out"], name="mul32")]
    float_part(nodes, inputs, outputs)
    return model("int32", nodes, inputs, outputs, [init("w32", [[1, -2, 3], [4, 5, -6]], np.int32)])


def concat_cast(name, elem, row, dtype):
    """An input of elem concatenated with an initializer row of it, and cast to float for a Relu."""
    nodes, inputs = [], [vi("x", elem, [2, 3])]
    outputs = [vi("x_cat", elem, [3, 3]), vi("x_relu", F, [2, 3])]
    nodes += [helper.make_node("Concat", ["x", "w"], ["x_cat"], name="cat", axis=0),
              helper.make_node("Cast", ["x"], ["x_f"], name="cast", to=F),
              helper.make_node("Relu", ["x_f"], ["x_relu"], name="relu")]
    float_part(nodes, inputs, outputs)
    return model(name, nodes, inputs, outputs, [init("w", [row], dtype)])


def uint8_case():
    return concat_cast("uint8", T.UINT8, [0, 128, 255], np.uint8)


def bool_case():
    nodes, inputs = [], [vi("x", F, [2, 3]), vi("flag", T.BOOL, [2, 3])]
    outputs = [vi("b_and", T.BOOL, [2, 3]), vi("b_where", F, [2, 3])]
    nodes += [helper.make_node("Greater", ["x", "zero"], ["pos"], name="greater"),
              helper.make_node("And", ["pos", "wb"], ["b_and0"], name="and"),
              helper.make_node("Xor", ["b_and0", "flag"], ["b_and"], name="xor"),
              helper.make_node("Where", ["b_and", "x", "zero"], ["b_where"], name="where")]
    float_part(nodes, inputs, outputs)
    return model("bool", nodes, inputs, outputs,
                 [init("zero", 0.0, np.float32), init("wb", [[True, False, True], [False, True, True]], np.bool_)])


def double_case():
    nodes, inputs = [], [vi("d", T.DOUBLE, [2, 3])]
    outputs = [vi("d_sum", T.DOUBLE, [2, 3]), vi("d_relu", F, [2, 3])]
    nodes += [helper.make_node("Add", ["d", "wd"], ["d_sum"], name="add64"),
              helper.make_node("Cast", ["d_sum"], ["d_f"], name="cast64", to=F),
              helper.make_node("Relu", ["d_f"], ["d_relu"], name="relu64")]
    float_part(nodes, inputs, outputs)
    return model("double", nodes, inputs, outputs, [init("wd", [[0.5, -1e-300, 1e300], [3, 4, 5]], np.float64)])


def float16_case():
    return concat_cast("float16", T.FLOAT16, [0.5, -2, 65504], np.float16)


def string_case():
    nodes, inputs, outputs = [], [], [vi("s_out", T.STRING, [2])]
    nodes.append(helper.make_node("Identity", ["ws"], ["s_out"], name="strings"))
    float_part(nodes, inputs, outputs)
    return model("string", nodes, inputs, outputs, [helper.make_tensor("ws", T.STRING, [2], [b"graph", b"opt"])])


# ---- shapes ----

def zero_size_case():
    nodes, inputs = [], [vi("x", F, [1, 4]), vi("empty_in", F, [0, 4])]
    outputs = [vi("grown", F, [1, 4]), vi("empty_out", F, [0, 4]), vi("sliced", F, [1, 0])]
    nodes += [helper.make_node("Concat", ["x", "w_empty", "empty_in"], ["grown"], name="cat_empty", axis=0),
              helper.make_node("Relu", ["empty_in"], ["empty_out"], name="relu_empty"),
              helper.make_node("Slice", ["x", "s0", "s0", "s1"], ["sliced"], name="slice_empty")]
    float_part(nodes, inputs, outputs)
    return model("zero_size", nodes, inputs, outputs,
                 [init("w_empty", np.zeros([0, 4]), np.float32), init("s0", [2], np.int64), init("s1", [1], np.int64)])


def scalar_case():
    nodes, inputs = [], [vi("x", F, [1, 4]), vi("s", F, [])]
    outputs = [vi("scaled", F, [1, 4]), vi("k_out", T.INT64, [])]
    nodes += [helper.make_node("Mul", ["x", "s"], ["scaled0"], name="mul_scalar"),
              helper.make_node("Add", ["scaled0", "half"], ["scaled"], name="add_scalar"),
              helper.make_node("Identity", ["k"], ["k_out"], name="k_identity")]
    float_part(nodes, inputs, outputs)
    return model("scalar", nodes, inputs, outputs, [init("half", 0.5, np.float32), init("k", 7, np.int64)])


def rank7_case():
    shape = [1, 2, 1, 2, 1, 2, 1]
    nodes, inputs = [], [vi("r", F, shape)]
    outputs = [vi("r_relu", F, shape), vi("r_flat", F, [8])]
    nodes += [helper.make_node("Relu", ["r"], ["r_relu"], name="relu7"),
              helper.make_node("Reshape", ["r_relu", "flat"], ["r_flat"], name="flatten7")]
    float_part(nodes, inputs, outputs)
    return model("rank7", nodes, inputs, outputs, [init("flat", [8], np.int64)])


def sparse_case():
    nodes, inputs, outputs = [], [vi("x", F, [2, 3])], [vi("sp_sum", F, [2, 3])]
    nodes.append(helper.make_node("Add", ["x", "sp"], ["sp_sum"], name="add_sparse"))
    values = numpy_helper.from_array(np.array([1.5, -2.5], np.float32), "sp")
    indices = numpy_helper.from_array(np.array([1, 5], np.int64), "sp_indices")
    sparse = helper.make_sparse_tensor(values, indices, [2, 3])
    float_part(nodes, inputs, outputs)
    return model("sparse", nodes, inputs, outputs, sparse=[sparse])


# ---- operators ----

def microsoft_case():
    nodes, inputs = [], [vi("x", F, [2, 4])]
    outputs = [vi("gelu_relu", F, [2, 4]), vi("fused", F, [2, 2])]
    nodes += [helper.make_node("Gelu", ["x"], ["g"], name="gelu", domain="com.microsoft"),
              helper.make_node("Relu", ["g"], ["gelu_relu"], name="after_gelu"),  # typed: g is declared
              helper.make_node("FusedMatMul", ["x", "wm"], ["fm"], name="fused_mm", domain="com.microsoft", alpha=0.5,
                               transB=1),
              helper.make_node("Relu", ["fm"], ["fused"], name="after_fused")]   # reads an undeclared value
    float_part(nodes, inputs, outputs)
    return model("microsoft", nodes, inputs, outputs, [init("wm", np.arange(8).reshape(2, 4) / 8, np.float32)],
                 opsets=(("", OPSET), ("com.microsoft", 1)), value_info=[vi("g", F, [2, 4])])


def unknown_shape_case():
    nodes, inputs = [], [vi("x", F, [2, 3])]
    outputs = [vi("where_pos", T.INT64, [2, None]), vi("topk_v", F, [2, 2]), vi("topk_i", T.INT64, [2, 2])]
    nodes += [helper.make_node("Greater", ["x", "zero"], ["pos"], name="greater"),
              helper.make_node("NonZero", ["pos"], ["where_pos"], name="nonzero"),  # a shape from the data
              helper.make_node("TopK", ["x", "two"], ["topk_v", "topk_i"], name="topk", axis=1)]  # two outputs
    float_part(nodes, inputs, outputs)
    return model("unknown_shape", nodes, inputs, outputs, [init("zero", 0.0, np.float32), init("two", [2], np.int64)])


def multi_output_case():
    nodes, inputs = [], [vi("x", F, [1, 1, 4, 4]), vi("b", F, [2, 3, 2, 2])]
    outputs = [vi("pooled", F, [1, 1, 2, 2]), vi("indices", T.INT64, [1, 1, 2, 2]), vi("first", F, [1, 1, 4, 2]),
               vi("kept", F, [1, 1, 4, 4]), vi("mask", T.BOOL, [1, 1, 4, 4]),
               vi("bn", F, [2, 3, 2, 2]), vi("running_mean", F, [3]), vi("running_var", F, [3])]
    stats = [init(n, v, np.float32) for n, v in (("gamma", [1, 2, 3]), ("beta", [0, 1, 0]), ("mean", [0, 0, 0]),
                                                   ("var", [1, 1, 1]))]
    nodes += [helper.make_node("MaxPool", ["x"], ["pooled", "indices"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
              helper.make_node("Split", ["x", "halves"], ["first", "second"], name="split", axis=3),  # one read
              helper.make_node("Dropout", ["x"], ["kept", "mask"], name="dropout"),
              helper.make_node("BatchNormalization", ["b", "gamma", "beta", "mean", "var"],
                               ["bn", "running_mean", "running_var"], name="bn_training", training_mode=1)]
    float_part(nodes, inputs, outputs)
    return model("multi_output", nodes, inputs, outputs, [init("halves", [2, 2], np.int64)] + stats)


def if_case():
    nodes, inputs = [], [vi("x", F, [1, 4]), vi("cond", T.BOOL, [])]
    outputs = [vi("chosen", F, [1, 4])]
    # both branches read the graph's values by name: t (a Relu's output, which export renames
    # unless it keeps the name) and w (an initializer)
    then_g = helper.make_graph([helper.make_node("Add", ["t", "w"], ["then_out"])], "then", [],
                               [vi("then_out", F, [1, 4])])
    else_g = helper.make_graph([helper.make_node("Sub", ["x", "t"], ["else_out"])], "else", [],
                               [vi("else_out", F, [1, 4])])
    nodes += [helper.make_node("Relu", ["x"], ["t"], name="relu_t"),
              helper.make_node("If", ["cond"], ["chosen"], name="if", then_branch=then_g, else_branch=else_g)]
    float_part(nodes, inputs, outputs)
    return model("if", nodes, inputs, outputs, [init("w", [[1, 2, 3, 4]], np.float32)])


def loop_case():
    nodes, inputs = [], [vi("x", F, [1, 4])]
    outputs = [vi("final", F, [1, 4]), vi("steps", F, [3, 1, 4])]
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Mul", ["v_in", "scale"], ["v_scaled"]),   # scale: the graph's initializer
         helper.make_node("Add", ["v_scaled", "t"], ["v_out"]),      # t: a Tanh's output outside
         helper.make_node("Identity", ["v_out"], ["step"])],
        "body", [vi("iter", T.INT64, []), vi("cond_in", T.BOOL, []), vi("v_in", F, [1, 4])],
        [vi("cond_out", T.BOOL, []), vi("v_out", F, [1, 4]), vi("step", F, [1, 4])])
    nodes += [helper.make_node("Tanh", ["x"], ["t"], name="tanh_t"),
              helper.make_node("Loop", ["trips", "go", "x"], ["final", "steps"], name="loop", body=body)]
    float_part(nodes, inputs, outputs)
    return model("loop", nodes, inputs, outputs,
                 [init("trips", 3, np.int64), init("go", True, np.bool_), init("scale", 0.5, np.float32)])


def sequence_case():
    nodes, inputs = [], [vi("x", F, [1, 4]), vi("y", F, [1, 4])]
    outputs = [vi("seq_at", F, [1, 4]), vi("seq_cat", F, [2, 4])]  # onnxruntime-node returns no sequence
    nodes += [helper.make_node("SequenceConstruct", ["x", "y"], ["seq"], name="construct"),
              helper.make_node("SequenceAt", ["seq", "one"], ["seq_at"], name="at"),
              helper.make_node("ConcatFromSequence", ["seq"], ["seq_cat"], name="concat_seq", axis=0)]
    float_part(nodes, inputs, outputs)
    return model("sequence", nodes, inputs, outputs, [init("one", 1, np.int64)])


def metadata_case():
    nodes, inputs, outputs = [], [vi("x", F, [1, 4])], [vi("local", F, [1, 4])]
    fn = helper.make_function("local.ops", "LocalSoftplus", ["X"], ["Y"],
                              [helper.make_node("Softplus", ["X"], ["Y"])], [helper.make_opsetid("", OPSET)],
                              doc_string="a model-local function")
    nodes += [helper.make_node("LocalSoftplus", ["x"], ["soft"], name="call_local", domain="local.ops",
                               doc_string="calls the model's own function"),
              helper.make_node("Softsign", ["soft"], ["local"], name="softsign")]
    float_part(nodes, inputs, outputs)
    m = model("metadata", nodes, inputs, outputs, opsets=(("", OPSET), ("local.ops", 1)), functions=[fn],
              doc_string="a model with everything around its graph", model_version=42, domain="org.example.graphopt",
              producer_version="9.9", value_info=[vi("soft", F, [1, 4])])
    m.graph.doc_string = "the graph's own doc string"
    helper.set_model_props(m, {"author": "passthrough.py", "license": "MIT"})
    return m


# ---- exporters' idioms (graphopt evaluates these whole) ----

def initializer_input_case():
    nodes, inputs, outputs = [], [vi("x", F, [1, 4]), vi("w_in", F, [4, 4]), vi("unused_in", F, [2])], []
    outputs.append(vi("mm", F, [1, 4]))
    nodes.append(helper.make_node("MatMul", ["x", "w_in"], ["mm"], name="matmul"))
    float_part(nodes, inputs, outputs)
    return model("initializer_input", nodes, inputs, outputs,
                 [init("w_in", np.eye(4) * 2, np.float32), init("unused_in", [1, 2], np.float32)])


def ir3_case():
    """IR version 3 (opset 8): every initializer is also a graph input, and so must be those graphopt
    writes anew (the shape of the Reshape a Squeeze becomes)."""
    nodes, inputs, outputs = [], [vi("x", F, [1, 4]), vi("s", F, [1, 4, 1]), vi("w3", F, [4, 4])], []
    nodes += [helper.make_node("MatMul", ["x", "w3"], ["mm"], name="matmul"),
              helper.make_node("Squeeze", ["s"], ["sq"], name="squeeze", axes=[2])]
    outputs += [vi("mm", F, [1, 4]), vi("sq", F, [1, 4])]
    float_part(nodes, inputs, outputs)
    return model("ir3", nodes, inputs, outputs, [init("w3", np.eye(4) * 3, np.float32)], opsets=(("", 8),), ir=3)


def output_twice_case():
    """A graph output listed twice (onnxruntime runs it: two outputs of one value), the value a
    rewrite makes."""
    nodes, inputs, outputs = [], [], []
    float_part(nodes, inputs, outputs)
    outputs.append(vi("f_cat", F, [1, 8]))
    return model("output_twice", nodes, inputs, outputs)


def out_of_order_case():
    nodes, inputs, outputs = [], [], []
    float_part(nodes, inputs, outputs)
    inputs.append(vi("x", F, [1, 4]))
    outputs.append(vi("late", F, [1, 4]))
    nodes += [helper.make_node("Tanh", ["mid"], ["late"], name="second"),
              helper.make_node("Sigmoid", ["x"], ["mid"], name="first")]
    nodes.reverse()  # every reader before what it reads
    return model("out_of_order", nodes, inputs, outputs)


def node_names_case():
    nodes, inputs, outputs = [], [vi("x", F, [1, 4])], [vi("n_elu", F, [1, 4]), vi("n_soft", F, [1, 4])]
    nodes += [helper.make_node("Relu", ["x"], ["n1"], name="dup"),
              helper.make_node("Tanh", ["n1"], ["n2"], name="dup"),
              helper.make_node("Softmax", ["n2"], ["n_soft"], name="dup"),  # opaque, written as read
              helper.make_node("Sigmoid", ["n2"], ["n3"], name=""),
              helper.make_node("Softplus", ["n3"], ["n_out"]),             # no name at all
              helper.make_node("Elu", ["n_out"], ["n_elu"], name="dup_2")]  # unique: keeps its name
    float_part(nodes, inputs, outputs)
    return model("node_names", nodes, inputs, outputs)


def output_is_input_case():
    nodes, inputs = [], [vi("x", F, [1, 4]), vi("z", F, [1, 4])]
    outputs = [vi("x", F, [1, 4]), vi("relu_x", F, [1, 4]), vi("z", F, [1, 4])]
    nodes.append(helper.make_node("Relu", ["x"], ["relu_x"], name="relu"))
    float_part(nodes, inputs, outputs)
    return model("output_is_input", nodes, inputs, outputs)


def constants_case():
    nodes, inputs, outputs = [], [vi("x", F, [1, 4])], [vi("c_out", F, [1, 4]), vi("chain_out", F, [1, 4])]
    nodes += [helper.make_node("Constant", [], ["c"], name="const", value=numpy_helper.from_array(
                  np.array([[1, 2, 3, 4]], np.float32), "c_value")),
              helper.make_node("Constant", [], ["k"], name="const_float", value_float=0.25),
              helper.make_node("Add", ["x", "c"], ["c_sum"], name="add_const"),
              helper.make_node("Mul", ["c_sum", "k"], ["c_out"], name="mul_const"),
              helper.make_node("Identity", ["x"], ["id1"], name="id1"),
              helper.make_node("Identity", ["id1"], ["id2"], name="id2"),
              helper.make_node("Identity", ["id2"], ["chain_out"], name="id3")]
    float_part(nodes, inputs, outputs)
    return model("constants", nodes, inputs, outputs,
                 [init("never_read", np.ones([3, 3]), np.float32), init("never_read_i32", [1, 2], np.int32)])


def as_read_case():
    """Nodes of the rule vocabulary no rewrite touches, as exporters write them: names and doc
    strings, a Conv with an empty bias, a BatchNormalization after a Conv (folded into it in
    graphopt's IR), Clip with an omitted min, Concat on a
    negative axis, a MatMul with its bias Add and a Gemm of the same product, value_info, and outputs declared with dim_params although the inputs
    are concrete. Written as read, onnxruntime fuses them as it did: bitwise equal outputs."""
    x = vi("img", F, [1, 3, 8, 8])
    nodes = [helper.make_node("Conv", ["img", "w1", ""], ["c1"], name="conv_no_bias", pads=[1, 1, 1, 1],
                              doc_string="exported without a bias"),
             helper.make_node("Conv", ["img", "w2", "b2"], ["c2"], name="conv_bias", pads=[1, 1, 1, 1]),
             helper.make_node("Clip", ["c1", "", "hi"], ["k1"], name="clip_max_only"),
             helper.make_node("Relu", ["k1"], ["r1"], name="relu1"),
             helper.make_node("BatchNormalization", ["c2", "bn_s", "bn_b", "bn_m", "bn_v"], ["n2"], name="bn"),
             helper.make_node("Relu", ["n2"], ["r2"], name="relu2"),
             helper.make_node("Concat", ["r1", "r2"], ["feat"], name="concat_neg", axis=-3),
             helper.make_node("Flatten", ["feat"], ["flat"], name="flatten"),
             helper.make_node("MatMul", ["flat", "wl"], ["mm"], name="mm1", doc_string="the classifier"),
             helper.make_node("Add", ["mm", "bl"], ["logits"], name="mm1_bias"),
             # the same product under a Gemm's alpha and beta (one IR product for both)
             helper.make_node("Gemm", ["flat", "wl", "bl"], ["scaled"], name="gemm", alpha=0.3, beta=1.7,
                              doc_string="shares mm1's product")]
    rng = np.random.default_rng(5)
    inits = [init("w1", rng.standard_normal([4, 3, 3, 3]), np.float32), init("w2", rng.standard_normal([4, 3, 3, 3]),
             np.float32), init("b2", rng.standard_normal([4]), np.float32), init("hi", 0.5, np.float32),
             init("wl", rng.standard_normal([512, 10]), np.float32), init("bl", rng.standard_normal([10]), np.float32)]
    inits += [init("bn_" + k, rng.uniform(0.5, 1.5, [4]), np.float32) for k in "sbmv"]
    inputs, outputs = [x], [helper.make_tensor_value_info("logits", F, ["batch", 10]), vi("scaled", F, [1, 10])]
    float_part(nodes, inputs, outputs)
    value_info = [vi("c1", F, [1, 4, 8, 8]), vi("feat", F, [1, 8, 8, 8]), vi("mm", F, [1, 10])]
    return model("as_read", nodes, inputs, outputs, inits, value_info=value_info)


def bn_opset9_case():
    """A Conv and a BatchNormalization at opset 9, which lists its four optional outputs empty as
    exporters of that time wrote it: written as read, as the two nodes."""
    rng = np.random.default_rng(9)
    nodes = [helper.make_node("Conv", ["img", "w"], ["c"], name="conv"),
             helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["n", "", "", "", ""], name="bn"),
             helper.make_node("Relu", ["n"], ["y"], name="relu")]
    inits = [init("w", rng.standard_normal([4, 3, 3, 3]), np.float32)]
    inits += [init(k, rng.uniform(0.5, 1.5, [4]), np.float32) for k in "sbmv"]
    inputs, outputs = [vi("img", F, [1, 3, 8, 8])], [vi("y", F, [1, 4, 6, 6])]
    float_part(nodes, inputs, outputs)
    return model("bn_opset9", nodes, inputs, outputs, inits, opsets=(("", 9),))


# name -> (builder, optimize: "ok" where graphopt evaluates the whole model, else the text its
# refusal must hold; the fields the written model must carry over unchanged)
CASES = {
    "int32": (int32_case, "cannot evaluate 'i', an input of element type int32"),
    "uint8": (uint8_case, "cannot evaluate"),
    "bool": (bool_case, "cannot evaluate"),
    "double": (double_case, "cannot evaluate"),
    "float16": (float16_case, "cannot evaluate"),
    "string": (string_case, "cannot evaluate 'ws', a weight of element type string"),
    "zero_size": (zero_size_case, "cannot evaluate"),
    "scalar": (scalar_case, "ok"),
    "rank7": (rank7_case, "cannot evaluate"),
    "sparse": (sparse_case, "cannot evaluate"),
    "microsoft": (microsoft_case, "cannot evaluate node 'gelu' (Gelu)"),
    "unknown_shape": (unknown_shape_case, "cannot evaluate"),
    "multi_output": (multi_output_case, "cannot evaluate"),
    "if": (if_case, "cannot evaluate 'cond', an input of element type bool"),
    "loop": (loop_case, "cannot evaluate"),
    "sequence": (sequence_case, "cannot evaluate"),
    "metadata": (metadata_case, "cannot evaluate node 'call_local' (LocalSoftplus)"),
    "initializer_input": (initializer_input_case, "ok"),
    "ir3": (ir3_case, "ok"),
    "output_twice": (output_twice_case, "ok"),
    "out_of_order": (out_of_order_case, "ok"),
    "node_names": (node_names_case, "ok"),
    "output_is_input": (output_is_input_case, "ok"),
    "constants": (constants_case, "ok"),
    "as_read": (as_read_case, "ok"),
    "bn_opset9": (bn_opset9_case, "ok"),
}
CARRIED = ["metadata_props", "doc_string", "model_version", "domain", "producer_name", "producer_version", "functions",
           "opset_import"]


def rules_test_args(doc):
    """The arguments of a test that optimizes its own models with a rule set: --graphopt, --work,
    --rules (regions.py's; others of this folder may share it)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphopt", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rules", required=True, help="tests/regress/optimize/concat.rules")
    return ap


def run(cmd, want_rc=0):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != want_rc:
        raise AssertionError("%s: exit %d, want %d\n%s%s" % (" ".join(cmd), p.returncode, want_rc, p.stdout, p.stderr))
    return p.stdout + p.stderr


def ort(work, model, tag, inputs=None):
    out = os.path.join(work, tag + ".json")
    cmd = ["node", os.path.join(HERE, "ort_run.js"), model, "--seed", "3", "--out", out, "--quiet"]
    run(cmd + (["--inputs", inputs] if inputs else []))
    return out, json.load(open(out))


def checked(m):
    try:
        onnx.checker.check_model(m, full_check=True)
        return True
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        return False


def compare(a, b, exact):
    """Outputs of two onnxruntime runs: the same names, types and dims; data bitwise equal
    (exact) or within 1e-4 of each output's scale."""
    assert [o["name"] for o in a["outputs"]] == [o["name"] for o in b["outputs"]], "outputs differ"
    for x, y in zip(a["outputs"], b["outputs"]):
        assert x["type"] == y["type"] and x["dims"] == y["dims"], "output %s: %s %s against %s %s" % (
            x["name"], y["type"], y["dims"], x["type"], x["dims"])
        if exact or x["type"] not in ("float32", "float64"):
            assert x["data"] == y["data"], "output %s differs" % x["name"]
            continue
        p, q = np.asarray(x["data"], np.float64), np.asarray(y["data"], np.float64)
        scale = max(np.abs(p).max() if p.size else 0.0, 1.0)
        scale = scale if np.isfinite(scale) else 1.0  # an infinity (a cast of 1e300) is compared as equal or not
        with np.errstate(invalid="ignore"):  # inf - inf, where p == q says they are equal
            diff = np.where(p == q, 0.0, np.abs(p - q))
        assert not p.size or diff.max() <= 1e-4 * scale, "output %s differs past 1e-4" % x["name"]


def check_carried(name, original, written):
    assert [i.name for i in written.graph.output] == [o.name for o in original.graph.output], "outputs differ"
    kept_inputs = [n for n in (i.name for i in original.graph.input) if n != "unused_in"]
    written_inputs = [i.name for i in written.graph.input]
    if written.ir_version < 4:  # the initializers graphopt wrote anew follow, listed as inputs
        written_inputs = written_inputs[:len(kept_inputs)]
    assert written_inputs == kept_inputs, "inputs differ"
    assert written.opset_import == original.opset_import, "opset imports differ"
    if name == "metadata":
        for field in CARRIED:
            assert getattr(written, field) == getattr(original, field), "%s not carried over" % field
        assert written.graph.doc_string == original.graph.doc_string, "the graph's doc string is lost"
        assert written.graph.value_info == original.graph.value_info, "value_info not carried over"
        assert any(n.doc_string == "calls the model's own function" for n in written.graph.node), "a node's doc string"
    if name == "sparse":
        assert written.graph.sparse_initializer == original.graph.sparse_initializer, "the sparse initializer changed"
    if name in ("if", "loop"):
        sub = [n for n in written.graph.node if n.op_type in ("If", "Loop")][0]
        orig = [n for n in original.graph.node if n.op_type in ("If", "Loop")][0]
        assert sub.attribute == orig.attribute, "a subgraph changed"
    if name == "as_read":  # no rule applied: every node as read, value_info and output declarations too
        assert written.graph.value_info == original.graph.value_info, "value_info not carried over"
        assert written.graph.output == original.graph.output, "the outputs' declarations (dim_params) changed"
        assert_as_read(original, written, "")
        assert [n.name for n in written.graph.node] == [n.name for n in original.graph.node], "nodes reordered"
    if name == "bn_opset9":
        assert_as_read(original, written, "")
    if name == "initializer_input":
        assert "w_in" in [t.name for t in written.graph.initializer], "the initializer listed as an input is lost"


def assert_as_read(original, written, rewritten):
    """Every node of original but those whose names start with rewritten ("": none) is a node of
    written, unchanged (name, attributes, doc string, inputs and outputs)."""
    kept = [n for n in original.graph.node if not (rewritten and n.name.startswith(rewritten))]
    missing = [n.name for n in kept if n not in written.graph.node]
    assert not missing, "nodes not written as read: %s" % missing


def check(args, name, builder, optimize):
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    path, out = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".rt.onnx")
    original = builder()
    onnx.save(original, path)
    run([args.graphopt, "convert", path, "-o", out])
    written = onnx.load(out)
    if checked(original):
        onnx.checker.check_model(written, full_check=True)
    check_carried(name, original, written)
    runnable = path
    if name == "node_names":  # onnxruntime refuses two nodes of one name: the original, renamed, is the reference
        renamed = onnx.load(path)
        for k, n in enumerate(renamed.graph.node):
            n.name = n.name and "%s_%d" % (n.name, k)
        runnable = os.path.join(work, name + ".renamed.onnx")
        onnx.save(renamed, runnable)
        names = [n.name for n in written.graph.node if n.name]
        assert len(names) == len(set(names)), "node names written twice: %s" % names
        assert [n.name for n in written.graph.node if n.op_type == "Elu"] == ["dup_2"], "a unique name changed: %s" % names
    a_json, a = ort(work, runnable, "ort")
    _, b = ort(work, out, "ort.rt", a_json)
    compare(a, b, True)
    if not args.rules:
        return "converted"
    opt = os.path.join(work, name + ".opt.onnx")
    said = run([args.graphopt, "optimize", path, "--rules", args.rules, "-o", opt, "-q"])
    if optimize != "ok":
        assert "regions only" in said and optimize in said, "optimize does not say '%s': %s" % (optimize, said)
    relus = re.search(r"relu (\d+) -> (\d+)", said)
    assert relus and int(relus.group(2)) < int(relus.group(1)), "the float part was not rewritten: %s" % said
    if checked(original):
        onnx.checker.check_model(onnx.load(opt), full_check=True)
    if name == "as_read":  # the float part rewritten, the rest as read
        assert_as_read(original, onnx.load(opt), "f_")
    _, c = ort(work, opt, "ort.opt", a_json)
    compare(a, c, False)
    return "converted; optimized" + (" (regions only)" if optimize != "ok" else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphopt", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rules", help="optimize with these rules too (tests/regress/optimize/concat.rules)")
    ap.add_argument("--only", help="comma-separated case names")
    args = ap.parse_args()
    failed = 0
    for name, (builder, optimize) in CASES.items():
        if args.only and name not in args.only.split(","):
            continue
        try:
            print("%-18s %s" % (name, check(args, name, builder, optimize)), flush=True)
        except (AssertionError, onnx.checker.ValidationError) as e:
            print("%-18s FAILED: %s" % (name, e), flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
