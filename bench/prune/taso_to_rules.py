#!/usr/bin/env python3
"""Converts ../shared/anchors/taso-rules-133.txt (TASO's shipped rules, decoded) into rulegen's
rule text format, one named rule per line (taso0 .. taso132), on stdout.

TASO's names map to ours: matmul -> matmul, ew_add -> ewadd, ew_mul -> ewmul, relu -> relu,
conv3x3 -> conv2d (stride 1, same, no activation: the defaults), conv3x3R -> conv2d 1 1 same
relu, concatA -> concat A, splitA_k -> split.k A; inputs vN -> ?vN.
Usage: taso_to_rules.py [taso-rules-133.txt] > taso-133.rules
"""
import re
import sys


def term(s, i):
    """Parses one term at s[i:], returns (text, next index)."""
    m = re.compile(r"\s*([A-Za-z_0-9]+)").match(s, i)
    if not m:
        raise ValueError("expected a term at: " + s[i:])
    name, i = m.group(1), m.end()
    if re.fullmatch(r"v\d+", name):
        return "?" + name, i
    assert s[i] == "(", s[i:]
    i += 1
    args = []
    while True:
        a, i = term(s, i)
        args.append(a)
        i = len(s) - len(s[i:].lstrip())
        if s[i] == ",":
            i += 1
            continue
        assert s[i] == ")", s[i:]
        i += 1
        break
    fixed = {"matmul": "matmul", "ew_add": "ewadd", "ew_mul": "ewmul", "relu": "relu",
             "conv3x3": "conv2d", "conv3x3R": "conv2d 1 1 same relu"}
    if name in fixed:
        head = fixed[name]
    elif re.fullmatch(r"concat\d", name):
        head = "concat " + name[-1]
    elif re.fullmatch(r"split\d_\d", name):
        head = "split.%s %s" % (name[-1], name[5])
    else:
        raise ValueError("unknown operator " + name)
    return "(%s %s)" % (head, " ".join(args)), i


def side(s):
    out = []
    for part in s.split(" ; "):
        t, i = term(part, 0)
        assert part[i:].strip() == "", part
        out.append(t)
    return " ; ".join(out)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "../shared/anchors/taso-rules-133.txt"
    print("# TASO's 133 shipped rules (graph_subst.pb), converted by bench/prune/taso_to_rules.py")
    print("# shapes: v1-v3 2x4, v4-v6 4x4, v7-v9 2x4x5x5, v10-v12 4x4x3x3, v13-v15 4x4x1x3,")
    print("#         v16-v18 4x4x3x1, v19 4x1x3x3, v20 scalar")
    for line in open(path):
        m = re.match(r"\s*(\d+): (.*)  ==>  (.*)$", line.rstrip("\n"))
        if not m:
            continue
        print("taso%s: %s => %s" % (m.group(1), side(m.group(2)), side(m.group(3))))


main()
