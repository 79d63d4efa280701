"""Convolutional networks of the zoo, as torchvision defines them and torch.onnx exports them
in eval mode without folding BatchNormalization (the ONNX model zoo's form): ResNet-50,
ResNeXt-50 (32x4d), Inception-v3, SqueezeNet 1.1, VGG-19 and MobileNet-v2. Dropout is left
out (an eval-mode export drops it)."""


def conv_bn(g, x, cout, k, stride=1, pad=0, group=1, relu=True, eps=1e-5, gamma=(0.8, 1.2),
            names=("conv", "bn")):
    with g.scope(names[0]):
        y = g.conv(x, cout, k, stride, pad, group, bias=False)
    with g.scope(names[1]):
        y = g.bn(y, eps, gamma)
    return g.relu(y) if relu else y


def _classifier(g, x, classes=1000):
    y = g.flatten(g.gap(x))
    with g.scope("fc"):
        return g.gemm(y, classes)


# -- ResNet-50 and ResNeXt-50 ---------------------------------------------------------
def _bottleneck(g, x, planes, stride, groups, base_width, downsample):
    width = planes * base_width // 64 * groups
    y = conv_bn(g, x, width, 1, names=("conv1", "bn1"))
    y = conv_bn(g, y, width, 3, stride, 1, group=groups, names=("conv2", "bn2"))
    # the last BN of a residual branch small, so that the sum grows slowly with depth
    y = conv_bn(g, y, planes * 4, 1, relu=False, gamma=(0.2, 0.4), names=("conv3", "bn3"))
    if downsample:
        with g.scope("downsample"):
            x = conv_bn(g, x, planes * 4, 1, stride, relu=False, names=("downsample.0", "downsample.1"))
    return g.relu(g.add(y, x))


def _resnet(g, groups, base_width):
    x = g.input("input", [1, 3, 224, 224])
    y = conv_bn(g, x, 64, 7, 2, 3, names=("conv1", "bn1"))
    y = g.maxpool(y, 3, 2, 1)
    cin = 64
    for li, (planes, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]):
        for b in range(blocks):
            s = stride if b == 0 else 1
            with g.scope("layer%d" % (li + 1)), g.scope("layer%d.%d" % (li + 1, b)):
                y = _bottleneck(g, y, planes, s, groups, base_width, b == 0 and (s != 1 or cin != planes * 4))
            cin = planes * 4
    g.output(_classifier(g, y), "output")


def resnet50(g):
    _resnet(g, 1, 64)


def resnext50(g):
    _resnet(g, 32, 4)


# -- Inception-v3 (torchvision, no auxiliary head, eval) --------------------------------
def _bc(g, x, cout, k, stride=1, pad=0, name="conv"):
    """torchvision's BasicConv2d: Conv (no bias) + BatchNorm (eps 0.001) + ReLU."""
    with g.scope(name):
        return conv_bn(g, x, cout, k, stride, pad, eps=1e-3)


def _avg3(g, x):
    # F.avg_pool2d(x, 3, stride=1, padding=1): count_include_pad defaults to True
    return g.avgpool(x, 3, 1, 1, count_include_pad=True)


def _inc_a(g, x, pool_features):
    b1 = _bc(g, x, 64, 1, name="branch1x1")
    b5 = _bc(g, _bc(g, x, 48, 1, name="branch5x5_1"), 64, 5, pad=2, name="branch5x5_2")
    b3 = _bc(g, x, 64, 1, name="branch3x3dbl_1")
    b3 = _bc(g, b3, 96, 3, pad=1, name="branch3x3dbl_2")
    b3 = _bc(g, b3, 96, 3, pad=1, name="branch3x3dbl_3")
    bp = _bc(g, _avg3(g, x), pool_features, 1, name="branch_pool")
    return g.concat([b1, b5, b3, bp])


def _inc_b(g, x):
    b3 = _bc(g, x, 384, 3, 2, name="branch3x3")
    bd = _bc(g, x, 64, 1, name="branch3x3dbl_1")
    bd = _bc(g, bd, 96, 3, pad=1, name="branch3x3dbl_2")
    bd = _bc(g, bd, 96, 3, 2, name="branch3x3dbl_3")
    bp = g.maxpool(x, 3, 2)
    return g.concat([b3, bd, bp])


