#!/usr/bin/python3
"""bench/taso-merge-probe.py: the rewrite TASO finds in SqueezeNet and Inception, made by hand,
so that its worth on this machine can be measured rather than argued.

Every Concat whose operands are all Relu(Conv(s, W_i, B_i)) over the same s (stride 1, no
dilation, one group, outputs of the same size) becomes one Relu(Conv(s, W, B)): the smaller
kernels enlarged to the largest with zeros (TASO's enlarge), W and B their concatenation (TASO's
conv merge, then relu and concat exchanged). This is what rules of tests/data/taso-bias-d3.rules
derive; graphopt's cost models decide whether it pays. Compare the two models with
`graphopt cost --cost roofline|dnnl` and `node models/ort_compare.js` (bench/README.md,
"graphopt over the zoo").

usage: bench/taso-merge-probe.py IN.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    model = onnx.load(sys.argv[1])
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    inits = {t.name: t for t in g.initializer}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers[i] = readers.get(i, 0) + 1

    def branch(value):
        """(conv, relu) when value is Relu(Conv(...)) read only by the concat; else None."""
        relu = producer.get(value)
        if relu is None or relu.op_type != "Relu" or readers.get(value) != 1:
            return None
        conv = producer.get(relu.input[0])
        if conv is None or conv.op_type != "Conv" or readers.get(relu.input[0]) != 1 or len(conv.input) != 3:
            return None
        a = attrs(conv)
        if a.get("group", 1) != 1 or any(s != 1 for s in a.get("strides", [1, 1])) or \
                any(d != 1 for d in a.get("dilations", [1, 1])):
            return None
        k = numpy_helper.to_array(inits[conv.input[1]]).shape[2:]
        pads = a.get("pads", [0, 0, 0, 0])
        if k[0] != k[1] or list(pads) != [(k[0] - 1) // 2] * 4 or k[0] % 2 == 0:
            return None  # output the size of the input: the enlarged kernel keeps it
        return conv, relu

    merged, drop = 0, set()
    for cat in list(g.node):
        if cat.op_type != "Concat" or attrs(cat).get("axis") != 1:
            continue
        parts = [branch(v) for v in cat.input]
        if len(parts) < 2 or any(p is None for p in parts) or len({p[0].input[0] for p in parts}) != 1:
            continue
        ws = [numpy_helper.to_array(inits[p[0].input[1]]) for p in parts]
        bs = [numpy_helper.to_array(inits[p[0].input[2]]) for p in parts]
        k = max(w.shape[2] for w in ws)
        big = []
        for w in ws:  # enlarge: zeros around, the kernel centred
            e = (k - w.shape[2]) // 2
            big.append(np.pad(w, ((0, 0), (0, 0), (e, e), (e, e))))
        name = cat.output[0] + "_merged"
        g.initializer.extend([numpy_helper.from_array(np.concatenate(big).astype(np.float32), name + "_W"),
                              numpy_helper.from_array(np.concatenate(bs).astype(np.float32), name + "_B")])
        conv = helper.make_node("Conv", [parts[0][0].input[0], name + "_W", name + "_B"], [name + "_conv"],
                                kernel_shape=[k, k], pads=[(k - 1) // 2] * 4, strides=[1, 1])
        relu = helper.make_node("Relu", [name + "_conv"], [cat.output[0]])
        at = list(g.node).index(cat)
        g.node.remove(cat)
        g.node.insert(at, relu)
        g.node.insert(at, conv)
        for conv_, relu_ in parts:
            drop.update([conv_.output[0], relu_.output[0]])
            g.node.remove(conv_)
            g.node.remove(relu_)
        merged += 1
    used = {i for n in g.node for i in n.input}
    for t in [t for t in g.initializer if t.name not in used]:
        g.initializer.remove(t)
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[2])
    print("%s: %d concats of convs over one input merged into one conv each" % (sys.argv[2], merged))


if __name__ == "__main__":
    main()
