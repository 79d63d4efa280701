#!/usr/bin/python3
"""The model zoo: writes the models that TASO, TENSAT and PET measure as ONNX files, with
fixed-seed random weights, batch 1, opset 13, the way PyTorch's exporter writes them.

    /usr/bin/python3 models/zoo.py OUTDIR [--only NAME,...] [--list] [--no-value-info]

Needs Debian's python3-onnx (1.12) and numpy. Every model is checked before it is written:
its graph is built with the shape of every tensor known, ONNX's strict shape inference (with
type checks) must run on it and find the same shapes, and onnx.checker must accept the file.
The same command writes byte-identical files (each model's weights come from its own seed, so
--only writes the same file as a full run). Prints each model's name, node count, parameter
count (elements of all initializers) and file size.
"""
import argparse
import os
import sys
import time
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import helper, shape_inference  # noqa: E402

from zoo_graph import FLOAT, Graph  # noqa: E402
import zoo_cnn  # noqa: E402
import zoo_nasnet  # noqa: E402
import zoo_seq  # noqa: E402
import zoo_small  # noqa: E402

OPSET = 13
IR_VERSION = 8  # onnx 1.12's; onnxruntime 1.30 reads IR 3 to 11

MODELS = [
    ("tiny_cnn", zoo_small.tiny_cnn, "test model: 4 convs, BN, parallel 1x1/3x3 branches, residual"),
    ("tiny_mlp", zoo_small.tiny_mlp, "test model: Gemm, two gated MatMuls of one input, Softmax"),
    ("squeezenet", zoo_cnn.squeezenet, "SqueezeNet 1.1 (torchvision)"),
    ("resnet50", zoo_cnn.resnet50, "ResNet-50 (torchvision, BN unfolded)"),
    ("resnext50", zoo_cnn.resnext50, "ResNeXt-50 32x4d (torchvision, grouped convs)"),
    ("inception_v3", zoo_cnn.inception_v3, "Inception-v3 (torchvision, 299x299, no aux head)"),
    ("vgg19", zoo_cnn.vgg19, "VGG-19 (torchvision, no BN)"),
    ("mobilenet_v2", zoo_cnn.mobilenet_v2, "MobileNet-v2 (torchvision, ReLU6 as Clip)"),
    ("nasnet_a", zoo_nasnet.nasnet_a, "NASNet-A mobile 4@1056 (Cadene's port)"),
    ("nasrnn", zoo_seq.nasrnn, "TASO's NasRNN: 5 steps, hidden 512"),
    ("bert", zoo_seq.bert, "BERT-base: 12 layers, hidden 768, 12 heads, sequence 128"),
    ("bert2", zoo_seq.bert2, "BERT-base with 2 layers (for tests)"),
]


def seed_of(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def _vi(g, name):
    return helper.make_tensor_value_info(name, g.dtype[name], g.shape[name])


def to_model(g, description, value_info=True, inits=None, extra_inputs=()):
    produced = [o for n in g.nodes for o in n.output]
    outs = set(g.outputs)
    vis = [_vi(g, t) for t in produced if t not in outs] if value_info else []
    graph = helper.make_graph(g.nodes, g.name, [_vi(g, t) for t in list(g.inputs) + list(extra_inputs)],
                              [_vi(g, t) for t in g.outputs], g.inits if inits is None else inits,
                              value_info=vis)
    model = helper.make_model(graph, producer_name="rulegen-zoo", producer_version="1",
                              opset_imports=[helper.make_opsetid("", OPSET)], doc_string=description)
    model.ir_version = IR_VERSION
    return model


def check_shapes(g, description):
    """ONNX strict shape inference (with type checks) on the graph with its large float weights
    turned into inputs (shape inference needs their shapes, not their values): it must succeed
    and find exactly the shapes the builder computed."""
    big = lambda t: t.data_type == FLOAT and int(np.prod(t.dims)) > 64
    model = to_model(g, description, value_info=False, inits=[t for t in g.inits if not big(t)],
                     extra_inputs=[t.name for t in g.inits if big(t)])
    data = model.SerializeToString()
    onnx.checker.check_model(data)
    inferred = shape_inference.infer_shapes(data, check_type=True, strict_mode=True)
    seen = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
        t = vi.type.tensor_type
        seen[vi.name] = (t.elem_type, [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim])
    bad = []
    for n in g.nodes:
        for o in n.output:
            want = (g.dtype[o], g.shape[o])
            if seen.get(o) != want:
                bad.append("%s (%s): built %s, inferred %s" % (o, n.op_type, want, seen.get(o)))
    if bad:
        raise SystemExit("%s: shape inference disagrees with the builder:\n  %s" % (g.name, "\n  ".join(bad[:10])))


def build(name, fn, description, outdir, value_info=True):
    t0 = time.time()
    g = Graph(name, seed_of(name))
    fn(g)
    check_shapes(g, description)
    model = to_model(g, description, value_info)
    del g.inits[:]  # the model holds its copy (VGG-19: 575 MB)
    params = sum(int(np.prod(t.dims)) for t in model.graph.initializer)
    path = os.path.join(outdir, name + ".onnx")
    tmp = path + ".tmp"
    data = model.SerializeToString()
    del model
    with open(tmp, "wb") as f:
        f.write(data)
    del data
    onnx.checker.check_model(tmp)
    os.replace(tmp, path)
    return dict(name=name, nodes=len(g.nodes), params=params, bytes=os.path.getsize(path),
                inputs=" ".join("%s[%s]" % (i, "x".join(map(str, g.shape[i]))) for i in g.inputs),
                seconds=time.time() - t0)


def main():
    ap = argparse.ArgumentParser(description="Write the model zoo's ONNX models into OUTDIR.")
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--only", help="comma-separated model names (default: all)")
    ap.add_argument("--list", action="store_true", help="list the models and exit")
    ap.add_argument("--no-value-info", action="store_true",
                    help="declare only the graph's inputs and outputs, not every tensor's shape")
    a = ap.parse_args()
    table = {m[0]: m for m in MODELS}
    if a.list:
        for name, _, desc in MODELS:
            print("%-14s %s" % (name, desc))
        return 0
    if not a.outdir:
        ap.error("OUTDIR is required")
    names = [m[0] for m in MODELS]
    if a.only:
        names = [n.strip() for n in a.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in table]
        if unknown:
            ap.error("unknown model(s) %s; --list lists them" % ", ".join(unknown))
    os.makedirs(a.outdir, exist_ok=True)
    print("%-14s %6s %12s %10s %7s  %s" % ("model", "nodes", "params", "MB", "s", "inputs"))
    t0 = time.time()
    for n in names:
        _, fn, desc = table[n]
        r = build(n, fn, desc, a.outdir, not a.no_value_info)
        print("%-14s %6d %12d %10.1f %7.1f  %s" % (r["name"], r["nodes"], r["params"], r["bytes"] / 1e6,
                                                   r["seconds"], r["inputs"]), flush=True)
    print("%d model(s) in %.1f s -> %s" % (len(names), time.time() - t0, a.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