def _inc_c(g, x, c7):
    b1 = _bc(g, x, 192, 1, name="branch1x1")
    b7 = _bc(g, x, c7, 1, name="branch7x7_1")
    b7 = _bc(g, b7, c7, (1, 7), pad=(0, 3), name="branch7x7_2")
    b7 = _bc(g, b7, 192, (7, 1), pad=(3, 0), name="branch7x7_3")
    bd = _bc(g, x, c7, 1, name="branch7x7dbl_1")
    bd = _bc(g, bd, c7, (7, 1), pad=(3, 0), name="branch7x7dbl_2")
    bd = _bc(g, bd, c7, (1, 7), pad=(0, 3), name="branch7x7dbl_3")
    bd = _bc(g, bd, c7, (7, 1), pad=(3, 0), name="branch7x7dbl_4")
    bd = _bc(g, bd, 192, (1, 7), pad=(0, 3), name="branch7x7dbl_5")
    bp = _bc(g, _avg3(g, x), 192, 1, name="branch_pool")
    return g.concat([b1, b7, bd, bp])


def _inc_d(g, x):
    b3 = _bc(g, _bc(g, x, 192, 1, name="branch3x3_1"), 320, 3, 2, name="branch3x3_2")
    b7 = _bc(g, x, 192, 1, name="branch7x7x3_1")
    b7 = _bc(g, b7, 192, (1, 7), pad=(0, 3), name="branch7x7x3_2")
    b7 = _bc(g, b7, 192, (7, 1), pad=(3, 0), name="branch7x7x3_3")
    b7 = _bc(g, b7, 192, 3, 2, name="branch7x7x3_4")
    bp = g.maxpool(x, 3, 2)
    return g.concat([b3, b7, bp])


def _inc_e(g, x):
    b1 = _bc(g, x, 320, 1, name="branch1x1")
    b3 = _bc(g, x, 384, 1, name="branch3x3_1")
    b3 = g.concat([_bc(g, b3, 384, (1, 3), pad=(0, 1), name="branch3x3_2a"),
                   _bc(g, b3, 384, (3, 1), pad=(1, 0), name="branch3x3_2b")])
    bd = _bc(g, x, 448, 1, name="branch3x3dbl_1")
    bd = _bc(g, bd, 384, 3, pad=1, name="branch3x3dbl_2")
    bd = g.concat([_bc(g, bd, 384, (1, 3), pad=(0, 1), name="branch3x3dbl_3a"),
                   _bc(g, bd, 384, (3, 1), pad=(1, 0), name="branch3x3dbl_3b")])
    bp = _bc(g, _avg3(g, x), 192, 1, name="branch_pool")
    return g.concat([b1, b3, bd, bp])


def inception_v3(g):
    x = g.input("input", [1, 3, 299, 299])
    y = _bc(g, x, 32, 3, 2, name="Conv2d_1a_3x3")
    y = _bc(g, y, 32, 3, name="Conv2d_2a_3x3")
    y = _bc(g, y, 64, 3, pad=1, name="Conv2d_2b_3x3")
    y = g.maxpool(y, 3, 2)
    y = _bc(g, y, 80, 1, name="Conv2d_3b_1x1")
    y = _bc(g, y, 192, 3, name="Conv2d_4a_3x3")
    y = g.maxpool(y, 3, 2)
    blocks = [("Mixed_5b", _inc_a, (32,)), ("Mixed_5c", _inc_a, (64,)), ("Mixed_5d", _inc_a, (64,)),
              ("Mixed_6a", _inc_b, ()), ("Mixed_6b", _inc_c, (128,)), ("Mixed_6c", _inc_c, (160,)),
              ("Mixed_6d", _inc_c, (160,)), ("Mixed_6e", _inc_c, (192,)), ("Mixed_7a", _inc_d, ()),
              ("Mixed_7b", _inc_e, ()), ("Mixed_7c", _inc_e, ())]
    for name, fn, args in blocks:
        with g.scope(name):
            y = fn(g, y, *args)
    # The classifier's convolutions end in ReLU and BN with random statistics: keep the fc small.
    y = g.flatten(g.gap(y))
    with g.scope("fc"):
        y = g.gemm(y, 1000, gain=0.5)
    g.output(y, "output")


