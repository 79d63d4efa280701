#!/usr/bin/env python3
"""tests/regress/exchange_expressible.py DB FORMAT: the ids of DB's rules that FORMAT (taso or
tensat) can express, one per line, decided from each rule's text and its variables' shapes
(the database's rule_vars) alone, not by the exporter's code.

TASO (its rule loader, GraphXfer::create_operator_from_pb in TASO's src/core/substitution.cc):
every variable a new input tensor of any name; operators conv2d, concat, ewadd, ewmul, split,
relu, sigmoid, tanh, smul (TASO's mul), enlarge, matmul, transpose; each mapped output an
operator's (no side a bare variable); every variable used in the source; conv2d without
dilation; enlarge with a reference tensor: a variable of the source, 4-d, with the enlarge's
kernel sizes. TASO's concat names dimensions 0-3 only: the rules' variables must have rank <= 4
(every operator keeps or lowers rank), which this script asserts rather than counts.
TENSAT (egg's Pattern over TENSAT's Mdl): the same operators and the pools and reshape, bare
variables allowed, concat of two inputs, one or two outputs, a transpose's or reshape's
parameter of two or more dimensions (a one-digit name reads as a number)."""
import sqlite3
import sys

from sexpr import parse

TASO_OPS = {"ewadd", "ewmul", "smul", "matmul", "conv2d", "relu", "tanh", "sigmoid", "transpose", "concat",
            "split.0", "split.1", "enlarge"}
TENSAT_OPS = TASO_OPS | {"poolavg", "poolmax", "reshape"}


def terms(t):
    yield t
    if isinstance(t, list):
        for k in t[1:]:
            yield from terms(k)


def variables(t):
    return [a[1:] for a in terms(t) if isinstance(a, str) and a.startswith("?")]


def expressible(text, shapes, fmt):
    src_text, tgt_text = text.split("=>")
    src = [parse(o) for o in src_text.split(";")]
    tgt = [parse(o) for o in tgt_text.split(";")]
    src_vars = {v for o in src for v in variables(o)}
    if any(v not in shapes for o in src + tgt for v in variables(o)):
        return False  # a parameter variable: rule_vars lists tensor variables only
    if any(v not in src_vars for o in tgt for v in variables(o)):
        return False
    if fmt == "taso" and any(isinstance(o, str) for o in src + tgt):
        return False
    if fmt == "tensat" and len(src) > 2:
        return False
    for o in src + tgt:
        for t in terms(o):
            if isinstance(t, list) and not term_ok(t, shapes, src_vars, fmt):
                return False
    return True


def term_ok(t, shapes, src_vars, fmt):
    op, args = t[0], t[1:]
    if op not in (TASO_OPS if fmt == "taso" else TENSAT_OPS):
        return False
    params = [a for a in args if isinstance(a, str) and not a.startswith("?")]
    if op == "conv2d" and len(params) >= 6 and params[4:6] != ["1", "1"]:
        return False  # dilated
    if op == "concat" and fmt == "tensat" and len(args) != 3:
        return False
    if fmt == "tensat" and (op == "transpose" and len(args[0]) < 2 or op == "reshape" and "x" not in args[0]):
        return False
    if op == "enlarge":
        kernel = [int(args[0]), int(args[1])]
        return any(len(shapes[v]) == 4 and shapes[v][2:] == kernel for v in src_vars)
    return True


def main():
    db, fmt = sys.argv[1], sys.argv[2]
    con = sqlite3.connect(db)
    shapes = {}
    for rule_id, var, shape in con.execute("SELECT rule_id, var, shape FROM rule_vars"):
        dims = [] if shape == "scalar" else [int(d) for d in shape.split("x")]
        assert len(dims) <= 4, f"{var} is {shape}: this script does not count TASO's concat ranks"
        shapes.setdefault(rule_id, {})[var] = dims
    for rule_id, text in con.execute("SELECT id, text FROM rules ORDER BY id"):
        if expressible(text, shapes.get(rule_id, {}), fmt):
            print(rule_id)


main()
