"""A small ONNX graph builder for the model zoo (models/zoo.py).

It writes graphs the way PyTorch's exporter does (scoped node names such as
/layer1/layer1.0/conv1/Conv, parameters named layer1.0.conv1.weight, Linear on 3-D
inputs as MatMul + Add, LayerNorm and GELU decomposed) and tracks the shape of every
tensor it makes, so that zoo.py can declare value_info for all of them and compare
them with ONNX's own shape inference.

Weights come from the builder's numpy RandomState, scaled so that activations stay in a
sane range: He-normal convolutions and linear layers, BatchNormalization with positive
variances near 1, small biases.
"""
import contextlib

import numpy as np
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
_NP = {FLOAT: np.float32, INT64: np.int64}


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _pads(p):
    """ONNX pads [top, left, bottom, right] from an int, (ph, pw) or 4 values."""
    if isinstance(p, int):
        return [p, p, p, p]
    if len(p) == 2:
        return [p[0], p[1], p[0], p[1]]
    return list(p)


def _window(size, k, s, pb, pe, d=1, ceil=False):
    span = size + pb + pe - d * (k - 1) - 1
    return (-(-span // s) if ceil else span // s) + 1


def broadcast(a, b):
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + list(a)
    b = [1] * (n - len(b)) + list(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ValueError("cannot broadcast %s and %s" % (a, b))
        out.append(max(x, y))
    return out


class Graph:
    def __init__(self, name, seed):
        self.name = name
        self.rng = np.random.RandomState(seed)
        self.nodes = []
        self.inits = []
        self.inputs = []
        self.outputs = []
        self.shape = {}
        self.dtype = {}
        self._scope = []
        self._used = set()
        self._consts = {}

    # -- naming -----------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self, name):
        self._scope.append(str(name))
        try:
            yield
        finally:
            self._scope.pop()

    def _unique(self, base):
        name, i = base, 0
        while name in self._used:
            i += 1
            name = "%s_%d" % (base, i)
        self._used.add(name)
        return name

    def pname(self, leaf):
        """Parameter name: the scope joined by dots, as PyTorch names state_dict keys."""
        parts = []
        for c in self._scope:
            if parts and c.startswith(parts[-1] + "."):
                parts[-1] = c  # ("layer1", "layer1.0") names one module, layer1.0
            else:
                parts.append(c)
        return ".".join(parts + [leaf])

    # -- tensors ----------------------------------------------------------------
    def input(self, name, shape, dtype=FLOAT):
        self._used.add(name)
        self.shape[name], self.dtype[name] = list(shape), dtype
        self.inputs.append(name)
        return name

    def output(self, t, name):
        """Rename tensor t to name and declare it a graph output."""
        if t != name:
            for n in self.nodes:
                n.output[:] = [name if o == t else o for o in n.output]
                n.input[:] = [name if i == t else i for i in n.input]
            self.shape[name], self.dtype[name] = self.shape.pop(t), self.dtype.pop(t)
            self._used.add(name)
        self.outputs.append(name)
        return name

    def param(self, leaf, arr):
        name = self._unique(self.pname(leaf))
        arr = np.ascontiguousarray(arr)
        self.inits.append(numpy_helper.from_array(arr, name))
        self.shape[name] = list(arr.shape)
        self.dtype[name] = INT64 if arr.dtype == np.int64 else FLOAT
        return name

    def const(self, value, dtype=FLOAT):
        """A constant initializer, shared between all uses of the same value."""
        arr = np.asarray(value, dtype=_NP[dtype])
        key = (dtype, arr.shape, arr.tobytes())
        if key not in self._consts:
            tag = "_".join(str(v) for v in arr.reshape(-1)[:4]) if arr.size <= 4 else "%d" % len(self._consts)
            name = self._unique("const_%s_%s" % ("i64" if dtype == INT64 else "f", tag.replace("-", "m")))
            self.inits.append(numpy_helper.from_array(arr, name))
            self.shape[name], self.dtype[name] = list(arr.shape), dtype
            self._consts[key] = name
        return self._consts[key]

    # random weights
    def normal(self, shape, std):
        # in chunks: the same stream as one call, without a float64 copy of VGG's 411 MB fc6
        out = np.empty(int(np.prod(shape)), np.float32)
        for i in range(0, out.size, 1 << 20):
            n = min(1 << 20, out.size - i)
            out[i:i + n] = self.rng.standard_normal(n) * std
        return out.reshape(shape)

    def uniform(self, shape, lo, hi):
        return self.rng.uniform(lo, hi, shape).astype(np.float32)

    # -- nodes ------------------------------------------------------------------
    def node(self, op, inputs, shapes, dtype=FLOAT, **attrs):
        """Add a node; shapes is one output shape or a list of them. Returns its output(s)."""
        multi = isinstance(shapes, tuple)
        shapes = list(shapes) if multi else [shapes]
        path = "/" + "/".join(self._scope) if self._scope else ""
        nname = self._unique("%s/%s" % (path, op))
        outs = []
        for i, s in enumerate(shapes):
            o = self._unique("%s_output_%d" % (nname, i))
            self.shape[o], self.dtype[o] = list(s), dtype
            outs.append(o)
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=nname, **attrs))
        return tuple(outs) if multi else outs[0]

    # -- convolution networks ---------------------------------------------------
    def conv(self, x, cout, k, stride=1, pad=0, group=1, dilation=1, bias=True, gain=2.0):
        n, cin, h, w = self.shape[x]
        kh, kw = _pair(k)
        sh, sw = _pair(stride)
        dh, dw = _pair(dilation)
        pads = _pads(pad)
        fan_in = cin // group * kh * kw
        wname = self.param("weight", self.normal((cout, cin // group, kh, kw), np.sqrt(gain / fan_in)))
        ins = [x, wname]
        if bias:
            ins.append(self.param("bias", self.normal((cout,), 0.01)))
        oh = _window(h, kh, sh, pads[0], pads[2], dh)
        ow = _window(w, kw, sw, pads[1], pads[3], dw)
        attrs = dict(kernel_shape=[kh, kw], strides=[sh, sw], pads=pads, dilations=[dh, dw], group=group)
        return self.node("Conv", ins, [n, cout, oh, ow], **attrs)

    def bn(self, x, eps=1e-5, gamma=(0.8, 1.2)):
        c = self.shape[x][1]
        ins = [x,
               self.param("weight", self.uniform((c,), *gamma)),
               self.param("bias", self.normal((c,), 0.05)),
               self.param("running_mean", self.normal((c,), 0.05)),
               self.param("running_var", self.uniform((c,), 0.8, 1.2))]
        return self.node("BatchNormalization", ins, self.shape[x], epsilon=eps, momentum=0.9)

    def maxpool(self, x, k, stride, pad=0, ceil=False):
        return self._pool("MaxPool", x, k, stride, pad, ceil)

    def avgpool(self, x, k, stride, pad=0, ceil=False, count_include_pad=False):
        return self._pool("AveragePool", x, k, stride, pad, ceil, count_include_pad=int(count_include_pad))

    def _pool(self, op, x, k, stride, pad, ceil, **extra):
        n, c, h, w = self.shape[x]
        kh, kw = _pair(k)
        sh, sw = _pair(stride)
        pads = _pads(pad)
        shape = [n, c, _window(h, kh, sh, pads[0], pads[2], 1, ceil), _window(w, kw, sw, pads[1], pads[3], 1, ceil)]
        return self.node(op, [x], shape, kernel_shape=[kh, kw], strides=[sh, sw], pads=pads,
                         ceil_mode=int(ceil), **extra)

    def gap(self, x):
        return self.node("GlobalAveragePool", [x], self.shape[x][:2] + [1, 1])

    def flatten(self, x, axis=1):
        s = self.shape[x]
        return self.node("Flatten", [x], [int(np.prod(s[:axis])), int(np.prod(s[axis:]))], axis=axis)

    def gemm(self, x, nout, gain=1.0):
        """A PyTorch Linear on a 2-D input: Gemm with the weight as [out, in], transB=1."""
        m, k = self.shape[x]
        wname = self.param("weight", self.normal((nout, k), np.sqrt(gain / k)))
        bname = self.param("bias", self.normal((nout,), 0.01))
        return self.node("Gemm", [x, wname, bname], [m, nout], alpha=1.0, beta=1.0, transB=1)

    def pad(self, x, pads):
        """Constant zero padding; pads as ONNX orders them (all begins, then all ends)."""
        s = self.shape[x]
        r = len(s)
        shape = [d + pads[i] + pads[i + r] for i, d in enumerate(s)]
        return self.node("Pad", [x, self.const(pads, INT64)], shape, mode="constant")

    def slice(self, x, starts, ends, axes):
        shape = list(self.shape[x])
        for st, en, ax in zip(starts, ends, axes):
            d = shape[ax]
            st2 = max(0, min(d, st + d if st < 0 else st))
            en2 = max(0, min(d, en + d if en < 0 else en))
            shape[ax] = max(0, en2 - st2)
        ins = [x, self.const(starts, INT64), self.const(ends, INT64), self.const(axes, INT64)]
        return self.node("Slice", ins, shape, dtype=self.dtype[x])

    # -- element-wise and tensor operators --------------------------------------
    def unary(self, op, x, **attrs):
        return self.node(op, [x], self.shape[x], **attrs)

    def relu(self, x):
        return self.unary("Relu", x)

    def relu6(self, x):
        """torch.nn.ReLU6 as the exporter writes it: Clip with min 0 and max 6 as inputs."""
        return self.node("Clip", [x, self.const(0.0), self.const(6.0)], self.shape[x])

    def binary(self, op, a, b):
        return self.node(op, [a, b], broadcast(self.shape[a], self.shape[b]), dtype=self.dtype[a])

    def add(self, a, b):
        return self.binary("Add", a, b)

    def mul(self, a, b):
        return self.binary("Mul", a, b)

    def concat(self, xs, axis=1):
        shape = list(self.shape[xs[0]])
        shape[axis] = sum(self.shape[x][axis] for x in xs)
        return self.node("Concat", list(xs), shape, axis=axis)

    def matmul(self, a, b):
        sa, sb = self.shape[a], self.shape[b]
        if sa[-1] != sb[-2]:
            raise ValueError("matmul %s x %s" % (sa, sb))
        shape = broadcast(sa[:-2], sb[:-2]) + [sa[-2], sb[-1]]
        return self.node("MatMul", [a, b], shape)

    def linear(self, x, nout, std=None):
        """A PyTorch Linear on an N-D input: MatMul with the weight as [in, out], then Add(bias, .)."""
        k = self.shape[x][-1]
        std = np.sqrt(1.0 / k) if std is None else std
        wname = self.param("weight", self.normal((k, nout), std))
        bname = self.param("bias", self.normal((nout,), 0.01))
        y = self.matmul(x, wname)
        return self.add(bname, y)

    def reshape(self, x, shape):
        assert int(np.prod(shape)) == int(np.prod(self.shape[x])), (shape, self.shape[x])
        return self.node("Reshape", [x, self.const(shape, INT64)], shape)

    def transpose(self, x, perm):
        s = self.shape[x]
        return self.node("Transpose", [x], [s[p] for p in perm], perm=list(perm))

    def gather(self, data, idx, axis=0):
        sd, si = self.shape[data], self.shape[idx]
        return self.node("Gather", [data, idx], sd[:axis] + si + sd[axis + 1:], dtype=self.dtype[data], axis=axis)

    def softmax(self, x, axis=-1):
        return self.unary("Softmax", x, axis=axis)

    def reduce_mean(self, x, axes, keepdims=1):
        s = list(self.shape[x])
        axes = [a % len(s) for a in axes]
        shape = [1 if i in axes else d for i, d in enumerate(s)] if keepdims else \
            [d for i, d in enumerate(s) if i not in axes]
        return self.node("ReduceMean", [x], shape, axes=[a - len(s) for a in axes], keepdims=keepdims)

    def layer_norm(self, x, eps=1e-12):
        """LayerNorm over the last axis as PyTorch's opset-13 export decomposes it."""
        c = self.shape[x][-1]
        mean = self.reduce_mean(x, [-1])
        d = self.binary("Sub", x, mean)
        var = self.reduce_mean(self.binary("Pow", d, self.const(2.0)), [-1])
        std = self.unary("Sqrt", self.add(var, self.const(eps)))
        y = self.binary("Div", d, std)
        y = self.mul(y, self.param("weight", self.uniform((c,), 0.9, 1.1)))
        return self.add(y, self.param("bias", self.normal((c,), 0.02)))

    def gelu(self, x):
        """x * 0.5 * (1 + erf(x / sqrt(2))), as PyTorch exports nn.GELU."""
        e = self.unary("Erf", self.binary("Div", x, self.const(1.4142135381698608)))
        return self.mul(self.mul(x, self.add(e, self.const(1.0))), self.const(0.5))
