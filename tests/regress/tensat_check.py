#!/usr/bin/env python3
"""tests/regress/tensat_check.py FILE [--multi]: reads a TENSAT rule file as TENSAT does and
fails where it would panic. TENSAT (uwplse/tensat) splits the file on newlines, each line on
"=>", and parses each side as an egg Pattern over its Mdl language (src/model.rs: each
operator's name and child count; leaves are ?variables, numbers, or names); rw! then refuses a
right side that uses a variable its left side does not bind, and the e-graph analysis asserts
each child's kind (a number where TASO takes an integer, a name for a transpose's permutation
or a reshape's shape, a tensor elsewhere). --multi: consecutive line pairs are one rule, whose
right sides may use the variables of both left sides. Prints "FILE: N rules parse" and exits
0, or names each bad line and exits 1."""
import re
import sys

from sexpr import parse

# Mdl: name -> kind of each child (n number, s name, t tensor, p a (split ...) term)
MDL = {"ewadd": "tt", "ewmul": "tt", "smul": "tt", "transpose": "tsn", "matmul": "ntt", "conv2d": "nnnntt",
       "enlarge": "tt", "relu": "t", "tanh": "t", "sigmoid": "t", "poolavg": "tnnnnnn", "poolmax": "tnnnnnn",
       "concat": "nntt", "split_0": "p", "split_1": "p", "split": "nt", "Cpool": "nn", "Iconv": "nn",
       "Imatmul": "", "Iewmul": "", "merge": "tn", "reshape": "ts", "noop": "tt"}


def kind(t):
    if isinstance(t, list):
        return "p" if t[0] == "split" else "t"
    if t.startswith("?"):
        return "v"  # a variable binds whatever the left side matched
    return "n" if re.fullmatch(r"-?\d+", t) else "s"


def check(t, variables):
    """Raises ValueError where TENSAT would fail on term t; collects its variables."""
    if not isinstance(t, list):
        if t.startswith("?"):
            variables.add(t)
            return
        raise ValueError(f"a bare {t} where a tensor is expected")
    op, kids = t[0], t[1:]
    if not isinstance(op, str) or op not in MDL:
        raise ValueError(f"operator {op} is not in TENSAT's Mdl")
    if len(kids) != len(MDL[op]):
        raise ValueError(f"{op} takes {len(MDL[op])} children, not {len(kids)}")
    for want, k in zip(MDL[op], kids):
        got = kind(k)
        if got == "v":
            variables.add(k)
        elif got != want:
            raise ValueError(f"{op}: a {got} where TENSAT asserts a {want}")
        if isinstance(k, list):
            check(k, variables)


def main():
    path, multi = sys.argv[1], "--multi" in sys.argv[2:]
    text = open(path).read()
    if text.endswith("\n"):
        print(f"{path}: ends in a newline (TENSAT reads an empty last rule)")
        return 1
    lines = text.split("\n") if text else []
    bad = 0
    group = 2 if multi else 1
    if len(lines) % group:
        print(f"{path}: {len(lines)} lines do not pair up")
        return 1
    for i in range(0, len(lines), group):
        bound, used = set(), set()
        try:
            for line in lines[i:i + group]:
                sides = line.split("=>")
                if len(sides) != 2:
                    raise ValueError("not one '=>'")
                check(parse(sides[0]), bound)
                check(parse(sides[1]), used)
            if used - bound:
                raise ValueError(f"right side uses {sorted(used - bound)}, which the left does not bind")
        except ValueError as e:
            print(f"{path}:{i + 1}: {e}")
            bad += 1
    if not bad:
        print(f"{path}: {len(lines) // group} rules parse")
    return 1 if bad else 0


sys.exit(main())
