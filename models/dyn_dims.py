#!/usr/bin/python3
"""Dynamic dimensions stay dynamic (issue 41, item 3).

Models with a symbolic batch dimension ('N') as exporters write them: PyTorch's flatten before a
classifier as Reshape to [-1, K], and the same through Shape -> Gather -> Unsqueeze -> Concat ->
Reshape. graphopt imports them at N=1 (no --dim) or at --dim's value, optimizes there, and must
write a model that keeps N symbolic (inputs, outputs), keeps the shape plumbing and the
Reshape's [-1, K] as read, and computes the original's outputs in onnxruntime at other batch
sizes (2 and 3 here). A rewrite that holds only at the value imported (merging two reshapes into
one reshape to the sizes at N=1) must be dropped, said, and the other rewrites kept.

    /usr/bin/python3 models/dyn_dims.py --graphopt build/tools/graphopt --work DIR --rules RULES
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
BATCHES = (2, 3)


def init(name, a):
    return numpy_helper.from_array(np.asarray(a), name)


def model(nodes, inputs, outputs, inits, name, opset=13, domains=()):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains],
                          producer_name="dyn_dims")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def cnn():
    """Two convs of one input concatenated (merge.rules makes them one), pooled, flattened both
    ways PyTorch writes it, a Gemm on one and a Relu on the other."""
    r = np.random.RandomState(5)
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["x", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Concat", ["c1", "c2"], ["cat"], name="cat", axis=1),
        helper.make_node("Relu", ["cat"], ["act"], name="act"),
        helper.make_node("GlobalAveragePool", ["act"], ["pool"], name="pool"),
        helper.make_node("Reshape", ["pool", "flat_shape"], ["flat"], name="flatten_const"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y1"], name="fc", transB=1),
        helper.make_node("Shape", ["pool"], ["shp"], name="shape"),
        helper.make_node("Gather", ["shp", "zero"], ["n"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="unsqueeze"),
        helper.make_node("Concat", ["n1", "minus1"], ["dyn_shape"], name="cat_shape", axis=0),
        helper.make_node("Reshape", ["pool", "dyn_shape"], ["flat2"], name="flatten_dyn"),
        helper.make_node("Relu", ["flat2"], ["y2"], name="relu_out"),
    ]
    inits = [init("w1", r.randn(4, 3, 3, 3).astype(np.float32)), init("w2", r.randn(4, 3, 3, 3).astype(np.float32)),
             init("flat_shape", np.array([-1, 8], np.int64)), init("fc_w", r.randn(5, 8).astype(np.float32)),
             init("fc_b", r.randn(5).astype(np.float32)), init("zero", np.array(0, np.int64)),
             init("axes0", np.array([0], np.int64)), init("minus1", np.array([-1], np.int64))]
    return model(nodes, [helper.make_tensor_value_info("x", F, ["N", 3, 8, 8])],
                 [helper.make_tensor_value_info("y1", F, ["N", 5]), helper.make_tensor_value_info("y2", F, ["N", 8])],
                 inits, "cnn")


def reshapes():
    """A flatten then a reshape to [-1, 2, 4] (merging them into one reshape holds only at the N
    imported: the sizes it is written with are that N's), beside two relus concatenated (merging
    them holds at every N)."""
    nodes = [
        helper.make_node("Flatten", ["x"], ["f"], name="flatten", axis=1),
        helper.make_node("Reshape", ["f", "shape3"], ["y1"], name="unflatten"),
        helper.make_node("Relu", ["a"], ["ra"], name="relu_a"),
        helper.make_node("Relu", ["b"], ["rb"], name="relu_b"),
        helper.make_node("Concat", ["ra", "rb"], ["y2"], name="cat", axis=1),
    ]
    inputs = [helper.make_tensor_value_info("x", F, ["N", 8, 1, 1]), helper.make_tensor_value_info("a", F, ["N", 4]),
              helper.make_tensor_value_info("b", F, ["N", 4])]
    outputs = [helper.make_tensor_value_info("y1", F, ["N", 2, 4]), helper.make_tensor_value_info("y2", F, ["N", 8])]
    return model(nodes, inputs, outputs, [init("shape3", np.array([-1, 2, 4], np.int64))], "reshapes")


def autopad(gelu):
    """A conv and a max pool at stride 2 with auto_pad SAME_UPPER over symbolic H and W: their
    padding depends on the size (one more row at an odd one), so they stay as read; with gelu a
    com.microsoft Gelu after them, which graphopt does not evaluate."""
    r = np.random.RandomState(3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", strides=[2, 2], auto_pad="SAME_UPPER"),
             helper.make_node("MaxPool", ["c"], ["p"], name="pool", kernel_shape=[3, 3], strides=[2, 2],
                              auto_pad="SAME_UPPER"),
             helper.make_node("Relu", ["p"], ["r"], name="relu")]
    if gelu:
        nodes.append(helper.make_node("Gelu", ["r"], ["y"], name="gelu", domain="com.microsoft"))
    else:
        nodes[-1].output[0] = "y"
    m = model(nodes, [helper.make_tensor_value_info("x", F, ["N", 4, "H", "W"])],
              [helper.make_tensor_value_info("y", F, ["N", 8, None, None])],
              [init("w", r.randn(8, 4, 3, 3).astype(np.float32))], "autopad_gelu" if gelu else "autopad",
              domains=("com.microsoft",) if gelu else ())
    return m


def reshapes_gelu():
    """reshapes() with a com.microsoft Gelu on its second output: graphopt cannot evaluate the
    model, so no rewrite can be checked at other values of N, and none is kept."""
    m = reshapes()
    g = m.graph
    g.node[-1].output[0] = "cat"
    nodes = list(g.node) + [helper.make_node("Gelu", ["cat"], ["y2"], name="gelu", domain="com.microsoft")]
    return model(nodes, list(g.input), list(g.output), list(g.initializer), "reshapes_gelu", domains=("com.microsoft",))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        sys.exit("FAILED (exit %d): %s\n%s%s" % (p.returncode, " ".join(cmd), p.stdout, p.stderr))
    return p.stdout + p.stderr


def ort(work, path, inputs, tag):
    """onnxruntime's outputs of the model at path on inputs {name: array}."""
    fin, fout = os.path.join(work, tag + ".in.json"), os.path.join(work, tag + ".out.json")
    json.dump({"inputs": [{"name": k, "dims": list(v.shape), "data": v.ravel().tolist()} for k, v in inputs.items()]},
              open(fin, "w"))
    run(["node", os.path.join(HERE, "ort_run.js"), path, "--inputs", fin, "--out", fout, "--quiet"])
    return {o["name"]: (o["dims"], np.asarray(o["data"], np.float64)) for o in json.load(open(fout))["outputs"]}