# -- SqueezeNet 1.1 ----------------------------------------------------------------------
def _fire(g, x, squeeze, e1, e3):
    with g.scope("squeeze"):
        s = g.relu(g.conv(x, squeeze, 1))
    with g.scope("expand1x1"):
        a = g.relu(g.conv(s, e1, 1))
    with g.scope("expand3x3"):
        b = g.relu(g.conv(s, e3, 3, pad=1))
    return g.concat([a, b])


def squeezenet(g):
    x = g.input("input", [1, 3, 224, 224])
    with g.scope("features"):
        with g.scope("features.0"):
            y = g.relu(g.conv(x, 64, 3, 2))
        y = g.maxpool(y, 3, 2, ceil=True)
        fires = [(3, 16, 64), (4, 16, 64), None, (6, 32, 128), (7, 32, 128), None,
                 (9, 48, 192), (10, 48, 192), (11, 64, 256), (12, 64, 256)]
        for f in fires:
            if f is None:
                y = g.maxpool(y, 3, 2, ceil=True)
                continue
            with g.scope("features.%d" % f[0]):
                y = _fire(g, y, f[1], f[2], f[2])
    with g.scope("classifier"), g.scope("classifier.1"):
        y = g.relu(g.conv(y, 1000, 1, gain=1.0))
    g.output(g.flatten(g.gap(y)), "output")


# -- VGG-19 --------------------------------------------------------------------------------
def vgg19(g):
    x = g.input("input", [1, 3, 224, 224])
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M",
           512, 512, 512, 512, "M", 512, 512, 512, 512, "M"]
    y, i = x, 0
    with g.scope("features"):
        for v in cfg:
            if v == "M":
                y = g.maxpool(y, 2, 2)
            else:
                with g.scope("features.%d" % i):
                    y = g.relu(g.conv(y, v, 3, pad=1))
                i += 1
            i += 1
    # adaptive_avg_pool2d to 7x7 on a 7x7 map exports to nothing
    y = g.flatten(y)
    with g.scope("classifier"):
        for j, n in [(0, 4096), (3, 4096)]:
            with g.scope("classifier.%d" % j):
                y = g.relu(g.gemm(y, n, gain=2.0))
        with g.scope("classifier.6"):
            y = g.gemm(y, 1000)
    g.output(y, "output")


# -- MobileNet-v2 ----------------------------------------------------------------------------
def _cbr6(g, x, cout, k, stride=1, group=1, relu6=True, gamma=(0.8, 1.2)):
    with g.scope("conv"):
        y = g.conv(x, cout, k, stride, (k - 1) // 2, group, bias=False)
    with g.scope("bn"):
        y = g.bn(y, gamma=gamma)
    return g.relu6(y) if relu6 else y


def mobilenet_v2(g):
    x = g.input("input", [1, 3, 224, 224])
    with g.scope("features"):
        with g.scope("features.0"):
            y = _cbr6(g, x, 32, 3, 2)
        cin, idx = 32, 1
        for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                           (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
            for i in range(n):
                stride = s if i == 0 else 1
                hidden = cin * t
                with g.scope("features.%d" % idx):
                    z = y
                    if t != 1:
                        with g.scope("expand"):
                            z = _cbr6(g, z, hidden, 1)
                    with g.scope("dw"):
                        z = _cbr6(g, z, hidden, 3, stride, group=hidden)
                    residual = stride == 1 and cin == c
                    with g.scope("project"):
                        z = _cbr6(g, z, c, 1, relu6=False, gamma=(0.3, 0.5) if residual else (0.8, 1.2))
                    y = g.add(y, z) if residual else z
                cin = c
                idx += 1
        with g.scope("features.%d" % idx):
            y = _cbr6(g, y, 1280, 1)
    y = g.flatten(g.gap(y))
    with g.scope("classifier"), g.scope("classifier.1"):
        y = g.gemm(y, 1000)
    g.output(y, "output")
