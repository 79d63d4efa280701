#!/usr/bin/python3
"""bench/graphopt-import.py: how importing a model grows with its size. Writes chains of N
nodes (x[1,16] through Add of a bias, Relu, Mul by a scalar, Softmax, over and over: one
initializer per two nodes, an opaque node per four, value_info for every tensor, as the zoo's
models have) and times `graphopt info` on each, best of REPEAT runs. Linear import shows as
time ratios near the size ratios (2.5 and 2 from 20k to 50k to 100k); a quadratic step as their
squares.

usage: bench/graphopt-import.py GRAPHOPT [OUT [REPEAT [N...]]]
  (default OUT build/bench-import, REPEAT 3, N 5000 20000 50000 100000)
"""
import os
import subprocess
import sys
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

WIDTH = 16


def chain(n, path):
    nodes, inits, infos, prev = [], [], [], "x"
    for i in range(n):
        kind, y = ("Add", "Relu", "Mul", "Softmax")[i % 4], "t%d" % i
        ins = [prev]
        if kind in ("Add", "Mul"):
            w = "w%d" % i
            size, value = (WIDTH, 0.01) if kind == "Add" else (1, 0.5)
            inits.append(numpy_helper.from_array(np.full([size], value, np.float32), w))
            ins.append(w)
        attrs = {"axis": -1} if kind == "Softmax" else {}
        nodes.append(helper.make_node(kind, ins, [y], name="/l%d/%s" % (i, kind), **attrs))
        infos.append(helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, WIDTH]))
        prev = y
    graph = helper.make_graph(nodes, "chain%d" % n, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, WIDTH])],
                              [infos[-1]], inits, value_info=infos[:-1])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    save(model, path)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    graphopt = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "build/bench-import"
    repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    sizes = [int(a) for a in sys.argv[4:]] or [5000, 20000, 50000, 100000]
    os.makedirs(out, exist_ok=True)
    print("%8s %10s %8s %12s %12s" % ("nodes", "MB", "seconds", "size ratio", "time ratio"))
    last = None
    for n in sizes:
        path = os.path.join(out, "chain%d.onnx" % n)
        if not os.path.exists(path):
            chain(n, path)
        best = None
        for _ in range(repeat):
            t0 = time.monotonic()
            subprocess.run([graphopt, "info", path], check=True, stdout=subprocess.DEVNULL)
            t = time.monotonic() - t0
            best = t if best is None else min(best, t)
        ratios = ("%12.2f %12.2f" % (n / last[0], best / last[1])) if last else ""
        print("%8d %10.1f %8.2f %s" % (n, os.path.getsize(path) / 1e6, best, ratios), flush=True)
        last = (n, best)


if __name__ == "__main__":
    main()