def symbolic(path):
    """The dim_params of the model's inputs and outputs, by name."""
    m = onnx.load(path)
    return {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in list(m.graph.input) +
            list(m.graph.output)}


def check(work, orig, written, what):
    """The written model keeps the original's symbolic inputs and outputs, passes onnx.checker and
    computes its outputs in onnxruntime at each of BATCHES."""
    assert symbolic(written) == symbolic(orig), "%s: inputs/outputs %s, the original's %s" % (
        what, symbolic(written), symbolic(orig))
    onnx.checker.check_model(onnx.load(written), full_check=True)
    m = onnx.load(orig)
    for n in BATCHES:
        r = np.random.RandomState(n)
        inputs = {}
        for v in m.graph.input:
            dims = [n if d.dim_param else d.dim_value for d in v.type.tensor_type.shape.dim]
            inputs[v.name] = r.uniform(-1, 1, dims).astype(np.float32)
        a, b = ort(work, orig, inputs, "orig%d" % n), ort(work, written, inputs, "out%d" % n)
        for name, (dims, data) in a.items():
            assert b[name][0] == dims, "%s at N=%d: output %s is %s, not %s" % (what, n, name, b[name][0], dims)
            scale = max(np.abs(data).max(), 1.0)
            diff = np.abs(b[name][1] - data).max()
            assert diff <= 1e-4 * scale, "%s at N=%d: output %s differs by %g" % (what, n, name, diff)
    print("ok: %s keeps N symbolic and agrees with the original in onnxruntime at N=%s" % (
        what, " and ".join(map(str, BATCHES))))


def initializers(path):
    return {t.name: numpy_helper.to_array(t).tolist() for t in onnx.load(path).graph.initializer}


