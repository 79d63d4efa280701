"""NASNet-A (mobile, 4 @ 1056) after Cadene's pretrainedmodels port, as torch.onnx exports it.

224x224 input; a 3x3 stride-2 stem convolution, two reduction stem cells, then three stacks
of 4 normal cells with a reduction cell between them (filters 44, 88, 176 per branch), ReLU,
7x7 average pool and the classifier. Separable convolutions are depthwise + pointwise Conv,
applied twice per branch (ReLU, sep, BN, ReLU, sep, BN); each cell sums pairs of branches and
concatenates the sums. Where the previous cell's map is twice as large it passes through the
factorized reduction (two 1x1 stride-2 average-pool + conv paths, the second shifted one pixel
by Pad + Slice, concatenated). TF's SAME-padding emulation in the reduction cells is left out
(symmetric padding k // 2 instead)."""

EPS = 1e-3
INT64_MAX = 9223372036854775807


def _bn(g, x, name, gamma=(0.8, 1.2)):
    with g.scope(name):
        return g.bn(x, EPS, gamma)


def _sep_conv(g, x, cout, k, stride, name):
    cin = g.shape[x][1]
    with g.scope(name):
        with g.scope("depthwise_conv2d"):
            y = g.conv(x, cin, k, stride, k // 2, group=cin, bias=False)
        with g.scope("pointwise_conv2d"):
            return g.conv(y, cout, 1, bias=False)


def _branch_sep(g, x, cout, k, stride, name):
    """BranchSeparables (or BranchSeparablesStem when the input has other than cout channels)."""
    with g.scope(name):
        y = _sep_conv(g, g.relu(x), cout, k, stride, "separable_1")
        y = g.relu(_bn(g, y, "bn_sep_1"))
        y = _sep_conv(g, y, cout, k, 1, "separable_2")
        return _bn(g, y, "bn_sep_2", gamma=(0.4, 0.6))


def _adjust(g, x, cout, name):
    """ReLU, 1x1 conv, BN: the cells' conv_1x1 and conv_prev_1x1."""
    with g.scope(name):
        with g.scope("conv"):
            y = g.conv(g.relu(x), cout, 1, bias=False)
        # below 1: a cell's output is larger than its inputs (sums of branches, the identity)
        return _bn(g, y, "bn", gamma=(0.6, 0.8))


def _factorized(g, x, cout, name):
    """Halve the map: two shifted 1x1 stride-2 average-pool + conv paths, concatenated."""
    with g.scope(name):
        r = g.relu(x)
        with g.scope("path_1"):
            p1 = g.conv(g.avgpool(r, 1, 2), cout // 2, 1, bias=False)
        with g.scope("path_2"):
            s = g.pad(r, [0, 0, 0, 0, 0, 0, 1, 1])
            s = g.slice(s, [1, 1], [INT64_MAX, INT64_MAX], [2, 3])
            p2 = g.conv(g.avgpool(s, 1, 2), cout - cout // 2, 1, bias=False)
        return _bn(g, g.concat([p1, p2]), "final_path_bn", gamma=(0.6, 0.8))


def _prev(g, x, p, f, name):
    """The previous cell's output brought to x's map size and f channels."""
    if g.shape[p][2] > g.shape[x][2]:
        return _factorized(g, p, f, name)
    return _adjust(g, p, f, name)


def _avg3(g, x, stride):
    return g.avgpool(x, 3, stride, 1, count_include_pad=False)


def _normal(g, x, p, f):
    xl = _adjust(g, x, f, "conv_1x1")
    xr = _prev(g, x, p, f, "conv_prev_1x1")
    c0 = g.add(_branch_sep(g, xl, f, 5, 1, "comb_iter_0_left"), _branch_sep(g, xr, f, 3, 1, "comb_iter_0_right"))
    c1 = g.add(_branch_sep(g, xr, f, 5, 1, "comb_iter_1_left"), _branch_sep(g, xr, f, 3, 1, "comb_iter_1_right"))
    c2 = g.add(_avg3(g, xl, 1), xr)
    c3 = g.add(_avg3(g, xr, 1), _avg3(g, xr, 1))
    c4 = g.add(_branch_sep(g, xl, f, 3, 1, "comb_iter_4_left"), xl)
    return g.concat([xr, c0, c1, c2, c3, c4])


def _reduction(g, a, b, f):
    """a feeds the 5x5 separable branch and the pools, b the 7x7 and 5x5 separable branches."""
    c0 = g.add(_branch_sep(g, a, f, 5, 2, "comb_iter_0_left"), _branch_sep(g, b, f, 7, 2, "comb_iter_0_right"))
    c1 = g.add(g.maxpool(a, 3, 2, 1), _branch_sep(g, b, f, 7, 2, "comb_iter_1_right"))
    c2 = g.add(_avg3(g, a, 2), _branch_sep(g, b, f, 5, 2, "comb_iter_2_right"))
    c3 = g.add(_avg3(g, c0, 1), c1)
    c4 = g.add(_branch_sep(g, c0, f, 3, 1, "comb_iter_4_left"), g.maxpool(a, 3, 2, 1))
    return g.concat([c1, c2, c3, c4])


def nasnet_a(g, filters=44, stem_filters=32, repeats=4):
    x = g.input("input", [1, 3, 224, 224])
    with g.scope("conv0"):
        with g.scope("conv"):
            c0 = g.conv(x, stem_filters, 3, 2, 0, bias=False)
        c0 = _bn(g, c0, "bn")
    with g.scope("cell_stem_0"):
        s0 = _reduction(g, _adjust(g, c0, filters // 4, "conv_1x1"), c0, filters // 4)
    with g.scope("cell_stem_1"):
        s1 = _reduction(g, _adjust(g, s0, filters // 2, "conv_1x1"),
                        _prev(g, s0, c0, filters // 2, "conv_prev_1x1"), filters // 2)
    prev, cur, idx = s0, s1, 0
    for stack, f in enumerate([filters, 2 * filters, 4 * filters]):
        if stack:
            with g.scope("reduction_cell_%d" % (stack - 1)):
                a = _prev(g, cur, prev, f, "conv_prev_1x1")
                b = _adjust(g, cur, f, "conv_1x1")
                prev, cur = cur, _reduction(g, a, b, f)
        for _ in range(repeats):
            with g.scope("cell_%d" % idx):
                prev, cur = cur, _normal(g, cur, prev, f)
            idx += 1
        idx += 2  # Cadene's numbering skips the reduction cells' places
    y = g.avgpool(g.relu(cur), 7, 1)
    y = g.flatten(y)
    with g.scope("last_linear"):
        y = g.gemm(y, 1000)
    g.output(y, "output")
