#!/usr/bin/env python3
"""The axioms a proof of rules over some operators can assert, as an axiom file.

Usage: axioms_for_ops.py AXIOMS OP,OP,... > OUT.rules

The selection verify/smt.c's select_axioms makes for a rule with every one of those operators
(an axiom fires when its source's operators are all available, or its target's where that brings
no operator of its own; the operators it brings become available), so obligations over those
operators assert the same axioms, in the same order, from OUT as from AXIOMS. Tests use it to
random-test 30-odd axioms instead of all of them (the axiom test dominates a small run's time
under ASan). Comment lines are dropped; each kept axiom line is copied as it is.
"""
import re
import sys

OP = re.compile(r"\(([A-Za-z_][A-Za-z0-9_]*)")


def side_ops(text):
    return set(OP.findall(text))


def parse(line):
    body = line.split("#", 1)[0]
    name, rest = body.split(":", 1)
    rest = re.split(r"\sif\s", rest, maxsplit=1)[0]
    src, tgt = rest.split("=>", 1)
    return side_ops(src), side_ops(tgt)


def main():
    path, ops = sys.argv[1], set(sys.argv[2].split(","))
    lines = [l.rstrip("\n") for l in open(path) if l.strip() and not l.lstrip().startswith("#")]
    sides = [parse(l) for l in lines]
    take, avail, grew = [False] * len(lines), set(ops), True
    while grew:
        grew = False
        for i, (l, r) in enumerate(sides):
            if take[i]:
                continue
            if not ((l and l <= avail) or (r and r <= avail and l <= r)):
                continue
            take[i] = grew = True
            avail |= l | r
    for i, line in enumerate(lines):
        if take[i]:
            print(line)


if __name__ == "__main__":
    main()
