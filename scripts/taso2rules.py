#!/usr/bin/env python3
"""Converts TASO's 133 shipped rules (shared/anchors/taso-rules-133.txt, decoded from
graph_subst.pb) into rulegen's rule text (ir/text.h), once; the output is committed as
tests/data/taso-133.rules.

Variables follow the file's legend (v1-v3 activations 2x4, v4-v6 matrices 4x4, v7-v9 images
2x4x5x5, v10-v12 kernels 4x4x3x3, v13-v15 4x4x1x3, v16-v18 4x4x3x1, v19 4x1x3x3, v20 scalar).
A few rules use v4-v6 as 4-D tensors (TASO's verifier is untyped): there they are renamed m1-m3
with shape 4x4x3x3, the only shape that types those rules. The file's header records every
variable's shape as `rulegen eval` options, so tests can evaluate the rules.

usage: scripts/taso2rules.py TASO-RULES.txt RULEGEN [OUT.rules]
(RULEGEN is the built rulegen binary, used to check that each rule is well-typed and true.)
"""
import itertools
import re
import subprocess
import sys

LEGEND = {}
for i in range(1, 4): LEGEND[i] = (f"x{i}", "2x4")
for i in range(4, 7): LEGEND[i] = (f"w{i-3}", "4x4")
for i in range(7, 10): LEGEND[i] = (f"i{i-6}", "2x4x5x5")
for i in range(10, 13): LEGEND[i] = (f"k{i-9}", "4x4x3x3")
for i in range(13, 16): LEGEND[i] = (f"k{i-9}", "4x4x1x3")
for i in range(16, 19): LEGEND[i] = (f"k{i-9}", "4x4x3x1")
LEGEND[19] = ("k10", "4x1x3x3")
LEGEND[20] = ("s", "scalar")
ALT = {i: (f"m{i-3}", "4x4x3x3") for i in range(4, 7)}  # v4-v6 used as 4-D tensors


def tokenize(s):
    return re.findall(r"[A-Za-z_][A-Za-z0-9_]*|[(),]", s)


def parse(toks, pos, names):
    t = toks[pos]
    if re.fullmatch(r"v\d+", t):
        return "?" + names(int(t[1:])), pos + 1
    assert toks[pos + 1] == "(", (t, toks[pos:pos + 3])
    args, pos = [], pos + 2
    while True:
        a, pos = parse(toks, pos, names)
        args.append(a)
        if toks[pos] == ")":
            pos += 1
            break
        assert toks[pos] == ","
        pos += 1
    m = re.fullmatch(r"(concat|split)(\d)(?:_(\d))?", t)
    if t == "matmul": head = "matmul"
    elif t == "ew_add": head = "ewadd"
    elif t == "ew_mul": head = "ewmul"
    elif t == "relu": head = "relu"
    elif t == "conv3x3": head = "conv2d@none"
    elif t == "conv3x3R": head = "conv2d@relu"
    elif m and m.group(1) == "concat": head = f"concat {m.group(2)}"
    elif m and m.group(1) == "split": head = f"split.{m.group(3)} {m.group(2)}"
    else: raise SystemExit(f"unknown TASO operator {t}")
    return "(" + head + " " + " ".join(args) + ")", pos


def side(text, names):
    terms = []
    for part in text.split(";"):
        toks = tokenize(part)
        term, pos = parse(toks, 0, names)
        assert pos == len(toks)
        terms.append(term)
    return " ; ".join(terms)


def with_groups(rule, choice):
    """Spells the k-th conv (marked conv2d@ACT) with groups choice[k]: TASO infers groups from
    shapes, rulegen takes them as conv2d's last parameter (default 1)."""
    parts = rule.split("conv2d@")
    out = parts[0]
    for k, rest in enumerate(parts[1:]):
        act, rest = rest.split(" ", 1)
        if choice[k] != 1: head = f"conv2d 1 1 same {act} 1 1 {choice[k]}"
        elif act != "none": head = f"conv2d 1 1 same {act}"
        else: head = "conv2d"
        out += head + " " + rest
    return out


def shape_opts(table):
    return " ".join(f"-s {n}={s}" for n, s in sorted(set(table.values())))


def main():
    src, rulegen = sys.argv[1], sys.argv[2]
    out = open(sys.argv[3], "w") if len(sys.argv) > 3 else sys.stdout
    both = dict(LEGEND)
    both.update({100 + k: v for k, v in ALT.items()})
    opts = shape_opts(both)
    lines = []
    for line in open(src):
        m = re.match(r"\s*(\d+):\s*(.*?)\s*==>\s*(.*)$", line)
        if not m: continue
        n, lhs, rhs = int(m.group(1)), m.group(2), m.group(3)
        found = False
        for table in (LEGEND, {**LEGEND, **ALT}):
            names = lambda i, t=table: t[i][0]
            marked = f"taso-{n}: {side(lhs, names)} => {side(rhs, names)}"
            convs = marked.count("conv2d@")
            for choice in itertools.product((1, 2, 4), repeat=convs):  # groups 1 first
                rule = with_groups(marked, choice)
                r = subprocess.run([rulegen, "eval", "-q", *opts.split(), "-e", rule], capture_output=True, text=True)
                if r.returncode == 0:
                    found = True
                    break
            if found: break
        if not found:
            raise SystemExit(f"rule {n} is not well-typed and true at the legend's shapes:\n{rule}\n{r.stderr}{r.stdout}")
        lines.append(rule)
    print("# TASO's 133 shipped rules (graph_subst.pb), converted by scripts/taso2rules.py from", file=out)
    print("# shared/anchors/taso-rules-133.txt. Rule taso-N is TASO's rule N. Shapes of the variables", file=out)
    print("# (each rule is well-typed and true at them; check with rulegen eval):", file=out)
    print(f"# shapes: {opts}", file=out)
    print("# TASO infers a conv's groups from shapes; here they are explicit (conv2d's last parameter).", file=out)
    print("# taso-99, -100, -130, -131 concatenate two convs into one conv with 2 groups: that holds", file=out)
    print("# exactly when both kernels have as many output channels, which is exactly when the rule", file=out)
    print("# type-checks (a grouped conv keeps an output seam only on a group boundary).", file=out)
    for l in lines: print(l, file=out)


main()