def ops(path):
    return [n.op_type for n in onnx.load(path).graph.node]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphopt", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rules", required=True, help="merge.rules (tests/regress/optimize)")
    ap.add_argument("--reshape-rules", required=True, help="a rule merging two reshapes (tests/regress/optimize)")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    g = a.graphopt
    paths = {}
    for name, build in (("cnn", cnn), ("reshapes", reshapes), ("autopad", lambda: autopad(False)),
                        ("autopad_gelu", lambda: autopad(True)), ("reshapes_gelu", reshapes_gelu)):
        paths[name] = os.path.join(a.work, name + ".onnx")
        onnx.save(build(), paths[name])
    cnn_in, w = paths["cnn"], lambda n: os.path.join(a.work, n)

    # convert: nothing rewritten, nothing pinned; without --dim, a note says N=1
    out = run([g, "convert", cnn_in, "-o", w("cnn_conv.onnx")])
    assert "dimension 'N' (input 'x', axis 0) has no --dim: imported and optimized at N=1" in out, out
    assert "computes the original's outputs at N=2" in out, out
    check(a.work, cnn_in, w("cnn_conv.onnx"), "convert")
    inits = initializers(w("cnn_conv.onnx"))
    assert inits.get("flat_shape") == [-1, 8], "Reshape's [-1, 8] written as %s" % inits.get("flat_shape")
    assert [-1, 8] not in [v for k, v in inits.items() if k != "flat_shape"] and [1, 8] not in inits.values(), inits
    assert {"Shape", "Gather", "Unsqueeze"} <= set(ops(w("cnn_conv.onnx"))), ops(w("cnn_conv.onnx"))

    # optimize at --dim N=4: the convs merge, the model written holds at N=2 and 3
    out = run([g, "optimize", cnn_in, "--rules", a.rules, "--dim", "N=4", "-o", w("cnn_opt.onnx"), "-q"])
    assert "conv2d 2 -> 1" in out and "computes the original's outputs at N=5" in out, out
    check(a.work, cnn_in, w("cnn_opt.onnx"), "optimize")
    assert initializers(w("cnn_opt.onnx")).get("flat_shape") == [-1, 8]
    assert "Shape" in ops(w("cnn_opt.onnx")), ops(w("cnn_opt.onnx"))

    # a rewrite that holds only at N=1 is dropped, the other kept
    for search in ("backtrack", "eqsat"):
        o = w("reshapes_%s.onnx" % search)
        out = run([g, "optimize", paths["reshapes"], "--rules", a.reshape_rules, "--unproved-rules", "--search", search,
                   "-o", o, "-q"])
        assert "rewrote the model only at the values it was imported at" in out and "relu 2 -> 1" in out, out
        assert "reshape 2 -> 1" not in out, out
        check(a.work, paths["reshapes"], o, "optimize --search %s with a rewrite that holds at N=1 only" % search)
        assert ops(o).count("Relu") == 1, ops(o)
    print("ok: the reshape merge that holds only at N=1 was dropped, the relu merge kept")

    # SAME padding at stride 2 depends on H and W: kept as read, the model written right at odd sizes
    # (in onnxruntime), whether graphopt evaluates the model or not
    for name in ("autopad", "autopad_gelu"):
        run([g, "convert", paths[name], "--dim", "H=8", "--dim", "W=8", "-o", w(name + "_conv.onnx")])
        check(a.work, paths[name], w(name + "_conv.onnx"), "convert %s (auto_pad SAME_UPPER at stride 2)" % name)
    print("ok: auto_pad SAME at stride 2 over symbolic sizes written as it holds at every size")

    # a model graphopt cannot evaluate: no rewrite can be checked at other N, so none is kept
    o = w("reshapes_gelu_opt.onnx")
    out = run([g, "optimize", paths["reshapes_gelu"], "--rules", a.reshape_rules, "--unproved-rules", "-o", o, "-q"])
    assert "so no rewrite can be checked at other values of them: no rewrite is kept" in out, out
    check(a.work, paths["reshapes_gelu"], o, "optimize of a model graphopt cannot evaluate")
    print("ok: where the model cannot be evaluated at other N, no rewrite is kept")

    # a model its author pinned to N=1 (Reshape to [1, 4]): graphopt cannot run it at N=2 either,
    # so the model written is typed there, and says that its outputs were not compared
    pinned = os.path.join(a.work, "pinned.onnx")
    onnx.save(model([helper.make_node("Reshape", ["x", "s"], ["r"], name="pin"), helper.make_node("Relu", ["r"], ["y"])],
                    [helper.make_tensor_value_info("x", F, ["N", 4])], [helper.make_tensor_value_info("y", F, [1, 4])],
                    [init("s", np.array([1, 4], np.int64))], "pinned"), pinned)
    out = run([g, "convert", pinned, "-o", w("pinned_conv.onnx")])
    assert "types at N=2 (its outputs not compared there: the original is not evaluated" in out, out
    assert symbolic(w("pinned_conv.onnx"))["x"] == ["N", 4]
    print("ok: a model that runs only at N=1 is written, typed at other N and said not compared there")

    # dims without a name are unknowns apart: each is checked at its own value, not one shared
    apart = os.path.join(a.work, "unnamed.onnx")
    onnx.save(model([helper.make_node("Relu", ["u"], ["ru"], name="relu_u"), helper.make_node("Tanh", ["v"], ["tv"])],
                    [helper.make_tensor_value_info("u", F, [None, 4]), helper.make_tensor_value_info("v", F, [None, 3])],
                    [helper.make_tensor_value_info("ru", F, [None, 4]), helper.make_tensor_value_info("tv", F, [None, 3])],
                    [], "unnamed"), apart)
    out = run([g, "convert", apart, "-o", w("unnamed_conv.onnx")])
    sets = re.findall(r"outputs at unnamed dims (\d+), (\d+) too", out)
    assert len(sets) == 2 and all(p != q for p, q in sets), out
    print("ok: two dims without a name checked at values apart (%s)" % sets)


if __name__ == "__main__":
    main()
