"""Two small models for fast tests, each with the patterns the optimizer's rules aim at."""


def tiny_cnn(g):
    """Conv+bias+ReLU, Conv+BN+ReLU, two parallel convs of one input (1x1 and 3x3: mergeable
    by enlarging the kernel) concatenated, a residual Add, pooling, Gemm and Softmax."""
    x = g.input("input", [1, 3, 32, 32])
    with g.scope("conv1"):
        y = g.relu(g.conv(x, 16, 3, pad=1))
    with g.scope("conv2"):
        y = g.conv(y, 16, 3, pad=1, bias=False)
    with g.scope("bn2"):
        y = g.relu(g.bn(y))
    with g.scope("branch1x1"):
        a = g.relu(g.conv(y, 16, 1))
    with g.scope("branch3x3"):
        b = g.relu(g.conv(y, 16, 3, pad=1))
    y = g.maxpool(g.concat([a, b]), 2, 2)
    with g.scope("conv3"):
        z = g.relu(g.conv(y, 32, 3, pad=1))
    y = g.add(z, y)
    y = g.flatten(g.gap(y))
    with g.scope("fc"):
        y = g.gemm(y, 10)
    g.output(g.softmax(y, 1), "output")


def tiny_mlp(g):
    """Gemm+ReLU, two MatMuls of one input (mergeable into one) gated by Tanh and Sigmoid as in
    an LSTM, a MatMul+Add head and Softmax."""
    x = g.input("input", [1, 64])
    with g.scope("fc1"):
        h = g.relu(g.gemm(x, 128, gain=2.0))
    with g.scope("gate"):
        gate = g.unary("Sigmoid", g.linear(h, 64))
    with g.scope("cand"):
        cand = g.unary("Tanh", g.linear(h, 64))
    y = g.mul(gate, cand)
    with g.scope("head"):
        y = g.linear(y, 10)
    g.output(g.softmax(y, -1), "output")
